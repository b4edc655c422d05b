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

const uint8_t syscall_lean[SYS_MAX] = {
#define LEAN(nr, name) [nr] = LEAN_MEM,
	SYSCALLS_LEAN_MEM(LEAN)
#undef LEAN
#define LEAN(nr, name) [nr] = LEAN_PURE,
	SYSCALLS_LEAN_PURE(LEAN)
#undef LEAN
#define LEAN(nr, name) [nr] = LEAN_PURE0,
	SYSCALLS_LEAN_PURE0(LEAN)
#undef LEAN
};

/* The kind of lean call (syscall.h) t's call nr is, 0 if it needs syscall_run's steps. */
static inline int lean_kind(const struct thread *t, u64 nr)
{
	if (nr >= SYS_MAX || !syscall_lean[nr] || t->seccomp_strict || t->proc->stopped || lx_trace)
		return 0;
	return syscall_lean[nr];
}

/*
 * Run t's lean call nr (t->regs hold it) and answer it.  What stays from
 * syscall_run is what such a call can need: lx_current, RCX and R11 as
 * `syscall` leaves them, and signals (a changed mask may unblock one)
 * delivered before the answer.
 */
static void lean_run(struct thread *t, u64 nr)
{
	struct regs *r = &t->regs;
	t->sysno = nr;
	t->timed_out = false;
	t->fresh = false;
	lx_current = t;
	r->rax = (u64)table[nr](t, r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9);
	r->rcx = r->rip;
	r->r11 = r->rflags;
	if (!signal_work(t) || signal_deliver(t))
		thread_reply(t);
}

/*
 * A fast call's lean path (l4/fast.c); false if its call is none.  A pure
 * call runs and is answered from its message in the MRs, not copied to
 * t->regs but for RIP, RBP and RFLAGS: its answer is RAX alone, and the stub keeps
 * the rest of what a stop after the answer needs (l4/stub.S, lx_fast_sync).  An answer that needs more (a
 * signal to deliver, a reply already loaded, FS.base) takes the copy and
 * thread_reply; the MRs are intact, as a pure call makes no IPC.
 */
bool syscall_fast(struct thread *t, const L4_Word_t *mr)
{
	u64 nr = mr[8];
	int kind = lean_kind(t, nr);
	if (kind < LEAN_PURE) {
		if (kind)
			fast_regs(t), lean_run(t, nr);
		return kind != 0;
	}
	t->sysno = nr;
	t->timed_out = false;
	t->fresh = false;
	t->fast_short = 0;                          /* lx_fast_sync, and what it needs of lx: */
	t->regs.rip = mr[1];
	t->regs.rbp = mr[13];
	t->regs.rflags = mr[18];
	lx_current = t;
	long res = table[nr](t, mr[12], mr[11], mr[10], mr[3], mr[14], mr[15]);
	if (__builtin_expect(!signal_work(t) && thread_reply_pure(t, (u64)res), 1))
		return true;
	fast_regs(t);
	t->regs.rax = (u64)res;
	if (!signal_work(t) || signal_deliver(t))
		thread_reply(t);
	return true;
}

/*
 * The short fast call (l4/stub.S lx_fast_pure) of t: RIP and the registers
 * beside the answer's stay in t's UTCB, and an answer that needs them (a
 * signal to deliver) brings them first (fast_sync_reply).  False: nr is no
 * PURE0 call, or t needs syscall_run's steps; nothing was run.
 */
bool syscall_short(struct thread *t, u64 nr)
{
	if (lean_kind(t, nr) != LEAN_PURE0)
		return false;
	t->sysno = nr;
	t->timed_out = false;
	t->fresh = false;
	lx_current = t;
	long res = table[nr](t, 0, 0, 0, 0, 0, 0);
	if (__builtin_expect(signal_work(t) || !thread_reply_pure(t, (u64)res), 0))
		fast_sync_reply(t, (u64)res, false);
	return true;
}

/*
 * The short fast call with arguments (l4/stub.S lx_fast_lean): MR1 the
 * number, MR8..MR10 RDI RSI RDX, MR3 R10.  The handler may make IPC (a fault
 * on a file's page), so the answer's MR2..MR7 come from t->regs, where they
 * are kept first.  False as syscall_short.
 */
bool syscall_short_args(struct thread *t, const L4_Word_t *mr)
{
	u64 nr = mr[1];
	if (!lean_kind(t, nr))
		return false;
	fast_regs_2_7(&t->regs, mr);
	t->sysno = nr;
	t->timed_out = false;
	t->fresh = false;
	lx_current = t;
	long res = table[nr](t, mr[8], mr[9], mr[10], mr[3], 0, 0);
	reply_flush();                              /* (one the handler loaded, before the MRs change) */
	fast_mr2_7(L4_Utcb(), &t->regs);
	if (__builtin_expect(signal_work(t) || !thread_reply_pure(t, (u64)res), 0))
		fast_sync_reply(t, (u64)res, false);
	return true;
}

/*
 * The short calls lx's receive answers itself (l4/recv.S lx_quick), which
 * calls their handler with t and the arguments alone: a lean handler reads
 * no more than its call's (syscall.h: none for PURE0, four at most).  They
 * come from a thread running its own code that nothing else waits on (no
 * redirection under way, no FS.base to set, no seccomp, its process not
 * stopped); lx_quick runs only with the trace off, CPU sampling on and no
 * reply pending (l4/main.c quick).  The rest take message(): syscall_short,
 * syscall_short_args.
 */
_Static_assert(L4_TAG_MAKE(LX_PURE_LABEL, LX_PURE_WORDS, 0) == 0x4c5a0007 &&
	       L4_TAG_MAKE(LX_LEAN_LABEL, LX_LEAN_WORDS, 0) == 0x4c5b000a &&
	       QUICK_DONE == 0 &&
	       LX_QUICK_AGAIN == 0x4c578000, "l4/recv.S knows these");

/* from's thread if its call nr (of kind `kind` or, with 0, any lean one) can be a quick one */
static inline struct thread *quick_thread(L4_ThreadId_t from, u64 nr, int kind)
{
	if (nr >= SYS_MAX || !syscall_lean[nr] || (kind && syscall_lean[nr] != kind))
		return NULL;
	struct thread *t = thread_by_tid(from);
	if (!t || t->state != T_RUNNING || t->is_sigthread || t->kick != KICK_NONE ||
	    t->fs_dirty || t->seccomp_strict || t->proc->stopped)
		return NULL;
	return t;
}

/* (t->fresh and t->timed_out are left as they are: no lean handler reads them, and a call
 * that does starts at syscall_begin, which sets them) */
static inline struct quick_call quick_begin(struct thread *t, u64 nr, uint8_t stub)
{
	t->sysno = nr;
	t->regs_stale = true;                       /* its state stays in its UTCB */
	t->fast_short = stub;
	lx_current = t;
	return (struct quick_call){ t, table[nr] };
}

/*
 * lx_fast_pure's call nr from `from`: its handler to run, or t NULL.  Such
 * a call changes nothing a signal's delivery depends on, so one due now
 * sends it the general way (its answer must bring the thread's state).
 */
struct quick_call syscall_quick_pure(u64 nr, L4_ThreadId_t from)
{
	struct thread *t = quick_thread(from, nr, LEAN_PURE0);
	if (!t || signal_work(t))
		return (struct quick_call){ NULL, NULL };
	return quick_begin(t, nr, SHORT_PURE);
}

/* lx_fast_lean's call nr from `from` (RDI RSI RDX in MR8..MR10, R10 in MR3): the same. */
struct quick_call syscall_quick_lean(u64 nr, L4_ThreadId_t from)
{
	struct thread *t = quick_thread(from, nr, 0);
	if (!t)
		return (struct quick_call){ NULL, NULL };
	t->state = T_INCALL;
	return quick_begin(t, nr, SHORT_LEAN);
}

/* syscall_quick_lean_end's rarer cases (out of line: the common one needs no frame) */
static __attribute__((noinline)) struct quick quick_lean_flush(struct thread *t, long res)
{
	reply_flush();
	if (signal_work(t)) {
		fast_sync_reply(t, (u64)res, false);
		return (struct quick){ 0, QUICK_LOADED };
	}
	return (struct quick){ res, QUICK_DONE };
}

/*
 * After the handler of t's lean call (res): it may have made IPC (a fault on
 * a file's page) and loaded a reply to another thread, which goes out
 * first; a signal it made deliverable takes fast_sync_reply's way.
 */
struct quick syscall_quick_lean_end(struct thread *t, long res)
{
	t->state = T_RUNNING;
	if (__builtin_expect(reply_to != L4_NILTHREAD || signal_work(t), 0))
		return quick_lean_flush(t, res);
	return (struct quick){ res, QUICK_DONE };
}

/* A `syscall` from t: the exception message's registers are in t->regs. */
void syscall_dispatch(struct thread *t)
{
	if (lean_kind(t, t->regs.rax))
		lean_run(t, t->regs.rax);
	else
		syscall_begin(t);
}

void syscall_begin(struct thread *t)
{
	t->sysno = t->regs.rax;
	t->timed_out = false;
	t->fresh = true;
	syscall_run(t);
}
