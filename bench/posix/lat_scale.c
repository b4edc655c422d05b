// SPDX-License-Identifier: MIT
// Process creation as the system fills: fork+exit (as lat_proc's) while
// `alive` processes of this benchmark exist, itself and alive - 1 idle
// children blocked in a read of a pipe.  The counts are fixed (1, 100,
// 1000) whatever BENCH_SCALE is; only the iterations scale.  At the end the
// pipe closes and every idle child exits and is reaped.
#include "bench.h"

#include <stdio.h>
#include <unistd.h>

#define MAX_ALIVE 1000

static int idle[MAX_ALIVE];
static int nidle;

// One more child that waits for end-of-file on rfd, then exits.
static void add_idle(int rfd, int wfd)
{
	int pid = fork();
	if (pid < 0)
		bench_die("fork (idle child)");
	if (pid == 0) {
		char c;
		close(wfd);
		_exit(read(rfd, &c, 1) == 0 ? 0 : 1);
	}
	idle[nidle++] = pid;
}

int main(int argc, char **argv)
{
	static const int alive[] = { 1, 100, MAX_ALIVE };
	int fd[2];
	bench_init(argc, argv);
	if (pipe(fd))
		bench_die("pipe");
	for (unsigned i = 0; i < sizeof alive / sizeof alive[0]; i++) {
		char params[32];
		while (nidle < alive[i] - 1)
			add_idle(fd[0], fd[1]);
		snprintf(params, sizeof params, "alive=%d", alive[i]);
		bench_result("scale.fork_exit", params, bench_measure(bench_loop_fork_exit, 0, bench_iters(200)),
			     "instructions");
	}
	close(fd[1]);
	for (int i = 0; i < nidle; i++)
		bench_reap(idle[i]);
	return 0;
}
