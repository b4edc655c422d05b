/* SPDX-License-Identifier: MIT */
/* Time: the microsecond clock, the timer tick, and the deadline-ordered wakeup queue. */
#ifndef PECAN_TIMER_H
#define PECAN_TIMER_H

#include "thread.h"

#define TIMEOUT_NONE 0          /* deadline of a `never` timeout */

/*
 * The deadline of a 16-bit X.2 timeout started at `now`: TIMEOUT_NONE for
 * never, `now` itself for zero or a point already reached.
 */
u64 timeout_deadline(word_t timeout, u64 now);
u64 timer_now(void);
/* Has the point (absolute) timeout been reached already? */
bool timeout_point_passed(word_t timeout);
/* Does the timeout not allow blocking at all (zero, or a point reached)? */
static inline bool timeout_is_zero(word_t timeout)
{
	if (timeout & 0x8000)
		return timeout_point_passed(timeout);
	return timeout != 0 && (timeout & 0x3ff) == 0;
}
/* Queue t to be woken (ipc_timeout) at `at` µs; replaces any earlier deadline. */
void timeout_arm(struct tcb *t, u64 at);
/* Arm t's 16-bit X.2 timeout starting now (reads the clock only if it must). */
static inline void timeout_start(struct tcb *t, word_t timeout)
{
	if (timeout == 0 && t->kcall_deadline) {
		timeout_arm(t, t->kcall_deadline);   /* a fault IPC within a bounded transfer */
		return;
	}
	if (timeout == 0 && !t->wake_at)
		return;                 /* never, and nothing to cancel */
	timeout_arm(t, timeout ? timeout_deadline(timeout, timer_now()) : TIMEOUT_NONE);
}
void timeout_cancel(struct tcb *t);
/* Threads with a deadline, earliest first (wq_next links; check.c reads it). */
extern struct tcb *wakeup_head;
/* Is any thread waiting for a deadline?  (Else an idle CPU never wakes.) */
bool timeout_pending(void);
/* The periodic tick: expire deadlines, charge the running thread's slice. */
void timer_tick(void);
u64 timer_now(void);

#endif
