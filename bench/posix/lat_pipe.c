// SPDX-License-Identifier: MIT
// lmbench lat_pipe and bw_pipe.  pipe_lat: one byte sent to a child and back
// over two pipes, one figure per round trip (000 Table 3 "Pipe", Table 4).
// pipe_bw: a child writes 64 KiB chunks into a pipe, the parent reads them;
// MB (10^6 bytes) per second of guest time, where under icount one second is
// 10^9 guest instructions.
#include "bench.h"

#include <signal.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

static char rbuf[CHUNK];       /* the reader's (bench_read_exactly) */

struct pipes {
	int to_child[2];
	int to_parent[2];
};

static void do_round_trip(long n, void *a)
{
	struct pipes *p = a;
	while (n--)
		bench_round_trip(p->to_child[1], p->to_parent[0]);
}

static double pipe_latency(long iters)
{
	struct pipes p;
	if (pipe(p.to_child) || pipe(p.to_parent))
		bench_die("pipe");
	int pid = bench_spawn_echo(p.to_child[0], p.to_parent[1], p.to_child[1]);
	double v = bench_measure(do_round_trip, &p, iters);
	close(p.to_child[1]);
	bench_reap(pid);
	close(p.to_child[0]);
	close(p.to_parent[0]);
	close(p.to_parent[1]);
	return v;
}

static void writer(int fd, long chunks)
{
	static char buf[CHUNK];
	for (long i = 0; i < chunks; i++)
		if (write(fd, buf, CHUNK) != CHUNK)
			_exit(1);
	_exit(0);
}

static double pipe_bandwidth(long chunks)
{
	int fd[2];
	if (pipe(fd))
		bench_die("pipe");
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		writer(fd[1], chunks + 1);
	}
	close(fd[1]);
	bench_read_exactly(fd[0], CHUNK, rbuf, CHUNK, "read pipe");   // warm-up: the child is running
	uint64_t t0 = bench_now();
	bench_read_exactly(fd[0], chunks * (long)CHUNK, rbuf, CHUNK, "read pipe");
	uint64_t t1 = bench_now();
	bench_reap(pid);
	close(fd[0]);
	return (double)chunks * CHUNK / 1e6 / ((double)(t1 - t0) / 1e9);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	bench_result("lmbench.pipe_lat", "", pipe_latency(bench_iters(2000)), "instructions");
	bench_result("lmbench.pipe_bw", "chunk_kb=64", pipe_bandwidth(bench_iters(256)), "MB_per_s");
	return 0;
}
