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
struct runq *rq = &cpus[0].rq;
struct cpu cpus[CONFIG_MAX_CPUS] = { [0].rq.top = -1 };
/* This processor's idle thread (the boot CPU's is idle_tcb, set up by sched_start). */
#define idle_thread (cpus[this_cpu].idle)

/* The ready queues t belongs in: its home processor's. */
static inline struct runq *runq_of(const struct tcb *t)
{
	return CONFIG_SMP ? &cpus[t->cpu].rq : rq;
}

/* The highest priority whose ring is not empty, from the bitmaps; -1 if none. */
static int top_from_bitmap(const struct runq *q)
{
	if (!q->summary)
		return -1;
	int w = 31 - __builtin_clz(q->summary);
	return w * 64 + 63 - __builtin_clzl(q->bitmap[w]);
}

static bool others_idle(void);
static void idle_wait(void);

word_t *const sched_counters = &user_gs_page[(PECAN_COUNTERS_ADDR - USER_GS_PAGE) / 8];

void sched_enqueue(struct tcb *t)
{
	if (t->queued || t->state == TS_IDLE)
		return;
	COUNT(actual_enqueue);
	struct runq *q = runq_of(t);
	struct tcb **h = &q->head[t->prio];
	if (*h) {
		t->rq_next = *h;
		t->rq_prev = (*h)->rq_prev;
		(*h)->rq_prev->rq_next = t;
		(*h)->rq_prev = t;
	} else {
		*h = t->rq_next = t->rq_prev = t;
		q->bitmap[t->prio / 64] |= 1UL << (t->prio % 64);
		q->summary |= 1u << (t->prio / 64);
		if (t->prio > q->top)
			q->top = t->prio;
	}
	t->queued = true;
	if (CONFIG_SMP && unlikely(t->cpu != this_cpu)) {
		smp_assert_held("a remote enqueue");
		smp_kick(t->cpu);           /* it looks at its queues again (sched_reconsider) */
	}
}

void sched_dequeue(struct tcb *t)
{
	if (!t->queued)
		return;
	COUNT(actual_dequeue);
	struct runq *q = runq_of(t);
	struct tcb **h = &q->head[t->prio];
	if (t->rq_next == t) {
		*h = NULL;
		q->bitmap[t->prio / 64] &= ~(1UL << (t->prio % 64));
		if (!q->bitmap[t->prio / 64])
			q->summary &= ~(1u << (t->prio / 64));
		if (t->prio == q->top)
			q->top = top_from_bitmap(q);
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
	return t->state == TS_IDLE ? -1 : t->prio;
}

/* Does t live on the processor that runs the kernel (only there may it be switched to)? */
static inline bool is_local(const struct tcb *t)
{
	return !CONFIG_SMP || t->cpu == this_cpu;
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
	if (!CONFIG_SCHED_DIRECT || !next || !sched_runnable(next) || !is_local(next))
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
	if (current->state != TS_IDLE)
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
	if (!is_local(t))
		return sched_enqueue(t);    /* its processor decides (sched_reconsider) */
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
	if (current->state == TS_IDLE)
		return;
	sched_dequeue(current);
	sched_enqueue(current);
	current->slice_left = current->timeslice;
	sched_schedule();
}

void sched_donate(struct tcb *t)
{
	if (t == current || !sched_runnable(t) || !is_local(t))
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
	if (sched_runnable(t) && t != current && !t->queued && smp_running_elsewhere(t) < 0)
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
	if (sched_runnable(t) && t != current && smp_running_elsewhere(t) < 0)
		sched_enqueue(t);
}

void sched_tick(word_t us)
{
	arch_thread_tick(current);
	if (current->state == TS_IDLE)
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
	if (!cpus[0].idle)
		cpus[0].idle = &idle_tcb;
	current = idle_thread;
	for (;;) {
		sched_schedule();
		bool stuck = !timeout_pending() && !irq_any_handled() && others_idle();
		if (stuck && sched_deadlock_poweroff)
			halt_system(HALT_IDLE, "no thread can run any more; powering off");
		if (stuck)
			kdb_deadlock();
		idle_wait();
	}
}

/* Nothing runs or waits to run on any other processor. */
static bool others_idle(void)
{
	for (unsigned i = 0; smp_active && i < cpu_count; i++)
		if (i != this_cpu && (cpus[i].rq.top >= 0 || cpus[i].current != cpus[i].idle))
			return false;
	return true;
}

/* Halt until an interrupt, letting the big kernel lock go meanwhile. */
static void idle_wait(void)
{
	if (!smp_active)
		return arch_idle_wait();
	smp_timer_follow();
	smp_unlock();
	arch_idle_wait();
	smp_enter();
}

void sched_start_ap(void)
{
	current = idle_thread;
	for (;;) {
		sched_schedule();
		idle_wait();
	}
}

/* t leaves its home for `cpu`: out of the old queue, into the new one if it may run. */
static void move(struct tcb *t, unsigned cpu)
{
	bool was_queued = t->queued;
	sched_dequeue(t);
	t->cpu = (u8)cpu;
	t->marks = (u8)((t->marks & ~MARK_HOME_MASK) | MARK_HOME(cpu));
	arch_thread_moved(t, cpu);
	if (t->utcb_k)
		utcb_set(t, UTCB_PROCESSOR_NO, cpu);
	if (t == current)
		return sched_schedule();    /* it goes on there, from where it stopped here */
	if (was_queued || sched_runnable(t))
		sched_enqueue(t);
}

void sched_mailbox_forget(struct tcb *t)
{
	for (unsigned i = 0; t->mig_pending && i < cpu_count; i++)
		for (struct tcb **p = &cpus[i].mig_head; *p; p = &(*p)->mig_next)
			if (*p == t) {
				*p = t->mig_next;
				t->mig_pending = false;
				break;
			}
}

/*
 * A thread that runs on another processor is moved by that processor
 * (it alone can stop running it): into its mailbox, and an IPI.  A thread
 * that runs nowhere (or here) moves now.
 */
void sched_migrate(struct tcb *t, unsigned cpu)
{
	smp_assert_held("sched_migrate");
	t->mig_to = (u8)cpu;
	sched_mailbox_forget(t);
	int x = smp_running_elsewhere(t);
	if (x < 0) {
		if (t->cpu != cpu)
			move(t, cpu);
		return;
	}
	t->mig_pending = true;
	t->mig_next = cpus[x].mig_head;
	cpus[x].mig_head = t;
	smp_kick((unsigned)x);
}

/* Current, if it is to move, moves last: it leaves this processor then. */
void sched_mailbox(void)
{
	struct tcb *t, *self = NULL;
	while ((t = cpus[this_cpu].mig_head)) {
		cpus[this_cpu].mig_head = t->mig_next;
		t->mig_pending = false;
		if (t == current)
			self = t;
		else
			sched_migrate(t, t->mig_to);
	}
	if (self)
		sched_migrate(self, self->mig_to);
}

void sched_reconsider(void)
{
	if (!sched_runnable(current) || !is_local(current) || sched_highest_prio() > prio_of(current))
		sched_schedule();
}
