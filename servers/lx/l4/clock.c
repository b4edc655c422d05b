// SPDX-License-Identifier: MIT
// lx's clock thread: it sleeps until the earliest deadline of a parked call or
// an alarm and then tells lx, so that lx's own receive never has a timeout.
// A receive with a timeout cannot take the kernel's IPC fastpath, and lx
// answers every system call with a ReplyWait: while any process slept (as the
// `timeout` command of the benchmark driver does), each call cost two slowpath
// IPCs.  lx tells the clock a new deadline with a zero-timeout send; when the
// clock is not waiting (it is sending its tick, or has not run since the last
// update), lx's receive falls back to a timeout of its own until the clock
// has been told.
#include "../lx.h"

#define CLOCK_TICK 0x4c5a                   /* the clock's message: a deadline passed */
#define CLOCK_PRIO 255                      /* as lx's */

static L4_ThreadId_t clock_tid, clock_local;
u64 clock_told;                             /* the deadline the clock sleeps for; 0: none */
static char clock_stack[4096] __attribute__((aligned(16)));

static void clock_thread(void)
{
	u64 deadline = 0;
	for (;;) {
		u64 now = lx_now_us();
		L4_Word_t rcv = !deadline ? L4_TIMEOUT_NEVER :
				deadline <= now ? L4_TIMEOUT_ZERO : L4_TimePeriod(deadline - now);
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, lx_id, L4_TIMEOUTS(0, rcv), &from);
		if (!L4_IpcFailed(tag)) {
			deadline = L4_MR(1);
			continue;
		}
		if (!deadline)
			continue;                   /* (an aborted wait: nothing due) */
		deadline = 0;
		L4_SetMR(0, L4_TAG_MAKE(CLOCK_TICK, 0, 0));
		L4_Send(lx_id);
	}
}

bool clock_is(L4_ThreadId_t from) { return from == clock_local || from == clock_tid; }

/* A tick: the clock sleeps for nothing now; whatever is due expires. */
void clock_message(void)
{
	clock_told = 0;
	expire_deadlines(lx_now_us());
}

/*
 * Tell the clock a new earliest deadline (0: none; clock_update in glue.h
 * calls this only when it changed), and return the timeout lx's own receive
 * needs: never, unless the clock could not be told, and then one that ends
 * at the deadline.
 */
L4_Word_t clock_tell(u64 deadline)
{
	reply_flush();
	L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
	L4_SetMR(1, deadline);
	if (!L4_IpcFailed(L4_Send_Timeout(clock_tid, L4_TIMEOUT_ZERO))) {
		clock_told = deadline;
		return L4_TIMEOUT_NEVER;
	}
	u64 now = lx_now_us();
	return deadline <= now ? L4_TIMEOUT_ZERO : L4_TimePeriod(deadline - now);
}

void clock_init(L4_ThreadId_t c)
{
	clock_tid = c;
	clock_local = lx_thread_start(c, clock_thread, clock_stack, sizeof(clock_stack), CLOCK_PRIO);
}
