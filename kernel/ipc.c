// SPDX-License-Identifier: MIT
// The IPC slowpath: rendezvous, blocking with timeouts, aborts, and the Ipc system call.
#include "ipc.h"
#include "exception.h"
#include "irq.h"
#include "sched.h"
#include "timer.h"
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

/* MR0..MR7 travel in these frame registers (abi.md §0.4). */
static void frame_to_mrs(const struct trapframe *tf, word_t *mr)
{
	mr[0] = tf->r9;  mr[1] = tf->rax; mr[2] = tf->rbx; mr[3] = tf->r10;
	mr[4] = tf->r12; mr[5] = tf->r13; mr[6] = tf->r14; mr[7] = tf->r15;
}

static void mrs_to_frame(const word_t *mr, struct trapframe *tf)
{
	tf->r9 = mr[0];  tf->rax = mr[1]; tf->rbx = mr[2]; tf->r10 = mr[3];
	tf->r12 = mr[4]; tf->r13 = mr[5]; tf->r14 = mr[6]; tf->r15 = mr[7];
}

/* Does receiver r (blocked in a receive) take a message from s? */
static bool accepts(const struct tcb *r, const struct tcb *s)
{
	return r->partner == L4_ANYTHREAD || r->partner == s->id ||
	       (r->partner == L4_ANYLOCALTHREAD && r->space == s->space);
}

/* End t's blocked IPC with `err` (0 = success) and make it ready; no switch. */
static void ipc_complete(struct tcb *t, word_t err)
{
	timeout_cancel(t);
	t->ipc_error = err;
	t->state = TS_READY;
}

static void sendq_remove(struct tcb *t)
{
	struct tcb *d = t->send_to;
	if (t->sq_next == t)
		d->sendq = NULL;
	else {
		t->sq_prev->sq_next = t->sq_next;
		t->sq_next->sq_prev = t->sq_prev;
		if (d->sendq == t)
			d->sendq = t->sq_next;
	}
	t->sq_next = t->sq_prev = NULL;
	t->send_to = NULL;
}

static void sendq_append(struct tcb *d, struct tcb *t)
{
	t->send_to = d;
	if (!d->sendq) {
		d->sendq = t->sq_next = t->sq_prev = t;
		return;
	}
	t->sq_next = d->sendq;
	t->sq_prev = d->sendq->sq_prev;
	d->sendq->sq_prev->sq_next = t;
	d->sendq->sq_prev = t;
}

/* Put t into its receive phase from `from`, its timeout running from now. */
static void start_receive(struct tcb *t, word_t from, word_t timeout)
{
	t->state = TS_RECV_BLOCKED;
	t->partner = from;
	timeout_start(t, timeout);
}

/*
 * Rendezvous: snd's message goes to rcv, which is waiting for it.  rcv ends
 * its receive; snd either ends its IPC or, with a receive phase, starts it.
 * Returns snd's error (0 on success); neither thread is switched to.
 */
static word_t rendezvous(struct tcb *snd, struct tcb *rcv)
{
	COUNT(ipcs);
	word_t err, rerr;
	if (rcv->ipc_kind == IPC_EXCEPTION && !exception_reply_valid(snd))
		err = L4_IPC_OVERFLOW;      /* garbage as a register state: both sides fail */
	else
		err = ipc_transfer(snd, rcv);
	rerr = err;
	/* an xfer fault is "in the invoker's space" for one side, "in the partner's" for the other */
	if (L4_IPC_CODE(err) == L4_IPC_XFER_TO_OWN || L4_IPC_CODE(err) == L4_IPC_XFER_TO_PARTNER)
		rerr ^= L4_IPC_XFER_TO_OWN ^ L4_IPC_XFER_TO_PARTNER;
	rcv->ipc_from = tcb_id_as_seen_by(snd, rcv);
	ipc_complete(rcv, err ? rerr | L4_IPC_PHASE_RECV : 0);
	return err;
}

/* Resolve a from-specifier: nil/any/anylocal stay, thread IDs become global; ~0 if invalid. */
static word_t resolve_from(struct tcb *t, word_t from)
{
	if (from == L4_NILTHREAD || from == L4_ANYTHREAD || from == L4_ANYLOCALTHREAD)
		return from;
	struct tcb *s = tcb_resolve(t, from);
	return s ? s->id : 0;
}

/* A waiting sender t accepts (its receive spec `from`), or NULL. */
static struct tcb *find_sender(struct tcb *t, word_t from)
{
	struct tcb *s = t->sendq;
	if (!s)
		return NULL;
	do {
		if (from == L4_ANYTHREAD || s->id == from ||
		    (from == L4_ANYLOCALTHREAD && s->space == t->space))
			return s;
		s = s->sq_next;
	} while (s != t->sendq);
	return NULL;
}

void ipc_send_pending(struct tcb *t, struct tcb *h)
{
	t->state = TS_SEND_BLOCKED;
	t->partner = h->id;
	t->recv_spec = L4_NILTHREAD;
	sendq_append(h, t);
}

void ipc_cancel_pending(struct tcb *t)
{
	sendq_remove(t);
}

/* Take a blocked sender's message; it goes on to its own receive phase if it has one. */
static word_t take_from_sender(struct tcb *t, struct tcb *s)
{
	sendq_remove(s);
	timeout_cancel(s);
	word_t err = rendezvous(s, t);
	if (s->is_irq) {
		irq_taken(s);
		return err;
	}
	if (!err && s->recv_spec != L4_NILTHREAD)
		start_receive(s, s->recv_spec, s->rcv_timeout);
	else
		ipc_complete(s, err);
	if (sched_runnable(s))
		sched_wake(s);
	return err;
}

static void receive_phase(struct tcb *t, word_t from, word_t timeout, struct tcb *woken)
{
	from = woken && woken->id == from ? from : resolve_from(t, from);   /* a Call: known */
	struct tcb *s = from ? find_sender(t, from) : NULL;
	if (from && !s && !timeout_is_zero(timeout)) {
		start_receive(t, from, timeout);
		sched_swap(woken);
		return;
	}
	if (s)
		take_from_sender(t, s);   /* sets t's result */
	else
		t->ipc_error = (from ? L4_IPC_TIMEOUT : L4_IPC_NOPARTNER) | L4_IPC_PHASE_RECV;
	if (woken)
		sched_wake(woken);
}

static void send_blocked(struct tcb *t, struct tcb *dest, word_t from, word_t timeouts)
{
	t->state = TS_SEND_BLOCKED;
	t->partner = dest->id;
	t->recv_spec = resolve_from(t, from);
	t->rcv_timeout = L4_RCV_TIMEOUT(timeouts);
	if (from != L4_NILTHREAD && !t->recv_spec)
		t->recv_spec = L4_NILTHREAD;      /* invalid: found out after the send */
	sendq_append(dest, t);
	timeout_start(t, L4_SND_TIMEOUT(timeouts));
	sched_swap(NULL);
}

void ipc_do(struct tcb *t, word_t to, word_t from, word_t timeouts)
{
	t->ipc_error = 0;
	t->ipc_from = L4_NILTHREAD;
	struct tcb *woken = NULL;
	if (to != L4_NILTHREAD) {
		struct tcb *d = tcb_resolve(t, to);
		if (!d || d == t || d->state == TS_IDLE) {
			t->ipc_error = L4_IPC_NOPARTNER;
			return;
		}
		if (d->is_irq) {
			t->ipc_error = irq_ack(d, t);
			if (t->ipc_error || from == L4_NILTHREAD)
				return;
		} else if (d->state == TS_RECV_BLOCKED && accepts(d, t)) {
			t->ipc_error = rendezvous(t, d);
			if (t->ipc_error || from == L4_NILTHREAD) {
				sched_wake(d);
				return;
			}
			woken = d;
		} else if (timeout_is_zero(L4_SND_TIMEOUT(timeouts))) {
			t->ipc_error = L4_IPC_TIMEOUT;
			return;
		} else {
			send_blocked(t, d, from, timeouts);
			return;
		}
	}
	if (from != L4_NILTHREAD)
		receive_phase(t, from, L4_RCV_TIMEOUT(timeouts), woken);
}

void ipc_user_return(struct trapframe *tf)
{
	struct tcb *t = current;
	word_t *mr = utcb_mrs(t);
	if (t->ipc_error) {
		word_t code = L4_IPC_CODE(t->ipc_error);
		utcb_set(t, UTCB_ERROR_CODE, t->ipc_error);
		/* a failed receive that got no message returns a bare error tag (as Pistachio) */
		if ((t->ipc_error & L4_IPC_PHASE_RECV) && code <= L4_IPC_CANCELED)
			mr[0] = L4_TAG_ERROR;
		else
			mr[0] = (mr[0] & ~(L4_TAG_REDIRECTED | L4_TAG_XCPU)) | L4_TAG_ERROR;
	} else {
		mr[0] &= ~L4_TAG_FLAGS_MASK;
	}
	mrs_to_frame(mr, tf);
	tf->rsi = t->ipc_from;
}

void sys_ipc(struct trapframe *tf)
{
	struct tcb *t = current;
	frame_to_mrs(tf, utcb_mrs(t));
	t->ipc_kind = IPC_USER;
	ipc_do(t, tf->rsi, tf->rdx, tf->r8);
	ipc_user_return(tf);
}

void ipc_startup_return(struct trapframe *tf)
{
	struct tcb *t = current;
	word_t *mr = utcb_mrs(t);
	t->ipc_kind = IPC_USER;
	if (!t->ipc_error && L4_TAG_U(mr[0]) == 2 && L4_TAG_T(mr[0]) == 0) {
		tf->rip = mr[1];
		tf->rsp = mr[2];
	}
}

void ipc_timeout(struct tcb *t)
{
	word_t err = L4_IPC_TIMEOUT;
	if (t->state == TS_SEND_BLOCKED)
		sendq_remove(t);
	else if (t->state == TS_RECV_BLOCKED)
		err |= L4_IPC_PHASE_RECV;
	else
		return;
	ipc_complete(t, err);
	sched_wake(t);
}

word_t ipc_abort(struct tcb *t, bool send, bool recv)
{
	word_t old = t->state == TS_RECV_BLOCKED ? 2 : t->state == TS_SEND_BLOCKED ? 4 : 0;
	if (send && t->state == TS_SEND_BLOCKED) {
		sendq_remove(t);
		ipc_complete(t, L4_IPC_CANCELED);
	} else if (recv && t->state == TS_RECV_BLOCKED) {
		ipc_complete(t, L4_IPC_CANCELED | L4_IPC_PHASE_RECV);
	} else {
		return old;
	}
	sched_enqueue(t);         /* the caller reschedules when its call is complete */
	return old;
}

/* Fail t's blocked IPC because its partner disappeared. */
static void partner_gone(struct tcb *t)
{
	word_t phase = t->state == TS_RECV_BLOCKED ? L4_IPC_PHASE_RECV : 0;
	if (t->state == TS_SEND_BLOCKED)
		sendq_remove(t);
	ipc_complete(t, L4_IPC_NOPARTNER | phase);
	sched_enqueue(t);         /* no switch in the middle of the deleting call */
}

void ipc_forget(struct tcb *t)
{
	if (t->state == TS_SEND_BLOCKED)
		sendq_remove(t);
	timeout_cancel(t);
	while (t->sendq)
		partner_gone(t->sendq);
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		struct tcb *r = tcb_by_number(no);
		if (r && r != t && r->state == TS_RECV_BLOCKED && r->partner == t->id)
			partner_gone(r);
	}
	sched_dequeue(t);
}
