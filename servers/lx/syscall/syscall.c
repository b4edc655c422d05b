// SPDX-License-Identifier: MIT
// Linux system calls arrive as exception messages (vector 0x100); here they
// are decoded, run, and answered with the thread's registers.  A call that
// must wait is parked on a wait channel and run again from the start when
// the channel is woken, its deadline passes or a signal arrives.
#include "../lx.h"
#include "syscall.h"
#include "../../../lib/c/string.h"

bool lx_trace;
struct thread *lx_current;              /* the thread whose call runs (for /proc/self) */
static struct thread *blocked;          /* threads parked in a system call */
struct thread *sys_retry;               /* to be run again (retry_pending) */
/* next_deadline's answer, recomputed only after something it reads changed */
bool deadlines_stale = true;
u64 deadline_cached;

void deadlines_changed(void) { deadlines_stale = true; }

static const sys_fn table[SYS_MAX] = {
#define ENTRY(nr, name) [nr] = sys_##name,
	SYSCALLS(ENTRY)
#undef ENTRY
};

static void list_remove(struct thread **list, struct thread *t)
{
	deadlines_stale |= t->deadline != 0;
	for (struct thread **pp = list; *pp; pp = &(*pp)->next_blocked)
		if (*pp == t) {
			*pp = t->next_blocked;
			return;
		}
}

void block_on(struct thread *t, void *wchan, u64 deadline)
{
	t->state = T_BLOCKED;
	t->wchan = wchan;
	t->deadline = deadline;
	deadlines_stale |= deadline != 0;
	t->next_blocked = blocked;
	blocked = t;
}

/* t leaves whatever list it waits in (it is being destroyed or run again). */
void unblock(struct thread *t)
{
	if (t->state != T_BLOCKED && t->state != T_RETRY)
		return;
	list_remove(t->state == T_BLOCKED ? &blocked : &sys_retry, t);
	t->state = T_RUNNING;
}

static void make_retry(struct thread *t)
{
	list_remove(&blocked, t);
	t->state = T_RETRY;
	t->next_blocked = sys_retry;
	sys_retry = t;
}

char poll_any[1];

void wake(void *wchan)
{
	wake_key(wchan, ~0);
}

void wake_key(void *wchan, int key)
{
	epoll_wake(wchan, key);
	for (struct thread *t = blocked, *n; t; t = n) {
		n = t->next_blocked;
		if (t->wchan == wchan || t->wchan == poll_any)
			make_retry(t);
	}
}

/* A signal for a parked thread: it runs its call again and sees the signal. */
void wake_thread(struct thread *t)
{
	if (t->state == T_BLOCKED)
		make_retry(t);
}

/*
 * A held thread whose process continued (proc/signal.c): it goes on the
 * retry list, and the loop, not the sender of SIGCONT, delivers its signals
 * and answers it, so that no sender sees a process exit under its feet.
 */
void resume_thread(struct thread *t)
{
	t->held = false;
	t->resume = true;
	t->state = T_RETRY;
	t->next_blocked = sys_retry;
	sys_retry = t;
}

/* A call of a stopped process's thread waits, not run, until SIGCONT (rerun_thread). */
static void hold_call(struct thread *t)
{
	t->state = T_INCALL;
	t->held_call = true;
}

void rerun_thread(struct thread *t)
{
	t->held_call = false;
	t->state = T_RETRY;
	t->next_blocked = sys_retry;
	sys_retry = t;
}

/* The earliest deadline of a parked thread or an alarm (µs), 0 if none. */
static u64 earlier(u64 a, u64 b)
{
	return !a || (b && b < a) ? b : a;
}

/* The earliest deadline of a parked call, an alarm, or CPU time's next sample. */
u64 next_deadline_compute(void)
{
	u64 d = earlier(signal_next_timer(), timerfd_next());
	d = earlier(d, cpu_next_check());
	d = earlier(d, ext2_next_writeback());
	for (struct thread *t = blocked; t; t = t->next_blocked)
		if (t->deadline && (!d || t->deadline < d))
			d = t->deadline;
	deadlines_stale = false;
	deadline_cached = earlier(d, cpu_next_tick());
	return deadline_cached;
}

void expire_deadlines(u64 now)
{
	cpu_tick(now);
	signal_timers(now);
	timerfd_expire(now);
	cpu_check(now);
	ext2_writeback(now);
	for (struct thread *t = blocked, *n; t; t = n) {
		n = t->next_blocked;
		if (t->deadline && t->deadline <= now) {
			t->timed_out = true;
			make_retry(t);
		}
	}
}

void retry_blocked(void)
{
	while (sys_retry) {
		struct thread *t = sys_retry;
		sys_retry = t->next_blocked;
		t->state = T_RUNNING;
		if (t->resume) {
			t->resume = false;
			t->state = T_INCALL;
			if (signal_deliver(t))
				thread_reply(t);
			continue;
		}
		syscall_run(t);
	}
}

static void log_unknown(u64 nr)
{
	static uint8_t seen[SYS_MAX + 1];
	u64 i = nr < SYS_MAX ? nr : SYS_MAX;
	if (seen[i])
		return;
	seen[i] = 1;
	lx_log("lx: system call %lu not implemented (ENOSYS)\n", nr);
}

/* Run t's call (t->sysno with the arguments in t->regs) and answer it unless it waits. */
void syscall_run(struct thread *t)
{
	struct regs *r = &t->regs;
	u64 nr = t->sysno;
	long res;
	if (__builtin_expect(t->proc->stopped, 0)) {
		hold_call(t);           /* a stopped process completes no call (SIGKILL ends the stop) */
		return;
	}
	lx_current = t;
	vfs_walk_root = t->proc->root;
	if (__builtin_expect(t->seccomp_strict, 0) && !seccomp_strict_allows(nr)) {
		res = seccomp_strict_kill(t);
	} else if (nr < SYS_MAX && table[nr]) {
		fs_cred = &t->proc->cred;
		res = table[nr](t, r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9);
		fs_cred = NULL;
	} else {
		log_unknown(nr);
		res = -LX_ENOSYS;
	}
	vfs_walk_root = NULL;                   /* (t's process may be gone) */
	t->timed_out = false;
	t->fresh = false;
	if (lx_trace)
		lx_log("lx: %d: %lu(%lx, %lx, %lx) = %s%ld\n", t->tid_linux, nr, r->rdi, r->rsi,
		       r->rdx, res == SYS_BLOCK ? "wait " : "", res == SYS_BLOCK ? 0 : res);
	if (res == SYS_NOREPLY)
		return;
	if (res == SYS_BLOCK) {
		if (!signal_pending(t))
			return;             /* parked: block_on was called */
		unblock(t);
		futex_forget(t);
		res = -LX_ERESTART;
	}
	r->rax = (u64)res;
	r->rcx = r->rip;
	r->r11 = r->rflags;
	if (!signal_work(t) || signal_deliver(t))
		thread_reply(t);
}

/* A `syscall` from t: the exception message's registers are in t->regs. */
void syscall_dispatch(struct thread *t)
{
	t->sysno = t->regs.rax;
	t->timed_out = false;
	t->fresh = true;
	syscall_run(t);
}
