/* SPDX-License-Identifier: MIT */
/*
 * Resource limits that limit, and the descriptor table that grows to
 * RLIMIT_NOFILE: setrlimit's errors, EMFILE/EBADF/EINVAL at the limit,
 * RLIMIT_AS/DATA/CPU, pipe sizes, CPU times, and a few argument errors.
 * Run as root (lx's only user; the host's test runs as root too).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static int set_nofile(rlim_t soft)
{
	struct rlimit r;
	getrlimit(RLIMIT_NOFILE, &r);
	r.rlim_cur = soft;
	return setrlimit(RLIMIT_NOFILE, &r);
}

static void test_setrlimit_errors(void)
{
	struct rlimit r = { 10, 5 }, got;
	check("setrlimit soft above hard: EINVAL", setrlimit(RLIMIT_NOFILE, &r), -1, EINVAL);
	r.rlim_cur = r.rlim_max = (rlim_t)1 << 21;
	check("RLIMIT_NOFILE above nr_open: EPERM", setrlimit(RLIMIT_NOFILE, &r), -1, EPERM);
	check("getrlimit bad resource: EINVAL", getrlimit(99, &got), -1, EINVAL);
	check("prlimit of no such process: ESRCH", prlimit(999999, RLIMIT_CORE, NULL, &got), -1, ESRCH);
	r.rlim_cur = 4096;
	r.rlim_max = RLIM_INFINITY;
	check("setrlimit RLIMIT_CORE", setrlimit(RLIMIT_CORE, &r), 0, 0);
	getrlimit(RLIMIT_CORE, &got);
	check("RLIMIT_CORE reads back", got.rlim_cur == 4096 && got.rlim_max == RLIM_INFINITY, 1, 0);
	r.rlim_cur = 0;
	setrlimit(RLIMIT_CORE, &r);
}

static void test_fd_table(void)
{
	check("raise RLIMIT_NOFILE soft to 2000", set_nofile(2000), 0, 0);
	check("dup2 to 1000", dup2(1, 1000), 1000, 0);
	check("F_DUPFD from 1500", fcntl(1, F_DUPFD, 1500), 1500, 0);
	check("F_GETFD on 1500", fcntl(1500, F_GETFD), 0, 0);
	check("F_SETFD on 1000", fcntl(1000, F_SETFD, FD_CLOEXEC), 0, 0);
	check("F_GETFD on 1000", fcntl(1000, F_GETFD), FD_CLOEXEC, 0);
	pid_t c = fork();
	if (c == 0)
		_exit(fcntl(1500, F_GETFD) == 0 && fcntl(1000, F_GETFD) == FD_CLOEXEC ? 0 : 1);
	int st;
	waitpid(c, &st, 0);
	check("a child inherits descriptors above 256", st, 0, 0);
	check("close_range 1000..1500", syscall(SYS_close_range, 1000, 1500, 0), 0, 0);
	check("closed by close_range", fcntl(1500, F_GETFD), -1, EBADF);

	check("lower RLIMIT_NOFILE soft to 64", set_nofile(64), 0, 0);
	check("dup2 to 63", dup2(1, 63), 63, 0);
	check("dup2 to RLIMIT_NOFILE: EBADF", dup2(1, 64), -1, EBADF);
	check("dup3 past RLIMIT_NOFILE: EBADF", dup3(1, 100, 0), -1, EBADF);
	check("F_DUPFD at RLIMIT_NOFILE: EINVAL", fcntl(1, F_DUPFD, 64), -1, EINVAL);
	check("F_DUPFD negative: EINVAL", fcntl(1, F_DUPFD, -1), -1, EINVAL);
	check("F_DUPFD with only 63 left", fcntl(1, F_DUPFD, 62), 62, 0);
	check("F_DUPFD with none left from 62: EMFILE", fcntl(1, F_DUPFD, 62), -1, EMFILE);
	int n = 0, fd;
	while ((fd = dup(1)) >= 0)
		n++;
	check("dup at a full table: EMFILE", fd, -1, EMFILE);
	check("open at a full table: EMFILE", open("/", O_RDONLY), -1, EMFILE);
	check("close_range frees them", syscall(SYS_close_range, 3, ~0U, 0), 0, 0);
	check("dup works again", dup(1), 3, 0);
	close(3);
	set_nofile(1024);
}

static void test_pipe_size(void)
{
	int p[2];
	if (pipe(p))
		return;
	check("F_GETPIPE_SZ default", fcntl(p[0], F_GETPIPE_SZ), 65536, 0);
	check("F_SETPIPE_SZ 1 rounds up to a page", fcntl(p[1], F_SETPIPE_SZ, 1), 4096, 0);
	check("F_SETPIPE_SZ 100000 rounds to 131072", fcntl(p[1], F_SETPIPE_SZ, 100000), 131072, 0);
	check("F_GETPIPE_SZ reads it", fcntl(p[0], F_GETPIPE_SZ), 131072, 0);
	char buf[100000], back[100000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	check("write 100000 bytes at once", write(p[1], buf, sizeof(buf)), sizeof(buf), 0);
	check("F_SETPIPE_SZ below the content: EBUSY", fcntl(p[1], F_SETPIPE_SZ, 65536), -1, EBUSY);
	check("F_SETPIPE_SZ to 1 MiB with content", fcntl(p[1], F_SETPIPE_SZ, 1 << 20), 1 << 20, 0);
	size_t got = 0;
	while (got < sizeof(back)) {
		ssize_t r = read(p[0], back + got, sizeof(back) - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	check("the content survives resizing", got == sizeof(buf) && !memcmp(buf, back, got), 1, 0);
	int f = open("limits.tmp", O_RDWR | O_CREAT, 0600);
	check("F_SETPIPE_SZ on a file: EBADF", fcntl(f, F_SETPIPE_SZ, 4096), -1, EBADF);
	close(f);
	unlink("limits.tmp");
	check("F_SETPIPE_SZ above 2 GiB: EINVAL", fcntl(p[1], F_SETPIPE_SZ, 0x80000001U), -1, EINVAL);
	close(p[0]);
	close(p[1]);
}

static void test_memory_limits(void)
{
	pid_t c = fork();
	if (c == 0) {
		struct rlimit r = { 256UL << 20, RLIM_INFINITY };
		setrlimit(RLIMIT_AS, &r);
		void *big = mmap(NULL, 512UL << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int e = errno;
		void *small = mmap(NULL, 1 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		_exit(big == MAP_FAILED && e == ENOMEM && small != MAP_FAILED ? 0 : 1);
	}
	int st;
	waitpid(c, &st, 0);
	check("RLIMIT_AS: a larger mmap gets ENOMEM, a small one works", st, 0, 0);
	c = fork();
	if (c == 0) {
		struct rlimit r = { 16UL << 20, RLIM_INFINITY };
		setrlimit(RLIMIT_DATA, &r);
		void *w = mmap(NULL, 64UL << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int e = errno;
		void *ro = mmap(NULL, 64UL << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long cur = syscall(SYS_brk, 0);
		long after = syscall(SYS_brk, cur + (64L << 20));
		_exit(w == MAP_FAILED && e == ENOMEM && ro != MAP_FAILED && after == cur ? 0 : 1);
	}
	waitpid(c, &st, 0);
	check("RLIMIT_DATA: writable private mmap and brk refused, read-only allowed", st, 0, 0);
	check("mmap length 0: EINVAL",
	      mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED && errno == EINVAL,
	      1, 0);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* CPU time must move while a process spins (within a generous wall-clock bound:
 * the host may be busy); times() and RUSAGE_CHILDREN see it too. */
static void test_cpu(void)
{
	double end = now_s() + 60, start = cpu_s(RUSAGE_SELF);
	volatile unsigned long x = 0;
	while (cpu_s(RUSAGE_SELF) < start + 0.2 && now_s() < end)
		for (int i = 0; i < 100000; i++)
			x++;
	check("spinning shows as CPU time", cpu_s(RUSAGE_SELF) >= start + 0.2, 1, 0);
	struct tms t;
	times(&t);
	check("times() agrees", t.tms_utime + t.tms_stime >= 15, 1, 0);
	struct rusage ru;
	check("getrusage bad who: EINVAL", getrusage(5, &ru), -1, EINVAL);

	double before = cpu_s(RUSAGE_CHILDREN);
	pid_t c = fork();
	if (c == 0) {
		struct rlimit r = { 1, 30 };
		setrlimit(RLIMIT_CPU, &r);
		for (;;)
			x++;
	}
	int st;
	waitpid(c, &st, 0);
	check("RLIMIT_CPU: a spinning child gets SIGXCPU", WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU,
	      1, 0);
	check("its CPU time shows in RUSAGE_CHILDREN", cpu_s(RUSAGE_CHILDREN) >= before + 0.5, 1, 0);
}

/* Which error comes first, and a few more argument checks, as Linux orders them. */
static void test_argument_errors(void)
{
	int p[2];
	if (pipe(p))
		return;
	check("lseek bad whence on a pipe: EINVAL (before ESPIPE)", lseek(p[0], 0, 9), -1, EINVAL);
	check("lseek on a pipe: ESPIPE", lseek(p[0], 0, SEEK_SET), -1, ESPIPE);
	close(p[0]);
	close(p[1]);
	check("mmap of a bad fd with bad flags: EBADF (before EINVAL)",
	      mmap(NULL, 4096, PROT_READ, 0, -1, 0) == MAP_FAILED && errno == EBADF, 1, 0);
	check("setpgid pid -1: EINVAL", setpgid(-1, 0), -1, EINVAL);
	check("getpriority bad which: EINVAL", getpriority(9, 0), -1, EINVAL);
	check("getpriority of no process: ESRCH", getpriority(PRIO_PROCESS, 999999), -1, ESRCH);
	pid_t c = fork();
	if (c == 0)
		_exit(setpriority(PRIO_PROCESS, 0, 5) == 0 && getpriority(PRIO_PROCESS, 0) == 5 ? 0 : 1);
	int st;
	waitpid(c, &st, 0);
	check("setpriority's nice reads back", st, 0, 0);
	char set[128];
	check("sched_getaffinity of no process: ESRCH",
	      syscall(SYS_sched_getaffinity, 999999, sizeof(set), set), -1, ESRCH);
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 3 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + pg, pg);
	check("madvise unaligned: EINVAL", madvise(m + 1, pg, MADV_NORMAL), -1, EINVAL);
	check("madvise bad advice: EINVAL", madvise(m, pg, 6), -1, EINVAL);
	check("madvise over a hole: ENOMEM", madvise(m, 3 * pg, MADV_NORMAL), -1, ENOMEM);
	check("madvise", madvise(m, pg, MADV_SEQUENTIAL), 0, 0);
	munmap(m, 3 * pg);
}

static void test_wait_errors(void)
{
	check("waitpid bad options: EINVAL", waitpid(-1, NULL, 0x1000), -1, EINVAL);
	check("waitpid INT_MIN: ESRCH", waitpid(INT_MIN, NULL, WNOHANG), -1, ESRCH);
	siginfo_t si;
	check("waitid bad options: EINVAL", waitid(P_ALL, 0, &si, WEXITED | 0x1000), -1, EINVAL);
	check("waitid P_PID 0: EINVAL", waitid(P_PID, 0, &si, WEXITED), -1, EINVAL);
}

int main(void)
{
	test_setrlimit_errors();
	test_fd_table();
	test_pipe_size();
	test_memory_limits();
	test_wait_errors();
	test_argument_errors();
	test_cpu();
	return checks_done("limits");
}
