// SPDX-License-Identifier: MIT
// A single round-robin ready queue and the switch between threads.
#include "sched.h"
#include "printk.h"

struct tcb *current;
static struct tcb *ready_head, *ready_tail;

void sched_make_ready(struct tcb *t)
{
	t->state = TS_READY;
	t->ready_next = NULL;
	if (ready_tail)
		ready_tail->ready_next = t;
	else
		ready_head = t;
	ready_tail = t;
}

void sched_remove(struct tcb *t)
{
	struct tcb **pp = &ready_head, *prev = NULL;
	for (; *pp && *pp != t; prev = *pp, pp = &(*pp)->ready_next)
		;
	if (!*pp)
		return;
	*pp = t->ready_next;
	if (ready_tail == t)
		ready_tail = prev;
	t->ready_next = NULL;
}

static struct tcb *dequeue_head(void)
{
	struct tcb *t = ready_head;
	if (t)
		sched_remove(t);
	return t;
}

static void switch_to(struct tcb *next)
{
	struct tcb *prev = current;
	current = next;
	if (prev != next)
		arch_switch_to(prev, next);
}

void sched_yield(void)
{
	if (!ready_head)
		return;
	struct tcb *next = dequeue_head();
	sched_make_ready(current);
	switch_to(next);
}

void sched_leave(void)
{
	struct tcb *next = dequeue_head();
	if (!next)
		halt_system(HALT_IDLE, "no thread can run any more; powering off");
	switch_to(next);
}

void sched_start(void)
{
	struct tcb *first = dequeue_head();
	if (!first)
		halt_system(HALT_IDLE, "no thread to start");
	current = first;
	arch_switch_to(NULL, first);
	panic("sched_start: returned");
}
