// SPDX-License-Identifier: MIT
// The in-guest test runner: one fixed line per test and a closing summary.
#include "test.h"
#include "../c/stdio.h"
#include "../fmt/fmt.h"

extern const struct test_case __start_pecan_tests[], __stop_pecan_tests[];

static char reason[160];
static int failed_now;

void test_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnfmt(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	failed_now = 1;
}

static int starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

int test_run_all(void)
{
	return test_run_matching("");
}

int test_run_matching(const char *prefix)
{
	int passed = 0, failed = 0;
	for (const struct test_case *t = __start_pecan_tests; t < __stop_pecan_tests; t++) {
		if (!starts_with(t->id, prefix))
			continue;
		failed_now = 0;
		t->fn();
		if (failed_now) {
			printf("TEST %s %s: FAIL %s\n", t->id, t->desc, reason);
			failed++;
		} else {
			printf("TEST %s %s: ok\n", t->id, t->desc);
			passed++;
		}
	}
	printf("TESTS DONE: %d passed, %d failed\n", passed, failed);
	return failed;
}
