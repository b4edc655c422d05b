// SPDX-License-Identifier: MIT
// futex_waitv(2) against Linux: a wait on several futexes that FUTEX_WAKE
// (and FUTEX_WAKE_BITSET, and a requeue's target) ends with the index of the
// futex woken, private futexes between threads and shared ones between
// processes; EAGAIN when any word differs; absolute timeouts on
// CLOCK_MONOTONIC and CLOCK_REALTIME; EINTR from a handler and a restart
// under SA_RESTART; and the argument errors errno by errno, in Linux's order.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define FUTEX_WAKE 1
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX2_SIZE_U8 0
#define FUTEX2_SIZE_U16 1
#define FUTEX2_SIZE_U32 2
#define FUTEX2_SIZE_U64 3
#define FUTEX2_PRIVATE FUTEX_PRIVATE_FLAG
#define PAGE 4096

struct waitv {
	uint64_t val, uaddr;
	uint32_t flags, reserved;
};

static long waitv(struct waitv *w, unsigned n, unsigned flags, const struct timespec *ts, int clk)
{
	return syscall(SYS_futex_waitv, w, n, flags, ts, clk);
}

static long futex(volatile uint32_t *uaddr, int op, uint32_t val, long val2, volatile uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, val2, uaddr2, val3);
}

static struct waitv entry(volatile uint32_t *w, uint32_t flags)
{
	return (struct waitv){ .val = *w, .uaddr = (uintptr_t)w, .flags = flags };
}

/* An absolute time ms from now on clock clk. */
static struct timespec in_ms(int clk, long ms)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	ts.tv_nsec += ms * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

static int later_than(int clk, const struct timespec *t)
{
	struct timespec now;
	clock_gettime(clk, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void *shared_page(void)
{
	return mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

/* Wake one waiter at w with op (retrying until one waits): its count, 1 once one was woken. */
static long wake_eventually(volatile uint32_t *w, int op, uint32_t bits)
{
	for (int i = 0; i < 4000; i++) {
		long n = futex(w, op, 1, 0, NULL, bits);
		if (n != 0)
			return n;
		usleep(5000);
	}
	return 0;
}

static int exit_code(pid_t pid)
{
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

/* A child waits on three shared futexes (30 s at most): its answer as exit status (100 + errno). */
static pid_t shared_waiter(volatile uint32_t *f)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct waitv w[3] = { entry(&f[0], FUTEX2_SIZE_U32), entry(&f[1], FUTEX2_SIZE_U32),
				      entry(&f[2], FUTEX2_SIZE_U32) };
		struct timespec ts = in_ms(CLOCK_MONOTONIC, 30000);
		long r = waitv(w, 3, 0, &ts, CLOCK_MONOTONIC);
		_exit(r >= 0 ? (int)r : 100 + errno);
	}
	return pid;
}

static void wake_checks(void)
{
	volatile uint32_t *f = shared_page();
	pid_t c = shared_waiter(f);
	check("FUTEX_WAKE of the second futex wakes one", wake_eventually(&f[1], FUTEX_WAKE, 0), 1, 0);
	check("across processes: the index woken", exit_code(c), 1, 0);
	c = shared_waiter(f);
	check("FUTEX_WAKE_BITSET of the third", wake_eventually(&f[2], FUTEX_WAKE_BITSET, 0x10), 1, 0);
	check("any bitset: index 2", exit_code(c), 2, 0);
	c = shared_waiter(f);
	long moved = 0;
	for (int i = 0; i < 4000 && !moved; i++, usleep(5000))
		moved = futex(&f[0], FUTEX_CMP_REQUEUE, 0, 1, &f[3], f[0]);
	check("requeued from the first futex", moved, 1, 0);
	check("the first futex has no waiter left", futex(&f[0], FUTEX_WAKE, 1, 0, NULL, 0), 0, 0);
	check("woken at the requeue's target", futex(&f[3], FUTEX_WAKE, 1, 0, NULL, 0), 1, 0);
	check("the requeued slot's index", exit_code(c), 0, 0);
	munmap((void *)f, PAGE);
}

static uint32_t pf[2];

static void *private_waker(void *arg)
{
	(void)arg;
	wake_eventually(&pf[1], FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 0);
	return NULL;
}

static void thread_checks(void)
{
	pthread_t th;
	struct waitv w[2] = { entry(&pf[0], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE),
			      entry(&pf[1], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE) };
	pthread_create(&th, NULL, private_waker, NULL);
	struct timespec ts = in_ms(CLOCK_MONOTONIC, 30000);
	check("private futexes between threads: index 1", waitv(w, 2, 0, &ts, CLOCK_MONOTONIC), 1, 0);
	pthread_join(th, NULL);
}

static void value_and_time_checks(void)
{
	static uint32_t f[3] = { 1, 2, 3 };
	struct waitv w[3] = { entry(&f[0], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE),
			      entry(&f[1], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE),
			      entry(&f[2], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE) };
	w[2].val = 4;
	check("the last word differs: EAGAIN", waitv(w, 3, 0, NULL, CLOCK_MONOTONIC), -1, EAGAIN);
	check("no clock check without a timeout", waitv(w, 3, 0, NULL, 99), -1, EAGAIN);
	check("EAGAIN leaves no waiter", futex(&f[0], FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, NULL, 0), 0, 0);
	w[2].val = 3;
	struct timespec zero = { 0, 0 };
	check("a deadline passed: ETIMEDOUT", waitv(w, 3, 0, &zero, CLOCK_MONOTONIC), -1, ETIMEDOUT);
	struct timespec ts = in_ms(CLOCK_MONOTONIC, 50);
	check("CLOCK_MONOTONIC deadline: ETIMEDOUT", waitv(w, 3, 0, &ts, CLOCK_MONOTONIC), -1, ETIMEDOUT);
	check("not before the monotonic deadline", later_than(CLOCK_MONOTONIC, &ts), 1, 0);
	ts = in_ms(CLOCK_REALTIME, 50);
	check("CLOCK_REALTIME deadline: ETIMEDOUT", waitv(w, 3, 0, &ts, CLOCK_REALTIME), -1, ETIMEDOUT);
	check("not before the realtime deadline", later_than(CLOCK_REALTIME, &ts), 1, 0);
	check("ETIMEDOUT leaves no waiter", futex(&f[1], FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, NULL, 0), 0, 0);
}

static void argument_checks(void)
{
	static uint32_t f[2];
	struct waitv w[129], one = entry(&f[0], FUTEX2_SIZE_U32);
	struct timespec ts = in_ms(CLOCK_MONOTONIC, 5000), bad_ns = { 0, 1000000000 }, neg = { -1, 0 };
	for (int i = 0; i < 129; i++)
		w[i] = one;
	w[128].val = 1;
	check("flags: EINVAL", waitv(w, 1, 1, &ts, CLOCK_MONOTONIC), -1, EINVAL);
	check("no futexes: EINVAL", waitv(w, 0, 0, &ts, CLOCK_MONOTONIC), -1, EINVAL);
	check("129 futexes: EINVAL", waitv(w, 129, 0, &ts, CLOCK_MONOTONIC), -1, EINVAL);
	check("128 futexes are allowed", waitv(w + 1, 128, 0, &ts, CLOCK_MONOTONIC), -1, EAGAIN);
	check("waiters NULL: EINVAL", waitv(NULL, 1, 0, &ts, CLOCK_MONOTONIC), -1, EINVAL);
	check("waiters unmapped: EFAULT", waitv((void *)8, 1, 0, &ts, CLOCK_MONOTONIC), -1, EFAULT);
	check("CLOCK_BOOTTIME: EINVAL", waitv(w, 1, 0, &ts, CLOCK_BOOTTIME), -1, EINVAL);
	check("tv_nsec a second: EINVAL", waitv(w, 1, 0, &bad_ns, CLOCK_MONOTONIC), -1, EINVAL);
	check("tv_sec negative: EINVAL", waitv(w, 1, 0, &neg, CLOCK_MONOTONIC), -1, EINVAL);
	check("timeout unmapped: EFAULT", waitv(w, 1, 0, (void *)8, CLOCK_MONOTONIC), -1, EFAULT);
	struct { uint32_t flags, reserved; uint64_t val; int err; const char *name; } bad[] = {
		{ FUTEX2_SIZE_U8, 0, 0, EINVAL, "FUTEX2_SIZE_U8: EINVAL" },
		{ FUTEX2_SIZE_U16, 0, 0, EINVAL, "FUTEX2_SIZE_U16: EINVAL" },
		{ FUTEX2_SIZE_U64, 0, 0, EINVAL, "FUTEX2_SIZE_U64: EINVAL" },
		{ FUTEX2_SIZE_U32 | 0x40, 0, 0, EINVAL, "unknown flag bit: EINVAL" },
		{ FUTEX2_SIZE_U32, 1, 0, EINVAL, "reserved nonzero: EINVAL" },
		{ FUTEX2_SIZE_U32, 0, 1ULL << 32, EINVAL, "value wider than 32 bits: EINVAL" },
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct waitv e = one;
		e.flags = bad[i].flags, e.reserved = bad[i].reserved, e.val = bad[i].val;
		check(bad[i].name, waitv(&e, 1, 0, &ts, CLOCK_MONOTONIC), -1, bad[i].err);
	}
	struct waitv e = one;
	e.uaddr += 2;
	check("unaligned address: EINVAL", waitv(&e, 1, 0, &ts, CLOCK_MONOTONIC), -1, EINVAL);
	char *pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(pages + PAGE, PAGE);
	struct waitv *edge = (struct waitv *)(pages + PAGE) - 1;
	*edge = one;
	edge->flags = 0;
	check("entries in order: a bad one before an unmapped one", waitv(edge, 2, 0, &ts, CLOCK_MONOTONIC),
	      -1, EINVAL);
	*edge = one;
	check("an entry past the mapping: EFAULT", waitv(edge, 2, 0, &ts, CLOCK_MONOTONIC), -1, EFAULT);
	e = one;
	e.uaddr = (uintptr_t)(pages + PAGE);
	e.flags |= FUTEX2_PRIVATE;
	check("private futex unmapped: EFAULT", waitv(&e, 1, 0, &ts, CLOCK_MONOTONIC), -1, EFAULT);
	e.flags = FUTEX2_SIZE_U32;
	check("shared futex unmapped: EFAULT", waitv(&e, 1, 0, &ts, CLOCK_MONOTONIC), -1, EFAULT);
	struct waitv pair[2] = { one, e };
	pair[0].val = 7;
	check("keys first: a shared one's EFAULT before an EAGAIN", waitv(pair, 2, 0, &ts, CLOCK_MONOTONIC),
	      -1, EFAULT);
	pair[1].flags |= FUTEX2_PRIVATE;        /* a private key needs no mapping: the words decide */
	check("the words in order: EAGAIN before a later EFAULT", waitv(pair, 2, 0, &ts, CLOCK_MONOTONIC),
	      -1, EAGAIN);
	pair[0].val = f[0];
	check("then the later word's EFAULT", waitv(pair, 2, 0, &ts, CLOCK_MONOTONIC), -1, EFAULT);
	munmap(pages, PAGE);
}

static volatile int handled;
static void on_usr1(int sig) { (void)sig; handled++; }

/* A child waits (30 s at most) with SIGUSR1 handled (flags: sigaction's), tells ready, and exits
 * with the answer (100 + errno); the parent signals it until it ends or `times` signals. */
static int signalled_wait(volatile uint32_t *f, int flags, int times)
{
	f[1] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = flags };
		sigaction(SIGUSR1, &sa, NULL);
		struct waitv w[1] = { entry(&f[0], FUTEX2_SIZE_U32) };
		struct timespec ts = in_ms(CLOCK_MONOTONIC, 30000);
		f[1] = 1;
		long r = waitv(w, 1, 0, &ts, CLOCK_MONOTONIC);
		_exit(r >= 0 ? (int)r : 100 + errno);
	}
	while (!f[1])
		usleep(1000);
	for (int i = 0; i < times; i++) {
		usleep(50000);
		kill(pid, SIGUSR1);
		siginfo_t si = { 0 };
		if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
			break;
	}
	if (flags & SA_RESTART)
		wake_eventually(&f[0], FUTEX_WAKE, 0);
	return exit_code(pid);
}

static void signal_checks(void)
{
	volatile uint32_t *f = shared_page();
	check("a handler without SA_RESTART: EINTR", signalled_wait(f, 0, 50), 100 + EINTR, 0);
	check("under SA_RESTART it waits on and is woken", signalled_wait(f, SA_RESTART, 3), 0, 0);
	munmap((void *)f, PAGE);
}

int main(void)
{
	argument_checks();
	value_and_time_checks();
	thread_checks();
	wake_checks();
	signal_checks();
	return checks_done("futex_waitv");
}
