// SPDX-License-Identifier: MIT
// lmbench lat_proc: process creation.  fork_exit: fork, the child exits, the
// parent waits.  fork_execve: the child execs `hello` (a static program that
// exits).  fork_sh: the child runs `/bin/sh -c hello`.  Each figure is one
// whole create-run-reap cycle, as the parent sees it.
#include "bench.h"

#include <unistd.h>

static void do_fork_exit(long n, void *a)
{
	(void)a;
	while (n--) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		bench_reap(pid);
	}
}

static void do_fork_execve(long n, void *a)
{
	const char *hello = a;
	char *const argv[] = { (char *)hello, 0 };
	char *const envp[] = { 0 };
	while (n--) {
		pid_t pid = fork();
		if (pid == 0) {
			execve(hello, argv, envp);
			_exit(127);
		}
		bench_reap(pid);
	}
}

static void do_fork_sh(long n, void *a)
{
	const char *hello = a;
	char *const argv[] = { "sh", "-c", (char *)hello, 0 };
	char *const envp[] = { "PATH=/bin:/usr/bin", 0 };
	while (n--) {
		pid_t pid = fork();
		if (pid == 0) {
			execve("/bin/sh", argv, envp);
			_exit(127);
		}
		bench_reap(pid);
	}
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	char *hello = (char *)bench_sibling("hello");
	bench_result("lmbench.fork_exit", "", bench_measure(do_fork_exit, 0, bench_iters(200)), "instructions");
	bench_result("lmbench.fork_execve", "", bench_measure(do_fork_execve, hello, bench_iters(100)), "instructions");
	bench_result("lmbench.fork_sh", "", bench_measure(do_fork_sh, hello, bench_iters(50)), "instructions");
	return 0;
}
