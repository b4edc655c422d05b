// SPDX-License-Identifier: MIT
// lx's link to the network: it starts the NIC driver and the network server
// (servers/nic/, servers/net/, docs/net.md) in spaces of their own, and a
// watch thread of its own that waits in the server's WATCH and tells lx's
// thread which handles' readiness changed (as the clock thread tells it of
// deadlines), so lx's thread never waits for the network: its own requests
// are answered at once, within net_call_timeouts.
//
// The servers run whether or not the machine has a NIC: without one the
// network server has only its loopback (127.0.0.1/8 and its own addresses).
#include "net.h"
#include "../l4/glue.h"
#include "../../../lib/net/client.h"
#include "../../../lib/nic/client.h"
#include "../../../lib/task/task.h"
#include "../../nic/nic.h"
#include "../../net/net.h"

#define WATCH_LABEL   0x4e57             /* the watch thread's message: MR1 = handles */
#define WATCH_PRIO    255                /* as lx's */
#define RESERVE_STEP  20                 /* the reserve is taken in MiB */
#define CALL_TIMEOUT  2000000            /* µs: a server that takes longer is taken for dead */
/* lx's own threads beyond the console, clock and disk driver (l4/main.c, fs/ext2.c) */
#define TNO_PAGER 6
#define TNO_NIC   7
#define TNO_NET   8
#define TNO_WATCH 9

static bool early_ok, up;
static L4_ThreadId_t watch_tid, watch_local;
static char watch_stack[4096] __attribute__((aligned(16)));

static L4_ThreadId_t lx_thread(unsigned n)
{
	return l4_global_id(l4_thread_no(lx_id) + n, 1);
}

extern char etext[], end[];                /* the linker's: the end of lx's code, of its bss */

/*
 * Memory for the servers' private copies of pages: a server can touch no
 * more than lx's data and bss (the stack's buffers are most of it), and the
 * NIC driver a few pages of it; a MiB more covers both.
 */
static bool reserve(void)
{
	u64 need = (u64)(end - etext) + (1UL << RESERVE_STEP);
	for (u64 got = 0; got < need; got += 1UL << RESERVE_STEP)
		if (!task_reserve(RESERVE_STEP))
			return false;
	return true;
}

/*
 * Before lx takes all of sigma0's memory: the NIC's DMA memory and the
 * reserve for the servers' pages (the task pager copies into it), then the
 * NIC driver, which serves the network server only.
 */
void netsrv_start_early(void)
{
	u64 net = l4_thread_no(lx_id) + TNO_NET;
	struct driver_clients c = { 1, { { net, net } }, 0 };
	early_ok = reserve() && task_pager_start(lx_thread(TNO_PAGER)) &&
		   nic_start(lx_thread(TNO_NIC), &c);
	if (!early_ok)
		lx_log("lx: the NIC driver did not start: no network\n");
}

static void watch_thread(void)
{
	for (;;) {
		uint64_t changed = 0;
		if (net_watch(&changed) < 0) {
			L4_Sleep(100000);           /* the server is gone or refused: ask again later */
			continue;
		}
		L4_SetMR(0, L4_TAG_MAKE(WATCH_LABEL, 1, 0));
		L4_SetMR(1, changed);
		L4_Send(lx_id);
	}
}

/* The network server, configured by the boot line's net.* words, serving lx and its watch thread. */
void netsrv_start(const char *cmdline)
{
	u64 me = l4_thread_no(lx_id);
	struct driver_clients c = { 2, { { me, me }, { me + TNO_WATCH, me + TNO_WATCH } }, 0 };
	if (!early_ok)
		return;
	if (!net_start(lx_thread(TNO_NET), cmdline, &c)) {
		lx_log("lx: the network server did not start (a bad net.* word?): no network\n");
		return;
	}
	net_call_timeouts = L4_TIMEOUTS(L4_TimePeriod(CALL_TIMEOUT), L4_TimePeriod(CALL_TIMEOUT));
	watch_tid = lx_thread(TNO_WATCH);
	watch_local = lx_thread_start(watch_tid, watch_thread, watch_stack, sizeof(watch_stack), WATCH_PRIO);
	up = true;
}

bool netsrv_up(void) { return up; }

bool netsrv_is_watch(L4_ThreadId_t from)
{
	return up && (from == watch_tid || from == watch_local);
}

void netsrv_message(L4_MsgTag_t tag)
{
	if (L4_TAG_LABEL(tag) == WATCH_LABEL && L4_TAG_U(tag) == 1)
		inet_changed(L4_MR(1));
}

void netsrv_prepare(void)
{
	reply_flush();
}
