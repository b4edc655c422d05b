// SPDX-License-Identifier: MIT
// Whole-kernel consistency checks (check.h): the tests run them after every fuzz run.
#include "check.h"
#include "config.h"
#include "frame.h"
#include "mapping.h"
#include "printk.h"
#include "sched.h"
#include "space.h"
#include "timer.h"
#include <l4/thread.h>

/* Longest list a walk follows before it calls the list cyclic. */
#define MAX_WALK ((int)CONFIG_MAX_THREADS + 1)

/* The thread at table slot no is t (so a list that holds t holds a live thread). */
static bool in_table(const struct tcb *t)
{
	return t && tcb_by_number(l4_thread_no(t->id)) == t;
}

bool check_space_live(const struct space *s)
{
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		const struct tcb *t = tcb_by_number(no);
		if (t && !t->is_irq && t->space == s)
			return true;
	}
	return false;
}

/* Threads of t's space in the table, counted from scratch. */
static int threads_in(const struct space *s)
{
	int n = 0;
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		const struct tcb *t = tcb_by_number(no);
		n += t && !t->is_irq && t->space == s;
	}
	return n;
}

/* t's space lists it once, with sound links, and as many threads as it counts. */
static const char *check_space_list(const struct tcb *t)
{
	int n = 0;
	bool seen = false;
	for (const struct tcb *q = t->space->threads; q; q = q->space_next) {
		if (++n > MAX_WALK || !in_table(q) || q->space != t->space)
			return "a space's thread list holds a stranger or does not end";
		if (q->space_next && q->space_next->space_prev != q)
			return "a space's thread list links disagree";
		seen |= q == t;
	}
	if (!seen || n != t->space->nthreads)
		return "a space's thread list misses a thread or miscounts";
	return NULL;
}

/* t is in the send queue of the thread it waits for, and that ring is sound. */
static const char *check_send_wait(const struct tcb *t)
{
	const struct tcb *d = t->send_to;
	if (!in_table(d))
		return "a sender waits for a thread that does not exist";
	const struct tcb *q = d->sendq;
	for (int i = 0; q && i < MAX_WALK; i++, q = q->sq_next) {
		if (q->sq_next->sq_prev != q)
			return "send-queue links disagree";
		if (q == t)
			return NULL;
		if (q->sq_next == d->sendq)
			break;
	}
	return "a sender is missing from its partner's send queue";
}

/* Every thread in t's send queue is sending to t. */
static const char *check_sendq(const struct tcb *t)
{
	const struct tcb *q = t->sendq;
	for (int i = 0; q; i++, q = q->sq_next) {
		if (i > MAX_WALK)
			return "a send queue does not close";
		if (!in_table(q) || q->state != TS_SEND_BLOCKED || q->send_to != t)
			return "a send queue holds a thread that is not sending to its owner";
		if (q->sq_next == t->sendq)
			break;
	}
	return NULL;
}

/* One thread's own fields. */
static const char *check_thread(word_t no, const struct tcb *t)
{
	if (l4_thread_no(t->id) != no || !l4_version(t->id))
		return "a thread's ID does not match its slot";
	if (t->state > TS_HALTED && t->state != TS_LOCKED)
		return "a thread in an impossible state";
	if (t->state == TS_LOCKED) {
		const struct tcb *p = t->xfer_peer;
		if (!in_table(p) || p->xfer_peer != t || !p->xfer_copying)
			return "a locked receiver whose sender is not transferring to it";
	}
	if (t->is_irq) {
		if (t->space || no >= L4_SYSTEM_BASE)
			return "an interrupt thread with a space or a user number";
	} else {
		if (no < L4_USER_BASE || !t->space)
			return "a user thread with a system number or no space";
		if (t->space->nthreads != threads_in(t->space))
			return "a space's thread count differs from its threads";
		const char *why = check_space_list(t);
		if (why)
			return why;
		if (t->state != TS_INACTIVE && !t->utcb_k)
			return "an active thread without a UTCB";
		if (t->utcb_k && (t->utcb < t->space->utcb_base ||
				  t->utcb - t->space->utcb_base >= t->space->utcb_size))
			return "a UTCB outside its space's UTCB area";
	}
	if ((t->state == TS_SEND_BLOCKED) != (t->send_to != NULL))
		return "a thread waits in a send queue without sending (or the reverse)";
	if (!(t->marks & MARK_TIMED) != !t->wake_at)
		return "a thread's deadline flag disagrees with its deadline";
	if (t->state == TS_RECV_BLOCKED && t->partner != L4_ANYTHREAD && t->partner != L4_ANYLOCALTHREAD &&
	    tcb_lookup(t->partner) && !(tcb_lookup(t->partner)->marks & MARK_KNOWN))
		return "a thread waits for a thread not marked known (its deletion would miss it)";
	/* the IPC fastpaths return to such a thread without looking (ipc_fast.c) */
	if ((t->fast_key & ~((u32)MARK_HOME_MASK << 24)) == FAST_KEY_WAITING(IPC_USER) &&
	    !arch_user_ip_valid(frame_ip(arch_user_frame(t))))
		return "a thread waiting in an Ipc receive has an invalid IP";
	/* each processor's fastpaths switch only to threads whose marks name it (ipc_fast.c) */
	if ((t->marks & MARK_HOME_MASK) != MARK_HOME(t->cpu))
		return "a thread's home mark disagrees with its home processor";
	if (t->space && t->redirector != t->space->redirector)
		return "a thread's copy of its space's redirector disagrees with it";
	if (t->local_hint != t && (!in_table(t->local_hint) || t->local_hint->space != t->space))
		return "a thread's Lipc hint names a thread gone or of another space, or none";
	if (t->send_to) {
		const char *why = check_send_wait(t);
		if (why)
			return why;
	}
	return check_sendq(t);
}

const char *check_threads(word_t *count)
{
	*count = 0;
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		const struct tcb *t = tcb_by_number(no);
		if (t ? tcb_ids[no] != t->id : l4_thread_no(tcb_ids[no]) == no)
			return "the fastpath's ID table disagrees with the thread table";
		if (!t)
			continue;
		if (t->live_idx >= tcb_nlive || tcb_live[t->live_idx] != t)
			return "a thread is missing from the live threads";
		(*count)++;
		const char *why = check_thread(no, t);
		if (why)
			return why;
	}
	return *count == tcb_nlive ? NULL : "the live threads hold a thread not in the table";
}

/* How often each thread number was met in the ready queues. */
static u8 rq_seen[CONFIG_MAX_THREADS];

/* One priority's ring: links, priorities, each member once. */
static const char *check_ring(int p, word_t *count)
{
	struct tcb *h = rq_head[p], *t = h;
	bool bit = rq_bitmap[p / 64] >> (p % 64) & 1;
	if (!h)
		return bit ? "a ready-queue bit set for an empty priority" : NULL;
	if (!bit)
		return "a ready-queue bit clear for a priority with threads";
	for (int i = 0;; i++, t = t->rq_next) {
		if (i > MAX_WALK)
			return "a ready queue does not close";
		if (!in_table(t) || t->is_irq)
			return "a ready queue holds something that is not a user thread";
		if (t->prio != p || !t->queued)
			return "a queued thread's priority or flag is wrong";
		if (CONFIG_SMP && &cpus[t->cpu].rq != rq)
			return "a thread is queued on a processor other than its home";
		if (t->rq_next->rq_prev != t)
			return "ready-queue links disagree";
		if (rq_seen[l4_thread_no(t->id)]++)
			return "a thread is queued twice";
		(*count)++;
		if (t->rq_next == h)
			return NULL;
	}
}

/* The variant's rule (sched.c): who must and who may be queued. */
static const char *check_queue_rule(const struct tcb *t)
{
	bool queued = rq_seen[l4_thread_no(t->id)], runnable = sched_runnable(t);
	bool lazy = CONFIG_SCHED_LAZY && !CONFIG_SCHED_BENNO;
	bool running = t == current || smp_running_elsewhere(t) >= 0;
	if (queued != t->queued)
		return "a thread's queued flag disagrees with the queues";
	if (runnable && !running && !queued)
		return "a runnable thread is missing from the ready queues";
	if (!lazy && queued && !runnable)
		return "a blocked thread is queued (eager and Benno queues are exact)";
	if (CONFIG_SCHED_BENNO && running && queued)
		return "the running thread is queued (Benno)";
	if (!lazy && !CONFIG_SCHED_BENNO && running && runnable && !queued)
		return "the running thread is not queued (eager)";
	return NULL;
}

/* The queues of the processor whose runq `rq` names (sched.h's rq_* name its fields). */
static const char *check_one_cpu(word_t *count)
{
	for (int w = 0; w < 4; w++)
		if (((rq_summary >> w) & 1) != (rq_bitmap[w] != 0))
			return "the ready-queue summary disagrees with the bitmap";
	int top = -1;
	for (int p = 0; p < 256; p++)
		if (rq_head[p])
			top = p;
	if (top != rq_top)
		return "the highest queued priority is not the one recorded";
	for (int p = 0; p < 256; p++) {
		const char *why = check_ring(p, count);
		if (why)
			return why;
	}
	return NULL;
}

/* Every processor's queues, then every thread against the variant's rule. */
const char *check_ready_queues(word_t *count)
{
	*count = 0;
	for (word_t i = 0; i < CONFIG_MAX_THREADS; i++)
		rq_seen[i] = 0;
	struct runq *own = rq;
	for (unsigned i = 0; i < cpu_count; i++) {
		rq = &cpus[i].rq;
		const char *why = check_one_cpu(count);
		rq = own;
		if (why)
			return why;
	}
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		const struct tcb *t = tcb_by_number(no);
		const char *why = t ? check_queue_rule(t) : NULL;
		if (why)
			return why;
	}
	return NULL;
}

const char *check_wakeup_queue(word_t *count)
{
	*count = 0;
	const struct tcb *prev = NULL;
	for (const struct tcb *t = wakeup_head; t; prev = t, t = t->wq_next) {
		if (++*count > MAX_WALK)
			return "the wakeup queue does not end";
		if (!in_table(t) || t->wq_prev != prev)
			return "wakeup-queue links disagree";
		if (!t->wake_at)
			return "a thread in the wakeup queue has no deadline";
		if (prev && prev->wake_at > t->wake_at)
			return "the wakeup queue is not sorted by deadline";
		if (t->state != TS_SEND_BLOCKED && t->state != TS_RECV_BLOCKED)
			return "a thread that is not blocked waits for a timeout";
	}
	word_t with_deadline = 0;
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		const struct tcb *t = tcb_by_number(no);
		with_deadline += t && t->wake_at;
	}
	return with_deadline == *count ? NULL : "a thread has a deadline but is not in the wakeup queue";
}

/* Every live space's page tables against the mapping database. */
static const char *check_spaces(word_t *pages)
{
	*pages = 0;
	for (word_t no = 0; no < CONFIG_MAX_THREADS; no++) {
		struct tcb *t = tcb_by_number(no);
		if (!t || t->is_irq)
			continue;
		bool first = true;                    /* check each space once: at its lowest thread */
		for (word_t k = 0; k < no && first; k++) {
			const struct tcb *o = tcb_by_number(k);
			first = !(o && !o->is_irq && o->space == t->space);
		}
		const char *why = first ? mapping_check_space(t->space, pages) : NULL;
		if (why)
			return why;
	}
	return NULL;
}

/* Print one check's line; returns its bit in the failure mask. */
static word_t report(int bit, const char *what, const char *why, word_t count, const char *unit)
{
	if (why) {
		printk("pecan: check %s: FAILED: %s (%lu %s)\n", what, why, count, unit);
		return 1UL << bit;
	}
	printk("pecan: check %s: ok, %lu %s\n", what, count, unit);
	return 0;
}

word_t check_kernel(word_t *pool_free)
{
	word_t n, failed = 0;
	const char *why = check_threads(&n);
	failed |= report(0, "threads", why, n, "threads");
	why = check_ready_queues(&n);
	failed |= report(1, "ready queues", why, n, "queued");
	why = check_wakeup_queue(&n);
	failed |= report(2, "wakeup queue", why, n, "waiting");
	why = mapping_check(&n);
	failed |= report(3, "mapping database", why, n, "mappings");
	why = mapping_check_tables(&n);
	failed |= report(4, "mappings against page tables", why, n, "mappings");
	why = check_spaces(&n);
	failed |= report(5, "page tables against mappings", why, n, "pages");
	*pool_free = kmem_free_count();
	printk("pecan: check pool: %lu of %lu frames free\n", *pool_free, kmem_total());
	if (failed)
		printk("pecan: check verdict: FAILED (mask %lx)\n", failed);
	else
		printk("pecan: check verdict: ok\n");
	return failed;
}
