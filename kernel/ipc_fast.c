// SPDX-License-Identifier: MIT
// The IPC fastpaths: register-only Call and ReplyWait to a waiting partner,
// and exception messages to and replies from a waiting exception handler.
#include "ipc.h"
#include "exception.h"
#include "sched.h"
#include "space.h"
#include <arch_switch.h>
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

/*
 * Guards first: anything unusual (typed items, flags, special IDs,
 * a partner not waiting for us, timeouts, queue work the variant cannot
 * skip) returns NULL and the slowpath runs; nothing has changed.  After the
 * guards comes the one commit: the caller becomes a receiver, the partner
 * becomes current, and the kernel leaves through the partner's frame.
 *
 * Ipc: MR0-7 never touch memory.  entry.S hands the caller's message
 * registers to the partner in place (only RAX, R9, R10 are reloaded), so of
 * the caller's frame only RAX, RCX, RDX, RSI, RDI, RBP and R8-R11 are valid
 * here; RBX and R12-R15 are not saved at all.  The exception message puts
 * RBX, R10 and R12-R15 in MR2..MR7, exactly the registers that carry MR2..MR7,
 * so an exception reply hands them over in place as well.
 */

/*
 * Is d blocked in a receive of this kind that takes a message from self,
 * and free to resume now?  (An exception wait takes only its handler.)
 */
static inline bool waits_for(const struct tcb *d, const struct tcb *self, u8 kind)
{
	if (d->fast_key != (u32)(TS_RECV_BLOCKED | kind << 8) || d->wake_at)
		return false;
	if (d->partner != self->id && (kind != IPC_USER || (d->partner != L4_ANYTHREAD &&
	    !(d->partner == L4_ANYLOCALTHREAD && d->space == self->space))))
		return false;
	if (CONFIG_SCHED_BENNO && sched_queued_above(d->prio))
		return false;
	return arch_sysret_safe(arch_user_frame(d)->rip);
}

/* The thread a global ID names, or NULL (local and special IDs take the slowpath). */
static struct tcb *global(word_t id)
{
	if ((id & 0x3f) == 0 || id == L4_ANYTHREAD)
		return NULL;
	struct tcb *d = tcb_by_number(l4_thread_no(id));
	return d && d->id == id ? d : NULL;
}

/*
 * The thread a local ID (Lipc) names, or NULL.  The thread the last one
 * named is tried first, by global ID, so a deleted thread is never taken
 * for it.
 */
static struct tcb *local_destination(struct tcb *self, word_t id)
{
	if (!id || id == L4_ANYLOCALTHREAD)
		return NULL;
	struct tcb *d = global(self->local_hint);
	if (d && d->utcb == id && d->space == self->space)
		return d;
	d = tcb_resolve_local(self, id);
	if (d)
		self->local_hint = d->id;
	return d;
}

/* The commit shared by both paths: self waits for `from`, d runs. */
static void commit_switch(struct tcb *self, struct tcb *d, word_t from, u8 kind,
			  void (*resume)(struct trapframe *))
{
	COUNT(ipcs);
	COUNT(fastpath_ipcs);
	COUNT(eager_enqueue);
	COUNT(eager_dequeue);
	if (!CONFIG_SCHED_LAZY && !CONFIG_SCHED_BENNO) {
		sched_dequeue(self);
		sched_enqueue(d);
	}
	self->state = TS_RECV_BLOCKED;
	self->partner = from;
	if (kind != IPC_USER)          /* a running thread is always IPC_USER */
		self->ipc_kind = kind;
	arch_set_continuation(self, resume);
	d->state = TS_READY;
	current = d;
	COUNT(context_switches);
	arch_switch_context(self, d);
}

/* An exception reply: the faulter's new state, less what passes in registers. */
static __attribute__((noinline)) struct trapframe *exception_reply(struct trapframe *tf,
								   struct tcb *self, struct tcb *d,
								   word_t from)
{
	word_t tag = tf->r9;
	if (!waits_for(d, self, IPC_EXCEPTION) || L4_TAG_U(tag) < 18 || !arch_sysret_safe(tf->rax) ||
	    (L4_TAG_LABEL(tag) & PECAN_EXC_REPLY_FSBASE))
		return NULL;             /* the slowpath fails it properly, or sets the TLS base */
	struct trapframe *df = arch_user_frame(d);
	const word_t *mr = utcb_mrs(self);
	df->rip = tf->rax;  df->r10 = tf->r10;
	df->rax = mr[8];    df->rcx = mr[9];   df->rdx = mr[10];  df->rsi = mr[11];
	df->rdi = mr[12];   df->rbp = mr[13];  df->r8 = mr[14];   df->r9 = mr[15];
	df->r11 = mr[16];   df->rsp = mr[17];
	df->rflags = (df->rflags & ~L4_USER_FLAGS_MASK) | (mr[18] & L4_USER_FLAGS_MASK);
	arch_frame_state_set(df);
	d->ipc_kind = IPC_USER;
	commit_switch(self, d, from, IPC_USER, ipc_user_return);
	return (struct trapframe *)((word_t)df | 1);
}

/* The commit of a user IPC (or an exception reply) to d, if d waits for it. */
static inline struct trapframe *deliver(struct trapframe *tf, struct tcb *self, struct tcb *d,
					word_t from)
{
	word_t tag = tf->r9;
	if (unlikely(d->ipc_kind == IPC_EXCEPTION))
		return exception_reply(tf, self, d, from);
	if (!waits_for(d, self, IPC_USER))
		return NULL;
	struct trapframe *df = arch_user_frame(d);
	df->rsi = tcb_id_as_seen_by(self, d);
	if (L4_TAG_U(tag) > 7)
		arch_copy(utcb_mrs(d) + 8, utcb_mrs(self) + 8, (L4_TAG_U(tag) - 7) * 8);
	commit_switch(self, d, from, IPC_USER, ipc_user_return);
	return df;
}

/* Lipc: a local destination ID (out of line, so that global IDs pay nothing for it). */
static __attribute__((noinline)) struct trapframe *lipc_fastpath(struct trapframe *tf,
								 struct tcb *self)
{
	word_t from = tf->rdx;
	struct tcb *d = local_destination(self, tf->rsi);
	if (!d)
		return NULL;
	if (from == tf->rsi)
		from = d->id;           /* a receive phase names its partner by global ID */
	else if ((from != L4_ANYTHREAD && from != L4_ANYLOCALTHREAD) || self->sendq)
		return NULL;
	return deliver(tf, self, d, from);
}

struct trapframe *ipc_fastpath(struct trapframe *tf)
{
	struct tcb *self = current;
	word_t tag = tf->r9, from = tf->rdx;
	if (!CONFIG_FASTPATH || !CONFIG_SCHED_DIRECT || (tag & (0xfc0UL | L4_TAG_FLAGS_MASK)) ||
	    L4_RCV_TIMEOUT(tf->r8) != L4_TIMEOUT_NEVER ||
	    (self->space->redirector && self->space->redirector != tf->rsi))
		return NULL;            /* redirection (X.2): of a redirected space, only sends to the redirector */
	struct tcb *d = global(tf->rsi);
	if (unlikely(!d))
		return lipc_fastpath(tf, self);
	if (from != tf->rsi && (from != L4_ANYTHREAD || self->sendq))
		return NULL;
	return deliver(tf, self, d, from);
}

struct trapframe *exception_fastpath(struct trapframe *tf, word_t vector, word_t code)
{
	struct tcb *self = current;
	if (!CONFIG_FASTPATH || !CONFIG_SCHED_DIRECT)
		return NULL;
	struct tcb *h = global(utcb_get(self, UTCB_EXC_HANDLER));
	if (!h || !waits_for(h, self, IPC_USER))
		return NULL;
	struct trapframe *hf = arch_user_frame(h);
	word_t *mr = utcb_mrs(self);
	exception_message(tf, vector, code, mr);        /* stays in the faulter's MRs, as on the slowpath */
	mrs_to_frame(mr, hf);
	arch_copy(utcb_mrs(h) + 8, mr + 8, (EXC_WORDS - 8) * 8);
	hf->rsi = tcb_id_as_seen_by(self, h);
	commit_switch(self, h, h->id, IPC_EXCEPTION, exception_resume);
	return hf;
}
