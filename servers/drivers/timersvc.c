// SPDX-License-Identifier: MIT
// The timer service: sleeps and alarms by IPC (include/l4/drivers.h), built on
// receive timeouts, so its deadlines are the kernel tick's (within 1 ms).
#include "drivers.h"
#include <l4/drivers.h>

#define MAX_WAITERS 32

struct waiter {
	L4_Word_t deadline;      /* µs, SystemClock; 0 = free slot */
	L4_ThreadId_t client;
	L4_Word_t cookie;
	int alarm;               /* 1: send ALARM_FIRED; 0: reply to a SLEEP */
};

static struct waiter waiters[MAX_WAITERS];

static struct waiter *earliest(void)
{
	struct waiter *e = 0;
	for (int i = 0; i < MAX_WAITERS; i++)
		if (waiters[i].deadline && (!e || waiters[i].deadline < e->deadline))
			e = &waiters[i];
	return e;
}

static void fire(struct waiter *w)
{
	if (w->alarm) {
		L4_SetMR(0, L4_TAG_MAKE(TIMER_ALARM_FIRED, 1, 0));
		L4_SetMR(1, w->cookie);
	} else {
		L4_SetMR(0, L4_TAG_MAKE(TIMER_SLEEP, 0, 0));
	}
	L4_Send_Timeout(w->client, L4_TIMEOUT_ZERO);
	w->deadline = 0;
}

static void fire_due(void)
{
	struct waiter *w;
	while ((w = earliest()) && w->deadline <= L4_SystemClock())
		fire(w);
}

static int add(L4_ThreadId_t client, L4_Word_t us, L4_Word_t cookie, int alarm)
{
	for (int i = 0; i < MAX_WAITERS; i++)
		if (!waiters[i].deadline) {
			waiters[i] = (struct waiter){ L4_SystemClock() + us + 1, client, cookie, alarm };
			return 1;
		}
	return 0;
}

static void request(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag), u = L4_TAG_U(tag);
	int ok = (label == TIMER_SLEEP && u == 1) || (label == TIMER_ALARM && u == 2);
	if (ok && add(from, L4_MR(1), L4_MR(2), label == TIMER_ALARM)) {
		if (label == TIMER_ALARM) {
			L4_SetMR(0, L4_TAG_MAKE(TIMER_ALARM, 0, 0));
			L4_Reply(from);
		}
		return;
	}
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_ERROR, 1, 0));
	L4_SetMR(1, ok ? DRIVER_ERR_BUSY : DRIVER_ERR_REQUEST);
	L4_Reply(from);
}

/* The receive timeout until the earliest deadline (never if none). */
static L4_Word_t wait_timeout(void)
{
	struct waiter *w = earliest();
	if (!w)
		return L4_TIMEOUT_NEVER;
	L4_Word_t now = L4_SystemClock();
	return w->deadline > now ? L4_TimePeriod(w->deadline - now) : L4_TIMEOUT_ZERO;
}

void timer_service(void)
{
	for (;;) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Receive_Timeout(L4_ANYTHREAD, wait_timeout(), &from);
		if (!L4_IpcFailed(tag))
			request(from, tag);
		fire_due();
	}
}
