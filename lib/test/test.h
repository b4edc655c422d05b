/* SPDX-License-Identifier: MIT */
/*
 * In-guest tests.  TEST_CASE("group.name", "description") { ... } registers
 * a test; test_run_all() runs them in link order and prints one line each,
 *     TEST <id> <description>: ok           or   ... : FAIL <why>
 * then "TESTS DONE: <n> passed, <m> failed".  The host harness
 * (tests/system/conftest.py) finds the IDs in the source and reads the lines.
 */
#ifndef PECAN_TEST_H
#define PECAN_TEST_H

struct test_case {
	const char *id, *desc;
	void (*fn)(void);
};

#define TEST_CAT2(a, b) a##b
#define TEST_CAT(a, b) TEST_CAT2(a, b)
#define TEST_CASE(id, desc)                                                        \
	static void TEST_CAT(test_fn_, __LINE__)(void);                            \
	static const struct test_case TEST_CAT(test_case_, __LINE__)               \
		__attribute__((used, section("pecan_tests"), aligned(8))) =        \
			{ id, desc, TEST_CAT(test_fn_, __LINE__) };                \
	static void TEST_CAT(test_fn_, __LINE__)(void)

void test_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Fail the running test with a reason and return from it if cond is false. */
#define EXPECT(cond, ...)                       \
	do {                                    \
		if (!(cond)) {                  \
			test_fail(__VA_ARGS__); \
			return;                 \
		}                               \
	} while (0)

/* Runs every registered test; returns the number that failed. */
int test_run_all(void);
/* The same for the tests whose ID starts with prefix (one boot's share of a program). */
int test_run_matching(const char *prefix);

#endif
