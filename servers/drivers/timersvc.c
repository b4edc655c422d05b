// SPDX-License-Identifier: MIT
// The timer service: sleeps and alarms by IPC (include/l4/drivers.h), built on
// receive timeouts, so its deadlines are the kernel tick's (within 1 ms).
#include "drivers.h"
#include <l4/drivers.h>

#define TIMER_MAX_US (1UL << 40)   /* about 12 days */
#define MAX_WAITERS 64            /* all clients together; each has TIMER_SLOTS_PER_CLIENT */

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

/* Slots client holds now. */
static int slots_of(L4_ThreadId_t client)
{
	int n = 0;
	for (int i = 0; i < MAX_WAITERS; i++)
		n += waiters[i].deadline && waiters[i].client == client;
	return n;
}

static int add(L4_ThreadId_t client, L4_Word_t us, L4_Word_t cookie, int alarm)
{
	if (slots_of(client) >= TIMER_SLOTS_PER_CLIENT)
		return 0;
	if (us > TIMER_MAX_US)
		us = TIMER_MAX_US;        /* the deadline must not wrap to "free" or "due" */
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
	if (!driver_client_ok(&timer_clients, from))
		return driver_refuse("timer", from, tag);
	if (label == DRIVER_TEST_CRASH && timer_clients.test_requests)
		driver_test_crash();
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
	/* it accepts no strings; bounded anyway, as every driver */
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TimePeriod(DRIVER_XFER_US), L4_TimePeriod(DRIVER_XFER_US)));
	for (;;) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Receive_Timeout(L4_ANYTHREAD, wait_timeout(), &from);
		if (!L4_IpcFailed(tag))
			request(from, tag);
		fire_due();
	}
}
