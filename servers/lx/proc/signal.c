// SPDX-License-Identifier: MIT
// Signals.  A signal for a thread that waits in lx (in a system call) is
// delivered when that call is answered; a thread running its own code is
// redirected by its space's signal thread (l4/sigthread.c) to a `ud2` in the
// stub page, whose exception brings every register to lx, which then builds
// the handler's frame as Linux does.
#include "../syscall/syscall.h"
#include "../../../lib/c/string.h"

#define SA_NOCLDSTOP 0x00000001
#define SA_NOCLDWAIT 0x00000002
#define SA_SIGINFO   0x00000004
#define SA_ONSTACK   0x08000000
#define SA_RESTART   0x10000000
#define SA_NODEFER   0x40000000
#define SA_RESETHAND 0x80000000
#define SS_ONSTACK   1
#define SS_DISABLE   2
#define UNBLOCKABLE  (SIGBIT(LX_SIGKILL) | SIGBIT(LX_SIGSTOP))

/* --- handler tables --- */

struct sighand *sighand_new(void)
{
	struct sighand *h = lx_zalloc(sizeof(*h));
	if (h)
		h->refs = 1;
	return h;
}

struct sighand *sighand_dup(struct sighand *old)
{
	struct sighand *h = sighand_new();
	if (h && old)
		memcpy(h->act, old->act, sizeof(h->act));
	return h;
}

void sighand_put(struct sighand *h)
{
	if (h && !--h->refs)
		lx_free(h);
}

void sighand_exec(struct sighand *h)
{
	for (int s = 1; s <= LX_NSIG; s++)
		if (h->act[s].handler != LX_SIG_IGN)
			h->act[s] = (struct sigaction_k){ 0 };
}

bool sigchld_ignored(struct proc *p)
{
	return p->sig && (p->sig->act[LX_SIGCHLD].handler == LX_SIG_IGN ||
			  (p->sig->act[LX_SIGCHLD].flags & SA_NOCLDWAIT));
}

/* --- default actions --- */

static bool stop_signal(int sig)
{
	return sig == LX_SIGSTOP || sig == LX_SIGTSTP || sig == LX_SIGTTIN || sig == LX_SIGTTOU;
}

static bool default_ignores(int sig)
{
	return sig == LX_SIGCHLD || sig == LX_SIGCONT || sig == LX_SIGWINCH || sig == 23;
}

static bool ignored(struct proc *p, int sig)
{
	u64 h = p->sig->act[sig].handler;
	return h == LX_SIG_IGN || (h == LX_SIG_DFL && default_ignores(sig));
}

static bool dumps_core(int sig)
{
	return sig == LX_SIGQUIT || sig == LX_SIGILL || sig == LX_SIGTRAP || sig == LX_SIGABRT ||
	       sig == LX_SIGBUS || sig == LX_SIGFPE || sig == LX_SIGSEGV || sig == LX_SIGSYS ||
	       sig == LX_SIGXFSZ || sig == 24;     /* SIGXCPU */
}

/*
 * Linux sets the core bit (0x80) only when it wrote a core, which a soft
 * RLIMIT_CORE of 0 (the usual default, and lx's) prevents; lx writes no
 * core file, but sets the bit whenever the limit would have allowed one.
 */
#define LX_RLIMIT_CORE 4
int signal_death_status(struct proc *p, int sig)
{
	return sig | (dumps_core(sig) && p->rlim[LX_RLIMIT_CORE][0] ? 0x80 : 0);
}

/* --- queues: standard signals coalesce, real-time ones queue with their siginfo --- */

struct sigq {
	struct sigq *next;
	struct lx_siginfo info;
};
#define SIGQ_MAX 1024               /* real-time signals queued per process (Linux: RLIMIT_SIGPENDING) */

static bool is_rt(int sig) { return sig >= LX_SIGRTMIN; }

/* Queue si on list (its bit in *pending); -EAGAIN when a real-time queue is full. */
static int enqueue(struct proc *p, struct sigq **list, u64 *pending, const struct lx_siginfo *si)
{
	int sig = si->signo;
	if (!is_rt(sig) && (*pending & SIGBIT(sig)))
		return 0;                       /* one standard signal pending at most */
	struct sigq *q = !is_rt(sig) || p->nqueued < SIGQ_MAX ? lx_malloc(sizeof(*q)) : NULL;
	if (!q && is_rt(sig) && si->code != LX_SI_USER)
		return -LX_EAGAIN;              /* kill's signal stays pending without its siginfo */
	*pending |= SIGBIT(sig);
	if (!q)
		return 0;
	q->info = *si;
	q->next = NULL;
	while (*list)
		list = &(*list)->next;
	*list = q;
	p->nqueued += is_rt(sig);
	return 0;
}

/* Take sig's first siginfo off list into *si; its bit goes when no more are queued. */
static void unqueue(struct proc *p, struct sigq **list, u64 *pending, int sig,
		    struct lx_siginfo *si)
{
	bool found = false, more = false;
	for (struct sigq **pp = list; *pp;) {
		struct sigq *q = *pp;
		if (q->info.signo != sig || found) {
			more |= q->info.signo == sig;
			pp = &q->next;
			continue;
		}
		found = true;
		if (si)
			*si = q->info;
		*pp = q->next;
		p->nqueued -= is_rt(sig);
		lx_free(q);
	}
	if (!found && si)                       /* pending without its siginfo */
		*si = (struct lx_siginfo){ .signo = sig, .code = LX_SI_USER };
	if (!more)
		*pending &= ~SIGBIT(sig);
}

static void flush_list(struct proc *p, struct sigq **list, u64 *pending, int sig)
{
	while (*pending & SIGBIT(sig))
		unqueue(p, list, pending, sig, NULL);
}

/* sig is no longer pending anywhere in p. */
static void flush_sig(struct proc *p, int sig)
{
	flush_list(p, &p->sigq, &p->sigpending, sig);
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		flush_list(p, &t->sigq, &t->sigpending, sig);
}

void signal_forget(struct thread *t)
{
	for (int s = 1; s <= LX_NSIG; s++)
		flush_list(t->proc, &t->sigq, &t->sigpending, s);
}

void signal_proc_gone(struct proc *p)
{
	for (int s = 1; s <= LX_NSIG; s++)
		flush_list(p, &p->sigq, &p->sigpending, s);
}

/* --- job control --- */

bool pgrp_orphaned(int pgid)
{
	for (struct proc *p = procs; p; p = p->next_all)
		if (p->pgid == pgid && !p->zombie && p->parent && p->parent->pgid != pgid &&
		    p->parent->sid == p->sid)
			return false;
	return true;
}

/*
 * An exit took away the last link of process group pgid to its session
 * (a parent in another group of the same session): if a member is
 * stopped, nobody is left to continue it, so the group gets SIGHUP and
 * SIGCONT, as POSIX asks.
 */
void job_orphaned(int pgid)
{
	bool stopped = false;
	for (struct proc *q = procs; q; q = q->next_all)
		stopped |= q->pgid == pgid && !q->zombie && q->stopped;
	if (!stopped || !pgrp_orphaned(pgid))
		return;
	signal_send_pgrp(pgid, LX_SIGHUP);
	signal_send_pgrp(pgid, LX_SIGCONT);
}

/* Tell p's parent that p stopped or continued (SIGCHLD unless SA_NOCLDSTOP) and wake its wait. */
static void notify_parent(struct proc *p, int code, int status)
{
	struct proc *q = p->parent;
	if (!q || q->zombie)
		return;
	if (!(q->sig->act[LX_SIGCHLD].flags & SA_NOCLDSTOP)) {
		struct lx_siginfo si = { .signo = LX_SIGCHLD, .code = code, .pid = p->pid,
					 .uid = p->cred.uid, .status = status };
		signal_send_proc_info(q, &si);
	}
	wake(q);
}

/* Every thread of p stops: running ones are redirected to lx, which holds them. */
static void job_stop(struct proc *p, int sig)
{
	if (p->stopped)
		return;
	p->stopped = true;
	p->stop_sig = sig;
	p->wait_report = WAIT_REPORT_STOPPED;
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (t->state == T_RUNNING)
			kick(t);
	notify_parent(p, LX_CLD_STOPPED, sig);
}

static void release_held(struct proc *p)
{
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (t->held)
			resume_thread(t);
		else if (t->held_call)
			rerun_thread(t);
}

/* SIGCONT: pending stops are dropped, and a stopped p continues. */
static void job_continue(struct proc *p)
{
	for (int s = 1; s <= LX_NSIG; s++)
		if (stop_signal(s))
			flush_sig(p, s);
	if (!p->stopped)
		return;
	p->stopped = false;
	p->wait_report = WAIT_REPORT_CONTINUED;
	release_held(p);
	notify_parent(p, LX_CLD_CONTINUED, LX_SIGCONT);
}

/* --- sending --- */

static bool wants(struct thread *t, int sig)
{
	return !(t->sigmask & SIGBIT(sig)) || (SIGBIT(sig) & UNBLOCKABLE);
}

/* The thread of p to take sig now: one that does not block it, preferably one parked in lx. */
static struct thread *taker(struct proc *p, struct thread *to, int sig)
{
	if (to)
		return wants(to, sig) ? to : NULL;
	struct thread *target = NULL;
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (wants(t, sig) && (!target || t->state == T_BLOCKED))
			target = t;
	return target;
}

bool signal_refused(struct thread *t, int sig)
{
	return !wants(t, sig) || t->proc->sig->act[sig].handler == LX_SIG_IGN;
}

/* Does the receiver (to, or some thread of p) block sig? */
static bool blocked_by(struct proc *p, struct thread *to, int sig)
{
	for (struct thread *t = to ? to : p->threads; t; t = to ? NULL : t->next_in_proc)
		if (!wants(t, sig))
			return true;
	return false;
}

/* The effects of sending that come before queueing (signal(7)): stops and continues. */
static bool send_effects(struct proc *p, struct thread *target, int sig)
{
	if (sig == LX_SIGCONT)
		job_continue(p);
	else if (stop_signal(sig))
		flush_sig(p, LX_SIGCONT);
	if (sig == LX_SIGKILL && p->stopped) {
		p->stopped = false;                 /* it dies: its held threads go to their end */
		release_held(p);
	}
	if (stop_signal(sig) && p->sig->act[sig].handler == LX_SIG_DFL && target) {
		if (sig == LX_SIGSTOP || !pgrp_orphaned(p->pgid))
			job_stop(p, sig);
		return true;                        /* the stop was its action: nothing to queue */
	}
	return false;
}

/* Send si to p, or to its thread `to`: queue it and get a thread to take it. */
static int send_signal(struct proc *p, struct thread *to, const struct lx_siginfo *si)
{
	int sig = si->signo;
	if (p->zombie || !p->threads)
		return 0;
	struct thread *target = taker(p, to, sig);
	if (send_effects(p, target, sig) || (ignored(p, sig) && !blocked_by(p, to, sig)))
		return 0;                           /* a blocked one is kept: its handler may change */
	int err = to ? enqueue(p, &to->sigq, &to->sigpending, si) :
		       enqueue(p, &p->sigq, &p->sigpending, si);
	if (err)
		return err;
	if (target) {
		kick(target);
		return 0;
	}
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if ((!to || t == to) && t->state == T_BLOCKED)
			wake_thread(t);             /* sigtimedwait may want it */
	return 0;
}

int signal_send_proc_info(struct proc *p, const struct lx_siginfo *si)
{
	return send_signal(p, NULL, si);
}

int signal_send_thread_info(struct thread *t, const struct lx_siginfo *si)
{
	return send_signal(t->proc, t, si);
}

/* A signal lx raises for a thread (SIGPIPE, SIGXFSZ): SI_USER from its own process, as Linux. */
void signal_send_thread(struct thread *t, int sig)
{
	struct lx_siginfo si = { .signo = sig, .code = LX_SI_USER, .pid = t->proc->pid };
	send_signal(t->proc, t, &si);
}

/* A signal from the kernel's side (the tty, alarms): SI_KERNEL. */
void signal_send_proc(struct proc *p, int sig)
{
	struct lx_siginfo si = { .signo = sig, .code = LX_SI_KERNEL };
	send_signal(p, NULL, &si);
}

void signal_send_pgrp(int pgid, int sig)
{
	for (struct proc *p = procs; p; p = p->next_all)
		if (p->pgid == pgid && !p->zombie)
			signal_send_proc(p, sig);
}

static u64 deliverable(struct thread *t)
{
	return (t->sigpending | t->proc->sigpending) & (~t->sigmask | UNBLOCKABLE);
}

bool signal_pending(struct thread *t)
{
	u64 d = deliverable(t);
	for (int s = 1; d && s <= LX_NSIG; s++)
		if ((d & SIGBIT(s)) && !ignored(t->proc, s))
			return true;
	return false;
}

/* --- delivery --- */

struct sigcontext {
	u64 r8, r9, r10, r11, r12, r13, r14, r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip,
	    eflags;
	uint16_t cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2, fpstate, reserved[8];
};

struct ucontext {
	u64 flags, link;
	u64 ss_sp;
	int32_t ss_flags, pad;
	u64 ss_size;
	struct sigcontext mc;
	u64 sigmask;
};

struct rt_sigframe {
	u64 pretcode;
	struct ucontext uc;
	struct lx_siginfo info;
};

static void save_context(struct thread *t, struct sigcontext *c)
{
	const struct regs *r = &t->regs;
	*c = (struct sigcontext){ .r8 = r->r8, .r9 = r->r9, .r10 = r->r10, .r11 = r->r11,
		.r12 = r->r12, .r13 = r->r13, .r14 = r->r14, .r15 = r->r15, .rdi = r->rdi,
		.rsi = r->rsi, .rbp = r->rbp, .rbx = r->rbx, .rdx = r->rdx, .rax = r->rax,
		.rcx = r->rcx, .rsp = r->rsp, .rip = r->rip, .eflags = r->rflags, .cs = 0x33,
		.ss = 0x2b, .fpstate = 0 };
}

static bool on_altstack(struct thread *t, u64 sp)
{
	return t->altstack_size && sp > t->altstack_sp && sp <= t->altstack_sp + t->altstack_size;
}

/*
 * The FPU/SSE state in a frame: lx cannot read a thread's FPU registers, so
 * the stub saves them (lx_sigenter, FXSAVE) in an area above the frame that
 * uc_mcontext.fpregs names, as Linux lays it out, and restores them
 * (lx_sigreturn, FXRSTOR) on the way back from the handler.
 */
#define FPU_AREA 512
#define FXSAVE_MXCSR 24
extern const char lx_stub_start[], lx_sigenter[], lx_sigenter_saved[], lx_sigreturn[];
#define STUB_ADDR(sym) (LX_STUB_PAGE + (u64)((sym) - lx_stub_start))
static uint32_t mxcsr_mask = 0xffbf;         /* the CPU's, from lx's own FXSAVE (signal_init) */
static uint16_t user_cs, user_ss;             /* Pecan's user selectors, as lx runs with them */

void signal_init(void)
{
	__asm__ volatile("movw %%cs, %0; movw %%ss, %1" : "=r"(user_cs), "=r"(user_ss));
	static uint8_t area[FPU_AREA] __attribute__((aligned(16)));
	__asm__ volatile("fxsave64 %0" : "=m"(area));
	uint32_t mask;
	memcpy(&mask, area + FXSAVE_MXCSR + 4, 4);
	if (mask)
		mxcsr_mask = mask;
}

/*
 * t is about to take its state back through lx_sigreturn (a signal came at
 * rt_sigreturn, or it was stopped there): take RIP, RFLAGS and RSP from
 * iretq's words, as Linux would have them; *fpu: the FPU state's area.
 */
static bool unwind_sigreturn(struct thread *t, u64 *fpu)
{
	u64 iret[5];
	if (!copyin(t->proc, iret, t->regs.rsp, sizeof(iret)))
		return false;
	*fpu = t->regs.rsp + sizeof(iret);
	t->regs.rip = iret[0];
	t->regs.rflags = (t->regs.rflags & ~0xcd5UL) | (iret[2] & 0xcd5UL);
	t->regs.rsp = iret[3];
	return true;
}

/* The frame's FPU area: zeros for lx_sigenter's FXSAVE, or the state from `from`. */
static bool fill_fpu_area(struct thread *t, u64 fpu, u64 from)
{
	static uint8_t buf[FPU_AREA];
	if (from) {
		if (!copyin(t->proc, buf, from, FPU_AREA))
			return false;
	} else {
		memset(buf, 0, FPU_AREA);
	}
	return copyout(t->proc, fpu, buf, FPU_AREA);
}

/* Build the handler's frame and point the registers at the handler (through lx_sigenter). */
static bool setup_frame(struct thread *t, const struct lx_siginfo *si, const struct sigaction_k *a)
{
	int sig = si->signo;
	struct rt_sigframe f;
	u64 saved = 0;
	if (t->regs.rip == STUB_ADDR(lx_sigreturn) && !unwind_sigreturn(t, &saved))
		return false;
	memset(&f, 0, sizeof(f));
	u64 sp = t->regs.rsp - 128;                 /* below the red zone */
	if ((a->flags & SA_ONSTACK) && t->altstack_size && !on_altstack(t, t->regs.rsp))
		sp = t->altstack_sp + t->altstack_size;
	u64 fpu = (sp - FPU_AREA) & ~63UL;
	u64 frame = ((fpu - sizeof(f)) & ~15UL) - 8;
	f.pretcode = a->restorer;
	f.uc.ss_sp = t->altstack_sp;
	f.uc.ss_size = t->altstack_size;
	f.uc.ss_flags = t->altstack_size ? (on_altstack(t, t->regs.rsp) ? SS_ONSTACK : 0) : SS_DISABLE;
	save_context(t, &f.uc.mc);
	f.uc.mc.cr2 = t->fault_addr;
	f.uc.mc.fpstate = fpu;
	f.uc.sigmask = t->restore_sigmask ? t->saved_sigmask : t->sigmask;
	t->restore_sigmask = false;
	f.info = *si;
	if (!fill_fpu_area(t, fpu, saved) || !copyout(t->proc, frame, &f, sizeof(f)))
		return false;
	t->regs.rip = STUB_ADDR(saved ? lx_sigenter_saved : lx_sigenter);
	t->regs.rcx = a->handler;
	t->regs.r11 = fpu;
	t->regs.rsp = frame;
	t->regs.rdi = (u64)sig;
	t->regs.rsi = frame + offsetof(struct rt_sigframe, info);
	t->regs.rdx = frame + offsetof(struct rt_sigframe, uc);
	t->regs.rax = 0;
	t->regs.rflags &= ~0x400UL;                 /* DF clear, as the ABI wants */
	t->regs_dirty = true;
	t->sigmask |= a->mask | ((a->flags & SA_NODEFER) ? 0 : SIGBIT(sig));
	t->sigmask &= ~UNBLOCKABLE;
	return true;
}

/* The lowest signal of `set` pending for t, taken off its queue into *si; 0 if none. */
static int dequeue(struct thread *t, u64 set, struct lx_siginfo *si)
{
	struct proc *p = t->proc;
	u64 d = (t->sigpending | p->sigpending) & set;
	if (!d)
		return 0;
	int sig = __builtin_ctzl(d) + 1;
	if (t->sigpending & SIGBIT(sig))
		unqueue(p, &t->sigq, &t->sigpending, sig, si);
	else
		unqueue(p, &p->sigq, &p->sigpending, sig, si);
	if (si->code == LX_SI_TIMER)
		ptimer_delivered(p, si);        /* its overruns go with it */
	return sig;
}

static bool timer_on(const struct sigq *q, int id)
{
	for (; q; q = q->next)
		if (q->info.code == LX_SI_TIMER && q->info.pid == id)
			return true;
	return false;
}

bool signal_timer_queued(struct proc *p, int id)
{
	if (timer_on(p->sigq, id))
		return true;
	for (struct thread *t = p->threads; t; t = t->next_in_proc)
		if (timer_on(t->sigq, id))
			return true;
	return false;
}

/*
 * Calls that a handler ends with EINTR even under SA_RESTART (signal(7)):
 * sleeps, waits for signals, poll/select/epoll, System V waits, and a
 * futex wait with a timeout.
 */
static bool restartable(const struct thread *t)
{
	switch (t->sysno) {
	case 7: case 23: case 34: case 35: case 65: case 69: case 70: case 128: case 130:
	case 220: case 230: case 232: case 270: case 271: case 281: case 441:
		return false;
	case 202: {                             /* futex: FUTEX_WAIT(_BITSET) with a timeout */
		u64 cmd = t->regs.rsi & 0x7f;
		return !((cmd == 0 || cmd == 9) && t->regs.r10);
	}
	default:
		return true;
	}
}

/* Taking a PI futex lock never fails with EINTR (Linux's ERESTARTNOINTR). */
static bool always_restarts(const struct thread *t)
{
	u64 cmd = t->regs.rsi & 0x7f;
	return t->sysno == 202 && (cmd == 6 || cmd == 13);
}

int signal_dequeue(struct thread *t, u64 mask, struct lx_siginfo *si)
{
	return dequeue(t, mask, si);
}

/* A call interrupted by a signal: restart it (SA_RESTART, or nothing ran) or fail it with EINTR. */
static void fix_restart(struct thread *t, const struct sigaction_k *a, bool handler_runs)
{
	if (t->regs.rax != (u64)-LX_ERESTART)
		return;
	if (!handler_runs || always_restarts(t) || (a && (a->flags & SA_RESTART) && restartable(t))) {
		t->regs.rax = t->sysno;
		t->regs.rip = t->fast ? fast_restart_ip(t) : t->regs.rip - 2;   /* the call again */
		t->regs_dirty = true;
	} else {
		t->regs.rax = (u64)-LX_EINTR;
	}
}

/* The default action of sig for t's process: false if the process died. */
static bool default_action(struct thread *t, int sig)
{
	struct proc *p = t->proc;
	if (!stop_signal(sig)) {
		proc_exit(p, signal_death_status(p, sig));
		return false;
	}
	if (sig == LX_SIGSTOP || !pgrp_orphaned(p->pgid))
		job_stop(p, sig);
	return true;
}

bool signal_deliver(struct thread *t)
{
	struct proc *p = t->proc;
	if (!signal_work(t))
		return true;
	struct lx_siginfo si;
	for (int sig;;) {
		if (p->stopped && !(deliverable(t) & SIGBIT(LX_SIGKILL))) {
			t->held = true;             /* answered when p continues (resume_thread) */
			return false;
		}
		if (!(sig = dequeue(t, ~t->sigmask | UNBLOCKABLE, &si)))
			break;
		struct sigaction_k *a = &p->sig->act[sig];
		if (ignored(p, sig))
			continue;
		if (a->handler == LX_SIG_DFL) {
			if (!default_action(t, sig))
				return false;
			continue;
		}
		fix_restart(t, a, true);
		struct sigaction_k act = *a;
		if (a->flags & SA_RESETHAND)
			a->handler = LX_SIG_DFL;
		if (!setup_frame(t, &si, &act)) {
			proc_exit(p, signal_death_status(p, LX_SIGSEGV));
			return false;
		}
		return true;
	}
	fix_restart(t, NULL, false);
	if (t->restore_sigmask) {
		t->sigmask = t->saved_sigmask;
		t->restore_sigmask = false;
	}
	return true;
}

/*
 * A fault (bad access, CPU exception) of t at t->fault_rip, with its
 * siginfo.  With `regs` false t waits for a page-fault answer and lx lacks
 * its registers: a handler needs them, so t is first redirected to the stub.
 */
static bool fault_deliver(struct thread *t, struct lx_siginfo *si, bool regs)
{
	struct proc *p = t->proc;
	int sig = si->signo;
	struct sigaction_k *a = &p->sig->act[sig];
	bool handled = sig != LX_SIGKILL && a->handler > LX_SIG_IGN && !(t->sigmask & SIGBIT(sig));
	if (!handled) {
		/* what Linux's kernel log says about an unhandled fault */
		lx_log("lx: %s[%d]: signal %d at ip %lx, address %lx\n", p->comm, p->pid, sig,
		       t->fault_rip, si->addr);
		proc_exit(p, signal_death_status(p, sig));
		return false;
	}
	t->fault_addr = si->addr;
	if (!regs) {
		redirect_direct(t);                 /* it waits for the fault's answer: lx may */
		t->fault_sig = sig;
		L4_SetMR(0, 0);                     /* no mapping: it runs into the stub */
		L4_Reply(t->tid);
		t->state = T_RUNNING;               /* its #UD at the stub comes next */
		return false;
	}
	enqueue(p, &t->sigq, &t->sigpending, si);
	return signal_deliver(t);
}

#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRALN  1
#define BUS_ADRERR  2
#define ILL_ILLOPN  2
#define FPE_INTDIV  1
#define TRAP_TRACE  2

/* A page fault lx cannot serve: SIGSEGV (no area, or no such access) or SIGBUS at addr. */
bool signal_fault(struct thread *t, int sig, u64 addr, bool regs)
{
	struct lx_siginfo si = { .signo = sig, .addr = addr,
				 .code = sig == LX_SIGBUS ? BUS_ADRERR :
					 vm_mapped(t->mm, addr) ? SEGV_ACCERR : SEGV_MAPERR };
	return fault_deliver(t, &si, regs);
}

/* A CPU exception (vector vec): the si_code and si_addr Linux's x86 trap handlers give. */
bool signal_trap(struct thread *t, int sig, u64 vec)
{
	struct lx_siginfo si = { .signo = sig, .code = LX_SI_KERNEL };
	if (vec == 0 || vec == 6) {             /* #DE, #UD: the instruction's address */
		si.code = vec ? ILL_ILLOPN : FPE_INTDIV;
		si.addr = t->fault_rip;
	} else if (vec == 1) {
		si.code = TRAP_TRACE;
	} else if (vec == 17) {
		si.code = BUS_ADRALN;
	}
	return fault_deliver(t, &si, true);
}

/* --- system calls --- */

long sys_rt_sigaction(struct thread *t, u64 sig, u64 act, u64 oact, u64 size, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (sig < 1 || sig > LX_NSIG || size != 8)
		return -LX_EINVAL;
	struct sigaction_k *cur = &t->proc->sig->act[sig], n;
	if (act && (sig == LX_SIGKILL || sig == LX_SIGSTOP))
		return -LX_EINVAL;
	if (act && !copyin(t->proc, &n, act, sizeof(n)))
		return -LX_EFAULT;
	if (oact && !copyout(t->proc, oact, cur, sizeof(*cur)))
		return -LX_EFAULT;
	if (act) {
		n.mask &= ~UNBLOCKABLE;
		*cur = n;
		if (ignored(t->proc, (int)sig))
			flush_sig(t->proc, (int)sig);    /* Linux drops what is pending */
	}
	return 0;
}

/* The new mask from rt_sigprocmask's how and set word n; false for a bad how.  (SIG_SETMASK
 * first: restoring a mask is half of the calls, blocking most of the rest.) */
static inline bool mask_how(u64 *mask, u64 how, u64 n)
{
	if (how == 2)
		;
	else if (how == 0)
		n |= *mask;
	else if (how == 1)
		n = *mask & ~n;
	else
		return false;
	*mask = n & ~UNBLOCKABLE;
	return true;
}

/* rt_sigprocmask with copyin/copyout (a word not in their cache, or across pages) */
static __attribute__((noinline)) long sigprocmask_copy(struct thread *t, u64 how, u64 set,
						       u64 oset)
{
	u64 old = t->sigmask, n;
	if (set && !copyin_u64(t->proc, &n, set))
		return -LX_EFAULT;
	if (set && !mask_how(&t->sigmask, how, n))
		return -LX_EINVAL;
	if (oset && !copyout_u64(t->proc, oset, old))
		return -LX_EFAULT;
	return 0;
}

/*
 * Linux's order: the size, then set read (EFAULT), how (EINVAL only with a
 * set), oset written (EFAULT, the new mask kept).  The common case, both
 * words aligned in one page that copyin's cache has for writing (the
 * caller's stack), makes no call; the rest takes sigprocmask_copy.
 */
long sys_rt_sigprocmask(struct thread *t, u64 how, u64 set, u64 oset, u64 size, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (size != 8)
		return -LX_EINVAL;
	const u64 off = LX_PAGE_SIZE - 1;
	const struct vm_tlb_entry *e;
	if (!set || !oset || ((set | oset) & 7) || (set ^ oset) > off ||
	    !(e = user_page_cached(t->proc->mm, oset & ~off, true)))
		return sigprocmask_copy(t, how, set, oset);
	char *pg = e->k;
	u64 old = t->sigmask, n;
	__builtin_memcpy(&n, pg + (set & off), 8);
	if (!mask_how(&t->sigmask, how, n))
		return -LX_EINVAL;
	__builtin_memcpy(pg + (oset & off), &old, 8);
	return 0;
}

/*
 * The interrupted code's FPU/SSE state comes back through lx_sigreturn:
 * RSP points to iretq's five words, written right below the FPU area (in
 * the frame's own memory), with the RIP, RFLAGS and RSP that rt_sigreturn
 * restores.  A reserved MXCSR bit would make FXRSTOR fault: they are
 * cleared, as Linux does.  False if the area is not the process's to use.
 */
static bool restore_fpu(struct thread *t, u64 fpu)
{
	uint32_t mxcsr;
	u64 iret[5] = { t->regs.rip, user_cs, (t->regs.rflags & 0xcd5UL) | 0x202, t->regs.rsp,
			user_ss };
	if ((fpu & 15) || !copyin(t->proc, &mxcsr, fpu + FXSAVE_MXCSR, 4))
		return false;
	mxcsr &= mxcsr_mask;
	if (!copyout(t->proc, fpu + FXSAVE_MXCSR, &mxcsr, 4) ||
	    !copyout(t->proc, fpu - sizeof(iret), iret, sizeof(iret)) ||
	    !copyin(t->proc, &mxcsr, fpu + FPU_AREA - 4, 4))   /* the area's last word is there */
		return false;
	t->regs.rip = STUB_ADDR(lx_sigreturn);
	t->regs.rsp = fpu - sizeof(iret);
	return true;
}

long sys_rt_sigreturn(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	struct ucontext uc;
	if (!copyin(t->proc, &uc, t->regs.rsp, sizeof(uc))) {
		proc_exit(t->proc, signal_death_status(t->proc, LX_SIGSEGV));
		return SYS_NOREPLY;
	}
	const struct sigcontext *c = &uc.mc;
	u64 flags = t->regs.rflags;
	t->regs = (struct regs){ .rip = c->rip, .rbx = c->rbx, .r10 = c->r10, .r12 = c->r12,
		.r13 = c->r13, .r14 = c->r14, .r15 = c->r15, .rax = c->rax, .rcx = c->rcx,
		.rdx = c->rdx, .rsi = c->rsi, .rdi = c->rdi, .rbp = c->rbp, .r8 = c->r8,
		.r9 = c->r9, .r11 = c->r11, .rsp = c->rsp, .rflags = (flags & ~0xcd5UL) | (c->eflags & 0xcd5UL) };
	t->regs_dirty = true;
	t->sigmask = uc.sigmask & ~UNBLOCKABLE;
	if (c->rip >= LX_CANONICAL_END || (c->fpstate && !restore_fpu(t, c->fpstate))) {
		/* a frame Linux would not take back */
		proc_exit(t->proc, signal_death_status(t->proc, LX_SIGSEGV));
		return SYS_NOREPLY;
	}
	if (signal_deliver(t))
		thread_reply(t);
	return SYS_NOREPLY;
}

long sys_rt_sigpending(struct thread *t, u64 set, u64 size, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (size != 8)
		return -LX_EINVAL;
	u64 p = (t->sigpending | t->proc->sigpending) & t->sigmask;
	return copyout(t->proc, set, &p, 8) ? 0 : -LX_EFAULT;
}

long sys_rt_sigsuspend(struct thread *t, u64 set, u64 size, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (size != 8)
		return -LX_EINVAL;
	if (t->fresh) {
		u64 m;
		if (!copyin(t->proc, &m, set, 8))
			return -LX_EFAULT;
		t->saved_sigmask = t->sigmask;
		t->restore_sigmask = true;
		t->sigmask = m & ~UNBLOCKABLE;
	}
	if (signal_pending(t))
		return -LX_EINTR;
	block_on(t, &t->sigpending, 0);
	return SYS_BLOCK;
}

long sys_pause(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	if (signal_pending(t))
		return -LX_EINTR;
	block_on(t, &t->sigpending, 0);
	return SYS_BLOCK;
}

/* The wait's deadline at its first run: 0 none, else µs (a zero timeout: already passed). */
static long timedwait_deadline(struct thread *t, u64 timeout)
{
	if (!t->fresh)
		return 0;
	t->call_deadline = 0;
	if (!timeout)
		return 0;
	struct lx_timespec ts;
	if (!copyin(t->proc, &ts, timeout, sizeof(ts)))
		return -LX_EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -LX_EINVAL;
	t->call_deadline = lx_now_us() + (u64)ts.tv_sec * 1000000 + (u64)(ts.tv_nsec + 999) / 1000 + 1;
	return 0;
}

long sys_rt_sigtimedwait(struct thread *t, u64 set, u64 info, u64 timeout, u64 size, u64 a4,
			 u64 a5)
{
	(void)a4; (void)a5;
	u64 want;
	if (size != 8)
		return -LX_EINVAL;
	if (!copyin(t->proc, &want, set, 8))
		return -LX_EFAULT;
	long err = timedwait_deadline(t, timeout);
	if (err)
		return err;
	struct lx_siginfo si;
	int sig = dequeue(t, want & ~UNBLOCKABLE, &si);
	if (sig)
		return info && !copyout(t->proc, info, &si, sizeof(si)) ? -LX_EFAULT : sig;
	if (t->timed_out || (t->call_deadline && t->call_deadline <= lx_now_us()))
		return -LX_EAGAIN;
	block_on(t, &t->sigpending, t->call_deadline);
	return SYS_BLOCK;                       /* another signal's handler: EINTR (restartable) */
}

#define SS_AUTODISARM (1U << 31)
#define MINSIGSTKSZ 2048

long sys_sigaltstack(struct thread *t, u64 ss, u64 oss, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct { u64 sp; int32_t flags, pad; u64 size; } n, o = {
		t->altstack_sp, t->altstack_size ? (on_altstack(t, t->regs.rsp) ? SS_ONSTACK : 0) :
		SS_DISABLE, 0, t->altstack_size };
	if (ss) {
		if (!copyin(t->proc, &n, ss, sizeof(n)))
			return -LX_EFAULT;
		if (on_altstack(t, t->regs.rsp))
			return -LX_EPERM;
		uint32_t mode = (uint32_t)n.flags & ~SS_AUTODISARM;
		if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
			return -LX_EINVAL;
		if (mode != SS_DISABLE && n.size < MINSIGSTKSZ)
			return -LX_ENOMEM;
		t->altstack_sp = mode == SS_DISABLE ? 0 : n.sp;
		t->altstack_size = mode == SS_DISABLE ? 0 : n.size;
	}
	if (oss && !copyout(t->proc, oss, &o, sizeof(o)))
		return -LX_EFAULT;
	return 0;
}

/* kill(2)'s permission: root, or the sender's real or effective user is the target's real
 * or saved one; SIGCONT within the session.  Signal 0 is checked as well. */
static bool may_signal(const struct proc *from, const struct proc *to, u64 sig)
{
	const struct cred *a = &from->cred, *b = &to->cred;
	return from == to || a->euid == 0 || a->euid == b->suid || a->euid == b->uid ||
	       a->uid == b->suid || a->uid == b->uid || (sig == LX_SIGCONT && from->sid == to->sid);
}

long sys_kill(struct thread *t, u64 pid_, u64 sig, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	int pid = (int)pid_;
	if (sig > LX_NSIG)
		return -LX_EINVAL;
	int hit = 0, allowed = 0;
	struct lx_siginfo si = { .signo = (int)sig, .code = LX_SI_USER, .pid = t->proc->pid,
				 .uid = t->proc->cred.uid };
	for (struct proc *p = procs; p; p = p->next_all) {
		bool match = pid > 0 ? p->pid == pid : pid == 0 ? p->pgid == t->proc->pgid :
			     pid == -1 ? p->pid != 1 && p != t->proc : p->pgid == -pid;
		if (!match || p->zombie)
			continue;
		hit++;
		if (!may_signal(t->proc, p, sig))
			continue;
		allowed++;
		if (sig)
			signal_send_proc_info(p, &si);
	}
	return !hit ? -LX_ESRCH : allowed || pid == -1 ? 0 : -LX_EPERM;
}

struct thread *thread_by_linux_tid(int tid)
{
	for (struct proc *p = procs; p; p = p->next_all)
		for (struct thread *t = p->threads; t; t = t->next_in_proc)
			if (t->tid_linux == tid)
				return t;
	return NULL;
}

/* A signal from `from` to thread tid (of process tgid, if > 0) with siginfo si (NULL: only the checks). */
static long send_to_thread(struct proc *from, int tgid, int tid, u64 sig, const struct lx_siginfo *si)
{
	struct thread *d = thread_by_linux_tid(tid);
	if (!d || (tgid > 0 && d->proc->pid != tgid))
		return -LX_ESRCH;
	if (sig > LX_NSIG)
		return -LX_EINVAL;
	if (!may_signal(from, d->proc, sig))
		return -LX_EPERM;
	return sig && si ? signal_send_thread_info(d, si) : 0;
}

long sys_tgkill(struct thread *t, u64 tgid, u64 tid, u64 sig, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	if (sig > LX_NSIG || (int)tid <= 0)
		return -LX_EINVAL;
	struct lx_siginfo si = { .signo = (int)sig, .code = LX_SI_TKILL, .pid = t->proc->pid,
				 .uid = t->proc->cred.uid };
	return send_to_thread(t->proc, (int)tgid, (int)tid, sig, &si);
}

long sys_tkill(struct thread *t, u64 tid, u64 sig, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return sys_tgkill(t, 0, tid, sig, 0, 0, 0);
}

/* A caller's siginfo for sigqueue: it may not pose as the kernel or as kill/tgkill (EPERM). */
static long queued_info(struct thread *t, int to_pid, u64 sig, u64 uinfo, struct lx_siginfo *si)
{
	if (!copyin(t->proc, si, uinfo, sizeof(*si)))
		return -LX_EFAULT;
	if ((si->code >= 0 || si->code == LX_SI_TKILL) && to_pid != t->proc->pid)
		return -LX_EPERM;
	si->signo = (int)sig;
	return 0;
}

long sys_rt_sigqueueinfo(struct thread *t, u64 tgid, u64 sig, u64 uinfo, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	struct lx_siginfo si;
	long err = queued_info(t, (int)tgid, sig, uinfo, &si);
	if (err)
		return err;
	struct proc *p = (int)tgid > 0 ? proc_by_pid((int)tgid) : NULL;
	if (!p || p->zombie)
		return -LX_ESRCH;
	if (sig > LX_NSIG)
		return -LX_EINVAL;
	if (!may_signal(t->proc, p, sig))
		return -LX_EPERM;
	return sig ? signal_send_proc_info(p, &si) : 0;
}

long sys_rt_tgsigqueueinfo(struct thread *t, u64 tgid, u64 tid, u64 sig, u64 uinfo, u64 a4,
			   u64 a5)
{
	(void)a4; (void)a5;
	if ((int)tgid <= 0 || (int)tid <= 0)
		return -LX_EINVAL;
	struct lx_siginfo si;
	long err = queued_info(t, (int)tgid, sig, uinfo, &si);
	return err ? err : send_to_thread(t->proc, (int)tgid, (int)tid, sig, &si);
}

/* --- alarm and the interval timers --- */

static u64 timer_left(struct proc *p)
{
	u64 now = lx_now_us();
	return p->alarm_at > now ? p->alarm_at - now : p->alarm_at ? 1 : 0;
}

long sys_alarm(struct thread *t, u64 secs, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	struct proc *p = t->proc;
	u64 left = timer_left(p);
	p->alarm_at = secs ? lx_now_us() + secs * 1000000 : 0;
	p->itimer_interval = 0;
	deadlines_changed();
	return (long)((left + 999999) / 1000000);
}

/*
 * The interval timers (setitimer(2)): ITIMER_REAL on lx's clock (alarm_at),
 * ITIMER_VIRTUAL and ITIMER_PROF on the process's sampled CPU time (all of
 * it user time in lx, so both count the same), checked at each sample
 * (signal_cpu_timers).  A fork's child has none; exec keeps them.
 */
#define ITIMER_REAL 0
#define FAR_US (1UL << 61)

static u64 tv_us(const struct lx_timeval *tv)
{
	if ((u64)tv->tv_sec >= FAR_US / 1000000)
		return FAR_US;
	return (u64)tv->tv_sec * 1000000 + (u64)tv->tv_usec;
}

static struct lx_timeval us_tv(u64 us)
{
	return (struct lx_timeval){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) };
}

/* Timer `which` of p: the time left and the interval (µs). */
static void itimer_get(struct proc *p, u64 which, u64 *left, u64 *interval)
{
	if (which == ITIMER_REAL) {
		*left = timer_left(p);
		*interval = p->itimer_interval;
		return;
	}
	u64 next = p->cpu_itimer[which - 1][0];
	*left = !next ? 0 : next > p->utime_us ? next - p->utime_us : 1;
	*interval = p->cpu_itimer[which - 1][1];
}

static void itimer_set(struct proc *p, u64 which, u64 value, u64 interval)
{
	if (which == ITIMER_REAL) {
		p->itimer_interval = interval;
		p->alarm_at = value ? lx_now_us() + value : 0;
		deadlines_changed();
		return;
	}
	p->cpu_itimer[which - 1][0] = value ? p->utime_us + value : 0;
	p->cpu_itimer[which - 1][1] = interval;
}

void signal_cpu_timers(void)
{
	static const int sigs[2] = { LX_SIGVTALRM, LX_SIGPROF };
	for (struct proc *p = procs; p; p = p->next_all)
		for (int i = 0; i < 2 && !p->zombie; i++) {
			u64 *tm = p->cpu_itimer[i], now = p->utime_us;
			if (!tm[0] || now < tm[0])
				continue;
			tm[0] = tm[1] ? tm[0] + tm[1] * (1 + (now - tm[0]) / tm[1]) : 0;
			signal_send_proc(p, sigs[i]);
		}
}

/* Linux's order: the new value (EFAULT, EINVAL for a bad timeval; NULL: disarm), the
 * timer, the old value out. */
long sys_setitimer(struct thread *t, u64 which, u64 nv, u64 ov, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	struct proc *p = t->proc;
	struct lx_timeval n[2] = { { 0, 0 }, { 0, 0 } };
	if (nv && !copyin(p, n, nv, sizeof(n)))
		return -LX_EFAULT;
	for (int i = 0; i < 2; i++)
		if (n[i].tv_sec < 0 || n[i].tv_usec < 0 || n[i].tv_usec >= 1000000)
			return -LX_EINVAL;
	if (which > 2)
		return -LX_EINVAL;
	u64 left, interval;
	itimer_get(p, which, &left, &interval);
	struct lx_timeval old[2] = { us_tv(interval), us_tv(left) };
	itimer_set(p, which, tv_us(&n[1]), tv_us(&n[0]));
	return ov && !copyout(p, ov, old, sizeof(old)) ? -LX_EFAULT : 0;
}

long sys_getitimer(struct thread *t, u64 which, u64 ov, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (which > 2)
		return -LX_EINVAL;
	u64 left, interval;
	itimer_get(t->proc, which, &left, &interval);
	struct lx_timeval v[2] = { us_tv(interval), us_tv(left) };
	return copyout(t->proc, ov, v, sizeof(v)) ? 0 : -LX_EFAULT;
}

/* The earliest alarm of any process (µs), 0 if none. */
u64 signal_next_timer(void)
{
	u64 d = 0;
	for (struct proc *p = procs; p; p = p->next_all)
		if (p->alarm_at && !p->zombie && (!d || p->alarm_at < d))
			d = p->alarm_at;
	return d;
}

void signal_timers(u64 now)
{
	for (struct proc *p = procs; p; p = p->next_all) {
		if (!p->alarm_at || p->zombie || p->alarm_at > now)
			continue;
		p->alarm_at = p->itimer_interval ? now + p->itimer_interval : 0;
		deadlines_changed();
		signal_send_proc(p, LX_SIGALRM);
	}
}
