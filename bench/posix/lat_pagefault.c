// SPDX-License-Identifier: MIT
// lmbench lat_pagefault and its anonymous-memory twin: the cost of one page
// fault, as (time to map, touch every page of, and unmap a region) minus
// (time to map and unmap it untouched), divided by the number of pages.
// file: a MAP_SHARED read-only mapping of a file on tmpfs (lmbench's
// "Pagefaults on /tmp/mb"; Linux maps neighbouring cached pages on each fault,
// fault-around, which the per-page figure includes, as it does in lmbench).
// anon: first write to private anonymous memory (a zeroed page each).
#include "bench.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PF_FILE "/tmp/bench.pagefault"
#define PAGE 4096L
#define REGION_PAGES 256L

struct region {
	int fd;       // -1: anonymous
	int touch;    // touch every page before unmapping
};

static void do_region(long n, void *a)
{
	struct region *r = a;
	size_t len = REGION_PAGES * PAGE;
	while (n--) {
		char *p = r->fd < 0 ? mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
				    : mmap(0, len, PROT_READ, MAP_SHARED, r->fd, 0);
		if (p == MAP_FAILED)
			bench_die("mmap");
		for (long i = 0; r->touch && i < REGION_PAGES; i++) {
			if (r->fd < 0)
				((volatile char *)p)[i * PAGE] = 1;
			else
				(void)((volatile char *)p)[i * PAGE];
		}
		munmap(p, len);
	}
}

static double per_fault(int fd, long iters)
{
	struct region touched = { fd, 1 }, bare = { fd, 0 };
	double t = bench_measure(do_region, &touched, iters);
	double b = bench_measure(do_region, &bare, iters);
	return (t - b) / REGION_PAGES;
}

static int make_file(void)
{
	static char page[PAGE];
	int fd = open(PF_FILE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		bench_die("open " PF_FILE);
	for (long i = 0; i < REGION_PAGES; i++)
		if (write(fd, page, PAGE) != PAGE)
			bench_die("write " PF_FILE);
	return fd;
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	int fd = make_file();
	bench_result("lmbench.pagefault", "memory=file", per_fault(fd, bench_iters(20)), "instructions");
	bench_result("lmbench.pagefault", "memory=anon", per_fault(-1, bench_iters(20)), "instructions");
	close(fd);
	unlink(PF_FILE);
	return 0;
}
