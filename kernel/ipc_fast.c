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
 * Guards first: anything unusual (typed items, flags, special IDs, a
 * partner not waiting for us, timeouts, a redirector, queue work the
 * variant cannot skip) goes to the slowpath with nothing changed.  After the
 * guards comes the one commit: the caller becomes a receiver, the partner
 * becomes current, and the kernel leaves through the partner's frame.
 *
 * Ipc: MR0-7 never touch the UTCB.  entry.S stored only the caller's IP,
 * flags and stack pointer and MR3 (R10, which C may clobber) in its frame
 * and hands the message registers to the partner in place (MR1, MR2 and
 * MR4-7 stay live in callee-saved registers throughout: RBP, RBX, R12-R15;
 * the paths that need MR1 in memory get it from entry.S).  The exception
 * message puts exactly the registers that carry MR2..MR7 there
 * (sysregs.h), so an exception reply hands them over in place as well.
 *
 * A partner blocked in an Ipc receive (fast_key FP_KEY(IPC_USER))
 * always has a valid IP (arch_user_ip_valid), so the fastpath's return to it
 * cannot fault in the kernel: it entered through the Ipc stub and
 * ExchangeRegisters refuses invalid IPs (check.c verifies it).
 */

/*
 * Each processor has its fastpaths.  The boot processor's (this file) name
 * its TSS and %gs page at fixed addresses; the others share a second copy
 * of this file (ipc_fast_ap.c, IPC_FAST_AP), whose functions end in _ap
 * and find them through the lock holder's globals (arch_tss_rsp0,
 * arch_gs_page: a load more each), which are theirs while they hold the big
 * kernel lock (their Ipc entry takes it first, entry.S).  A fastpath
 * switches only to a thread homed on its own processor: FP_KEY has the
 * processor's home mark in it, and a thread's fast_key has its home's.
 */
#ifdef IPC_FAST_AP
#define ipc_fastpath        ipc_fastpath_ap
#define ipc_fastpath_string ipc_fastpath_string_ap
#define ipc_fastpath_typed  ipc_fastpath_typed_ap
#define exception_reply     exception_reply_ap
#define exception_reply_c   exception_reply_c_ap
#define FP_RSP0             arch_tss_rsp0
#define FP_GS               arch_gs_page
#define FP_HOME             ((u32)MARK_HOME(this_cpu) << 24)
#define FP_RQ               rq
#else
#define FP_RSP0             arch_boot_rsp0
#define FP_GS               user_gs_page
#define FP_HOME             0u
#define FP_RQ               (&cpus[0].rq)
#endif
/* The fast_key of a thread of this processor waiting in an Ipc receive of this kind. */
#define FP_KEY(kind) (FAST_KEY_WAITING(kind) | FP_HOME)

/*
 * What entry.S gets back, as a two-word return value: FP_SLOW.  A delivered
 * Ipc leaves through ipc_exit instead, an exception reply through
 * exc_reply_exit.
 */
struct fp_ret {
	word_t top;
	word_t tag;
};
#define FP_SLOW      1

/*
 * entry.S: leave the kernel into d, which the commit made current: RSI =
 * From, RDI = its UTCB pointer, R9, RDX and R8 = MR0, RAX = MR1 from RBP,
 * R10 = MR3 from the caller's frame, RIP, RFLAGS and RSP from d's below
 * top; RBX, RBP and R12-R15 (MR2, MR1, MR4-7) pass in place.  The callers
 * reach it by a tail call, which restores the callee-saved registers and
 * leaves RSP where entry.S's call into the fastpath put it, just below the
 * caller's frame (every fastpath function is entered by a jump from
 * ipc_fastpath, or by that call; tests/host/test_kernel_code.py checks
 * both).  It never returns.
 */
struct fp_ret ipc_exit(word_t utcb, word_t from, word_t mr0, word_t top, word_t mr0_r8, word_t tag);

/* The caller's frame: entry.S built it at the top of its kernel stack. */
static inline struct trapframe *own_frame(void)
{
	return (struct trapframe *)*FP_RSP0 - 1;
}

/*
 * To the slowpath: complete what it needs of the frame (entry.S stored the
 * rest).  Out of line and with ipc_fastpath's registers (as lipc and
 * exception_reply), so that a guard that fails ends in a jump with every
 * argument still in place.
 */
static __attribute__((noinline, noipa)) struct fp_ret slow(word_t a0, word_t to, word_t from, word_t a3,
						    word_t timeouts, word_t tag)
{
	(void)a0, (void)a3;
	ipc_set_args(own_frame(), to, from, timeouts, tag);
	return (struct fp_ret){ FP_SLOW, 0 };
}
/*
 * a0 and a3 carry nothing: each function passes its own on unchanged, so
 * that no jump between them sets a register.
 */
#define SLOW() slow(a0, to, from, a3, timeouts, tag)

/*
 * The thread a global ID names, if tcb_ids[no] == id: an empty slot holds an
 * ID whose thread number is not its own (thread.c), so it matches nothing.
 */
_Static_assert((CONFIG_MAX_THREADS & (CONFIG_MAX_THREADS - 1)) == 0, "thread numbers are masked");
static inline word_t slot_of(word_t id)
{
	return l4_thread_no(id) & (CONFIG_MAX_THREADS - 1);
}

/*
 * May d, whose fast_key is FAST_KEY_WAITING(kind), take a message from self
 * now, with no queue work the variant cannot do in the commit?
 */
static inline bool accepts_fast(const struct tcb *d, const struct tcb *self, u8 kind)
{
	if (unlikely(d->partner != self->id) &&
	    (kind != IPC_USER || (d->partner != L4_ANYTHREAD &&
				  !(d->partner == L4_ANYLOCALTHREAD && d->space == self->space))))
		return false;
	if (CONFIG_SCHED_BENNO)
		return !sched_queued_above(d->prio);
	return CONFIG_SCHED_LAZY || sched_can_replace(self, d);
}

/*
 * The commit shared by all fastpaths: self waits for `from` and resumes
 * with `resume`, d runs.  Under eager queueing the running thread is
 * queued, so d takes self's place in the ready queue (accepts_fast made
 * sure it can).
 */
static inline __attribute__((always_inline)) void commit_state(struct tcb *self, struct tcb *d,
							      word_t from, u8 kind,
							      void (*resume)(struct trapframe *))
{
	COUNT(fastpath_ipcs);   /* also an IPC, an eager enqueue and dequeue, a switch: pecan_counter */
	if (!CONFIG_SCHED_LAZY && !CONFIG_SCHED_BENNO) {
		sched_replace(FP_RQ, self, d);
		self->sched_key = FP_KEY(kind);                 /* and not queued */
		d->sched_key = SCHED_KEY_READY_QUEUED | FP_HOME;        /* it was waiting, so USER and free */
	} else {
		self->fast_key = FP_KEY(kind);
		d->state = TS_READY;
	}
	self->partner = from;
	arch_set_continuation(self, resume);
	current = d;
}

static inline __attribute__((always_inline)) void commit_switch(struct tcb *self, struct tcb *d,
							       word_t from, u8 kind,
							       void (*resume)(struct trapframe *))
{
	commit_state(self, d, from, kind, resume);
	arch_switch_user_on(FP_RSP0, FP_GS, self, d);
}

/*
 * entry.S: leave the kernel into the faulter, which the commit made
 * current, through its frame df (iretq; R10 from there): RAX..R11 from the
 * replier's MR8..MR16 (mr); RBX and R12-R15 (MR2, MR4-7) pass in place, so
 * it is reached by a tail call.  It never returns.
 */
struct fp_ret exc_reply_exit(struct trapframe *df, const word_t *mr);

/*
 * An exception reply: C checks it and writes the words of the faulter's
 * frame that its exit takes from there (exc_fast_reply_frame); entry.S
 * loads the other registers straight from the replier's MRs, each word
 * read once, so what was checked is what is installed.  Reached through
 * entry.S's exception_reply, which puts MR1 (the faulter's new IP) into the
 * fourth argument; it leaves by a tail call to exc_reply_exit.
 */
struct fp_ret exception_reply(struct tcb *d, word_t to, word_t from, word_t a3, word_t timeouts,
			      word_t tag);
__attribute__((noinline, noipa)) struct fp_ret exception_reply_c(struct tcb *d, word_t to,
								 word_t from, word_t ip,
								 word_t timeouts, word_t tag)
{
	word_t a0 = (word_t)d, a3 = ip;
	struct tcb *self = current;
	if (d->fast_key != FP_KEY(IPC_EXCEPTION) || !accepts_fast(d, self, IPC_EXCEPTION) ||
	    L4_TAG_U(tag) < 18 || !arch_user_ip_valid(ip) ||
	    (L4_TAG_LABEL(tag) & PECAN_EXC_REPLY_FSBASE) || self->space->redirector)
		return SLOW();   /* it fails it properly, or sets the TLS base */
	struct trapframe *df = arch_user_frame(d);
	const word_t *mr = utcb_mrs(self);
	exc_fast_reply_frame(df, ip, mr);
	d->ipc_kind = IPC_USER;
	commit_switch(self, d, from, IPC_USER, ipc_user_return);
	exc_fast_reply_mr3(df, ipc_mr3(arch_user_frame(self)));
	return exc_reply_exit(df, mr);
}

/* Is d the redirector of self's space?  A second read, so the fastpath's test for one is a compare. */
static inline bool to_redirector(const struct tcb *self, const struct tcb *d)
{
	return *(volatile const word_t *)&self->redirector == d->id;
}

/*
 * The commit of a user IPC to d, waiting in an Ipc receive, if it waits for
 * self.  item: NULL, or the words of a short string (ipc_short_string_copy),
 * copied only once every guard has passed, since the slowpath may deliver
 * the message elsewhere (a redirector) or not at all.  local: d is of
 * self's space (Lipc), whose page table is loaded.
 */
static inline __attribute__((always_inline)) struct fp_ret deliver(struct tcb *self, struct tcb *d,
								   word_t a0, word_t to, word_t from,
								   word_t a3, word_t timeouts, word_t tag,
								   const word_t *item, bool local)
{
	if (!accepts_fast(d, self, IPC_USER) || unlikely(self->redirector && !to_redirector(self, d)))
		return SLOW();   /* redirection (X.2): of a redirected space, only sends to the redirector */
	if (item && !ipc_short_string_copy(self, d, item[0], item[1]))
		return SLOW();
	if (__builtin_expect(L4_TAG_U(tag) > 7, 1))   /* in line: no jump back after the copy */
		arch_copy_words(d->utcb_mr8, self->utcb_mr8, (word_t)(u8)tag - 7);   /* t is 0 here */
	const struct space *s = d->space;
	commit_state(self, d, from, IPC_USER, ipc_user_return);
	/* the switch in its steps, so that what the exit needs is read once */
	arch_switch_segments(self, d);
	word_t top = d->kstack_top, utcb = d->utcb;
	*FP_RSP0 = top;
	if (!local)
		arch_switch_root(d, s);
	*FP_GS = utcb;
	word_t seen = local || s == self->space ? self->utcb : self->id;   /* From, as d sees us */
	arch_switch_fpu(self, d);
	return ipc_exit(utcb, seen, tag, top, tag, tag);
}

/*
 * The thread a local ID names, if the fastpath may deliver to it with this
 * receive phase (From = To becomes the global ID the receive waits for);
 * NULL for the slowpath.  The thread named last (local_hint) first.
 */
static inline __attribute__((always_inline)) struct tcb *local_dest(struct tcb *self, word_t to,
								     word_t *from)
{
	struct tcb *d = self->local_hint;
	if (d->utcb != to && (!l4_is_local_id(to) || !(d = tcb_resolve_local(self, to))))
		return NULL;
	if (*from == to)
		*from = d->id;
	else if ((*from != L4_ANYTHREAD && *from != L4_ANYLOCALTHREAD) || self->sendq)
		return NULL;
	return d;
}

static struct fp_ret lipc_resolve(word_t a0, word_t to, word_t from, word_t a3, word_t timeouts,
				  word_t tag);

/*
 * Lipc: a local destination ID (out of line, so that global IDs pay
 * nothing for it).  The thread the caller named last (local_hint: of its
 * space, or itself, which never waits in a receive while it runs) costs
 * one compare; any other ID is resolved by lipc_resolve, which comes back.
 */
static __attribute__((noinline, noipa)) struct fp_ret lipc(word_t a0, word_t to, word_t from,
						    word_t a3, word_t timeouts, word_t tag)
{
	struct tcb *self = current, *d = self->local_hint;
	if (unlikely(d->utcb != to))
		return lipc_resolve(a0, to, from, a3, timeouts, tag);
	if (from == to)
		from = d->id;
	else if ((from != L4_ANYTHREAD && from != L4_ANYLOCALTHREAD) || self->sendq)
		return SLOW();
	if (unlikely(d->fast_key != FP_KEY(IPC_USER)))
		return exception_reply(d, to, from, a3, timeouts, tag);
	return deliver(self, d, a0, to, from, a3, timeouts, tag, NULL, true);
}

/* A local ID other than the hint: make it the hint (the page-table walk) and try again. */
static __attribute__((noinline, noipa)) struct fp_ret lipc_resolve(word_t a0, word_t to, word_t from,
							    word_t a3, word_t timeouts, word_t tag)
{
	if (!l4_is_local_id(to) || !tcb_resolve_local(current, to))
		return SLOW();
	return lipc(a0, to, from, a3, timeouts, tag);
}

/*
 * entry.S: MR2 into the first argument, then ipc_fastpath_string.  Reached
 * by a tail call from ipc_fastpath, whose callee-saved registers are then
 * the caller's again.
 */
struct fp_ret ipc_fastpath_typed(word_t a0, word_t to, word_t from, word_t a3, word_t timeouts,
				 word_t tag);

/*
 * One short string item and no untyped word (t = 2, u = 0; MR1 is in the
 * frame, put there by entry.S, MR2 the first argument) to a partner
 * waiting for us: the fastpath with the copy added (ipc_fastpath checked
 * the receive timeout).  Everything else is the slowpath's.
 */
struct fp_ret ipc_fastpath_string(word_t mr2, word_t to, word_t from, word_t a3,
				  word_t timeouts, word_t tag)
{
	word_t a0 = mr2, no = slot_of(to), mr1 = ipc_mr1(own_frame());
	struct tcb *self = current, *d = tcb_table[no];
	if ((tag & (0xfffUL | L4_TAG_FLAGS_MASK)) != 2 << 6 || !ipc_short_string_item(mr1, mr2))
		return SLOW();
	if (tcb_ids[no] != to)
		d = local_dest(self, to, &from);
	else if (from != to && (from != L4_ANYTHREAD || self->sendq))
		d = NULL;
	if (!d || d->fast_key != FP_KEY(IPC_USER))
		return SLOW();
	word_t item[2] = { mr1, mr2 };
	return deliver(self, d, a0, to, from, a3, timeouts, tag, item, false);
}

/*
 * Called by entry.S with To, FromSpecifier, Timeouts and MR0 as they came
 * (abi.md §2; a0 and a3 carry nothing).  The functions it passes on to
 * take the same arguments, so those stay where they are.
 */
struct fp_ret ipc_fastpath(word_t a0, word_t to, word_t from, word_t a3, word_t timeouts,
			   word_t tag)
{
	if (!CONFIG_FASTPATH || !CONFIG_SCHED_DIRECT || unlikely(L4_RCV_TIMEOUT(timeouts)))
		return SLOW();
	if (unlikely(tag & (0xfc0UL | L4_TAG_FLAGS_MASK)))
		return ipc_fastpath_typed(a0, to, from, a3, timeouts, tag);
	word_t no = slot_of(to);
	if (unlikely(tcb_ids[no] != to))
		return lipc(a0, to, from, a3, timeouts, tag);
	struct tcb *self = current, *d = tcb_table[no];
	if (unlikely(from != to) && (from != L4_ANYTHREAD || self->sendq))
		return SLOW();
	if (unlikely(d->fast_key != FP_KEY(IPC_USER)))
		return exception_reply(d, to, from, a3, timeouts, tag);
	return deliver(self, d, a0, to, from, a3, timeouts, tag, NULL, false);
}

/*
 * entry.S: leave the kernel into the exception handler, which the commit
 * made current (its frame hf), with MR0-7 of the message in registers and
 * RSI = from.  exc_deliver_exit takes MR1-7 from the faulter's frame tf.
 * exc_deliver_exit_live finds MR2 and MR4-7 (RBX, R12-R15) in those very
 * registers, as the faulter left them, and tf just above its return
 * address: it is reached only by a tail call from a function that entry.S
 * called with RSP at tf and those registers so (trap_exc, foreign_entry);
 * the tail call restores the callee-saved registers and RSP first.
 * Neither returns.
 */
void exc_deliver_exit(const struct trapframe *tf, const struct trapframe *hf, word_t from)
	__attribute__((noreturn));
struct trapframe *exc_deliver_exit_live(const struct trapframe *hf, word_t from);

#ifndef IPC_FAST_AP     /* the exception fastpath runs on the boot processor only */
_Static_assert(offsetof(struct tcb, utcb_mr8) == TCB_UTCB_MR8, "entry.S's fast exception entries");

/*
 * The exception message to current's handler if it waits for it in an
 * Ipc receive, and the commit: the handler, with *from its From; NULL
 * (nothing changed) for the slowpath.  in_mrs: entry.S wrote the general
 * registers to the faulter's MR2..MR16 and not to tf; the faulter then
 * waits with them there only (exception_resume completes tf if no reply
 * comes), and a caller that gets NULL completes tf (exc_mrs_to_gprs).
 */
static inline __attribute__((always_inline)) struct tcb *exc_fast(struct trapframe *tf, word_t vector,
								  word_t code, word_t *from, bool in_mrs)
{
	if (!CONFIG_FASTPATH || !CONFIG_SCHED_DIRECT)
		return NULL;
	struct tcb *self = current;
	word_t hid = utcb_get(self, UTCB_EXC_HANDLER), no = slot_of(hid);
	struct tcb *h = tcb_table[no];
	if (tcb_ids[no] != hid || h->fast_key != FP_KEY(IPC_USER) || !accepts_fast(h, self, IPC_USER) ||
	    unlikely(self->space->strict && self->space->redirector != hid && h->space != self->space))
		return NULL;    /* confined: the slowpath sends it to the redirector (handler_of) */
	word_t *mr = utcb_mrs(self);
	if (in_mrs)
		exception_message_head(tf, vector, code, mr);
	else
		exception_message(tf, vector, code, mr);        /* stays in the faulter's MRs, as on the slowpath */
	arch_copy_words(utcb_mrs(h) + 8, mr + 8, EXC_WORDS - 8);
	*from = tcb_id_as_seen_by(self, h);
	commit_switch(self, h, h->id, IPC_EXCEPTION, exception_resume);
	return h;
}

void exception_fastpath(struct trapframe *tf, word_t vector, word_t code)
{
	word_t from;
	if (CONFIG_SMP && this_cpu)
		return;         /* the fastpaths switch with the boot CPU's TSS and %gs page only */
	struct tcb *h = exc_fast(tf, vector, code, &from, false);
	if (h)
		exc_deliver_exit(tf, arch_user_frame(h), from);
}

/*
 * entry.S's trap_exc: a user exception of a vector with no handling of its
 * own before the fastpath, not KernelInterface, while only the boot
 * processor runs threads.  Returns the frame to return through.
 */
struct trapframe *exception_trap_fast(struct trapframe *tf)
{
	word_t from;
	struct tcb *h = exc_fast(tf, frame_vector(tf), frame_error(tf), &from, true);
	if (h)
		return exc_deliver_exit_live(arch_user_frame(h), from);
	exception_frame_complete(tf);
	return exception_user_tried(tf);
}

/* entry.S's foreign_entry: a foreign `syscall` on the boot processor while it alone runs threads. */
struct trapframe *exception_foreign_fast(struct trapframe *tf)
{
	word_t from;
	struct tcb *h = exc_fast(tf, PECAN_VEC_SYSCALL, 0, &from, true);
	if (h)
		return exc_deliver_exit_live(arch_user_frame(h), from);
	exception_frame_complete(tf);
	return foreign_syscall_slow(tf);
}
#endif
