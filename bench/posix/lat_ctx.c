// SPDX-License-Identifier: MIT
// lmbench lat_ctx: `procs` processes in a ring of pipes pass a one-byte token;
// each, on receiving it, sums its own `size_kb` of private data (a cache
// footprint) and passes it on.  The figure is the time per hop minus the same
// work done in a single process without a switch (a write and read of its own
// pipe plus the sum), so it is the context switch alone, as lmbench reports.
// Sizes and process counts are those of 004 Tables 5.3-5.6 (with 000 Table 3's
// 8 processes).  Under icount caches are not modelled: the footprint adds no
// misses, only the summing instructions, which the overhead removes.
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const int procs_list[] = { 2, 5, 8, 10, 20, 40, 60 };
static const int sizes_kb[] = { 0, 1, 4, 16, 512 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static volatile int sink;

// Sums n ints; the result goes to a volatile sink so the loop stays.
static void sum_data(const int *data, size_t n)
{
	int s = 0;
	for (size_t i = 0; i < n; i++)
		s += data[i];
	sink = s;
}

static int *make_data(int size_kb)
{
	size_t n = (size_t)size_kb * 256;
	int *d = calloc(n ? n : 1, sizeof(int));
	if (!d)
		bench_die("calloc");
	for (size_t i = 0; i < n; i++)
		d[i] = (int)i;
	return d;
}

// One hop of work: take the token from rfd, sum, pass it to wfd.
static int hop(int rfd, int wfd, const int *data, size_t n)
{
	char c;
	if (read(rfd, &c, 1) != 1)
		return 0;
	sum_data(data, n);
	return write(wfd, &c, 1) == 1;
}

// A ring member: passes the token until the ring closes.
static void member(int rfd, int wfd, int size_kb)
{
	int *data = make_data(size_kb);
	while (hop(rfd, wfd, data, (size_t)size_kb * 256))
		;
	_exit(0);
}

struct ring {
	int procs, size_kb;
	int rfd, wfd;     // the parent's ends
	int *data;
	int pids[64];
};

// Builds the ring: pipe i leads from member i to member i+1; the parent is 0.
static void ring_start(struct ring *r)
{
	int first[2], prev_r;
	if (pipe(first))
		bench_die("pipe");
	prev_r = first[0];
	for (int i = 1; i < r->procs; i++) {
		int p[2];
		if (pipe(p))
			bench_die("pipe");
		r->pids[i] = fork();
		if (r->pids[i] < 0)
			bench_die("fork");
		if (r->pids[i] == 0) {
			close(first[1]);
			close(p[0]);
			member(prev_r, p[1], r->size_kb);
		}
		close(prev_r);
		close(p[1]);
		prev_r = p[0];
	}
	r->wfd = first[1];
	r->rfd = prev_r;
	r->data = make_data(r->size_kb);
}

static void ring_stop(struct ring *r)
{
	close(r->wfd);
	close(r->rfd);
	for (int i = 1; i < r->procs; i++)
		bench_reap(r->pids[i]);
	free(r->data);
}

// n trips of the token around the ring: procs hops each, the parent's
// included (it sums its own data after taking the token back).
static void do_rounds(long n, void *a)
{
	struct ring *r = a;
	char c = 't';
	while (n--) {
		if (write(r->wfd, &c, 1) != 1 || read(r->rfd, &c, 1) != 1)
			bench_die("ring");
		sum_data(r->data, (size_t)r->size_kb * 256);
	}
}

// One process, no switch: the same pipe write, read and sum per hop.
static void do_overhead(long n, void *a)
{
	struct ring *r = a;
	while (n--)
		if (!hop(r->rfd, r->wfd, r->data, (size_t)r->size_kb * 256))
			bench_die("overhead pipe");
}

static double overhead(int size_kb, long iters)
{
	int p[2];
	char c = 't';
	if (pipe(p) || write(p[1], &c, 1) != 1)
		bench_die("pipe");
	struct ring r = { .size_kb = size_kb, .rfd = p[0], .wfd = p[1], .data = make_data(size_kb) };
	double v = bench_measure(do_overhead, &r, iters);
	free(r.data);
	close(p[0]);
	close(p[1]);
	return v;
}

static double ctx(int procs, int size_kb, long hops)
{
	struct ring r = { .procs = procs, .size_kb = size_kb };
	long rounds = hops / procs < 2 ? 2 : hops / procs;
	ring_start(&r);
	double per_hop = bench_measure(do_rounds, &r, rounds) / procs;
	ring_stop(&r);
	return per_hop - overhead(size_kb, rounds * procs);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	long hops = bench_iters(1200);
	for (unsigned s = 0; s < NELEM(sizes_kb); s++) {
		for (unsigned p = 0; p < NELEM(procs_list); p++) {
			char params[48];
			snprintf(params, sizeof params, "procs=%d size_kb=%d", procs_list[p], sizes_kb[s]);
			bench_result("lmbench.ctx", params, ctx(procs_list[p], sizes_kb[s], hops), "instructions");
		}
	}
	return 0;
}
