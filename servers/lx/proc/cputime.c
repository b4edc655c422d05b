// SPDX-License-Identifier: MIT
// CPU time as lx can see it, and RLIMIT_CPU.  The kernel does not report a
// thread's run time, so lx counts with the TSC (one instruction, no kernel
// call; proc.h's cpu_enter/cpu_leave): a thread's user time runs from lx's
// reply to its next message to lx (a call, a fault), its system time from
// that message to lx's reply, less the time its call is parked.  Time the kernel gave other threads (lx's other work, other
// processes preempting it) in between is counted too, so on a busy system
// user time is over-counted (docs/lx.md, "Limits").  Cycles become µs at
// the rate the TSC has kept against SystemClock since boot.
#include "../lx.h"

static u64 tsc_boot, us_boot;
static u64 check_at;                    /* µs: the next RLIMIT_CPU check, 0 = none needed */
#define CHECK_EVERY_US 100000

void cpu_start(void)
{
	tsc_boot = cpu_tsc();
	us_boot = lx_now_us();
}

u64 cpu_us(u64 cycles)
{
	u64 dt = cpu_tsc() - tsc_boot, dus = lx_now_us() - us_boot;
	if (!dt || !dus)
		return 0;
	if (dt < dus)
		return cycles * (dus / dt);
	return cycles * 16 / (dt * 16 / dus);      /* 16ths of cycles per µs keep the precision */
}

/* Threads running now: their time so far counts, their interval starts again. */
static void cpu_catch_up(struct proc *p)
{
	u64 now = cpu_tsc();
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (t->cpu_ran_at) {
			p->cpu_user += now - t->cpu_ran_at;
			t->cpu_ran_at = now;
		}
}

/* p's user and system µs, its own or its reaped children's. */
void cpu_times(struct proc *p, bool children, u64 *user, u64 *sys)
{
	if (!children)
		cpu_catch_up(p);
	*user = cpu_us(children ? p->cpu_cuser : p->cpu_user);
	*sys = cpu_us(children ? p->cpu_csys : p->cpu_sys);
}

/* A reaped child's times and its children's become its parent's children's. */
void cpu_reaped(struct proc *parent, struct proc *c)
{
	parent->cpu_cuser += c->cpu_user + c->cpu_cuser;
	parent->cpu_csys += c->cpu_sys + c->cpu_csys;
}

/*
 * RLIMIT_CPU (setrlimit(2)): SIGXCPU when the soft limit is reached and
 * every second after, SIGKILL at the hard limit.
 */
static void cpu_limit(struct proc *p)
{
	u64 soft = p->rlim[LX_RLIMIT_CPU][0], hard = p->rlim[LX_RLIMIT_CPU][1];
	u64 user, sys;
	cpu_times(p, false, &user, &sys);
	u64 secs = (user + sys) / 1000000;
	if (hard != LX_RLIM_INFINITY && secs >= hard) {
		signal_send_proc(p, LX_SIGKILL);
		return;
	}
	if (soft != LX_RLIM_INFINITY && secs >= soft && secs >= p->cpu_xcpu_at) {
		p->cpu_xcpu_at = secs + 1;
		signal_send_proc(p, LX_SIGXCPU);
	}
}

void cpu_limit_changed(struct proc *p)
{
	p->cpu_xcpu_at = 0;
	if (!check_at && p->rlim[LX_RLIMIT_CPU][0] != LX_RLIM_INFINITY) {
		check_at = lx_now_us() + CHECK_EVERY_US;
		deadlines_changed();
	}
}

u64 cpu_next_check(void)
{
	return check_at;
}

/* The periodic check, while any process has a finite RLIMIT_CPU: one that
 * never calls lx is stopped too. */
void cpu_check(u64 now)
{
	if (!check_at || now < check_at)
		return;
	bool any = false;
	for (struct proc *p = procs; p; p = p->next_all) {
		if (p->zombie || p->rlim[LX_RLIMIT_CPU][0] == LX_RLIM_INFINITY)
			continue;
		any = true;
		cpu_limit(p);
	}
	check_at = any ? now + CHECK_EVERY_US : 0;
	deadlines_changed();
}
