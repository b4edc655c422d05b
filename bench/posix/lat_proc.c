// SPDX-License-Identifier: MIT
// lmbench lat_proc: process creation.  fork_exit: fork, the child exits, the
// parent waits.  fork_execve: the child execs `hello` (a static program that
// exits).  fork_sh: the child runs `/bin/sh -c hello`.  Each figure is one
// whole create-run-reap cycle, as the parent sees it.
#include "bench.h"

static void do_fork_sh(long n, void *a)
{
	char *const argv[] = { "sh", "-c", a, 0 };
	while (n--)
		bench_run("/bin/sh", argv);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	char *hello = (char *)bench_sibling("hello");
	bench_result("lmbench.fork_exit", "", bench_measure(bench_loop_fork_exit, 0, bench_iters(200)), "instructions");
	bench_result("lmbench.fork_execve", "", bench_measure(bench_loop_exec, hello, bench_iters(100)), "instructions");
	bench_result("lmbench.fork_sh", "", bench_measure(do_fork_sh, hello, bench_iters(50)), "instructions");
	return 0;
}
