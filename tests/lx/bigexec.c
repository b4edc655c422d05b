/* SPDX-License-Identifier: MIT */
/*
 * execve's argument limits as Linux's: one string may be up to 128 KiB
 * with its NUL (MAX_ARG_STRLEN), and all of them (with their pointers) a
 * quarter of RLIMIT_STACK.  The program runs itself (argv[0], so start it
 * by a path) with big arguments; the child checks what it got.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define KIB 1024

static char *self;

/* The child's side: argv = self "child" N LEN then N-3 more; BIG's length is LEN. */
static int child(int argc, char **argv)
{
	long n = atol(argv[2]), len = atol(argv[3]);
	const char *big = getenv("BIG");
	if (argc != n || !big || (long)strlen(big) != len)
		return 3;
	for (long i = 4; i < argc; i++)
		if (strcmp(argv[i], "arg"))
			return 4;
	return 0;
}

static char *string_of(size_t n, const char *prefix)
{
	char *s = malloc(n + 1);
	size_t p = strlen(prefix);
	memcpy(s, prefix, p);
	memset(s + p, 'x', n - p);
	s[n] = 0;
	return s;
}

/* Run self with nargs arguments in all and BIG= an env string of biglen bytes. */
static int run(long nargs, size_t biglen)
{
	char **argv = calloc((size_t)nargs + 1, sizeof(char *));
	char num[32], len[32];
	snprintf(num, sizeof(num), "%ld", nargs);
	snprintf(len, sizeof(len), "%zu", biglen);
	argv[0] = self;
	argv[1] = "child";
	argv[2] = num;
	argv[3] = len;
	for (long i = 4; i < nargs; i++)
		argv[i] = "arg";
	char *big = string_of(biglen + 4, "BIG=");
	char *envp[] = { big, NULL };
	pid_t c = fork();
	if (c == 0) {
		execve(self, argv, envp);
		_exit(100 + errno);
	}
	int st = -1;
	waitpid(c, &st, 0);
	free(big);
	free(argv);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

/* execve's own result (it fails, so it returns): -1 and errno, or 0 if it ran. */
static long exec_fails(char **argv, char **envp)
{
	pid_t c = fork();
	if (c == 0) {
		execve(self, argv, envp);
		_exit(100 + errno);
	}
	int st;
	waitpid(c, &st, 0);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	if (code >= 100) {
		errno = code - 100;
		return -1;
	}
	return code;
}

/* Use about kib KiB of stack, a frame at a time. */
static int deep(int kib)
{
	volatile char frame[1024];
	frame[0] = (char)kib;
	return kib ? deep(kib - 1) + frame[0] - (char)kib : 0;
}

/* Run self "deep" KIB under an RLIMIT_STACK of lim bytes: its exit status or 128 + signal. */
static int run_deep(rlim_t lim, const char *kib)
{
	pid_t c = fork();
	if (c == 0) {
		struct rlimit r = { lim, RLIM_INFINITY };
		setrlimit(RLIMIT_STACK, &r);
		char *argv[] = { self, "deep", (char *)kib, NULL };
		execve(self, argv, (char *[]){ NULL });
		_exit(100 + errno);
	}
	int st;
	waitpid(c, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "child"))
		return child(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "deep"))
		return deep(atoi(argv[2]));
	self = argv[0];
	struct rlimit st = { 8UL << 20, RLIM_INFINITY };
	setrlimit(RLIMIT_STACK, &st);               /* the room is then 2 MiB */
	check("a 100 KiB environment string", run(4, 100 * KIB), 0, 0);
	check("5,000 arguments", run(5000, 10), 0, 0);
	check("a string of 128 KiB with its NUL", run(4, 128 * KIB - 1 - 4), 0, 0);

	char *too_long = string_of(129 * KIB, "BIG=");
	char *env1[] = { too_long, NULL };
	char *args[] = { self, "child", "0", "0", NULL };   /* if it ran: status 3 */
	check("a 129 KiB string: E2BIG", exec_fails(args, env1), -1, E2BIG);
	too_long[128 * KIB] = 0;                    /* 128 KiB and a NUL: one byte too many */
	check("128 KiB without the NUL: E2BIG", exec_fails(args, env1), -1, E2BIG);

	char *many[20];                             /* 20 * 120 KiB: more than 2 MiB in all */
	for (int i = 0; i < 19; i++)
		many[i] = string_of(120 * KIB, "E=");
	many[19] = NULL;
	check("more than a quarter of RLIMIT_STACK in all: E2BIG", exec_fails(args, many), -1, E2BIG);

	check("2 MiB of stack under RLIMIT_STACK 8 MiB", run_deep(8UL << 20, "2048"), 0, 0);
	check("2 MiB of stack under RLIMIT_STACK 1 MiB: SIGSEGV", run_deep(1UL << 20, "2048"),
	      128 + SIGSEGV, 0);
	st.rlim_cur = 1UL << 20;                    /* the room is then 256 KiB */
	setrlimit(RLIMIT_STACK, &st);
	check("300 KiB of strings under RLIMIT_STACK 1 MiB: E2BIG", run(4, 300 * KIB), 100 + E2BIG, 0);
	return checks_done("bigexec");
}
