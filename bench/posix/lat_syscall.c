// SPDX-License-Identifier: MIT
// lmbench lat_syscall and lat_proc "procedure": the null system call (getpid),
// one-byte read and write, stat, fstat, open+close, and a procedure call;
// clock_gettime(CLOCK_MONOTONIC) and gettimeofday through the C library (the
// vDSO where the system has one).
// read uses /dev/zero (reading /dev/null would return end-of-file at once, as
// lmbench notes); write uses /dev/null; stat and open use a file in /tmp.
#include "bench.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define STAT_FILE "/tmp/bench.lat_syscall"

static int fd_zero, fd_null, fd_file;

static void do_getpid(long n, void *a)
{
	(void)a;
	while (n--)
		getpid();
}

static void do_read(long n, void *a)
{
	char c;
	(void)a;
	while (n--)
		if (read(fd_zero, &c, 1) != 1)
			bench_die("read /dev/zero");
}

static void do_write(long n, void *a)
{
	char c = 0;
	(void)a;
	while (n--)
		if (write(fd_null, &c, 1) != 1)
			bench_die("write /dev/null");
}

static void do_stat(long n, void *a)
{
	struct stat st;
	(void)a;
	while (n--)
		if (stat(STAT_FILE, &st) != 0)
			bench_die("stat");
}

static void do_fstat(long n, void *a)
{
	struct stat st;
	(void)a;
	while (n--)
		if (fstat(fd_file, &st) != 0)
			bench_die("fstat");
}

static void do_open_close(long n, void *a)
{
	(void)a;
	while (n--) {
		int fd = open(STAT_FILE, O_RDONLY);
		if (fd < 0)
			bench_die("open");
		close(fd);
	}
}

static void do_clock_gettime(long n, void *a)
{
	struct timespec ts;
	(void)a;
	while (n--)
		if (clock_gettime(CLOCK_MONOTONIC, &ts))
			bench_die("clock_gettime");
}

static void do_gettimeofday(long n, void *a)
{
	struct timeval tv;
	(void)a;
	while (n--)
		if (gettimeofday(&tv, NULL))
			bench_die("gettimeofday");
}

// A call the compiler can neither inline nor drop (lmbench's use_int).
__attribute__((noinline)) static int proc_callee(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

static void do_proc_call(long n, void *a)
{
	(void)a;
	while (n--)
		proc_callee((int)n);
}

static void open_all(void)
{
	fd_zero = open("/dev/zero", O_RDONLY);
	fd_null = open("/dev/null", O_WRONLY);
	fd_file = open(STAT_FILE, O_RDWR | O_CREAT, 0644);
	if (fd_zero < 0 || fd_null < 0 || fd_file < 0)
		bench_die("open /dev/zero, /dev/null or " STAT_FILE);
}

int main(int argc, char **argv)
{
	bench_init(argc, argv);
	open_all();
	bench_result("lmbench.getpid", "", bench_measure(do_getpid, 0, bench_iters(20000)), "instructions");
	bench_result("lmbench.read", "", bench_measure(do_read, 0, bench_iters(10000)), "instructions");
	bench_result("lmbench.write", "", bench_measure(do_write, 0, bench_iters(10000)), "instructions");
	bench_result("lmbench.stat", "", bench_measure(do_stat, 0, bench_iters(5000)), "instructions");
	bench_result("lmbench.fstat", "", bench_measure(do_fstat, 0, bench_iters(10000)), "instructions");
	bench_result("lmbench.open_close", "", bench_measure(do_open_close, 0, bench_iters(5000)), "instructions");
	bench_result("lmbench.clock_gettime", "", bench_measure(do_clock_gettime, 0, bench_iters(20000)),
		     "instructions");
	bench_result("lmbench.gettimeofday", "", bench_measure(do_gettimeofday, 0, bench_iters(20000)),
		     "instructions");
	bench_result("lmbench.proc_call", "", bench_measure(do_proc_call, 0, bench_iters(100000)), "instructions");
	unlink(STAT_FILE);
	return 0;
}
