// SPDX-License-Identifier: MIT
/*
 * CPU time and the load average, by sampling.  The kernel does not tell a
 * thread's pager how long the thread ran, and reading the clock on every
 * message would cost every system call, so lx samples as Linux's tick does:
 * every TICK_US while any thread runs its own code (the clock thread wakes
 * lx for it, l4/clock.c), the time since the last sample is shared among
 * the threads then running (the kernel runs them round robin at one
 * priority).  lx's own time serving their calls lies in those intervals and
 * counts as theirs, as user time: stime stays 0.
 * When no thread runs, sampling stops until lx next answers one (cpu_start).
 */
#include "../lx.h"
#include "proc.h"

#define TICK_US 10000                   /* Linux's HZ=100 */
#define LOAD_US 5000000                 /* the load average's period (Linux's LOAD_FREQ) */
#define FSHIFT 11                       /* Linux's fixed point for the load average */
#define FIXED_1 (1UL << FSHIFT)

bool cpu_busy;
static u64 tick_at;                     /* the next sample; 0: not sampling */
static u64 user_us;                     /* every thread's time, the living's and the dead's */
static u64 load[3], load_at;            /* FIXED_1 units; when the last period ended */
static int last_running;                /* threads running at the last sample */

/* The next sample is one of the deadlines next_deadline caches: a change marks them stale. */
void cpu_start(void)
{
	cpu_busy = true;
	deadlines_changed();
}

u64 cpu_next_tick(void)
{
	if (cpu_busy && !tick_at)
		tick_at = lx_now_us() + TICK_US;
	return cpu_busy ? tick_at : 0;
}

u64 cpu_user_us(void)
{
	return user_us;
}

static bool in_own_code(const struct thread *t)
{
	return t->state == T_RUNNING && !t->is_sigthread;
}

static int running_threads(void)
{
	int n = 0;
	for (struct proc *p = procs; p; p = p->next_all)
		for (struct thread *t = p->threads; t; t = t->next_in_proc)
			n += in_own_code(t);
	return n;
}

static void charge(u64 us, int n)
{
	u64 share = us / (u64)n;
	for (struct proc *p = procs; p; p = p->next_all)
		for (struct thread *t = p->threads; t; t = t->next_in_proc)
			if (in_own_code(t)) {
				t->utime_us += share;
				p->utime_us += share;
			}
	user_us += share * (u64)n;
}

/* Linux's calc_load for every period that ended by now (nobody ran while not sampling). */
static void load_update(u64 now)
{
	static const u64 exp[3] = { 1884, 2014, 2037 };     /* 1, 5 and 15 minutes */
	while (load_at + LOAD_US <= now) {
		u64 active = (u64)(cpu_busy ? last_running : 0) * FIXED_1;
		for (int i = 0; i < 3; i++) {
			u64 l = load[i] * exp[i] + active * (FIXED_1 - exp[i]);
			load[i] = (l + (active >= load[i] ? FIXED_1 - 1 : 0)) / FIXED_1;
		}
		load_at += LOAD_US;
	}
}

void cpu_tick(u64 now)
{
	if (!tick_at || now < tick_at)
		return;
	load_update(now);
	int n = running_threads();
	if (n)
		charge(now - (tick_at - TICK_US), n);
	last_running = n;
	cpu_busy = n != 0;
	tick_at = n ? now + TICK_US : 0;
	deadlines_changed();
}

void cpu_load(u64 out[3])
{
	load_update(lx_now_us());
	for (int i = 0; i < 3; i++) {
		u64 v = load[i] + FIXED_1 / 200;
		out[i] = (v >> FSHIFT) * 100 + (((v & (FIXED_1 - 1)) * 100) >> FSHIFT);
	}
}

/* p's user and system µs, its own or its reaped children's (system time is in user, above). */
void cpu_times(struct proc *p, bool children, u64 *user, u64 *sys)
{
	*user = children ? p->cutime_us : p->utime_us;
	*sys = 0;
}

/*
 * RLIMIT_CPU (setrlimit(2)): SIGXCPU when the soft limit is reached and
 * every second after, SIGKILL at the hard limit.  Checked every
 * CHECK_EVERY_US while a process has a finite limit, so one that never
 * calls lx is stopped too.
 */
#define CHECK_EVERY_US 100000
static u64 check_at;                    /* the next check, 0: none needed */

static void cpu_limit(struct proc *p)
{
	u64 soft = p->rlim[LX_RLIMIT_CPU][0], hard = p->rlim[LX_RLIMIT_CPU][1];
	u64 secs = p->utime_us / 1000000;
	if (hard != LX_RLIM_INFINITY && secs >= hard) {
		signal_send_proc(p, LX_SIGKILL);
		return;
	}
	if (soft != LX_RLIM_INFINITY && secs >= soft && secs >= p->cpu_xcpu_at) {
		p->cpu_xcpu_at = secs + 1;
		signal_send_proc(p, LX_SIGXCPU);
	}
}

/* ITIMER_VIRTUAL and ITIMER_PROF: both count p's CPU time (lx counts no system time
 * apart), so they fire together when armed alike; checked as RLIMIT_CPU is. */
static void cpu_itimers(struct proc *p)
{
	for (int i = 0; i < 2; i++) {
		u64 at = p->cpu_itimer_at[i], iv = p->cpu_itimer_interval[i];
		if (!at || p->utime_us < at)
			continue;
		p->cpu_itimer_at[i] = iv ? p->utime_us + iv : 0;
		signal_send_proc(p, i ? LX_SIGPROF : LX_SIGVTALRM);
	}
}

static bool cpu_watched(const struct proc *p)
{
	return !p->zombie && (p->rlim[LX_RLIMIT_CPU][0] != LX_RLIM_INFINITY ||
			      p->cpu_itimer_at[0] || p->cpu_itimer_at[1]);
}

static void cpu_watch(const struct proc *p)
{
	if (!check_at && cpu_watched(p)) {
		check_at = lx_now_us() + CHECK_EVERY_US;
		deadlines_changed();
	}
}

void cpu_limit_changed(struct proc *p)
{
	p->cpu_xcpu_at = 0;
	cpu_watch(p);
}

void cpu_itimer_get(struct proc *p, int i, u64 *value, u64 *interval)
{
	u64 at = p->cpu_itimer_at[i];
	*value = !at ? 0 : at > p->utime_us ? at - p->utime_us : 1;
	*interval = p->cpu_itimer_interval[i];
}

void cpu_itimer_set(struct proc *p, int i, u64 value, u64 interval)
{
	p->cpu_itimer_at[i] = value ? p->utime_us + value : 0;
	p->cpu_itimer_interval[i] = interval;
	cpu_watch(p);
}

u64 cpu_next_check(void)
{
	return check_at;
}

void cpu_check(u64 now)
{
	if (!check_at || now < check_at)
		return;
	bool any = false;
	for (struct proc *p = procs; p; p = p->next_all) {
		if (!cpu_watched(p))
			continue;
		any = true;
		cpu_limit(p);
		cpu_itimers(p);
	}
	check_at = any ? now + CHECK_EVERY_US : 0;
	deadlines_changed();
}
