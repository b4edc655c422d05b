// SPDX-License-Identifier: MIT
// POSIX timers (timer_create(2) and friends) errno by errno: the clocks,
// the sigevent checks, delivery as a queued signal with SI_TIMER, the
// timer's id and sigev_value, overruns while the signal waits (si_overrun
// and timer_getoverrun agree), SIGEV_NONE, SIGEV_THREAD_ID, absolute times,
// and deletion; fork does not copy timers; the CPU-time clocks and timers
// on them; setitimer's three timers.  Raw system calls, as glibc's
// timer_create would start a helper thread for SIGEV_THREAD.
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

static long tcreate(clockid_t clk, struct sigevent *ev, int *id)
{
	return syscall(SYS_timer_create, clk, ev, id);
}

static long tset(int id, int flags, const struct itimerspec *v, struct itimerspec *old)
{
	return syscall(SYS_timer_settime, id, flags, v, old);
}

static long tget(int id, struct itimerspec *v)
{
	return syscall(SYS_timer_gettime, id, v);
}

static long toverrun(int id)
{
	return syscall(SYS_timer_getoverrun, id);
}

static long tdelete(int id)
{
	return syscall(SYS_timer_delete, id);
}

static struct itimerspec ms(long value, long interval)
{
	struct itimerspec v = { { interval / 1000, interval % 1000 * 1000000 },
				{ value / 1000, value % 1000 * 1000000 } };
	return v;
}

static struct sigevent sig_event(int notify, int signo, int value)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = notify;
	ev.sigev_signo = signo;
	ev.sigev_value.sival_int = value;
	return ev;
}

/* The timer's signal, blocked, within 2 s; its siginfo in *si. */
static int wait_for(int sig, siginfo_t *si)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	struct timespec ts = { 2, 0 };
	return sigtimedwait(&set, si, &ts);
}

static void errors(void)
{
	int id;
	struct sigevent ev = sig_event(SIGEV_SIGNAL, SIGRTMIN, 0);
	check("an unknown clock: EINVAL", tcreate(99, &ev, &id), -1, EINVAL);
	check("CLOCK_MONOTONIC_RAW has no timers: EOPNOTSUPP", tcreate(CLOCK_MONOTONIC_RAW, &ev, &id),
	      -1, EOPNOTSUPP);
	ev.sigev_notify = 99;
	check("an unknown sigev_notify: EINVAL", tcreate(CLOCK_MONOTONIC, &ev, &id), -1, EINVAL);
	ev = sig_event(SIGEV_SIGNAL, 0, 0);
	check("signal 0: EINVAL", tcreate(CLOCK_MONOTONIC, &ev, &id), -1, EINVAL);
	ev = sig_event(SIGEV_SIGNAL, 65, 0);
	check("signal 65: EINVAL", tcreate(CLOCK_MONOTONIC, &ev, &id), -1, EINVAL);
	ev = sig_event(SIGEV_THREAD_ID, SIGRTMIN, 0);
	ev.sigev_notify_thread_id = 0x3fffffff;
	check("SIGEV_THREAD_ID of no thread: EINVAL", tcreate(CLOCK_MONOTONIC, &ev, &id), -1, EINVAL);
	check("a bad sigevent pointer: EFAULT", tcreate(CLOCK_MONOTONIC, (void *)8, &id), -1, EFAULT);
	check("a bad timer id pointer: EFAULT", tcreate(CLOCK_MONOTONIC, NULL, (void *)8), -1, EFAULT);
	check("timer_create(CLOCK_MONOTONIC)", tcreate(CLOCK_MONOTONIC, NULL, &id), 0, 0);
	struct itimerspec v = ms(10000, 0);
	check("settime without a value: EINVAL", tset(id, 0, NULL, NULL), -1, EINVAL);
	check("settime from a bad pointer: EFAULT", tset(id, 0, (void *)8, NULL), -1, EFAULT);
	v.it_value.tv_nsec = 1000000000;
	check("settime with tv_nsec of a second: EINVAL", tset(id, 0, &v, NULL), -1, EINVAL);
	v = ms(10000, 0);
	v.it_interval.tv_sec = -1;
	check("settime with a negative interval: EINVAL", tset(id, 0, &v, NULL), -1, EINVAL);
	v = ms(10000, 0);
	check("settime of no timer: EINVAL", tset(id + 1000, 0, &v, NULL), -1, EINVAL);
	check("gettime of no timer: EINVAL", tget(id + 1000, &v), -1, EINVAL);
	check("gettime to a bad pointer: EFAULT", tget(id, (void *)8), -1, EFAULT);
	check("getoverrun of no timer: EINVAL", toverrun(id + 1000), -1, EINVAL);
	check("delete", tdelete(id), 0, 0);
	check("delete again: EINVAL", tdelete(id), -1, EINVAL);
	check("settime after delete: EINVAL", tset(id, 0, &v, NULL), -1, EINVAL);
}

static void times(void)
{
	int id;
	struct itimerspec v, old;
	struct sigevent ev = sig_event(SIGEV_NONE, 0, 0);
	check("a SIGEV_NONE timer", tcreate(CLOCK_REALTIME, &ev, &id), 0, 0);
	tget(id, &v);
	check("disarmed: zero", v.it_value.tv_sec | v.it_value.tv_nsec | v.it_interval.tv_sec, 0, 0);
	v = ms(10000, 1500);
	check("armed for 10 s every 1.5 s", tset(id, 0, &v, NULL), 0, 0);
	tget(id, &v);
	check("gettime: the time left", v.it_value.tv_sec == 9 || (v.it_value.tv_sec == 10 &&
	      !v.it_value.tv_nsec), 1, 0);
	check("gettime: the interval", v.it_interval.tv_sec == 1 &&
	      v.it_interval.tv_nsec == 500000000, 1, 0);
	v = ms(20, 0);
	check("rearmed for 20 ms, the old value back", tset(id, 0, &v, &old) == 0 &&
	      old.it_value.tv_sec == 9 && old.it_interval.tv_sec == 1, 1, 0);
	usleep(60000);
	sigset_t pend;
	sigpending(&pend);
	tget(id, &v);
	check("SIGEV_NONE: expired without a signal", v.it_value.tv_sec | v.it_value.tv_nsec |
	      sigismember(&pend, SIGALRM), 0, 0);
	tdelete(id);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	ev = sig_event(SIGEV_SIGNAL, SIGRTMIN + 1, 77);
	tcreate(CLOCK_REALTIME, &ev, &id);
	v = ms(0, 0);
	v.it_value = now;
	v.it_value.tv_nsec = (v.it_value.tv_nsec + 20000000) % 1000000000;
	v.it_value.tv_sec += now.tv_nsec >= 980000000;
	siginfo_t si;
	check("TIMER_ABSTIME on CLOCK_REALTIME", tset(id, TIMER_ABSTIME, &v, NULL), 0, 0);
	check("its signal comes", wait_for(SIGRTMIN + 1, &si), SIGRTMIN + 1, 0);
	tdelete(id);
}

static void delivery(void)
{
	int id;
	siginfo_t si;
	struct sigevent ev = sig_event(SIGEV_SIGNAL, SIGRTMIN, 0x1234);
	check("a SIGRTMIN timer", tcreate(CLOCK_MONOTONIC, &ev, &id), 0, 0);
	struct itimerspec v = ms(10, 0);
	tset(id, 0, &v, NULL);
	check("the signal", wait_for(SIGRTMIN, &si), SIGRTMIN, 0);
	check("si_code SI_TIMER", si.si_code, SI_TIMER, 0);
	check("si_value: sigev_value", si.si_value.sival_int, 0x1234, 0);
	check("si_timerid: the timer", si.si_timerid, id, 0);
	check("one shot: no overrun", si.si_overrun, 0, 0);
	v = ms(1, 1);
	tset(id, 0, &v, NULL);
	usleep(100000);                 /* ~100 expirations while the signal waits */
	check("the periodic signal", wait_for(SIGRTMIN, &si), SIGRTMIN, 0);
	long over = toverrun(id);
	check("overruns counted while it waited", si.si_overrun > 10, 1, 0);
	check("timer_getoverrun: the delivered signal's", over, si.si_overrun, 0);
	v = ms(0, 0);
	tset(id, 0, &v, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	struct timespec zero = { 0, 0 };
	sigtimedwait(&set, &si, &zero);         /* one may have been queued since */
	check("disarmed: no more signals", sigtimedwait(&set, &si, &zero), -1, EAGAIN);
	tdelete(id);
	check("a timer with no sigevent", tcreate(CLOCK_MONOTONIC, NULL, &id), 0, 0);
	v = ms(5, 0);
	tset(id, 0, &v, NULL);
	check("SIGALRM by default", wait_for(SIGALRM, &si), SIGALRM, 0);
	check("its value: the timer id", si.si_value.sival_int, id, 0);
	tdelete(id);
	ev = sig_event(SIGEV_THREAD_ID, SIGRTMIN + 2, 5);
	ev.sigev_notify_thread_id = (int)syscall(SYS_gettid);
	check("SIGEV_THREAD_ID to this thread", tcreate(CLOCK_MONOTONIC, &ev, &id), 0, 0);
	v = ms(5, 0);
	tset(id, 0, &v, NULL);
	check("its signal", wait_for(SIGRTMIN + 2, &si) == SIGRTMIN + 2 && si.si_value.sival_int == 5,
	      1, 0);
	tdelete(id);
}

static long long us_of(clockid_t clk)
{
	struct timespec ts;
	if (clock_gettime(clk, &ts))
		return -1;
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Spin until sig is pending or 3 s of wall time pass; true if it came. */
static int spin_for(int sig)
{
	long long end = us_of(CLOCK_MONOTONIC) + 3000000;
	sigset_t pend;
	do {
		for (volatile int i = 0; i < 100000; i++)
			;
		sigpending(&pend);
	} while (!sigismember(&pend, sig) && us_of(CLOCK_MONOTONIC) < end);
	return sigismember(&pend, sig);
}

static void cpu_clocks(void)
{
	long long c0 = us_of(CLOCK_PROCESS_CPUTIME_ID);
	usleep(200000);
	long long c1 = us_of(CLOCK_PROCESS_CPUTIME_ID);
	check("CLOCK_PROCESS_CPUTIME_ID hardly moves while asleep", c0 >= 0 && c1 - c0 < 100000, 1, 0);
	clockid_t mine;
	check("clock_getcpuclockid(getpid())", clock_getcpuclockid(getpid(), &mine), 0, 0);
	check("its clock reads", us_of(mine) >= c1, 1, 0);
	check("a CPU clock of no process: EINVAL", us_of((clockid_t)((~0x3ffffe << 3) | 2)), -1,
	      EINVAL);
	check("clock_nanosleep on CLOCK_THREAD_CPUTIME_ID: EOPNOTSUPP (the kernel's; glibc says EINVAL)",
	      syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &(struct timespec){ 0, 1000 },
		      NULL), -1, EOPNOTSUPP);
	int id;
	struct sigevent ev = sig_event(SIGEV_SIGNAL, SIGRTMIN + 3, 9);
	check("a timer on CLOCK_PROCESS_CPUTIME_ID", tcreate(CLOCK_PROCESS_CPUTIME_ID, &ev, &id), 0, 0);
	struct itimerspec v = ms(100, 0);
	long long start = us_of(CLOCK_PROCESS_CPUTIME_ID);
	tset(id, 0, &v, NULL);
	usleep(200000);
	sigset_t pend;
	sigpending(&pend);
	check("no expiry while asleep", sigismember(&pend, SIGRTMIN + 3), 0, 0);
	check("it expires after 100 ms of CPU time", spin_for(SIGRTMIN + 3) &&
	      us_of(CLOCK_PROCESS_CPUTIME_ID) - start >= 100000, 1, 0);
	siginfo_t si;
	check("its signal", wait_for(SIGRTMIN + 3, &si) == SIGRTMIN + 3 && si.si_code == SI_TIMER, 1, 0);
	tdelete(id);
	check("a timer on CLOCK_THREAD_CPUTIME_ID", tcreate(CLOCK_THREAD_CPUTIME_ID, &ev, &id), 0, 0);
	v = ms(50, 0);
	tset(id, 0, &v, NULL);
	check("gettime: at most its value left", tget(id, &v) == 0 && v.it_value.tv_sec == 0 &&
	      v.it_value.tv_nsec > 0 && v.it_value.tv_nsec <= 50000000, 1, 0);
	check("it expires as this thread spins", spin_for(SIGRTMIN + 3), 1, 0);
	wait_for(SIGRTMIN + 3, &si);
	tdelete(id);
}

static void itimers(void)
{
	struct itimerval v = { { 0, 0 }, { 10, 0 } }, old;
	check("setitimer of an unknown timer: EINVAL", setitimer(3, &v, NULL), -1, EINVAL);
	check("getitimer of an unknown timer: EINVAL", getitimer(3, &old), -1, EINVAL);
	check("getitimer to a bad pointer: EFAULT", syscall(SYS_getitimer, ITIMER_REAL, (void *)8), -1,
	      EFAULT);
	struct itimerval bad = { { 0, 0 }, { 0, 1000000 } };
	check("setitimer with tv_usec of a second: EINVAL", setitimer(ITIMER_REAL, &bad, NULL), -1,
	      EINVAL);
	check("ITIMER_VIRTUAL for 10 s", setitimer(ITIMER_VIRTUAL, &v, NULL), 0, 0);
	check("getitimer: its time left", getitimer(ITIMER_VIRTUAL, &old) == 0 &&
	      (old.it_value.tv_sec == 9 || old.it_value.tv_sec == 10), 1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct itimerval c;
		_exit(getitimer(ITIMER_VIRTUAL, &c) == 0 && !c.it_value.tv_sec && !c.it_value.tv_usec ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	check("fork: the child has no interval timers", WIFEXITED(st) ? WEXITSTATUS(st) : 255, 0, 0);
	struct itimerval shortv = { { 0, 0 }, { 0, 50000 } };
	check("ITIMER_VIRTUAL for 50 ms", setitimer(ITIMER_VIRTUAL, &shortv, NULL), 0, 0);
	usleep(200000);
	sigset_t pend;
	sigpending(&pend);
	check("no SIGVTALRM while asleep", sigismember(&pend, SIGVTALRM), 0, 0);
	check("SIGVTALRM after 50 ms of CPU time", spin_for(SIGVTALRM), 1, 0);
	check("ITIMER_PROF for 50 ms", setitimer(ITIMER_PROF, &shortv, NULL), 0, 0);
	check("SIGPROF after 50 ms of CPU time", spin_for(SIGPROF), 1, 0);
	check("ITIMER_REAL for 10 s", setitimer(ITIMER_REAL, &v, NULL), 0, 0);
	check("setitimer with no new value disarms, the old value back",
	      syscall(SYS_setitimer, ITIMER_REAL, NULL, &old) == 0 && old.it_value.tv_sec >= 9 &&
	      getitimer(ITIMER_REAL, &old) == 0 && !old.it_value.tv_sec && !old.it_value.tv_usec, 1, 0);
	sigset_t two;
	sigemptyset(&two);
	sigaddset(&two, SIGVTALRM);
	sigaddset(&two, SIGPROF);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&two, NULL, &zero) > 0)
		;
}

static void not_inherited(void)
{
	int id;
	tcreate(CLOCK_MONOTONIC, NULL, &id);
	pid_t pid = fork();
	if (pid == 0) {
		struct itimerspec v;
		_exit(tget(id, &v) == -1 && errno == EINVAL ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	check("fork: the child has no timers", WIFEXITED(st) ? WEXITSTATUS(st) : 255, 0, 0);
	tdelete(id);
}

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGRTMIN + 2);
	sigaddset(&set, SIGRTMIN + 3);
	sigaddset(&set, SIGALRM);
	sigaddset(&set, SIGVTALRM);
	sigaddset(&set, SIGPROF);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);
	errors();
	times();
	delivery();
	cpu_clocks();
	itimers();
	not_inherited();
	return checks_done("ptimers");
}
