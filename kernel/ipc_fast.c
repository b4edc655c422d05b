// SPDX-License-Identifier: MIT
// The IPC fastpath: register-only Call and ReplyWait to a waiting partner.
#include "ipc.h"
#include "sched.h"
#include <arch_switch.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

/*
 * Guards first: anything unusual (typed items, flags, local or special IDs,
 * a partner not waiting in an Ipc call for us, timeouts, queue work the
 * variant cannot skip) returns NULL and the slowpath runs; nothing has
 * changed.  After the guards comes the one commit: the caller becomes a
 * receiver, the partner becomes current, and the kernel leaves through the
 * partner's frame.  MR0-7 never touch memory: entry.S hands the caller's
 * message registers to the partner in place (only RAX, R9, R10 are
 * reloaded), so of the caller's frame only the tag, To, From and Timeouts
 * are valid here; RBX and R12-R15 are not saved at all.
 */
static struct tcb *fast_partner(const struct trapframe *tf, struct tcb *self)
{
	word_t to = tf->rsi;
	if ((tf->r9 & (0xfc0UL | L4_TAG_FLAGS_MASK)) || L4_RCV_TIMEOUT(tf->r8) != L4_TIMEOUT_NEVER ||
	    (to & 0x3f) == 0 || to == L4_ANYTHREAD)
		return NULL;
	struct tcb *d = tcb_by_number(l4_thread_no(to));
	if (!d || d->id != to || d->state != TS_RECV_BLOCKED || d->ipc_kind != IPC_USER ||
	    d->wake_at || d->stopped)
		return NULL;
	if (d->partner != self->id && d->partner != L4_ANYTHREAD &&
	    !(d->partner == L4_ANYLOCALTHREAD && d->space == self->space))
		return NULL;
	if (CONFIG_SCHED_BENNO && sched_queued_above(d->prio))
		return NULL;
	if (!arch_sysret_safe(arch_user_frame(d)->rip))
		return NULL;
	return d;
}

struct trapframe *ipc_fastpath(struct trapframe *tf)
{
	struct tcb *self = current;
	if (!CONFIG_FASTPATH || !CONFIG_SCHED_DIRECT)
		return NULL;
	struct tcb *d = fast_partner(tf, self);
	word_t from = tf->rdx;
	if (!d || (from != tf->rsi && (from != L4_ANYTHREAD || self->sendq)))
		return NULL;

	/* commit */
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
	self->ipc_kind = IPC_USER;
	arch_set_continuation(self, ipc_user_return);
	d->state = TS_READY;
	struct trapframe *df = arch_user_frame(d);
	df->rsi = d->space == self->space ? self->utcb : self->id;
	if (L4_TAG_U(tf->r9) > 7)
		arch_copy(utcb_mrs(d) + 8, utcb_mrs(self) + 8, (L4_TAG_U(tf->r9) - 7) * 8);
	current = d;
	COUNT(context_switches);
	arch_switch_context(self, d);
	return df;
}
