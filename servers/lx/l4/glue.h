/* SPDX-License-Identifier: MIT */
/*
 * The L4 glue: lx's server loop and replies (main.c), the start and signal
 * stub (stub.S), the fast library path (fast.c), each space's signal thread
 * (sigthread.c), the clock thread (clock.c) and the console (tty.c).
 */
#ifndef LX_L4_GLUE_H
#define LX_L4_GLUE_H

#include "../lx.h"

/* l4/sigthread.c: redirection of running threads by each space's signal thread */
void kick(struct thread *t);               /* get a thread running its own code to lx */
void kick_forget(struct thread *t);
void sigthread_message(struct thread *st, L4_Word_t label, L4_MsgTag_t tag);
bool kick_early(struct thread *t);         /* t reached the stub's #UD before the report */
void redirect_direct(struct thread *t);    /* lx redirects t itself (a thread that waits in lx) */

/* l4/fast.c: the fast library path */
extern bool lx_fast_on;                    /* the lx.fast option (default on) */
struct fastimg *fast_new(void);
void fast_put(struct fastimg *f);
struct fastimg *fast_get(struct fastimg *f);
int fast_map(struct mm *mm);               /* give a new image its fast area */
void fast_patch(struct thread *t);         /* after a trapped `syscall`: rewrite its site (mm->fast) */
bool fast_ud(struct thread *t);            /* #UD: a jump into a rewritten site's `syscall` */
u64 fast_restart_ip(struct thread *t);      /* where an interrupted fast call restarts */
void fast_call(struct thread *t);          /* the fast call message */
/* t->regs from the fast call's message in the MRs (inline: every call not pure) */
static inline void fast_regs(struct thread *t)
{
	void *d = &t->regs;
	const void *s = &((const L4_Word_t *)L4_Utcb())[1];
	unsigned long n = REGS_WORDS;
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");   /* (no call) */
	t->regs.r11 = t->regs.rflags;
	t->fast = true;
	t->regs_dirty = false;
	t->regs_stale = false;
}
/* t stopped (regs) after a pure call's answer: send it to lx_fast_sync for its state */
void fast_sync(struct thread *t, const struct regs *regs);
void fast_synced(struct thread *t);        /* its #UD at lx_fast_sync_ud: the state, its signal */
extern u64 fast_sync_ud_ip;
/* MR2..MR7 of a fast call and of its answer: RBX R10 R12..R15, in r and out of it. */
static inline void fast_mr2_7(L4_Word_t *mr, const struct regs *r)
{
	mr[2] = r->rbx;
	mr[3] = r->r10;
	mr[4] = r->r12;
	mr[5] = r->r13;
	mr[6] = r->r14;
	mr[7] = r->r15;
}
static inline void fast_regs_2_7(struct regs *r, const L4_Word_t *mr)
{
	r->rbx = mr[2];
	r->r10 = mr[3];
	r->r12 = mr[4];
	r->r13 = mr[5];
	r->r14 = mr[6];
	r->r15 = mr[7];
}
/*
 * Answer t's fast call: RAX and RBX R10 R12..R15 back in MR1..MR7, or, when
 * the call changed more than RAX (a signal frame, rt_sigreturn, a restart,
 * FS.base), the trap label: t then traps at lx_fast_trap and gets t->regs.
 * (Inline: every fast call's answer.)
 */
static inline void fast_reply(struct thread *t)
{
	L4_Word_t *mr = L4_Utcb();
	t->fast = false;
	if (t->regs_dirty || t->fs_dirty) {
		t->fast_trap = true;
		mr[0] = L4_TAG_MAKE(LX_FAST_TRAP, 0, 0);
		return;
	}
	mr[0] = L4_TAG_MAKE(0, 7, 0);
	mr[1] = t->regs.rax;
	fast_mr2_7(mr, &t->regs);
}
extern u64 fast_trap_ip;                   /* the #UD a fast call's trap reply leads to */
enum fast_where { FAST_NONE, FAST_BEFORE, FAST_AFTER, FAST_REDO, FAST_PURE_REDO, FAST_LEAN_REDO };
/* where a thread stopped in the fast path (at ip, with R9 = r9) */
enum fast_where fast_where(u64 ip, u64 r9);
u64 fast_redo_ip(enum fast_where w);       /* where one stopped at a FAST_*REDO runs on */
void fast_pure(struct thread *t);          /* a short fast call (lx_fast_pure) */
void fast_lean(struct thread *t);          /* a short one with arguments (lx_fast_lean) */
void fast_sync_reply(struct thread *t, u64 rax, bool call);   /* l4/main.c: see there */
extern u64 fast_pure_sync_ud_ip, fast_lean_sync_ud_ip;
void fast_init(void *stub_page);

/*
 * l4/recv.S: lx's receive loop for the short fast calls: the message just received (tag,
 * from; its words in the UTCB) is one; it answers it and the next ones and gives back the
 * first message it does not answer (see there).  LX_QUICK_AGAIN: it loaded a reply, nothing was received (an error
 * tag with a label no failed Ipc of lx's has: the kernel's carry none or lx's own sent tag).
 */
struct quick_msg { L4_MsgTag_t tag; L4_ThreadId_t from; };
struct quick_msg lx_quick(L4_MsgTag_t tag, L4_ThreadId_t from, L4_Word_t reply_timeouts);
#define LX_QUICK_AGAIN (L4_TAG_MAKE(0x4c57, 0, 0) | L4_TAG_ERROR)

/* l4/main.c */
void thread_reply(struct thread *t);       /* answer t with t->regs (and FS.base if dirty) */
/* a pure call's answer, RAX, with the message's MR2..MR7 (syscall_fast); false: not done */
bool thread_reply_pure(struct thread *t, u64 rax);
void map_stub(struct thread *t);           /* answer a page fault on the stub page */
/* t was redirected to the stub's #UD; msg: its registers there */
void redirected(struct thread *t, const struct regs *msg);
extern L4_ThreadId_t reply_to;             /* a reply loaded in the MRs, not yet sent (nil: none) */
void reply_send(void);
/* send a deferred reply before using the MRs (inline: every lean call asks) */
static inline void reply_flush(void)
{
	if (reply_to != L4_NILTHREAD)
		reply_send();
}
void lx_init_exited(int status) __attribute__((noreturn));
void lx_power_off(int code) __attribute__((noreturn));   /* the machine stops, QEMU exits with code */

/* l4/tty.c: the console through the user-level serial driver, with a line discipline */
void tty_init(L4_ThreadId_t reader);         /* starts the console reader thread */
L4_ThreadId_t tty_reader_id(void);
void tty_message(void);                      /* the reader's message: input bytes */

/* l4/main.c: a thread of lx's own space; returns its local ID */
L4_ThreadId_t lx_thread_start(L4_ThreadId_t tid, void (*ip)(void), char *stack, size_t size,
			      L4_Word_t prio);

/* l4/clock.c: the thread that wakes lx at the earliest deadline */
void clock_init(L4_ThreadId_t c);
L4_Word_t clock_tell(u64 deadline);         /* a new deadline (0: none); the receive timeout lx needs */
extern u64 clock_told;                      /* the deadline the clock sleeps for */
/* the earliest deadline (0: none); the receive timeout lx needs (the common case: no call) */
static inline L4_Word_t clock_update(u64 deadline)
{
	return deadline == clock_told ? L4_TIMEOUT_NEVER : clock_tell(deadline);
}
bool clock_is(L4_ThreadId_t from);
void clock_message(void);                   /* its tick */
int tty_fg_pgrp(void);
void tty_set_fg_pgrp(int pgrp);
extern const struct file_ops tty_ops;        /* /dev/console and /dev/tty */
long console_out(const void *buf, size_t n);
void klog_append(const char *s, size_t n);   /* syscall/sys_sys.c: lx's log, for syslog(2) */

#endif
