/* SPDX-License-Identifier: MIT */
/*
 * The scheduler.  For now one round-robin ready queue; the 256 priorities
 * and the DS/LQ family of variants replace it with the kernel-core work.
 */
#ifndef PECAN_SCHED_H
#define PECAN_SCHED_H

#include "thread.h"

extern struct tcb *current;

void sched_make_ready(struct tcb *t);      /* append to the ready queue */
void sched_remove(struct tcb *t);          /* take off the ready queue if queued */
/* Give up the CPU to the next ready thread; returns when `current` runs again. */
void sched_yield(void);
/* Leave the current thread (which is no longer ready) and run another. */
void sched_leave(void);
/* Run the first ready thread; never returns. */
void sched_start(void) __attribute__((noreturn));

#endif
