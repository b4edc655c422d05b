// SPDX-License-Identifier: MIT
// The IPC slowpath: rendezvous, blocking with timeouts, aborts, and the Ipc system call.
#include "ipc.h"
#include "preempt.h"
#include "exception.h"
#include "irq.h"
#include "space.h"
#include "sched.h"
#include "timer.h"
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

/* Does receiver r (blocked in a receive) take a message from s? */
static bool accepts(const struct tcb *r, const struct tcb *s)
{
	return r->partner == L4_ANYTHREAD || r->partner == s->id ||
	       (s->vsender && r->partner == s->vsender) ||
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

/*
 * Put t into its receive phase from `from`, its timeout running from now;
 * `partner` (may be NULL): a thread t knows, which spares looking `from` up.
 */
static void start_receive(struct tcb *t, word_t from, word_t timeout, struct tcb *partner)
{
	t->state = TS_RECV_BLOCKED;
	t->partner = from;
	if (partner && partner->id == from)
		partner->marks |= MARK_KNOWN;
	else
		thread_mark_known(from);
	t->rcv_timeout = timeout;       /* kept for a receive restarted after a copy fault */
	timeout_start(t, timeout);
}

/*
 * Propagation (X.2): a sender whose tag has p sends on behalf of the thread
 * in its VirtualSender TCR if that thread is in its own space, or the
 * destination is, or it is the redirector of that thread's space;
 * otherwise p is cleared and the message is an ordinary one.
 */
static void propagation(struct tcb *t, struct tcb *d)
{
	word_t *mr = utcb_mrs(t);
	t->vsender = 0;
	if (!(mr[0] & L4_TAG_PROPAGATE))
		return;
	struct tcb *vs = tcb_resolve(t, utcb_get(t, UTCB_VIRTUAL_SENDER));
	if (vs && thread_is_user(vs) && vs != d &&
	    (vs->space == t->space || d->space == t->space || vs->space->redirector == t->id))
		t->vsender = vs->id;
	else
		mr[0] &= ~L4_TAG_PROPAGATE;
}

/*
 * rcv got a message propagated by snd for vsender: From is the virtual
 * sender, ActualSender (the VirtualSender TCR) the real one; a virtual
 * sender waiting for snd's reply now waits for rcv's.
 */
static void propagated(struct tcb *snd, struct tcb *rcv, word_t vsender, bool ok)
{
	rcv->ipc_from = vsender;
	utcb_set(rcv, UTCB_VIRTUAL_SENDER, snd->id);
	struct tcb *vs = tcb_lookup(vsender);
	if (ok && vs && vs->state == TS_RECV_BLOCKED && vs->partner == snd->id) {
		vs->partner = rcv->id;
		rcv->marks |= MARK_KNOWN;
	}
}

/*
 * Redirection (X.2): a user IPC from a space with a redirector to a thread
 * outside it (other than the redirector) goes to the redirector instead,
 * flagged r, with the intended receiver in its IntendedReceiver TCR.  A
 * redirector that no longer exists makes the send fail ("no partner"): the
 * space stays confined.
 */
static struct tcb *redirect(struct tcb *t, struct tcb *d)
{
	word_t m = t->space ? t->space->redirector : 0;
	if (!m || d->is_irq || d->space == t->space || d->id == m || t->id == m ||
	    t->ipc_kind != IPC_USER)
		return d;
	struct tcb *r = tcb_lookup(m);
	if (r)
		t->intended = d->id;
	return r;
}

/* rendezvous: the receiver vanished while the sender transferred (nothing of it may be touched). */
#define RCV_GONE (~0UL)
/* A blocked sender's result when a receiver handed its receive over (hand_over). */
#define IPC_GO (~1UL)

/*
 * A typed transfer with strings (X.2 "long IPC") is done by the sender, on
 * its own stack, while the receiver waits locked (TS_LOCKED, out of every
 * queue and deadline): page faults in the sender's memory go to its pager
 * from the sender itself; those in the receiver's memory are "tunnelled":
 * the receiver runs, sends its own page-fault IPC, and hands back.  The
 * transfer stops at page boundaries to let interrupts in (transfer.c).
 */
static void xfer_begin(struct tcb *snd, struct tcb *rcv)
{
	timeout_cancel(rcv);
	rcv->state = TS_LOCKED;
	rcv->xfer_peer = snd;
	snd->xfer_peer = rcv;
	snd->xfer_copying = true;
	snd->xfer_aborted = false;
}

/* End snd's transfer; false if its receiver was deleted meanwhile. */
static bool xfer_end(struct tcb *snd)
{
	struct tcb *rcv = snd->xfer_peer;
	snd->xfer_peer = NULL;
	snd->xfer_copying = false;
	if (!rcv)
		return false;
	rcv->xfer_peer = NULL;
	return true;
}

/*
 * Copy snd's message to rcv.  A long message (strings, or a map item long
 * enough to stop for interrupts) locks rcv for the copy, except for a
 * receiver that is itself inside a transfer (in its page-fault IPC): strings
 * would nest, so they are a message overflow; maps go on without stopping.
 */
static word_t transfer(struct tcb *snd, struct tcb *rcv)
{
	if (!L4_TAG_T(utcb_mrs(snd)[0]) || !ipc_is_long(utcb_mrs(snd)))
		return ipc_transfer(snd, rcv);
	if (rcv->xfer_peer || snd->xfer_peer)        /* long maps go on without stopping */
		return ipc_has_strings(utcb_mrs(snd)) ? L4_IPC_OVERFLOW : ipc_transfer(snd, rcv);
	xfer_begin(snd, rcv);
	word_t err = ipc_transfer(snd, rcv);
	return xfer_end(snd) ? err : RCV_GONE;
}

/*
 * Rendezvous: snd's message goes to rcv, which is waiting for it (or locked
 * for it).  rcv ends its receive; snd's result is returned (0 on success,
 * RCV_GONE if rcv was deleted during the transfer); no switch.  The common
 * case, untyped words between user threads, is light (rendezvous); typed
 * items, exception messages, propagation and redirection are not.
 */
static __attribute__((noinline)) word_t rendezvous_full(struct tcb *snd, struct tcb *rcv)
{
	COUNT(ipcs);
	word_t err, rerr;
	word_t vsender = snd->vsender, intended = snd->intended;   /* a fault IPC resets them */
	if (rcv->ipc_kind == IPC_EXCEPTION || snd->ipc_kind == IPC_EXCEPTION)
		err = exception_transfer(snd, rcv);
	else
		err = transfer(snd, rcv);
	if (err == RCV_GONE)
		return err;
	rerr = err;
	/* an xfer timeout is "in the invoker's space" for one side, "in the partner's" for the other */
	if (L4_IPC_CODE(err) == L4_IPC_XFER_TO_OWN || L4_IPC_CODE(err) == L4_IPC_XFER_TO_PARTNER)
		rerr ^= L4_IPC_XFER_TO_OWN ^ L4_IPC_XFER_TO_PARTNER;
	rcv->ipc_from = tcb_id_as_seen_by(snd, rcv);
	if (vsender)
		propagated(snd, rcv, vsender, !err);
	if (intended) {
		utcb_mrs(rcv)[0] |= L4_TAG_REDIRECTED;
		utcb_set(rcv, UTCB_INTENDED_RECV, intended);
	}
	ipc_complete(rcv, err ? rerr | L4_IPC_PHASE_RECV : 0);
	return err;
}

/* The light rendezvous's delivery of n message words (n < 64) and its completion. */
static inline __attribute__((always_inline)) word_t deliver_words(struct tcb *snd, struct tcb *rcv,
								  const word_t *smr, word_t tag, word_t n)
{
	COUNT(ipcs);
	word_t *rmr = utcb_mrs(rcv);
	rmr[0] = tag & ~(L4_TAG_REDIRECTED | L4_TAG_XCPU | L4_TAG_ERROR);
	if (n)
		arch_copy(rmr + 1, smr + 1, n * 8);
	rcv->ipc_from = tcb_id_as_seen_by(snd, rcv);
	ipc_complete(rcv, 0);
	return 0;
}

/* Does the light rendezvous leave this message to rendezvous_full (or to the short string)? */
static inline bool rendezvous_heavy(const struct tcb *snd, const struct tcb *rcv)
{
	return rcv->ipc_kind == IPC_EXCEPTION || snd->ipc_kind == IPC_EXCEPTION || snd->vsender ||
	       snd->intended;
}

/* Out of line, so that untyped messages keep rendezvous's frame small: a short string or the rest. */
static __attribute__((noinline)) word_t rendezvous_typed(struct tcb *snd, struct tcb *rcv)
{
	const word_t *smr = utcb_mrs(snd);
	word_t tag = smr[0];
	if (rendezvous_heavy(snd, rcv) || !ipc_short_string(snd, rcv, smr))
		return rendezvous_full(snd, rcv);
	return deliver_words(snd, rcv, smr, tag, L4_TAG_U(tag) + 2);   /* u + 2 < 64: checked */
}

static word_t rendezvous(struct tcb *snd, struct tcb *rcv)
{
	const word_t *smr = utcb_mrs(snd);
	word_t tag = smr[0];
	if (unlikely(L4_TAG_T(tag) || rendezvous_heavy(snd, rcv)))
		return rendezvous_typed(snd, rcv);
	return deliver_words(snd, rcv, smr, tag, L4_TAG_U(tag));   /* u <= 63: no overflow */
}

/*
 * A blocked sender's receive specifier named no thread: its send completes,
 * then its receive phase fails with "no partner", exactly as when the
 * partner was already waiting.  (A global ID with version 0 names nothing.)
 */
#define RECV_INVALID ((word_t)1 << 32)

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
		if (from == L4_ANYTHREAD || s->id == from || (s->vsender && s->vsender == from) ||
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

/* End t's blocked send or receive with "canceled"; no switch.  False if it was not blocked. */
static bool cancel_blocked(struct tcb *t)
{
	if (t->state == TS_SEND_BLOCKED) {
		sendq_remove(t);
		ipc_complete(t, L4_IPC_CANCELED);
	} else if (t->state == TS_RECV_BLOCKED) {
		ipc_complete(t, L4_IPC_CANCELED | L4_IPC_PHASE_RECV);
	} else {
		return false;
	}
	sched_enqueue(t);
	return true;
}

static inline void user_return(struct trapframe *tf);

/*
 * The receiver's side of a tunnelled fault: it sends the page-fault IPC
 * for its own memory (bounded by the transfer's deadline), reports the
 * result to the sender and waits locked again; once the transfer is over
 * it returns its result to user mode.
 */
void ipc_tunnel_resume(struct trapframe *tf)
{
	struct tcb *t = current;
	while (t->xfer_tunnel) {
		t->xfer_tunnel = false;
		struct tcb *s = t->xfer_peer;
		word_t err = s && !s->xfer_aborted ? pager_fault(t->xfer_addr, t->xfer_rwx)
						   : L4_IPC_CANCELED;
		t->kcall_deadline = 0;
		s = t->xfer_peer;
		if (!s) {                       /* the sender was deleted meanwhile */
			t->ipc_error = L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV;
			break;
		}
		s->xfer_result = err;
		t->state = TS_LOCKED;
		s->state = TS_READY;
		sched_swap(s);
	}
	user_return(tf);
}

/* Have locked rcv resolve a fault at addr in its memory; the IPC error of its fault IPC. */
static word_t tunnel(struct tcb *snd, struct tcb *rcv, word_t addr, unsigned rwx, u64 deadline)
{
	rcv->xfer_addr = addr;
	rcv->xfer_rwx = rwx;
	rcv->kcall_deadline = deadline;
	rcv->xfer_tunnel = true;
	snd->xfer_result = L4_IPC_CANCELED;     /* unless rcv reports back */
	arch_set_continuation(rcv, ipc_tunnel_resume);
	rcv->state = TS_READY;
	snd->state = TS_LOCKED;
	sched_swap(rcv);
	return snd->xfer_result;
}

int ipc_xfer_resolve(struct tcb *snd, struct tcb *rcv, struct tcb *who, word_t addr,
		     unsigned rwx, u64 deadline)
{
	if (snd->xfer_aborted)
		return XF_ABORTED;
	/* a pager that is the other side of the transfer could never answer (X.2): no deadlock */
	struct tcb *pager = tcb_resolve(who, handler_of(who, utcb_get(who, UTCB_PAGER)));
	if (!pager || pager == (who == snd ? rcv : snd) || (who == rcv && rcv->ipc_kind != IPC_USER))
		return XF_UNRESOLVED;
	word_t err;
	if (who == snd) {
		snd->kcall_deadline = deadline;
		err = pager_fault(addr, rwx);
		snd->kcall_deadline = 0;
	} else {
		err = tunnel(snd, rcv, addr, rwx, deadline);
	}
	if (snd->xfer_aborted)
		return XF_ABORTED;
	switch (L4_IPC_CODE(err)) {
	case 0:
		return XF_OK;
	case L4_IPC_TIMEOUT:
		return XF_TIMEOUT;
	case L4_IPC_NOPARTNER:
		return XF_UNRESOLVED;
	default:
		return XF_ABORTED;
	}
}

bool ipc_xfer_preempt(struct tcb *snd)
{
	arch_irq_window();
	return snd->xfer_aborted;
}

/* ExchangeRegisters aborts a transfer in progress: both sides see "aborted" (code 7). */
static void xfer_abort(struct tcb *t)
{
	struct tcb *p = t->xfer_peer;
	(t->xfer_copying ? t : p)->xfer_aborted = true;
	if (!cancel_blocked(t))            /* whichever is in its fault IPC ends it */
		cancel_blocked(p);
}

/* t, in a transfer, is about to be deleted: its peer goes on without it. */
static void xfer_forget(struct tcb *t)
{
	struct tcb *p = t->xfer_peer;
	if (!p)
		return;
	t->xfer_peer = NULL;
	p->xfer_peer = NULL;
	if (t->xfer_copying) {
		t->xfer_copying = false;
		if (p->state == TS_LOCKED) {
			ipc_complete(p, L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV);
			sched_enqueue(p);
		} else {
			cancel_blocked(p);     /* in its tunnelled fault IPC: it then sees us gone */
		}
	} else {
		p->xfer_aborted = true;
		if (p->state == TS_LOCKED) {
			p->state = TS_READY;
			sched_enqueue(p);
		} else {
			cancel_blocked(p);
		}
	}
}

/*
 * Take a blocked sender's message (no strings: nothing can block); it goes
 * on to its own receive phase if it has one.
 */
static void take_from_sender(struct tcb *t, struct tcb *s)
{
	word_t err = rendezvous(s, t);
	sendq_remove(s);
	timeout_cancel(s);
	if (s->is_irq) {
		irq_taken(s);
		return;
	}
	if (!err && s->recv_spec == RECV_INVALID)
		ipc_complete(s, L4_IPC_NOPARTNER | L4_IPC_PHASE_RECV);
	else if (!err && s->recv_spec != L4_NILTHREAD)
		start_receive(s, s->recv_spec, s->rcv_timeout, t);
	else
		ipc_complete(s, err);
	if (sched_runnable(s))
		sched_wake(s);
}

/*
 * A blocked sender with strings transfers them itself: t waits locked
 * until it has (its result is then set).  `woken` (our own send's partner)
 * is made runnable first, since t may not come back here (ipc_tunnel_resume).
 */
static void hand_over(struct tcb *t, struct tcb *s, struct tcb *woken)
{
	sendq_remove(s);
	timeout_cancel(s);
	if (woken && sched_runnable(woken))
		sched_enqueue(woken);
	t->state = TS_LOCKED;
	t->xfer_peer = s;                /* a deletion of either side now finds the other */
	s->xfer_peer = t;
	s->xfer_copying = true;
	s->xfer_aborted = false;
	s->ipc_error = IPC_GO;
	s->state = TS_READY;
	sched_swap(s);
}

/* A pending sender's message, if there is one.  False: no sender. */
static bool receive_pending(struct tcb *t, word_t from, struct tcb *woken)
{
	struct tcb *s;
	if (!from || !(s = find_sender(t, from)))
		return false;
	if (!s->is_irq && L4_TAG_T(utcb_mrs(s)[0]) && ipc_is_long(utcb_mrs(s)))
		hand_over(t, s, woken);
	else
		take_from_sender(t, s);
	return true;
}

static void receive_phase(struct tcb *t, word_t from, word_t timeout, struct tcb *woken)
{
	from = woken && woken->id == from ? from : resolve_from(t, from);   /* a Call: known */
	bool got = receive_pending(t, from, woken);
	if (from && !got && !timeout_is_zero(timeout)) {
		start_receive(t, from, timeout, woken);
		sched_swap(woken);
		return;
	}
	if (!got)
		t->ipc_error = (from ? L4_IPC_TIMEOUT : L4_IPC_NOPARTNER) | L4_IPC_PHASE_RECV;
	if (woken)
		sched_wake(woken);
}

/*
 * Block sending to dest.  Returns the receiver if it handed its receive
 * over to us (we transfer our strings now), else NULL: the IPC is over.
 */
static struct tcb *send_blocked(struct tcb *t, struct tcb *dest, word_t from, word_t timeouts)
{
	t->state = TS_SEND_BLOCKED;
	t->partner = dest->id;
	t->recv_spec = resolve_from(t, from);
	t->rcv_timeout = L4_RCV_TIMEOUT(timeouts);
	if (from != L4_NILTHREAD && !t->recv_spec)
		t->recv_spec = RECV_INVALID;      /* fails once the send is done (as Pistachio) */
	sendq_append(dest, t);
	timeout_start(t, L4_SND_TIMEOUT(timeouts));
	sched_swap(NULL);
	if (t->ipc_error != IPC_GO)
		return NULL;
	t->ipc_error = 0;
	if (!t->xfer_peer) {
		t->xfer_copying = false;
		t->ipc_error = L4_IPC_NOPARTNER;  /* it was deleted before we ran */
	}
	return t->xfer_peer;
}

/* Send to d, waiting (or locked) for us.  True if t goes on to its receive phase. */
static bool send_now(struct tcb *t, struct tcb *d, word_t from, struct tcb **woken)
{
	t->ipc_error = rendezvous(t, d);
	if (t->ipc_error == RCV_GONE) {
		t->ipc_error = L4_IPC_NOPARTNER;
		return false;
	}
	if (t->ipc_error || from == L4_NILTHREAD) {
		sched_wake(d);
		return false;
	}
	*woken = d;
	return true;
}

/* The IPC operation (ipc_do). */
static void ipc_try(struct tcb *t, word_t to, word_t from, word_t timeouts)
{
	t->ipc_error = 0;
	t->ipc_from = L4_NILTHREAD;
	struct tcb *woken = NULL;
	t->vsender = t->intended = 0;
	if (to != L4_NILTHREAD) {
		struct tcb *d = tcb_resolve(t, to);
		if (d)
			d = redirect(t, d);
		if (!d || d == t || d->state == TS_IDLE) {
			t->ipc_error = L4_IPC_NOPARTNER;
			return;
		}
		if (!d->is_irq)
			propagation(t, d);
		if (d->is_irq) {
			t->ipc_error = irq_ack(d, t);
			if (t->ipc_error || from == L4_NILTHREAD)
				return;
		} else if (d->state == TS_RECV_BLOCKED && accepts(d, t)) {
			if (!send_now(t, d, from, &woken))
				return;
		} else if (timeout_is_zero(L4_SND_TIMEOUT(timeouts))) {
			t->ipc_error = L4_IPC_TIMEOUT;
			return;
		} else {
			d = send_blocked(t, d, from, timeouts);
			if (!d)
				return;
			bool aborted = t->xfer_aborted;       /* by ExchangeRegisters before we ran */
			t->xfer_peer = d->xfer_peer = NULL;   /* the hand-over's lock is transfer()'s now */
			t->xfer_copying = t->xfer_aborted = false;
			if (aborted) {
				d->ipc_from = tcb_id_as_seen_by(t, d);
				ipc_complete(d, L4_IPC_ABORTED | L4_IPC_PHASE_RECV);
				sched_wake(d);
				t->ipc_error = L4_IPC_ABORTED;
				return;
			}
			if (!send_now(t, d, from, &woken))
				return;
		}
	}
	if (from != L4_NILTHREAD)
		receive_phase(t, from, L4_RCV_TIMEOUT(timeouts), woken);
	return;
}

void ipc_do(struct tcb *t, word_t to, word_t from, word_t timeouts)
{
	ipc_try(t, to, from, timeouts);
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
	} else if (t->ipc_from != L4_NILTHREAD) {
		mr[0] &= ~(L4_TAG_XCPU | L4_TAG_ERROR);     /* a received tag keeps p and r */
	} else {
		mr[0] &= ~L4_TAG_FLAGS_MASK;
	}
	mrs_to_frame_n(mr, tf, tag_reg_words(mr[0]));   /* the rest of MR1..7 stays the thread's own */
	ipc_set_from(tf, t->ipc_from);
	sys_set_utcb(tf, t->utcb);  /* a thread blocked by the fastpath left none in its frame */
}

void ipc_user_return(struct trapframe *tf)
{
	user_return(tf);
}

void sys_ipc(struct trapframe *tf)
{
	struct tcb *t = current;
	frame_to_mrs_n(tf, utcb_mrs(t), tag_reg_words(ipc_tag(tf)));
	t->ipc_kind = IPC_USER;
	ipc_do(t, ipc_to(tf), ipc_from_spec(tf), ipc_timeouts(tf));
	user_return(tf);
}

void ipc_startup_return(struct trapframe *tf)
{
	struct tcb *t = current;
	word_t *mr = utcb_mrs(t);
	t->ipc_kind = IPC_USER;
	if (!t->ipc_error && L4_TAG_U(mr[0]) == 2 && L4_TAG_T(mr[0]) == 0) {
		if (!arch_user_ip_valid(mr[1]))
			thread_halt_current("start message with a non-canonical IP", tf, mr[1]);
		frame_set_ip(tf, mr[1]);
		frame_set_sp(tf, mr[2]);
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
	if (t->xfer_peer && (send || recv) && !old) {
		xfer_abort(t);          /* locked, or transferring between two preemption points */
		return t->xfer_copying ? 4 : 2;
	}
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
	xfer_forget(t);
	if (t->state == TS_SEND_BLOCKED)
		sendq_remove(t);
	timeout_cancel(t);
	while (t->sendq)
		partner_gone(t->sendq);
	/* a receive from t can wait in any space (partner_gone changes no table entry) */
	for (word_t i = 0; (t->marks & MARK_KNOWN) && i < tcb_nlive; i++) {
		struct tcb *r = tcb_live[i];
		if (r->partner == t->id && r->state == TS_RECV_BLOCKED && r != t)
			partner_gone(r);
	}
	for (struct tcb *r = t->space ? t->space->threads : NULL; r; r = r->space_next)
		if (r->local_hint == t)
			r->local_hint = r;          /* only threads of t's space name it locally */
	sched_dequeue(t);
}
