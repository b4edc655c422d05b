// SPDX-License-Identifier: MIT
// 256-priority round-robin scheduler with the seed 001 variants (sched.h).
#include "sched.h"
#include "printk.h"
#include <l4/ipc.h>
#include <l4/utcb.h>
#include "timer.h"
#include "irq.h"
#include "exception.h"

/*
 * Queue invariants by variant:
 *   eager (EQ):  the queue holds exactly the runnable threads, current included;
 *   lazy (LQ):   it holds at least every runnable thread that is not running;
 *                blocked threads leave it when a lookup meets them;
 *   Benno:       it holds exactly the runnable threads that are not running.
 */
#define EAGER (!CONFIG_SCHED_LAZY && !CONFIG_SCHED_BENNO)

struct tcb *current;
bool sched_deadlock_poweroff;
static struct tcb idle_tcb = { .name = "idle", .state = TS_IDLE };
static struct tcb *const idle_thread = &idle_tcb;
struct tcb *rq_head[256];
u64 rq_bitmap[4];
unsigned rq_summary;
int rq_top = -1;

/* The highest priority whose ring is not empty, from the bitmaps; -1 if none. */
static int top_from_bitmap(void)
{
	if (!rq_summary)
		return -1;
	int w = 31 - __builtin_clz(rq_summary);
	return w * 64 + 63 - __builtin_clzl(rq_bitmap[w]);
}

word_t *const sched_counters = &user_gs_page[(PECAN_COUNTERS_ADDR - USER_GS_PAGE) / 8];

void sched_enqueue(struct tcb *t)
{
	if (t->queued || t == idle_thread)
		return;
	COUNT(actual_enqueue);
	struct tcb **h = &rq_head[t->prio];
	if (*h) {
		t->rq_next = *h;
		t->rq_prev = (*h)->rq_prev;
		(*h)->rq_prev->rq_next = t;
		(*h)->rq_prev = t;
	} else {
		*h = t->rq_next = t->rq_prev = t;
		rq_bitmap[t->prio / 64] |= 1UL << (t->prio % 64);
		rq_summary |= 1u << (t->prio / 64);
		if (t->prio > rq_top)
			rq_top = t->prio;
	}
	t->queued = true;
}

void sched_dequeue(struct tcb *t)
{
	if (!t->queued)
		return;
	COUNT(actual_dequeue);
	struct tcb **h = &rq_head[t->prio];
	if (t->rq_next == t) {
		*h = NULL;
		rq_bitmap[t->prio / 64] &= ~(1UL << (t->prio % 64));
		if (!rq_bitmap[t->prio / 64])
			rq_summary &= ~(1u << (t->prio / 64));
		if (t->prio == rq_top)
			rq_top = top_from_bitmap();
	} else {
		t->rq_prev->rq_next = t->rq_next;
		t->rq_next->rq_prev = t->rq_prev;
		if (*h == t)
			*h = t->rq_next;
	}
	t->queued = false;
}

/* The first runnable thread of the highest priority; drops blocked ones met on the way. */
static struct tcb *lookup(void)
{
	COUNT(queue_lookups);
	for (int p; (p = sched_highest_prio()) >= 0;) {
		struct tcb *t = rq_head[p];
		if (sched_runnable(t))
			return t;
		COUNT(deferred_dequeue);
		sched_dequeue(t);
	}
	return NULL;
}

static int prio_of(const struct tcb *t)
{
	return t == idle_thread ? -1 : t->prio;
}

void sched_switch_to(struct tcb *next)
{
	struct tcb *prev = current;
	if (prev == next)
		return;
	current = next;
	COUNT(context_switches);
	arch_switch_to(prev, next);
}

void sched_schedule(void)
{
	if (sched_runnable(current) && !current->queued) {
		if (CONFIG_SCHED_LAZY)
			COUNT(deferred_enqueue);
		sched_enqueue(current);
	}
	struct tcb *next = lookup();
	if (!next)
		next = idle_thread;
	else if (CONFIG_SCHED_BENNO)
		sched_dequeue(next);
	sched_switch_to(next);
}

/* May the IPC path switch straight to `next` instead of calling the scheduler? */
static bool direct_ok(const struct tcb *next)
{
	if (!CONFIG_SCHED_DIRECT || !next || !sched_runnable(next))
		return false;
	return !CONFIG_SCHED_BENNO || !sched_queued_above(next->prio);
}

void sched_swap(struct tcb *next)
{
	COUNT(eager_dequeue);
	if (next)
		COUNT(eager_enqueue);
	if (EAGER) {
		sched_dequeue(current);
		if (next && sched_runnable(next))
			sched_enqueue(next);
	}
	if (direct_ok(next)) {
		sched_switch_to(next);
		return;
	}
	if (next && sched_runnable(next))
		sched_enqueue(next);
	sched_schedule();
}

/* Current is preempted by t: it stays runnable, so it must be findable again. */
static void preempt_current_for(struct tcb *t)
{
	if (current != idle_thread)
		sched_enqueue(current);
	if (CONFIG_SCHED_BENNO)
		sched_dequeue(t);
	sched_switch_to(t);
}

void sched_wake(struct tcb *t)
{
	COUNT(eager_enqueue);
	if (!sched_runnable(t))
		return;
	bool higher = (int)t->prio > prio_of(current);
	if (!CONFIG_SCHED_DIRECT || !higher || EAGER || CONFIG_SCHED_BENNO)
		sched_enqueue(t);
	if (!higher)
		return;
	if (CONFIG_SCHED_DIRECT)
		preempt_current_for(t);
	else
		sched_schedule();
}

void sched_yield(void)
{
	if (current == idle_thread)
		return;
	sched_dequeue(current);
	sched_enqueue(current);
	current->slice_left = current->timeslice;
	sched_schedule();
}

void sched_donate(struct tcb *t)
{
	if (t == current || !sched_runnable(t))
		return;
	sched_enqueue(current);
	if (!EAGER)
		sched_dequeue(t);
	sched_switch_to(t);
}

void sched_set_prio(struct tcb *t, u8 prio)
{
	bool was_queued = t->queued;
	sched_dequeue(t);
	t->prio = prio;
	if (was_queued)
		sched_enqueue(t);
	if (sched_runnable(t) && t != current && !t->queued)
		sched_enqueue(t);
	if (sched_highest_prio() > prio_of(current))
		sched_schedule();
}

/* Did t ask for a preemption message to its scheduler (PreemptFlags bit 5)? */
static bool wants_preemption_ipc(const struct tcb *t)
{
	return t->utcb_k && (t->utcb_k[UTCB_PREEMPT_FLAGS] & L4_PREEMPT_SIGNAL) && t->scheduler;
}

/* t used up its total quantum: it stops until its scheduler gives it more. */
static void quantum_out(struct tcb *t)
{
	t->quantum_stopped = t->stopped = true;
	sched_schedule();
}

void sched_set_quantum(struct tcb *t, word_t us)
{
	t->quantum = t->quantum_left = us;
	if (!t->quantum_stopped)
		return;
	t->quantum_stopped = false;
	t->stopped = t->exregs_stopped;
	if (sched_runnable(t) && t != current)
		sched_enqueue(t);
}

void sched_tick(word_t us)
{
	if (current == idle_thread)
		return;
	if (current->quantum) {
		if (current->quantum_left <= us)
			return quantum_out(current);
		current->quantum_left -= us;
	}
	if (!current->timeslice)
		return;
	if (current->slice_left > us) {
		current->slice_left -= us;
		return;
	}
	if (wants_preemption_ipc(current)) {
		current->slice_left = current->timeslice;
		current->preempt_pending = true;    /* exception.c sends it on the way out */
		return;
	}
	sched_yield();
}

static word_t variant(void)
{
	if (CONFIG_SCHED_BENNO)
		return PECAN_VARIANT_BENNO;
	if (CONFIG_SCHED_DIRECT)
		return CONFIG_SCHED_LAZY ? PECAN_VARIANT_DSLQ : PECAN_VARIANT_DSEQ;
	return CONFIG_SCHED_LAZY ? PECAN_VARIANT_FSLQ : PECAN_VARIANT_FSEQ;
}

/* The boot stack becomes the idle thread: it runs whenever nothing else can. */
void sched_start(void)
{
	user_gs_page[(PECAN_VARIANT_ADDR - USER_GS_PAGE) / 8] = variant();
	user_gs_page[(PECAN_BUILD_ADDR - USER_GS_PAGE) / 8] =
		(CONFIG_FASTPATH ? 1 : 0) | (CONFIG_COUNTERS ? 2 : 0);
	current = idle_thread;
	for (;;) {
		sched_schedule();
		if (!timeout_pending() && !irq_any_handled() && sched_deadlock_poweroff)
			halt_system(HALT_IDLE, "no thread can run any more; powering off");
		if (!timeout_pending() && !irq_any_handled())
			kdb_deadlock();
		arch_idle_wait();
	}
}
