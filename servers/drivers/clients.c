// SPDX-License-Identifier: MIT
// Who may call a driver (drivers.h, struct driver_clients): the check every
// driver makes before it serves a request, and the refusal it answers.
#include "drivers.h"
#include <l4/drivers.h>
#include "../../lib/c/stdio.h"

/*
 * A sender of the driver's own space arrives with its local ID (docs/abi.md:
 * From is local when sender and receiver share a space), which no other
 * space can forge.  A foreign sender's global ID carries a thread number
 * that only a privileged space could have created, so a range of numbers
 * named by the starting root task is a list of threads it vouches for.
 */
int driver_client_ok(const struct driver_clients *c, L4_ThreadId_t from)
{
	if (l4_is_local_id(from))
		return 1;
	for (int i = 0; c && i < c->nranges; i++)
		if (l4_thread_no(from) >= c->range[i].first && l4_thread_no(from) <= c->range[i].last)
			return 1;
	return 0;
}

/*
 * Log a refused sender once per driver (the last few pairs remembered, so a
 * flood stays quiet).  The drivers share this table (threads of one space),
 * so a refusal at the same time in two drivers may log twice: harmless.
 */
static void refuse_log(const char *driver, L4_ThreadId_t from, L4_Word_t label)
{
	static struct { const char *driver; L4_ThreadId_t from; } seen[16];
	static unsigned next;
	for (unsigned i = 0; i < 16; i++)
		if (seen[i].from == from && seen[i].driver == driver)
			return;
	seen[next % 16].driver = driver;
	seen[next++ % 16].from = from;
	printf("%s: refusing label %lx from %lx (not a client)\n", driver, label, from);
}

void driver_refuse(const char *driver, L4_ThreadId_t from, L4_MsgTag_t tag)
{
	refuse_log(driver, from, L4_TAG_LABEL(tag));
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_ERROR, 1, 0));
	L4_SetMR(1, DRIVER_ERR_DENIED);
	L4_Reply(from);          /* zero timeout: a sender that waits for no reply loses nothing */
}

/* The test-only crash: a write through a wild pointer, a fault to the driver's pager. */
void driver_test_crash(void)
{
	static volatile L4_Word_t wild = DRIVER_CRASH_ADDR;   /* a pointer the compiler cannot see through */
	*(volatile L4_Word_t *)wild = 0xdead;
}
