// SPDX-License-Identifier: MIT
// POSIX per-process timers (timer_create(2) and its calls) on fs/timerfd.c's
// timers: an expiration queues the timer's signal with si_code SI_TIMER,
// its id and sigev_value; expirations while that signal is still queued
// count as overruns, which the delivery hands over (si_overrun) and
// timer_getoverrun then reports.  SIGEV_NONE timers only count.  Timers
// belong to the process: fork does not copy them, exec and exit delete them.
// Timers on CPU-time clocks are not on the wall-clock list: each CPU-time
// sample (proc/cputime.c, every 10 ms while anything runs) checks them.
#include "../lx.h"
#include "../../../lib/c/string.h"

#define SIGEV_SIGNAL    0
#define SIGEV_NONE      1
#define SIGEV_THREAD    2
#define SIGEV_THREAD_ID 4
#define TIMER_ABSTIME   1
#define PTIMERS_MAX     4096            /* per process; Linux: bounded by memory */
#define OVERRUN_MAX     0x7fffffff      /* DELAYTIMER_MAX */

/* struct sigevent as Linux x86-64 lays it out (64 bytes). */
struct sigevent_k {
	u64 value;
	int32_t signo, notify;
	int32_t tid;                    /* SIGEV_THREAD_ID's thread */
	char pad[44];
};

struct ptimer {
	struct ktimer kt;               /* first: fire's argument is the timer */
	struct proc *proc;
	int id;
	int notify, signo, tid;
	u64 value;
	u64 overrun;                    /* expirations while its signal waited */
	int last_overrun;               /* the delivered signal's, for timer_getoverrun */
	struct ptimer *next;
	/* on a CPU-time clock: whose time (cpu_clock_target), the next expiration and the
	 * interval in µs of it (cpu_next 0: disarmed) */
	bool cpu;
	int cpu_pid, cpu_tid;
	u64 cpu_next, cpu_interval;
};

static struct ptimer *ptimers;      /* every process's */

/* p's timer id (a timer_t: an int, as the kernel reads it); NULL: EINVAL */
static struct ptimer *find(struct proc *p, u64 id)
{
	for (struct ptimer *pt = ptimers; pt; pt = pt->next)
		if (pt->proc == p && pt->id == (int)id)
			return pt;
	return NULL;
}

static struct thread *thread_of(struct proc *p, int tid)
{
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (t->tid_linux == tid)
			return t;
	return NULL;
}

static u64 add_overrun(u64 a, u64 b)
{
	return a + b > OVERRUN_MAX ? OVERRUN_MAX : a + b;
}

/* Expirations counted (kt.ticks): queue the signal, or count overruns while it waits. */
static void fire(struct ktimer *kt)
{
	struct ptimer *pt = (struct ptimer *)kt;
	u64 k = kt->ticks;
	kt->ticks = 0;
	if (pt->notify == SIGEV_NONE || !k)
		return;
	if (signal_timer_queued(pt->proc, pt->id)) {
		pt->overrun = add_overrun(pt->overrun, k);
		return;
	}
	pt->overrun = add_overrun(0, k - 1);
	struct lx_siginfo si = { .signo = pt->signo, .code = LX_SI_TIMER, .pid = pt->id,
				 .value = pt->value };
	if (pt->notify == SIGEV_THREAD_ID) {
		struct thread *t = thread_of(pt->proc, pt->tid);
		if (t)
			signal_send_thread_info(t, &si);
	} else {
		signal_send_proc_info(pt->proc, &si);
	}
}

void ptimer_delivered(struct proc *p, struct lx_siginfo *si)
{
	struct ptimer *pt = find(p, (u64)(u32)si->pid);
	if (!pt || pt->signo != si->signo)
		return;
	pt->last_overrun = (int)pt->overrun;
	si->uid = (u32)pt->overrun;             /* si_overrun */
	pt->overrun = 0;
}

static void destroy(struct ptimer *pt)
{
	for (struct ptimer **pp = &ptimers; *pp; pp = &(*pp)->next)
		if (*pp == pt) {
			*pp = pt->next;
			break;
		}
	ktimer_disarm(&pt->kt);
	lx_free(pt);
}

void ptimer_exit(struct proc *p)
{
	for (struct ptimer *pt = ptimers, *n; pt; pt = n) {
		n = pt->next;
		if (pt->proc == p)
			destroy(pt);
	}
}

/* Linux's good_sigevent: EINVAL for a bad notification, signal or thread. */
static int check_event(struct proc *p, const struct sigevent_k *ev)
{
	switch (ev->notify) {
	case SIGEV_THREAD_ID:
		if (ev->tid <= 0 || !thread_of(p, ev->tid))
			return -LX_EINVAL;
		/* fall through */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		return ev->signo <= 0 || ev->signo > LX_NSIG ? -LX_EINVAL : 0;
	case SIGEV_NONE:
		return 0;
	default:
		return -LX_EINVAL;
	}
}

/* The clocks with timers: REALTIME, MONOTONIC, BOOTTIME, the ALARM ones, TAI; the CPU clocks. */
static int check_clock(struct thread *t, u64 clk, struct ptimer *pt)
{
	if (clk == 0 || clk == 1 || clk == 7 || clk == 8 || clk == 9 || clk == 11)
		return 0;
	if (clk == 4 || clk == 5 || clk == 6)
		return -LX_EOPNOTSUPP;  /* MONOTONIC_RAW and the COARSE clocks */
	pt->cpu = true;
	return cpu_clock_target(t, clk, &pt->cpu_pid, &pt->cpu_tid);
}

/* --- timers on CPU-time clocks --- */

#define FAR_US (1UL << 61)             /* about 73,000 years: sums stay in range */

static u64 spec_us(const struct lx_timespec *ts)
{
	if ((u64)ts->tv_sec >= FAR_US / 1000000)
		return FAR_US;
	return (u64)ts->tv_sec * 1000000 + ((u64)ts->tv_nsec + 999) / 1000;
}

static void cpu_arm(struct ptimer *pt, const struct lx_itimerspec *v, bool abstime)
{
	u64 now = 0, value = spec_us(&v->value);
	cpu_clock_now(pt->cpu_pid, pt->cpu_tid, &now);
	pt->cpu_interval = spec_us(&v->interval);
	pt->cpu_next = !value ? 0 : abstime ? value : now + value;
}

static struct lx_itimerspec cpu_get(struct ptimer *pt)
{
	u64 now = 0, i = pt->cpu_interval;
	cpu_clock_now(pt->cpu_pid, pt->cpu_tid, &now);
	u64 left = !pt->cpu_next ? 0 : pt->cpu_next > now ? pt->cpu_next - now : 1;
	return (struct lx_itimerspec){ { (int64_t)(i / 1000000), (int64_t)(i % 1000000) * 1000 },
				       { (int64_t)(left / 1000000), (int64_t)(left % 1000000) * 1000 } };
}

void ptimer_cpu_tick(void)
{
	for (struct ptimer *pt = ptimers, *n; pt; pt = n) {
		n = pt->next;           /* (fire may end the process, not the list) */
		u64 now;
		if (!pt->cpu || !pt->cpu_next || !cpu_clock_now(pt->cpu_pid, pt->cpu_tid, &now) ||
		    now < pt->cpu_next)
			continue;
		u64 k = 1 + (pt->cpu_interval ? (now - pt->cpu_next) / pt->cpu_interval : 0);
		pt->cpu_next = pt->cpu_interval ? pt->cpu_next + k * pt->cpu_interval : 0;
		pt->kt.ticks = k;
		fire(&pt->kt);
	}
}

/* The smallest id p does not use (Linux hands them out per process from 0). */
static int free_id(struct proc *p)
{
	for (int id = 0; id < PTIMERS_MAX; id++)
		if (!find(p, (u64)id))
			return id;
	return -1;
}

long sys_timer_create(struct thread *t, u64 clk, u64 uevent, u64 uid, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct proc *p = t->proc;
	struct ptimer cpu = { 0 };
	int r = check_clock(t, clk, &cpu), id;
	if (r < 0)
		return r;
	struct sigevent_k ev = { .signo = LX_SIGALRM, .notify = SIGEV_SIGNAL };
	if (uevent && !copyin(p, &ev, uevent, sizeof(ev)))
		return -LX_EFAULT;
	if ((r = check_event(p, &ev)) < 0)
		return r;
	if ((id = free_id(p)) < 0)
		return -LX_EAGAIN;
	struct ptimer *pt = lx_zalloc(sizeof(*pt));
	if (!pt)
		return -LX_EAGAIN;
	*pt = (struct ptimer){ .proc = p, .id = id, .notify = ev.notify == SIGEV_THREAD ?
			       SIGEV_SIGNAL : ev.notify, .signo = ev.signo, .tid = ev.tid,
			       .value = uevent ? ev.value : (u64)id, .next = ptimers };
	pt->kt.clock = (int)clk;
	pt->kt.fire = fire;
	pt->cpu = cpu.cpu;
	pt->cpu_pid = cpu.cpu_pid;
	pt->cpu_tid = cpu.cpu_tid;
	if (!copyout(p, uid, &id, sizeof(id))) {
		lx_free(pt);
		return -LX_EFAULT;
	}
	ptimers = pt;
	return 0;
}

long sys_timer_settime(struct thread *t, u64 id, u64 flags, u64 unew, u64 uold, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct lx_itimerspec v, old;
	if (!unew)
		return -LX_EINVAL;
	if (!copyin(t->proc, &v, unew, sizeof(v)))
		return -LX_EFAULT;
	if (!ktimer_valid(&v))
		return -LX_EINVAL;
	struct ptimer *pt = find(t->proc, id);
	if (!pt)
		return -LX_EINVAL;
	old = pt->cpu ? cpu_get(pt) : ktimer_get(&pt->kt);
	if (pt->cpu)
		cpu_arm(pt, &v, flags & TIMER_ABSTIME);
	else
		ktimer_arm(&pt->kt, &v, flags & TIMER_ABSTIME);
	pt->overrun = 0;
	if (uold && !copyout(t->proc, uold, &old, sizeof(old)))
		return -LX_EFAULT;
	return 0;
}

long sys_timer_gettime(struct thread *t, u64 id, u64 ucur, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct ptimer *pt = find(t->proc, id);
	if (!pt)
		return -LX_EINVAL;
	struct lx_itimerspec v = pt->cpu ? cpu_get(pt) : ktimer_get(&pt->kt);
	return copyout(t->proc, ucur, &v, sizeof(v)) ? 0 : -LX_EFAULT;
}

long sys_timer_getoverrun(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct ptimer *pt = find(t->proc, id);
	return pt ? pt->last_overrun : -LX_EINVAL;
}

long sys_timer_delete(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct ptimer *pt = find(t->proc, id);
	if (!pt)
		return -LX_EINVAL;
	destroy(pt);
	return 0;
}
