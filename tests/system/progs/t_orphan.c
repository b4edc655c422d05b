// SPDX-License-Identifier: MIT
/*
 * A root task (standing in for a personality such as lx or Mungi) starts two
 * native L4 tasks, each in a space of its own, and dies: its helper threads
 * deleted, its first thread killed by a wild pointer (the fault goes to
 * sigma0, which refuses page 0 and never answers).  The native tasks then
 * keep going on their own: one answers the other's IPC, sigma0 hands the
 * other fresh memory, the kernel keeps time.  tests/system/test_isolate.py
 * reads the console: the root task's death, then the native tasks' rounds,
 * then the kernel's deadlock report (nothing left to run) and power-off.
 *
 * What the native tasks use was mapped from the root task's pages by the test
 * pager while it lived; the dead task's space stays (only a privileged space
 * could delete it, and none does), so those mappings stay.  Each task touches
 * every page it needs before the root task dies: after that, no pager runs.
 */
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

#define ROUNDS 3

static L4_ThreadId_t echo_id, pinger_id;
static volatile L4_Word_t ready, dying;

/* The echo task: answers each message with MR1 + 1. */
static void echo(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_Word_t v = L4_IpcFailed(tag) ? 0 : L4_MR(1);
		L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
		L4_SetMR(1, v + 1);
		tag = L4_ReplyWait(from, &from);
	}
}

/* One round of the pinger: the echo task, sigma0 and the kernel's clock, each must answer. */
static void round_trip(L4_Word_t i)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
	L4_SetMR(1, i);
	L4_MsgTag_t tag = L4_Ipc(echo_id, echo_id, L4_TIMEOUTS(L4_TimePeriod(1000000), L4_TimePeriod(1000000)), 0);
	int echoed = !L4_IpcFailed(tag) && L4_MR(1) == i + 1;
	L4_Word_t fp = pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), L4_COMPLETE_SPACE);
	volatile L4_Word_t *page = (volatile L4_Word_t *)L4_FPAGE_BASE(fp);
	int memory = fp && (*page = i + 0x5a, *page == i + 0x5a);
	printf("orphan: round %lu: echo %s, sigma0 page %s, clock %lu us\n", i,
	       echoed ? "answered" : "FAILED", memory ? "given" : "REFUSED", L4_SystemClock());
}

/* The pinger task: one round while the root task lives (touching every page), the rest after. */
static void pinger(void)
{
	round_trip(0);
	ready = 1;
	while (!dying)
		L4_Sleep(1000);
	L4_Sleep(20000);                 /* the root task's fault reaches sigma0 meanwhile */
	for (L4_Word_t i = 1; i <= ROUNDS; i++)
		round_trip(i);
	printf("orphan: the kernel, sigma0 and two native tasks outlived their root task\n");
	for (;;)
		L4_Receive(L4_MyGlobalId());
}

TEST_CASE("orphan.start", "the root task starts an echo task and a pinger task in spaces of their own; sigma0 admits the pinger")
{
	echo_id = tt_id(0, 1);
	pinger_id = tt_id(1, 1);
	/* sigma0 serves the pinger: the root task names it, as a personality would name its servers */
	EXPECT(pecan_sigma0_admit(l4_thread_no(pinger_id), 1), "sigma0 did not admit the pinger");
	EXPECT(tt_start_space(echo_id, echo) && tt_start_space(pinger_id, pinger), "start: %lx", L4_ErrorCode());
	for (int i = 0; i < 3000 && !ready; i++)
		L4_Sleep(1000);
	EXPECT(ready, "the pinger's first round did not finish");
}

int main(void)
{
	if (test_run_all())
		pecan_kdb_power_off(1);
	tt_kill(tt_pager());             /* nothing of the root task's space runs from here on */
	printf("orphan: the root task dies now (a wild pointer)\n");
	dying = 1;
	static volatile L4_Word_t wild = 0x10;
	*(volatile L4_Word_t *)wild = 1;
	printf("orphan: the root task survived its own death\n");
	pecan_kdb_power_off(1);
	return 0;
}
