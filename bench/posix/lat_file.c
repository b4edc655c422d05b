// SPDX-License-Identifier: MIT
// A file as the UNIX counterpart of a Mungi object (seed 002 Table 1,
// "Object create + access + delete"): file.create_delete is open with
// O_CREAT, a one-byte write (the first touch), close and unlink of a file
// in /tmp; file.create is the open and close alone, file.delete the unlink.
#include "bench.h"

#include <fcntl.h>
#include <unistd.h>

static const char path[] = "lat_file.tmp";

static void make(void)
{
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "x", 1) != 1 || close(fd))
		bench_die("create");
}

static void cycle(long n, void *unused)
{
	(void)unused;
	while (n--) {
		make();
		if (unlink(path))
			bench_die("unlink");
	}
}

static void creates(long n, void *unused)
{
	(void)unused;
	while (n--) {
		int fd = open(path, O_CREAT | O_RDWR, 0600);
		if (fd < 0 || close(fd))
			bench_die("open");
	}
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	long n = bench_iters(1000);
	bench_result("file.create_delete", "", bench_measure(cycle, 0, n), "instructions");
	unlink(path);
	bench_result("file.create", "", bench_measure(creates, 0, n), "instructions");
	uint64_t total = 0;
	for (long i = 0; i < n; i++) {
		make();
		uint64_t t0 = bench_now();
		if (unlink(path))
			bench_die("unlink");
		total += bench_now() - t0;
	}
	bench_result("file.delete", "", (double)total / (double)n, "instructions");
	return 0;
}
