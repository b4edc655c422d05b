// SPDX-License-Identifier: MIT
// Clocks and interval timers errno by errno, as LTP's clock_gettime,
// clock_getres, gettimeofday, settimeofday, adjtimex, alarm, getitimer and
// setitimer tests check them; and the terminal-or-not calls on pipes, files
// and sockets (isatty, tcgetattr, TIOCGWINSZ: ENOTTY; FIONREAD on a pipe).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

// the clocks Linux has, by id; 11 (CLOCK_TAI) last
static const int clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
			      CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
			      CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, 11 };

static long raw_gettime(long id, void *ts)
{
	return syscall(SYS_clock_gettime, id, ts);
}

static void clock_checks(void)
{
	char name[48];
	for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
		struct timespec ts = { -1, -1 }, res = { -1, -1 };
		snprintf(name, sizeof name, "clock_gettime id %d", clocks[i]);
		check(name, raw_gettime(clocks[i], &ts), 0, 0);
		snprintf(name, sizeof name, "clock %d value in range", clocks[i]);
		check(name, ts.tv_sec >= 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, 1, 0);
		snprintf(name, sizeof name, "clock_getres id %d", clocks[i]);
		check(name, syscall(SYS_clock_getres, clocks[i], &res), 0, 0);
		snprintf(name, sizeof name, "clock %d resolution sane", clocks[i]);
		check(name, res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec <= 10000000, 1, 0);
	}
	struct timespec ts;
	check("clock_gettime id 16: EINVAL", raw_gettime(16, &ts), -1, EINVAL);
	check("clock_gettime id -1 (no process 0's cputime): EINVAL", raw_gettime(-1, &ts), -1,
	      EINVAL);
	check("clock_gettime id 10 (CLOCK_SGI_CYCLE, gone): EINVAL", raw_gettime(10, &ts), -1,
	      EINVAL);
	check("clock_getres id 16: EINVAL", syscall(SYS_clock_getres, 16, &ts), -1, EINVAL);
	check("clock_getres NULL", syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL), 0, 0);
	check("clock_gettime bad pointer: EFAULT", raw_gettime(CLOCK_MONOTONIC, (void *)8), -1,
	      EFAULT);
	check("clock_settime MONOTONIC: EINVAL", clock_settime(CLOCK_MONOTONIC, &ts), -1, EINVAL);
	clockid_t cid;
	check("clock_getcpuclockid self", clock_getcpuclockid(0, &cid), 0, 0);
	check("the process clock reads", clock_gettime(cid, &ts), 0, 0);
	check("CPU clock of no such pid: EINVAL", raw_gettime((~999999L << 3) | 2, &ts), -1, EINVAL);
	// CPU time, not time since boot: no more than getrusage's user + system
	for (volatile long i = 0; i < 5000000; i++)
		;
	struct rusage ru;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	getrusage(RUSAGE_SELF, &ru);
	long cpu_ms = ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000 +
		      ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000;
	check("CLOCK_PROCESS_CPUTIME_ID counts CPU time",
	      ts.tv_sec * 1000 + ts.tv_nsec / 1000000 <= cpu_ms + 100, 1, 0);
	struct timespec m1, m2;
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_MONOTONIC, &m2);
	check("monotonic does not go back",
	      m2.tv_sec > m1.tv_sec || (m2.tv_sec == m1.tv_sec && m2.tv_nsec >= m1.tv_nsec), 1, 0);
}

static void sleep_checks(void)
{
	struct timespec bad = { 0, 1000000000 }, neg = { -1, 0 }, ok = { 0, 1000 };
	check("nanosleep tv_nsec 1e9: EINVAL", nanosleep(&bad, NULL), -1, EINVAL);
	check("nanosleep negative: EINVAL", nanosleep(&neg, NULL), -1, EINVAL);
	check("nanosleep bad pointer: EFAULT", syscall(SYS_nanosleep, (void *)8, NULL), -1, EFAULT);
	check("nanosleep 1 us", nanosleep(&ok, NULL), 0, 0);
	// clock_nanosleep returns the error rather than setting errno
	check("clock_nanosleep bad clock: EINVAL", clock_nanosleep(16, 0, &ok, NULL), EINVAL, 0);
	check("clock_nanosleep on a thread's CPU clock: EINVAL",
	      clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ok, NULL), EINVAL, 0);
	// the system call's EOPNOTSUPP, which musl's clock_nanosleep turns into EINVAL
	check("raw clock_nanosleep on a thread's CPU clock: EOPNOTSUPP",
	      syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &ok, NULL), -1, EOPNOTSUPP);
	check("clock_nanosleep bad pointer: EFAULT",
	      syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (void *)8, NULL), -1, EFAULT);
	struct timespec past = { 1, 0 };
	check("clock_nanosleep TIMER_ABSTIME in the past",
	      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL), 0, 0);
	time_t now;
	check("time agrees with its argument", time(&now) == now, 1, 0);
	check("time bad pointer: EFAULT", syscall(SYS_time, (void *)8), -1, EFAULT);
}

static void tod_checks(void)
{
	struct timeval tv;
	struct timespec ts;
	check("gettimeofday", gettimeofday(&tv, NULL), 0, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	check("gettimeofday agrees with CLOCK_REALTIME", ts.tv_sec - tv.tv_sec <= 1, 1, 0);
	check("tv_usec in range", tv.tv_usec >= 0 && tv.tv_usec < 1000000, 1, 0);
	check("gettimeofday bad pointer: EFAULT", syscall(SYS_gettimeofday, (void *)8, NULL), -1,
	      EFAULT);
	struct timeval bad = { 0, 1000000 };
	check("settimeofday tv_usec 1000000: EINVAL", settimeofday(&bad, NULL), -1, EINVAL);
	bad.tv_usec = -1;
	check("settimeofday tv_usec -1: EINVAL", settimeofday(&bad, NULL), -1, EINVAL);
	pid_t c = fork();
	if (c == 0) {
		setuid(65534);
		gettimeofday(&tv, NULL);
		_exit(settimeofday(&tv, NULL) == -1 && errno == EPERM ? 0 : 1);
	}
	int st;
	waitpid(c, &st, 0);
	check("settimeofday unprivileged: EPERM", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	struct timex tx = { .modes = 0 };
	int r = adjtimex(&tx);
	check("adjtimex read-only returns the clock state", r >= TIME_OK && r <= TIME_ERROR, 1, 0);
	check("adjtimex fields", tx.tick > 0 && tx.time.tv_sec > 0, 1, 0);
	check("adjtimex bad pointer: EFAULT", syscall(SYS_adjtimex, (void *)8), -1, EFAULT);
	c = fork();
	if (c == 0) {
		setuid(65534);
		struct timex w = { .modes = ADJ_OFFSET, .offset = 1 };
		_exit(adjtimex(&w) == -1 && errno == EPERM ? 0 : 1);
	}
	waitpid(c, &st, 0);
	check("adjtimex setting unprivileged: EPERM", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
}

static volatile int vtalrms;
static void on_vtalrm(int s)
{
	(void)s;
	vtalrms++;
}

// ITIMER_VIRTUAL counts this process's CPU time: spinning makes it fire
static void virtual_fires(void)
{
	signal(SIGVTALRM, on_vtalrm);
	struct itimerval v = { { 0, 0 }, { 0, 50000 } };
	setitimer(ITIMER_VIRTUAL, &v, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t1);
	while (!vtalrms && t1.tv_sec - t0.tv_sec < 5);
	check("ITIMER_VIRTUAL fires SIGVTALRM once", vtalrms, 1, 0);
	signal(SIGVTALRM, SIG_DFL);
}

static void itimer_checks(void)
{
	struct itimerval v = { { 0, 0 }, { 0, 0 } }, old;
	check("getitimer bad which: EINVAL", getitimer(7, &old), -1, EINVAL);
	check("setitimer bad which: EINVAL", setitimer(7, &v, NULL), -1, EINVAL);
	check("getitimer bad pointer: EFAULT", syscall(SYS_getitimer, ITIMER_REAL, (void *)8), -1,
	      EFAULT);
	v.it_value.tv_usec = 1000000;
	check("setitimer tv_usec 1000000: EINVAL", setitimer(ITIMER_REAL, &v, NULL), -1, EINVAL);
	int which[] = { ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF };
	char name[48];
	for (int i = 0; i < 3; i++) {
		struct itimerval set = { { 0, 250000 }, { 100, 0 } };
		snprintf(name, sizeof name, "setitimer %d", which[i]);
		check(name, setitimer(which[i], &set, NULL), 0, 0);
		snprintf(name, sizeof name, "getitimer %d counts down from 100 s", which[i]);
		getitimer(which[i], &old);
		check(name, old.it_value.tv_sec <= 100 && old.it_value.tv_sec >= 98 &&
				    old.it_interval.tv_sec == 0 && old.it_interval.tv_usec == 250000,
		      1, 0);
		struct itimerval zero = { { 0, 0 }, { 0, 0 } };
		snprintf(name, sizeof name, "setitimer %d off returns the old", which[i]);
		setitimer(which[i], &zero, &old);
		check(name, old.it_value.tv_sec >= 98 && old.it_interval.tv_usec == 250000, 1, 0);
		getitimer(which[i], &old);
		snprintf(name, sizeof name, "itimer %d disarmed", which[i]);
		check(name, old.it_value.tv_sec == 0 && old.it_value.tv_usec == 0, 1, 0);
	}
	virtual_fires();
	check("alarm with none set", alarm(100), 0, 0);
	unsigned left = alarm(0);
	check("alarm returns the seconds left", left >= 99 && left <= 100, 1, 0);
	check("alarm(0) after cancel", alarm(0), 0, 0);
	struct itimerval small = { { 0, 0 }, { 0, 1 } };
	struct timespec nap = { 0, 20000000 };
	signal(SIGALRM, SIG_IGN);
	setitimer(ITIMER_REAL, &small, NULL);
	nanosleep(&nap, NULL);
	getitimer(ITIMER_REAL, &old);
	check("a one-shot timer expires and stays off", old.it_value.tv_sec || old.it_value.tv_usec,
	      0, 0);
	signal(SIGALRM, SIG_DFL);
}

static void tty_checks(void)
{
	int p[2], sv[2];
	pipe(p);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	int f = open("/tmp/timecalls.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
	struct termios tio;
	struct winsize ws;
	check("isatty pipe", isatty(p[0]), 0, 0);
	check("isatty pipe: ENOTTY", errno, ENOTTY, 0);
	check("isatty file", isatty(f), 0, 0);
	check("isatty bad fd: EBADF", (isatty(99), errno), EBADF, 0);
	check("tcgetattr pipe: ENOTTY", tcgetattr(p[0], &tio), -1, ENOTTY);
	check("tcgetattr file: ENOTTY", tcgetattr(f, &tio), -1, ENOTTY);
	check("tcgetattr socket: ENOTTY", tcgetattr(sv[0], &tio), -1, ENOTTY);
	check("tcsetattr pipe: ENOTTY", tcsetattr(p[0], TCSANOW, &tio), -1, ENOTTY);
	check("TIOCGWINSZ pipe: ENOTTY", ioctl(p[0], TIOCGWINSZ, &ws), -1, ENOTTY);
	check("TIOCGPGRP file: ENOTTY", ioctl(f, TIOCGPGRP, &ws), -1, ENOTTY);
	check("ioctl bad fd: EBADF", ioctl(99, FIONREAD, &ws), -1, EBADF);
	int n = -1;
	write(p[1], "hello", 5);
	check("FIONREAD pipe", (ioctl(p[0], FIONREAD, &n), n), 5, 0);
	check("FIONREAD bad pointer: EFAULT", ioctl(p[0], FIONREAD, (void *)8), -1, EFAULT);
	write(f, "abcdefg", 7);
	lseek(f, 2, SEEK_SET);
	check("FIONREAD file: bytes past the offset", (ioctl(f, FIONREAD, &n), n), 5, 0);
	check("unknown ioctl on a pipe: ENOTTY", ioctl(p[0], 0x5401 + 0x3000, &n), -1, ENOTTY);
	close(p[0]), close(p[1]), close(sv[0]), close(sv[1]), close(f);
	unlink("/tmp/timecalls.dat");
}

int main(void)
{
	clock_checks();
	sleep_checks();
	tod_checks();
	itimer_checks();
	tty_checks();
	return checks_done("timecalls");
}
