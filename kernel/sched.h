/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: 256 hard priorities, round robin within each, behind the
 * internal interface of seed 001 (Listing 1): enqueue, dequeue, swap and
 * schedule with hints.  The variant (DS/LQ, DS/EQ, FS/LQ, FS/EQ, Benno) is
 * chosen by CONFIG_SCHED_* in config.h; callers never see the difference.
 */
#ifndef PECAN_SCHED_H
#define PECAN_SCHED_H

#include "config.h"
#include "thread.h"
#include "smp.h"
#include <l4/pecan.h>

extern struct tcb *current;
extern word_t *const sched_counters;

#define COUNT(name) do { if (CONFIG_COUNTERS) sched_counters[PECAN_CTR_##name]++; } while (0)

/* Does t want the CPU (ready and not stopped by ExchangeRegisters)? */
static inline bool sched_runnable(const struct tcb *t)
{
	return t->state == TS_READY && !t->stopped;
}

void sched_enqueue(struct tcb *t);      /* at the tail of its priority, if not queued */
void sched_dequeue(struct tcb *t);      /* if queued */

/*
 * IPC hand-over (hint "new"): current has just blocked and `next` (may be
 * NULL) has just become ready.  Returns when current runs again.
 */
void sched_swap(struct tcb *next);
/*
 * `t` has just become ready while current stays ready (send-only IPC,
 * timeouts, aborts; hint "current or new").  May switch to t.
 */
void sched_wake(struct tcb *t);
/* Run the highest-priority runnable thread (hint "highest priority"). */
void sched_schedule(void);
/* Current gives up the rest of its slice to its equals (ThreadSwitch(nil)). */
void sched_yield(void);
/* Switch to `t` now if it is runnable (ThreadSwitch(t), donating the slice). */
void sched_donate(struct tcb *t);
/* Give t a total quantum of us µs (0: unlimited); a thread that ran out may run again. */
void sched_set_quantum(struct tcb *t, word_t us);
/* Change t's priority, keeping the queues consistent. */
void sched_set_prio(struct tcb *t, u8 prio);
/* One timer tick of `us` microseconds has passed in the current thread. */
void sched_tick(word_t us);
/* Run the first ready thread; never returns. */
void sched_start(void) __attribute__((noreturn));
/*
 * Boot option pecan.deadlock=poweroff (the tests use it): when nothing can
 * ever run again, power off with status 6 instead of halting in the debugger.
 */
extern bool sched_deadlock_poweroff;
/* Make t the current thread and switch to it (the commit of any switch). */
void sched_switch_to(struct tcb *t);
/*
 * The ready queues of the processor that runs the kernel (smp.h: one per
 * processor; with one processor always cpus[0].rq).  A thread queues on
 * its home processor's (tcb.cpu), which may be another's.
 */
extern struct runq *rq;
#define rq_head    (rq->head)      /* each priority's ready ring (check.c reads it) */
#define rq_bitmap  (rq->bitmap)
#define rq_summary (rq->summary)
#define rq_top     (rq->top)

/* Several processors (smp.c calls these with the lock held). */
void sched_start_ap(void) __attribute__((noreturn));   /* a processor's idle loop */
/* Move t to processor cpu (Schedule's processor control); may switch away from current. */
void sched_migrate(struct tcb *t, unsigned cpu);
/* t leaves whatever mailbox it waits in (it is deleted, or moves elsewhere). */
void sched_mailbox_forget(struct tcb *t);
/* Do the moves other processors left in this one's mailbox. */
void sched_mailbox(void);
/* After an interrupt: run something else if current may not go on here. */
void sched_reconsider(void);

/* The highest priority with a thread queued, or -1. */
static inline int sched_highest_prio(void)
{
	return rq_top;
}

/* Is any thread queued at a priority above prio? */
static inline bool sched_queued_above(int prio)
{
	return rq_top > prio;
}

/*
 * Eager queueing, IPC hand-over: current (self, queued while it ran) blocks
 * and d (blocked, so not queued) becomes ready.  When self is alone at d's
 * priority (sched_can_replace), d simply takes its place in the ring, which
 * is what the dequeue and the enqueue at the tail would give.  (The ring
 * links of a thread that is not queued mean nothing: enqueueing sets them.)
 * The caller changes the queued flags with the states (sched_key).
 */
static inline bool sched_can_replace(const struct tcb *self, const struct tcb *d)
{
	return self->rq_next == self && self->prio == d->prio;
}

static inline void sched_replace(struct runq *q, struct tcb *self, struct tcb *d)
{
	COUNT(actual_dequeue);
	COUNT(actual_enqueue);
	(void)self;
	/* the fastpaths' only: q is this CPU's queues (the boot CPU's at a fixed place) */
	q->head[*(volatile u8 *)&d->prio] = d;      /* read again: one register less to keep */
	d->rq_next = d->rq_prev = d;
}
/* The sched_key of a thread just queued by sched_replace: ready, kind IPC_USER, not stopped, known. */
#define SCHED_KEY_READY_QUEUED ((u64)TS_READY | (u64)MARK_KNOWN << 24 | (u64)1 << 32)

#endif
