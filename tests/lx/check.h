/* SPDX-License-Identifier: MIT */
/*
 * The report format of lx's test programs: "ok NAME" or "FAIL NAME: detail"
 * per check, then "PROGRAM done, N failed"; the exit status says whether
 * any failed.  The same programs pass unchanged on Linux.
 */
#ifndef LX_TEST_CHECK_H
#define LX_TEST_CHECK_H

#include <errno.h>
#include <stdio.h>

static int fails;

/* got must be want_ret; a want_ret of -1 must come with errno want_errno. */
static void check(const char *name, long got, long want_ret, int want_errno)
{
	int e = errno;
	if (got == want_ret && (want_ret != -1 || e == want_errno)) {
		printf("ok %s\n", name);
		return;
	}
	printf("FAIL %s: got %ld errno %d, want %ld errno %d\n", name, got, e, want_ret,
	       want_errno);
	fails++;
}

/* The last line; returns main's exit status. */
static int checks_done(const char *program)
{
	printf("%s done, %d failed\n", program, fails);
	return fails != 0;
}

#endif
