/* SPDX-License-Identifier: MIT */
/* Synchronous IPC: the slowpath (ipc.c), message transfer (transfer.c), the fastpath (ipc_fast.c). */
#ifndef PECAN_IPC_H
#define PECAN_IPC_H

#include "thread.h"
#include <l4/ipc.h>
#include <l4/utcb.h>

/* How many of MR0..MR7 a message with this tag uses (the others are not read). */
static inline word_t tag_reg_words(word_t tag)
{
	word_t n = 1 + L4_TAG_U(tag) + L4_TAG_T(tag);
	return n < 8 ? n : 8;
}

void sys_ipc(struct trapframe *tf);
/*
 * The IPC operation of thread t (current): send to `to` (nil: none), then
 * receive from `from` (nil: none), with the X.2 Timeouts word.  t's message
 * is in its UTCB.  When it returns, t->ipc_error and t->ipc_from hold the
 * result and a received message is in t's UTCB.
 */
void ipc_do(struct tcb *t, word_t to, word_t from, word_t timeouts);
/* Continuation of a thread that blocked in an Ipc system call: return its result. */
void ipc_user_return(struct trapframe *tf);
/* Continuation of a new thread once its pager's start message (or an abort) arrived. */
void ipc_startup_return(struct trapframe *tf);

/* A blocked thread's deadline passed. */
void ipc_timeout(struct tcb *t);
/* ExchangeRegisters: abort t's send and/or receive; returns the old IPC state bits. */
word_t ipc_abort(struct tcb *t, bool send, bool recv);
/* Queue the (interrupt) thread t as a sender waiting for receiver h. */
void ipc_send_pending(struct tcb *t, struct tcb *h);
/* Take a queued sender t out of its receiver's send queue. */
void ipc_cancel_pending(struct tcb *t);
/* t is about to disappear: fail everyone waiting on it, take it off every queue. */
void ipc_forget(struct tcb *t);

/*
 * Copy snd's message to rcv's UTCB, processing typed items.  Returns 0 or an
 * IPC error code without phase bit (overflow, xfer timeouts, abort) for the
 * sender.  A typed transfer runs on the sender's stack (snd is current) with
 * rcv locked (TS_LOCKED): page faults and preemption points may block it.
 */
word_t ipc_transfer_typed(struct tcb *snd, struct tcb *rcv, const word_t *mr, int i, int end);
static inline word_t ipc_transfer(struct tcb *snd, struct tcb *rcv)
{
	const word_t *smr = utcb_mrs(snd);
	word_t *rmr = utcb_mrs(rcv);
	word_t tag = smr[0], n = L4_TAG_U(tag) + L4_TAG_T(tag);
	rmr[0] = tag & ~(L4_TAG_REDIRECTED | L4_TAG_XCPU | L4_TAG_ERROR);
	if (n >= L4_NUM_MRS)
		return L4_IPC_OVERFLOW;
	if (n)
		arch_copy_words(rmr + 1, smr + 1, n);
	if (!L4_TAG_T(tag))
		return 0;
	return ipc_transfer_typed(snd, rcv, smr, (int)L4_TAG_U(tag) + 1, (int)n);
}

/*
 * The short string: snd's message mr (its MRs) has u untyped words and one
 * simple string item (t = 2, one substring, not compound) that fits the
 * receiver's first buffer (BR1, strings accepted in BR0), and each side's
 * bytes lie within one page that is mapped with the rights the copy needs.
 * Then the bytes are copied (nothing can fault or block, so rcv is not
 * locked) and true is returned; the caller copies the words.  Otherwise
 * nothing is touched and false sends the message the general way, which
 * gives every other case (overflow offsets, faults, timeouts, aborts).
 */
bool ipc_short_string(struct tcb *snd, struct tcb *rcv, const word_t *mr);
/* The same for the string item s0, src, which passed ipc_short_string_item (the fastpath has them in registers). */
bool ipc_short_string_copy(struct tcb *snd, struct tcb *rcv, word_t s0, word_t src);
/* The sender's half of its conditions: one substring, not compound, 1 byte to a page within one page. */
static inline bool ipc_short_string_item(word_t s0, word_t src)
{
	word_t last = src + L4_STRING_LEN(s0) - 1;
	return !(s0 & (0x8 | L4_STRING_COMPOUND | 0x1f0)) && L4_STRING_LEN(s0) &&
	       !((src ^ last) & PAGE_MASK) && last >= src;
}
/* Does the message in mr have string items (before any item that ends it)? */
bool ipc_has_strings(const word_t *mr);
/* Does it need the transfer lock: strings, or a map item long enough to stop for interrupts? */
bool ipc_is_long(const word_t *mr);
/* How a fault during a transfer ended (ipc_xfer_resolve). */
enum { XF_OK, XF_TIMEOUT, XF_ABORTED, XF_UNRESOLVED };
/*
 * A copy from snd (current) to rcv faulted at page addr of who's memory:
 * who's pager maps it, by a page-fault IPC from who itself (the receiver
 * runs it while the sender waits), bounded by `deadline` (µs, 0: none).
 */
int ipc_xfer_resolve(struct tcb *snd, struct tcb *rcv, struct tcb *who, word_t addr,
		     unsigned rwx, u64 deadline);
/* A preemption point of snd's transfer: true if it was aborted meanwhile. */
bool ipc_xfer_preempt(struct tcb *snd);
/* Continuation of a locked receiver asked to have a fault in its memory resolved. */
void ipc_tunnel_resume(struct trapframe *tf);

/*
 * The register-only fast path, called by entry.S with the Ipc arguments as
 * they arrived (abi.md §2; a0 and a3 carry nothing; what it returns: ipc_fast.c).
 */
struct fp_ret ipc_fastpath(word_t a0, word_t to, word_t from, word_t a3, word_t timeouts,
			   word_t tag);
/*
 * The exception message to a handler already waiting for it, straight from
 * the trap frame, leaving the kernel into the handler (exc_deliver_exit);
 * returns, with nothing changed, only where it cannot.
 */
void exception_fastpath(struct trapframe *tf, word_t vector, word_t code);
/*
 * entry.S's own ways in (trap_exc, foreign_entry) while only the boot
 * processor runs threads: the same, called with RSP at tf and the
 * faulter's RBX and R12-R15 still in place (exc_deliver_exit_live relies on
 * both), and the general registers in the faulter's MR2..MR16 instead of
 * tf (the rest of tf as the CPU saved it, and R10 also in tf); the frame to
 * return through where the fastpath cannot take it (the slowpath has,
 * then, on tf completed first).
 */
struct trapframe *exception_trap_fast(struct trapframe *tf);
struct trapframe *exception_foreign_fast(struct trapframe *tf);
/* tf, current's, with its general registers from current's MR2..MR16. */
void exception_frame_complete(struct trapframe *tf);

#endif
