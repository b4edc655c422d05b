// SPDX-License-Identifier: MIT
// lmbench lat_mmap: map a file region of size_kb, touch one byte every 16 KiB
// (and at least the first page), unmap it; one figure per mapping cycle.
// The seeds report 4 KiB and 8 MiB (000 Table 3, hbench "Mmap Latency").
#include "bench.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define MMAP_FILE "/tmp/bench.mmap"
#define STRIDE (16 * 1024L)

struct mapping {
	int fd;
	size_t len;
};

static void do_mmap(long n, void *a)
{
	struct mapping *m = a;
	while (n--) {
		char *p = mmap(0, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
		if (p == MAP_FAILED)
			bench_die("mmap");
		for (size_t off = 0; off < m->len; off += STRIDE)
			((volatile char *)p)[off] = 1;
		munmap(p, m->len);
	}
}

int main(int argc, char **argv)
{
	static const long sizes_kb[] = { 4, 8192 };
	bench_init(argc, argv);
	int fd = open(MMAP_FILE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 8192 * 1024L) != 0)
		bench_die("create " MMAP_FILE);
	for (unsigned i = 0; i < sizeof sizes_kb / sizeof sizes_kb[0]; i++) {
		struct mapping m = { fd, (size_t)sizes_kb[i] * 1024 };
		char params[32];
		snprintf(params, sizeof params, "size_kb=%ld", sizes_kb[i]);
		bench_result("lmbench.mmap", params, bench_measure(do_mmap, &m, bench_iters(200)), "instructions");
	}
	close(fd);
	unlink(MMAP_FILE);
	return 0;
}
