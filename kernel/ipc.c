// SPDX-License-Identifier: MIT
// The IPC slowpath: rendezvous, blocking with timeouts, aborts, and the Ipc system call.
#include "ipc.h"
#include "preempt.h"
#include "exception.h"
#include "irq.h"
#include "sched.h"
#include "timer.h"
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

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
	t->rcv_timeout = timeout;       /* kept for a receive restarted after a copy fault */
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
	if (err == IPC_XFER_FAULT || err == IPC_XFER_PREEMPT)
		return err;                 /* nothing happened yet: xfer_fault says who must act */
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

/*
 * A string copy from snd to the blocked rcv faulted and cannot be resolved
 * (no pager): both get an xfer error, "own" for the side whose memory it was.
 */
static void fail_copy(struct tcb *snd, struct tcb *rcv, bool in_snd)
{
	word_t own = L4_IPC_XFER_TO_OWN, other = L4_IPC_XFER_TO_PARTNER;
	rcv->ipc_from = tcb_id_as_seen_by(snd, rcv);
	ipc_complete(rcv, (in_snd ? other : own) | L4_IPC_PHASE_RECV);
	sched_enqueue(rcv);
	snd->ipc_error = in_snd ? own : other;
}

/* A blocked receiver's memory faulted: it leaves its receive to have its pager map it. */
static void defer_receiver(struct tcb *d)
{
	timeout_cancel(d);
	d->xfer_addr = xfer_fault.addr;
	d->xfer_rwx = xfer_fault.rwx;
	d->state = TS_READY;
	arch_set_continuation(d, ipc_recv_fault_resume);
	sched_enqueue(d);
}

/* A blocked sender's memory faulted: it leaves the queue to resolve it, then sends anew. */
static void defer_sender(struct tcb *s)
{
	sendq_remove(s);
	timeout_cancel(s);
	s->xfer_addr = xfer_fault.addr;
	s->xfer_rwx = xfer_fault.rwx;
	ipc_complete(s, IPC_XFER_FAULT);
	sched_enqueue(s);
}

void ipc_recv_fault_resume(struct trapframe *tf)
{
	struct tcb *t = current;
	word_t from = t->partner, timeout = t->rcv_timeout;   /* the fault IPC overwrites them */
	if (pager_fault(t->xfer_addr, t->xfer_rwx))
		ipc_do(t, L4_NILTHREAD, from, L4_TIMEOUTS(0, timeout));
	else
		t->ipc_error = L4_IPC_XFER_TO_OWN | L4_IPC_PHASE_RECV;
	ipc_user_return(tf);
}

/*
 * Take a blocked sender's message; it goes on to its own receive phase if
 * it has one.  IPC_XFER_FAULT: nothing changed, xfer_fault says who must act.
 */
static word_t take_from_sender(struct tcb *t, struct tcb *s)
{
	word_t err = rendezvous(s, t);
	if (err == IPC_XFER_FAULT || err == IPC_XFER_PREEMPT)
		return err;
	sendq_remove(s);
	timeout_cancel(s);
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

/*
 * A pending sender's message, if there is one.  A copy fault in our memory
 * goes to our pager and the same sender is tried again; one in the
 * sender's memory sends it away to resolve it.  False: no sender (left).
 */
static bool receive_pending(struct tcb *t, word_t from)
{
	for (struct tcb *s; from && (s = find_sender(t, from));) {
		word_t err = take_from_sender(t, s);
		if (err == IPC_XFER_PREEMPT) {
			preempt_point();               /* then take a sender again: s goes on */
			continue;
		}
		if (err != IPC_XFER_FAULT)
			return true;                   /* sets t's result */
		if (xfer_fault.who != t) {
			defer_sender(s);
		} else if (!pager_fault(xfer_fault.addr, xfer_fault.rwx)) {
			t->ipc_error = L4_IPC_XFER_TO_OWN | L4_IPC_PHASE_RECV;
			t->ipc_from = tcb_id_as_seen_by(s, t);
			sendq_remove(s);
			timeout_cancel(s);
			ipc_complete(s, L4_IPC_XFER_TO_PARTNER);
			sched_enqueue(s);
			return true;
		}
	}
	return false;
}

static void receive_phase(struct tcb *t, word_t from, word_t timeout, struct tcb *woken)
{
	from = woken && woken->id == from ? from : resolve_from(t, from);   /* a Call: known */
	bool got = receive_pending(t, from);
	if (from && !got && !timeout_is_zero(timeout)) {
		start_receive(t, from, timeout);
		sched_swap(woken);
		return;
	}
	if (!got)
		t->ipc_error = (from ? L4_IPC_TIMEOUT : L4_IPC_NOPARTNER) | L4_IPC_PHASE_RECV;
	if (woken)
		sched_wake(woken);
}

/* Block sending to dest.  True if the send must be tried again (after a copy fault in our memory). */
static bool send_blocked(struct tcb *t, struct tcb *dest, word_t from, word_t timeouts)
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
	if (t->ipc_error != IPC_XFER_FAULT)
		return false;
	if (pager_fault(t->xfer_addr, t->xfer_rwx))
		return true;
	t->ipc_error = L4_IPC_XFER_TO_OWN;
	return false;
}

/*
 * The send to d, waiting for us, met a copy fault: resolve it through the
 * pager of whoever's memory it is.  True: try the whole IPC again.
 */
static bool send_fault(struct tcb *t, struct tcb *d)
{
	if (xfer_fault.who == d && d->ipc_kind == IPC_USER) {
		defer_receiver(d);
		return true;
	}
	if (xfer_fault.who == t && pager_fault(xfer_fault.addr, xfer_fault.rwx))
		return true;
	fail_copy(t, d, xfer_fault.who == t);
	return false;
}

/* One try of ipc_do; true if it must start over (a copy fault was resolved). */
static bool ipc_try(struct tcb *t, word_t to, word_t from, word_t timeouts)
{
	t->ipc_error = 0;
	t->ipc_from = L4_NILTHREAD;
	struct tcb *woken = NULL;
	if (to != L4_NILTHREAD) {
		struct tcb *d = tcb_resolve(t, to);
		if (!d || d == t || d->state == TS_IDLE) {
			t->ipc_error = L4_IPC_NOPARTNER;
			return false;
		}
		if (d->is_irq) {
			t->ipc_error = irq_ack(d, t);
			if (t->ipc_error || from == L4_NILTHREAD)
				return false;
		} else if (d->state == TS_RECV_BLOCKED && accepts(d, t)) {
			t->ipc_error = rendezvous(t, d);
			if (t->ipc_error == IPC_XFER_PREEMPT) {
				preempt_point();        /* nothing held: try again, the map goes on */
				return true;
			}
			if (t->ipc_error == IPC_XFER_FAULT)
				return send_fault(t, d);
			if (t->ipc_error || from == L4_NILTHREAD) {
				sched_wake(d);
				return false;
			}
			woken = d;
		} else if (timeout_is_zero(L4_SND_TIMEOUT(timeouts))) {
			t->ipc_error = L4_IPC_TIMEOUT;
			return false;
		} else {
			return send_blocked(t, d, from, timeouts);
		}
	}
	if (from != L4_NILTHREAD)
		receive_phase(t, from, L4_RCV_TIMEOUT(timeouts), woken);
	return false;
}

void ipc_do(struct tcb *t, word_t to, word_t from, word_t timeouts)
{
	t->map_resume.rcv = 0;          /* a new IPC: no map item of ours has stopped half-way */
	while (ipc_try(t, to, from, timeouts))
		;
}

static inline void user_return(struct trapframe *tf)
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

void ipc_user_return(struct trapframe *tf)
{
	user_return(tf);
}

void sys_ipc(struct trapframe *tf)
{
	struct tcb *t = current;
	frame_to_mrs(tf, utcb_mrs(t));
	t->ipc_kind = IPC_USER;
	ipc_do(t, tf->rsi, tf->rdx, tf->r8);
	user_return(tf);
}

void ipc_startup_return(struct trapframe *tf)
{
	struct tcb *t = current;
	word_t *mr = utcb_mrs(t);
	t->ipc_kind = IPC_USER;
	if (!t->ipc_error && L4_TAG_U(mr[0]) == 2 && L4_TAG_T(mr[0]) == 0) {
		if (!arch_sysret_safe(mr[1]))
			thread_halt_current("start message with a non-canonical IP", tf, mr[1]);
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
