/* SPDX-License-Identifier: MIT */
/* Time: the microsecond clock, the timer tick, and the deadline-ordered wakeup queue. */
#ifndef PECAN_TIMER_H
#define PECAN_TIMER_H

#include "thread.h"

#define TIMEOUT_NONE 0          /* deadline of a `never` timeout */

/*
 * The deadline of a 16-bit X.2 timeout started at `now`: TIMEOUT_NONE for
 * never, `now` itself for zero.  Absolute (point) timeouts are not
 * supported and behave as zero (docs/abi.md).
 */
u64 timeout_deadline(word_t timeout, u64 now);
static inline bool timeout_is_zero(word_t timeout)
{
	return timeout != 0 && ((timeout & 0x8000) || (timeout & 0x3ff) == 0);
}
/* Queue t to be woken (ipc_timeout) at `at` µs; replaces any earlier deadline. */
void timeout_arm(struct tcb *t, u64 at);
void timeout_cancel(struct tcb *t);
/* Is any thread waiting for a deadline?  (Else an idle CPU never wakes.) */
bool timeout_pending(void);
/* The periodic tick: expire deadlines, charge the running thread's slice. */
void timer_tick(void);
u64 timer_now(void);

#endif
