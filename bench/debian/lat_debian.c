// SPDX-License-Identifier: MIT
// Debian's userland on an ext2 disk (make bench-debian): the same static
// program runs as the first process of lx (lx.root=disk) and chrooted into
// the same image mounted by native Linux, and times
//   debian.bash_true        fork + exec of Debian's dynamic bash -c true, and wait
//   debian.ls_l files=1000  ls -l of a directory of 1,000 files (output to /dev/null)
//   debian.tar_xzf          tar xzf of a gzipped tree of the image's own files (kib= the
//                           tree's size: python3.11's library and /usr/share/doc, about 12 MiB)
//   debian.create_delete size_kb=4   open(O_CREAT), write 4 KiB, close, unlink
//   debian.stat, debian.open_close   of a file in that 1,000-file directory
// all in DIR on the ext2 disk.  Usage: lat_debian system=S scale=N dir=DIR.
// Prints META, RESULT and STATUS lines and "BENCH DONE" (docs/bench-method.md).
#include "bench.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char work[256] = "/root/bench";
static char big[] = "d1000/f0999";          // the last entry of the 1,000-file directory

// Runs argv (an absolute path first) with output to /dev/null; fails unless status 0.
static void run_quiet(char *const argv[])
{
	int pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		char *envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };
		execve(argv[0], argv, envp);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		bench_die(argv[0]);
}

static void bash_true(long n, void *unused)
{
	(void)unused;
	char *argv[] = { "/bin/bash", "-c", "true", NULL };
	while (n--)
		run_quiet(argv);
}

static void ls_l(long n, void *unused)
{
	(void)unused;
	char *argv[] = { "/bin/ls", "-l", "d1000", NULL };
	while (n--)
		run_quiet(argv);
}

static void create_delete(long n, void *unused)
{
	(void)unused;
	static char block[4096];
	while (n--) {
		int fd = open("f4k", O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, block, sizeof(block)) != (ssize_t)sizeof(block) || close(fd))
			bench_die("create");
		if (unlink("f4k"))
			bench_die("unlink");
	}
}

static void stats(long n, void *unused)
{
	(void)unused;
	struct stat st;
	while (n--)
		if (stat(big, &st))
			bench_die("stat");
}

static void open_close(long n, void *unused)
{
	(void)unused;
	while (n--) {
		int fd = open(big, O_RDONLY);
		if (fd < 0 || close(fd))
			bench_die("open");
	}
}

// The fixtures, untimed: the 1,000-file directory and the tarball; the
// tree's size in KiB (du of its sources).
static long setup(void)
{
	mkdir(work, 0755);
	if (chdir(work))
		bench_die(work);
	mkdir("d1000", 0755);
	for (int i = 0; i < 1000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "d1000/f%04d", i);
		int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, name, 11) != 11 || close(fd))
			bench_die(name);
	}
	char *tar[] = { "/bin/tar", "czf", "tree.tgz", "-C", "/", "usr/lib/python3.11", "usr/share/doc",
			NULL };
	run_quiet(tar);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cd / && du -sck usr/lib/python3.11 usr/share/doc | "
		 "tail -n 1 >%s/du.out", work);
	char *du[] = { "/bin/sh", "-c", cmd, NULL };
	run_quiet(du);
	long kib = 0;
	FILE *f = fopen("du.out", "r");
	if (!f || fscanf(f, "%ld", &kib) != 1)
		bench_die("du.out");
	fclose(f);
	return kib;
}

// tar xzf into a fresh directory; the removal after each is not timed.
static double tar_xzf(long n)
{
	char *argv[] = { "/bin/tar", "xzf", "tree.tgz", "-C", "x", NULL };
	char *rm[] = { "/bin/rm", "-rf", "x", NULL };
	uint64_t total = 0;
	for (long i = 0; i <= n; i++) {
		if (mkdir("x", 0755))
			bench_die("mkdir x");
		uint64_t t0 = bench_now();
		run_quiet(argv);
		if (i)                          // the first is the warm-up
			total += bench_now() - t0;
		run_quiet(rm);
	}
	return (double)total / (double)n;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "system=", 7))
			setenv("BENCH_SYSTEM", argv[i] + 7, 1);
		else if (!strncmp(argv[i], "scale=", 6))
			setenv("BENCH_SCALE", argv[i] + 6, 1);
		else if (!strncmp(argv[i], "dir=", 4))
			snprintf(work, sizeof(work), "%s", argv[i] + 4);
	}
	bench_init(argc, argv);
	long kib = setup();
	bench_result("debian.bash_true", "", bench_measure(bash_true, 0, bench_iters(20)),
		     "instructions");
	bench_result("debian.ls_l", "files=1000", bench_measure(ls_l, 0, bench_iters(5)),
		     "instructions");
	char params[32];
	snprintf(params, sizeof(params), "kib=%ld", kib);
	bench_result("debian.tar_xzf", params, tar_xzf(bench_iters(3)), "instructions");
	bench_result("debian.create_delete", "size_kb=4",
		     bench_measure(create_delete, 0, bench_iters(200)), "instructions");
	bench_result("debian.stat", "", bench_measure(stats, 0, bench_iters(1000)), "instructions");
	bench_result("debian.open_close", "", bench_measure(open_close, 0, bench_iters(1000)),
		     "instructions");
	printf("BENCH DONE\n");
	fflush(stdout);
	sync();
	return 0;
}
