// SPDX-License-Identifier: MIT
// Client side of the console driver and the timer service.
#include "client.h"
#include <l4/drivers.h>

L4_ThreadId_t pecan_console, pecan_timer;

/*
 * Call server with the message already in the MRs, waiting at most
 * DRIVER_CALL_US to be received and rcv (a timeout word) for the reply: a
 * driver that died, or hangs in a fault its supervisor has not yet cleared,
 * is an error, never a hang.  The reply tag, E set on failure.
 */
static L4_MsgTag_t call_within(L4_ThreadId_t server, L4_Word_t rcv)
{
	L4_MsgTag_t tag = L4_Ipc(server, server, L4_TIMEOUTS(L4_TimePeriod(DRIVER_CALL_US), rcv), 0);
	if (!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR)
		return tag | L4_TAG_ERROR;
	return tag;
}

static L4_MsgTag_t call(L4_ThreadId_t server)
{
	return call_within(server, L4_TimePeriod(DRIVER_CALL_US));
}

long console_write(const char *buf, L4_Word_t n)
{
	if (n > CONSOLE_BUF)
		n = CONSOLE_BUF;
	L4_SetMR(0, L4_TAG_MAKE(CONSOLE_WRITE, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(n, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)buf);
	L4_MsgTag_t tag = call(pecan_console);
	return L4_IpcFailed(tag) ? -1 : (long)L4_MR(1);
}

long console_read(char *buf, L4_Word_t max)
{
	if (max > CONSOLE_BUF)
		max = CONSOLE_BUF;
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(max, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)buf);
	L4_SetMR(0, L4_TAG_MAKE(CONSOLE_READ, 1, 0));
	L4_SetMR(1, max);
	L4_MsgTag_t tag = call_within(pecan_console, L4_TIMEOUT_NEVER);   /* input may take for ever */
	L4_SetBR(0, 0);
	return L4_IpcFailed(tag) || L4_TAG_T(tag) != 2 ? -1 : (long)L4_STRING_LEN(L4_MR(1));
}

int console_loopback(int on)
{
	L4_SetMR(0, L4_TAG_MAKE(CONSOLE_LOOPBACK, 1, 0));
	L4_SetMR(1, on != 0);
	return !L4_IpcFailed(call(pecan_console));
}

int timer_sleep(L4_Word_t us)
{
	L4_SetMR(0, L4_TAG_MAKE(TIMER_SLEEP, 1, 0));
	L4_SetMR(1, us);
	return !L4_IpcFailed(call_within(pecan_timer, L4_TimePeriod(us + DRIVER_CALL_US)));
}

int timer_alarm(L4_Word_t us, L4_Word_t cookie)
{
	L4_SetMR(0, L4_TAG_MAKE(TIMER_ALARM, 2, 0));
	L4_SetMR(1, us);
	L4_SetMR(2, cookie);
	return !L4_IpcFailed(call(pecan_timer));
}
