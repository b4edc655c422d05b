// SPDX-License-Identifier: MIT
// Time: the µs clock, timeouts (a deadline-ordered queue) and the tick.
#include "timer.h"
#include "config.h"
#include "ipc.h"
#include "sched.h"

struct tcb *wakeup_head;

u64 timer_now(void)
{
	return arch_clock_us();
}

/*
 * A point timeout (X.2): the clock value whose bits e..e+9 are m and whose
 * bit e+10 is c, with the higher bits of the clock now; if that bit of the
 * clock differs from c and the point lies behind, it is in the next 2^(e+11)
 * µs window.  A point already reached acts as zero: `now`.
 */
static u64 point_deadline(word_t timeout, u64 now)
{
	unsigned e = (timeout >> 11) & 0xf, c = (timeout >> 10) & 1;
	u64 half = 1ULL << (e + 10);
	u64 at = (now & ~(2 * half - 1)) | (c ? half : 0) | ((u64)(timeout & 0x3ff) << e);
	if (at < now && ((now >> (e + 10)) & 1) != c)
		at += 2 * half;
	return at > now ? at : now;
}

bool timeout_point_passed(word_t timeout)
{
	u64 now = timer_now();
	return point_deadline(timeout, now) == now;
}

u64 timeout_deadline(word_t timeout, u64 now)
{
	if (timeout == 0)
		return TIMEOUT_NONE;
	if (timeout & 0x8000)
		return point_deadline(timeout, now);
	word_t e = (timeout >> 10) & 0x1f, m = timeout & 0x3ff;
	return now + (m << e);
}

void timeout_cancel(struct tcb *t)
{
	if (!t->wake_at)
		return;
	if (t->wq_prev)
		t->wq_prev->wq_next = t->wq_next;
	else
		wakeup_head = t->wq_next;
	if (t->wq_next)
		t->wq_next->wq_prev = t->wq_prev;
	t->wq_next = t->wq_prev = NULL;
	t->wake_at = 0;
	t->marks &= ~MARK_TIMED;
}

void timeout_arm(struct tcb *t, u64 at)
{
	timeout_cancel(t);
	if (at == TIMEOUT_NONE)
		return;
	struct tcb *prev = NULL, *n = wakeup_head;
	for (; n && n->wake_at <= at; prev = n, n = n->wq_next)
		;
	t->wake_at = at;
	t->marks |= MARK_TIMED;
	t->wq_prev = prev;
	t->wq_next = n;
	if (n)
		n->wq_prev = t;
	if (prev)
		prev->wq_next = t;
	else
		wakeup_head = t;
}

bool timeout_pending(void)
{
	return wakeup_head != NULL;
}

void timer_tick(void)
{
	u64 now = timer_now();
	while (wakeup_head && wakeup_head->wake_at <= now) {
		struct tcb *t = wakeup_head;
		timeout_cancel(t);
		ipc_timeout(t);
	}
	sched_tick(CONFIG_TICK_US);
}
