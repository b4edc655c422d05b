// SPDX-License-Identifier: MIT
/*
 * The steps Pistachio's own programs (l4test, pingpong) take that Pecan's
 * other suites do not: each case does, in its own code, what those programs
 * do with the kernel and sigma0 at that step, and checks the outcome the
 * specification (docs/abi.md) gives.
 */
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
static L4_ThreadId_t me(void) { return L4_MyGlobalId(); }
static L4_ThreadId_t sigma0(void) { return l4_global_id(L4_USER_BASE, 1); }

/* A 4 KiB page of the root task's image that nobody has asked sigma0 for. */
static char spare[4][4096] __attribute__((aligned(4096)));

/* The sigma0 request of abi.md §7.7 for one page, with receive window `window`. */
static L4_MsgTag_t sigma0_ask(L4_Word_t page, L4_Word_t window)
{
	L4_SetTcr(UTCB_BR(0), window);
	L4_SetMR(0, L4_TAG_MAKE(L4_LABEL_SIGMA0, 2, 0));
	L4_SetMR(1, L4_FPAGE_MAKE(page, 12, 6));
	L4_SetMR(2, 0);
	L4_MsgTag_t tag = L4_Ipc(sigma0(), sigma0(), L4_TIMEOUTS(0, L4_TimePeriod(1000000)), 0);
	L4_SetTcr(UTCB_BR(0), 0);
	return tag;
}

TEST_CASE("progs.sigma0_request", "sigma0: a request for a physical page far above the image is answered with a map item")
{
	/* l4test asks for pages at 32 MiB and up, phys == virt */
	L4_Word_t page = 0x2400000UL;
	L4_MsgTag_t tag = sigma0_ask(page, 0x10);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_T(tag) == 2 && L4_ITEM_TYPE(L4_MR(1)) == L4_ITEM_MAP &&
	       (L4_MR(2) & ~0x3ffUL) == page,
	       "tag %lx ErrorCode %lx MR1 %lx MR2 %lx", tag, L4_ErrorCode(), L4_MR(1), L4_MR(2));
	*(volatile char *)page = 1;      /* mapped: no fault */
}

TEST_CASE("progs.sigma0_phony_receive", "sigma0: a request without a receive window fails in the receive phase (overflow)")
{
	L4_MsgTag_t tag = sigma0_ask(0x2500000UL, 0);
	EXPECT(L4_IpcFailed(tag), "succeeded with no window: tag %lx MR2 %lx", tag, L4_MR(2));
	EXPECT(L4_ErrorCode() == (L4_IPC_OVERFLOW | L4_IPC_PHASE_RECV),
	       "ErrorCode %lx, not a receive-phase overflow", L4_ErrorCode());
	(void)spare;
}

TEST_CASE("progs.sigma0_phony_send", "sigma0: a label-0 message gets no answer; the call fails in the receive phase")
{
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, 0);
	L4_SetMR(2, 0);
	L4_MsgTag_t tag = L4_Ipc(sigma0(), sigma0(), L4_TIMEOUTS(0, L4_TimePeriod(100000)), 0);
	EXPECT(L4_IpcFailed(tag) && (L4_ErrorCode() & 1) && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_TIMEOUT,
	       "tag %lx ErrorCode %lx", tag, L4_ErrorCode());
}

TEST_CASE("progs.sigma0_pool_dump", "sigma0: the -1001 extension (MR1 2 dump, MR2 1 reply) answers the root task")
{
	L4_SetMR(0, L4_TAG_MAKE(((L4_Word_t)-1001 << 4) & 0xffffffffffffUL, 2, 0));
	L4_SetMR(1, 2);
	L4_SetMR(2, 1);
	L4_MsgTag_t tag = L4_Ipc(sigma0(), sigma0(), L4_TIMEOUTS(0, L4_TimePeriod(1000000)), 0);
	EXPECT(!L4_IpcFailed(tag), "tag %lx ErrorCode %lx", tag, L4_ErrorCode());
}

/* ---- ExchangeRegisters as l4test uses it ---- */

TEST_CASE("progs.exregs_ids_of_self", "GlobalIdOf(own local ID) and LocalIdOf(own global ID) through ExchangeRegisters on oneself")
{
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(L4_MyLocalId(), &x) == me(), "local -> %lx, ErrorCode %lx",
	       pecan_exregs(L4_MyLocalId(), &x), L4_ErrorCode());
	struct L4_ExRegs y = { 0 };
	EXPECT(pecan_exregs(me(), &y) == L4_MyLocalId(), "global -> %lx", pecan_exregs(me(), &y));
	struct L4_ExRegs z = { 0 };
	EXPECT(pecan_exregs(fresh(), &z) == L4_NILTHREAD && L4_ErrorCode() == L4_ERR_INVALID_THREAD,
	       "a thread that does not exist: ErrorCode %lx", L4_ErrorCode());
}

static volatile L4_Word_t started;

static void announce(void)
{
	started = 1;
	L4_SetMR(0, 0);
	L4_Send(l4_global_id(L4_USER_BASE + 2, 1));
	tt_park();
}

TEST_CASE("progs.exregs_start_waiting", "a thread waiting for its start message is started by ExchangeRegisters 0x19E instead")
{
	L4_ThreadId_t t = fresh();
	started = 0;
	EXPECT(L4_ThreadControl(t, me(), me(), me(), tt_utcb(t)), "create: %lx", L4_ErrorCode());
	/* r, s, S, I, p, H: abort the start wait, new SP and IP, pager sigma0, run */
	struct L4_ExRegs x = { .control = 0x19E, .sp = tt_stack(), .ip = (L4_Word_t)announce,
			       .pager = sigma0() };
	EXPECT(pecan_exregs(t, &x) != L4_NILTHREAD, "ExchangeRegisters: %lx", L4_ErrorCode());
	L4_MsgTag_t tag = L4_Receive_Timeout(t, L4_TimePeriod(2000000), 0);
	EXPECT(!L4_IpcFailed(tag) && started, "no message from the thread: tag %lx ErrorCode %lx",
	       tag, L4_ErrorCode());
	EXPECT(tt_kill(t), "delete");
}

static volatile L4_Word_t ticks;

static void sleeper(void)
{
	for (;;) {
		ticks++;
		L4_Sleep(500);
	}
}

TEST_CASE("progs.exregs_thrash", "ExchangeRegisters r|s|S|I|p 100 times on a sleeping thread restarts it each time")
{
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, sleeper), "create");
	L4_Word_t sp = tt_stack();
	for (int i = 0; i < 100; i++) {
		struct L4_ExRegs x = { .control = 0x9E, .sp = sp, .ip = (L4_Word_t)sleeper, .pager = me() };
		EXPECT(pecan_exregs(t, &x) != L4_NILTHREAD, "round %d: %lx", i, L4_ErrorCode());
		if (i % 10 == 0)
			L4_Sleep(1000);
	}
	L4_Word_t before = ticks;
	TT_WAIT(ticks > before, 100);
	EXPECT(ticks > before, "the thread stopped running");
	EXPECT(tt_kill(t), "delete");
}

TEST_CASE("progs.exregs_then_create", "ExchangeRegisters on an unused ID, then ThreadControl with UTCB -1 in our space, succeeds")
{
	L4_ThreadId_t t = fresh();
	struct L4_ExRegs x = { .control = 0x9E, .pager = me() };
	EXPECT(pecan_exregs(t, &x) == L4_NILTHREAD, "unused ID answered");
	EXPECT(L4_ThreadControl(t, me(), me(), me(), ~0UL) == 1, "create without UTCB: %lx", L4_ErrorCode());
	/* l4test then starts such a thread with no pager at IP 0: no UTCB, so it stays put */
	L4_ThreadId_t u = fresh();
	EXPECT(L4_ThreadControl(u, me(), me(), L4_NILTHREAD, ~0UL) == 1, "create: %lx", L4_ErrorCode());
	struct L4_ExRegs y = { .control = 0x9E, .pager = L4_NILTHREAD };
	pecan_exregs(u, &y);
	L4_Sleep(5000);
	EXPECT(tt_kill(t) && tt_kill(u), "delete: %lx", L4_ErrorCode());
}

/* ---- Schedule on an interrupt thread (l4test's schedule menu) ---- */

TEST_CASE("progs.irq_priority", "Schedule on IRQ thread (3,1): refused unassociated, allowed once associated with the caller")
{
	L4_ThreadId_t irq = l4_global_id(3, 1);
	EXPECT(!L4_Set_Priority(irq, 12), "unassociated IRQ thread's priority changed");
	EXPECT(L4_ThreadControl(irq, irq, L4_NILTHREAD, me(), ~0UL), "associate: %lx", L4_ErrorCode());
	EXPECT(L4_Set_Priority(irq, 13), "associated IRQ thread's priority: %lx", L4_ErrorCode());
	EXPECT(L4_ThreadControl(irq, irq, L4_NILTHREAD, irq, ~0UL), "release: %lx", L4_ErrorCode());
}

TEST_CASE("progs.delete_self", "ThreadControl deleting the caller fails and the caller runs on")
{
	EXPECT(!L4_ThreadControl(me(), L4_NILTHREAD, L4_NILTHREAD, L4_NILTHREAD, ~0UL), "deleted self");
}

/* ---- pingpong's shape: two new spaces, UTCBs at 0x80000000, 0..63 MRs each way ---- */

#define PP_UTCB_AREA 0x80000000UL          /* pingpong's default UTCB_ADDRESS */
#define PP_ROUNDS    20
static L4_ThreadId_t ping_id, pong_id;
static volatile L4_Word_t ping_result;     /* 1 + first bad MR count, or PP_DONE */
#define PP_DONE      1000

static void pong(void)
{
	L4_Word_t u = 0;
	for (;;) {
		L4_SetMR(0, L4_TAG_MAKE(0, u, 0));
		u = L4_TAG_U(L4_Call(ping_id));   /* echo what came: the MRs stay in place */
	}
}

static void ping(void)
{
	L4_Receive(pong_id);                   /* pong is up */
	for (L4_Word_t j = 0; j < 64; j++)
		for (int r = 0; r < PP_ROUNDS; r++) {
			for (L4_Word_t i = 1; i <= j; i++)
				L4_SetMR(i, j << 16 | r << 8 | i);
			L4_SetMR(0, L4_TAG_MAKE(0, j, 0));
			L4_MsgTag_t tag = L4_Call(pong_id);
			int ok = !L4_IpcFailed(tag) && L4_TAG_U(tag) == j;
			for (L4_Word_t i = 1; ok && i <= j; i++)
				ok = L4_MR(i) == (j << 16 | r << 8 | i);
			if (!ok) {
				ping_result = 1 + j;
				tt_park();
			}
		}
	ping_result = PP_DONE;
	tt_park();
}

/* pingpong's thread setup: inactive in a new space, SpaceControl, then the pager. */
static int pp_create(L4_ThreadId_t t, L4_ThreadId_t space, L4_Word_t utcb, L4_ThreadId_t pager)
{
	L4_Word_t kip = L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0);
	L4_Word_t area = L4_FPAGE_MAKE(PP_UTCB_AREA, 13, 0);   /* UtcbAreaSizeLog2 + 1 */
	if (space == t)
		return L4_ThreadControl(t, t, me(), L4_NILTHREAD, utcb) &&
		       L4_SpaceControl(t, 0, kip, area, L4_NILTHREAD, 0) &&
		       L4_ThreadControl(t, t, me(), pager, ~0UL);
	return L4_ThreadControl(t, space, me(), pager, utcb);
}

static void pingpong_run(int inter_as)
{
	ping_result = 0;
	ping_id = fresh();
	pong_id = fresh();
	/* the root task is their pager for the start messages; then the test pager */
	EXPECT(pp_create(ping_id, ping_id, PP_UTCB_AREA, me()), "ping: %lx", L4_ErrorCode());
	EXPECT(pp_create(pong_id, inter_as ? pong_id : ping_id, PP_UTCB_AREA + UTCB_SIZE, me()),
	       "pong: %lx", L4_ErrorCode());
	EXPECT(tt_send_start(ping_id, ping, tt_stack()) && tt_send_start(pong_id, pong, tt_stack()),
	       "start: %lx", L4_ErrorCode());
	EXPECT(L4_ThreadControl(ping_id, ping_id, L4_NILTHREAD, tt_pager(), ~0UL) &&
	       L4_ThreadControl(pong_id, pong_id, L4_NILTHREAD, tt_pager(), ~0UL), "pager");
	TT_WAIT(ping_result, 20000);
	EXPECT(ping_result == PP_DONE, "ping: %s %lu MRs", ping_result ? "wrong echo with" : "stuck, result",
	       ping_result ? ping_result - 1 : 0);
	EXPECT(tt_kill(pong_id) && tt_kill(ping_id), "delete: %lx", L4_ErrorCode());
}

TEST_CASE("progs.pingpong_inter_as", "pingpong's inter-AS set-up (UTCBs at 0x80000000), 0..63 MRs echoed each way")
{
	pingpong_run(1);
}

TEST_CASE("progs.pingpong_intra_as", "pingpong's intra-AS set-up (pong in ping's new space), 0..63 MRs echoed")
{
	pingpong_run(0);
}

int main(void);

TEST_CASE("progs.root_text_writable", "the root task's image is mapped writable: l4test's pager writes *p = *p to its own text")
{
	volatile unsigned char *p = (volatile unsigned char *)(L4_Word_t)main;
	unsigned char c = *p;
	*p = c;                          /* the same byte: faults (to sigma0, refused) if text is read-only */
	EXPECT(*p == c, "text byte %x changed", *p);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
