// SPDX-License-Identifier: MIT
/*
 * The Mungi server's death (docs/mungi.md, "Its own death"), booted with
 * test_crash=1: this image's first task asks the server to crash (a wild
 * pointer, MUNGI_TEST_CRASH), then finds that its requests to the dead
 * server fail after their timeout instead of hanging, while the kernel (the
 * clock, IPC timeouts) and sigma0 (which answers, refusing a thread that is
 * not its client) go on.  tests/system/test_isolate.py reads the console.
 * The task touches every page it needs before the crash: afterwards no pager
 * would answer.
 */
#include "../../lib/mungi/mungi.h"
#include "../../lib/test/test.h"
#include "../../lib/c/stdio.h"

/* A Mungi null request with finite timeouts; the ErrorCode, 0 if answered. */
static L4_Word_t null_within(L4_Word_t us)
{
	L4_SetMR(0, L4_TAG_MAKE(MUNGI_NULL, 0, 0));
	L4_MsgTag_t tag = L4_Ipc(MUNGI_SERVER, MUNGI_SERVER, L4_TIMEOUTS(L4_TimePeriod(us), L4_TimePeriod(us)), 0);
	return L4_IpcFailed(tag) ? L4_ErrorCode() | 1UL << 63 : 0;
}

/* One look at the world: the server, sigma0 and the clock; 1 if the server was silent. */
static int look(const char *when)
{
	L4_Word_t err = null_within(200000);
	L4_ThreadId_t s0 = l4_global_id(L4_USER_BASE, 1);
	L4_SetTcr(UTCB_BR(0), L4_COMPLETE_SPACE);
	L4_SetMR(0, L4_TAG_MAKE(L4_LABEL_SIGMA0, 2, 0));
	L4_SetMR(1, L4_FPAGE_MAKE(~0UL, 12, 7));
	L4_SetMR(2, 0);
	L4_MsgTag_t tag = L4_Ipc(s0, s0, L4_TIMEOUTS(L4_TimePeriod(200000), L4_TimePeriod(200000)), 0);
	L4_SetTcr(UTCB_BR(0), 0);
	int sigma0_answered = !L4_IpcFailed(tag) && L4_TAG_T(tag) == 2;
	printf("mcrash: %s: server %s (ErrorCode %lx), sigma0 %s, clock %lu us\n", when,
	       err ? "silent" : "answered", err & 0xff, sigma0_answered ? "answered" : "SILENT", L4_SystemClock());
	return err != 0;
}

TEST_CASE("mcrash.alive", "before the crash the server answers a null request, and sigma0 answers (a refusal)")
{
	EXPECT(null_within(1000000) == 0, "the server does not answer: %lx", L4_ErrorCode());
	look("before");
}

long mungi_main(mw_t arg)
{
	(void)arg;
	if (test_run_all())
		return 1;
	printf("mcrash: asking the server to crash\n");
	L4_SetMR(0, L4_TAG_MAKE(MUNGI_TEST_CRASH, 0, 0));
	L4_Ipc(MUNGI_SERVER, L4_NILTHREAD, L4_TIMEOUTS(L4_TimePeriod(1000000), 0), 0);
	L4_Sleep(20000);
	look("after");
	if (look("later"))
		printf("mcrash: the kernel and sigma0 outlived the Mungi server\n");
	for (;;)
		L4_Receive(L4_MyGlobalId());
}
