// SPDX-License-Identifier: MIT
// Random system calls with hostile arguments: the kernel must answer each one and run on.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

#define CALLS 3000

static L4_Word_t seed = 0x9e3779b97f4a7c15UL;
static volatile L4_Word_t done_calls, target_alive, ipc_ok, ipc_failed;
static L4_ThreadId_t sink;

static L4_Word_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* An address that is often valid, often hostile. */
static L4_Word_t addr(void)
{
	static const L4_Word_t pool[] = {
		0, 0x1000, 0x1000000, 0xBF000200, 0xBFF00000, 0x7ffffffff000UL, 0x800000000000UL,
		0xffff800000000000UL, 0xffffffff80100000UL, 0xffffffffc0800000UL, ~0UL,
	};
	L4_Word_t r = rnd();
	return (r & 1) ? pool[(r >> 1) % (sizeof(pool) / sizeof(pool[0]))] + (rnd() & 0xfff) : rnd();
}

static L4_Word_t thread_id(void)
{
	static const L4_Word_t specials[] = { 0, ~0UL, ~0UL << 6, 0xBF000200, 0xBF000600 };
	L4_Word_t r = rnd();
	switch (r & 3) {
	case 0: return specials[(r >> 2) % 5];
	case 1: return tt_id((r >> 2) % 8, 1 + (r >> 8) % 3);
	case 2: return l4_global_id((r >> 2) % 300, (r >> 12) % 4);
	default: return rnd();
	}
}

static L4_Word_t timeouts(void)
{
	static const L4_Word_t t[] = { L4_TIMEOUT_ZERO, 0x0001, L4_TIMEOUT_ZERO | 0x8000 };
	return L4_TIMEOUTS(t[rnd() % 3], t[rnd() % 3]);
}

/* An fpage that is often plausible: memory of any size, I/O ports, nil, complete. */
static L4_Word_t fpage(void)
{
	L4_Word_t r = rnd();
	switch (r & 3) {
	case 0: return L4_FPAGE_MAKE(addr(), (r >> 2) % 64, r >> 8);
	case 1: return L4_IO_FPAGE((r >> 2) & 0xffff, (r >> 20) % 17, r >> 40);
	case 2: return r & 1 ? L4_COMPLETE_SPACE | 7 : 0;
	default: return rnd();
	}
}

/* The receiving end of the fuzzed IPC: random buffers, never blocks long. */
static void sink_loop(void)
{
	for (;;) {
		L4_SetBR(0, rnd() & 1 ? L4_ACCEPT_STRINGS | (rnd() & ~0xfUL) : rnd());
		for (int i = 1; i < 6; i++)
			L4_SetBR(i, rnd() & 1 ? L4_STRING_MAKE(rnd() % 8192, 1 + rnd() % 3, rnd() & 1, rnd() & 1) : addr());
		L4_ThreadId_t from;
		L4_Receive_Timeout(L4_ANYTHREAD, L4_TimePeriod(3000), &from);
		target_alive++;
	}
}

static void fuzz_ipc(void)
{
	L4_Word_t u = rnd() % 64, t = rnd() % 4 ? rnd() % 8 : rnd() % 64;
	L4_SetMR(0, L4_TAG_MAKE(rnd() & 0xffff, u, t) | (rnd() % 4 ? 0 : rnd() & 0xf000));
	for (int i = 1; i < 64; i++) {
		L4_Word_t r = rnd() % 3;
		L4_SetMR(i, r == 0 ? addr() : r == 1 ? fpage() :
			 L4_STRING_MAKE(rnd() % 65536, 1 + rnd() % 32, (rnd() & 1) != 0, (rnd() & 1) != 0));
	}
	L4_ThreadId_t to = rnd() % 3 ? sink : thread_id();
	if (L4_IpcFailed(L4_Ipc(to, rnd() & 1 ? L4_NILTHREAD : thread_id(), timeouts(), 0)))
		ipc_failed++;
	else
		ipc_ok++;
	L4_ThreadSwitch(sink);      /* let the sink wait again */
}

static void fuzz_unmap(void)
{
	L4_Word_t k = rnd() % 64;
	for (L4_Word_t i = 0; i <= k; i++)
		L4_SetMR((int)i, fpage());
	L4_Unmap(k | (rnd() & 0x40));
}

static void fuzz_other(void)
{
	L4_Word_t which = rnd() % 6;
	if (which == 5)
		return fuzz_unmap();
	if (which == 0) {
		struct L4_ExRegs x = { .control = rnd() & 0x346, .sp = addr(), .ip = addr(),
				       .flags = rnd(), .handle = rnd(), .pager = thread_id() };
		pecan_exregs(thread_id(), &x);    /* never SP, IP or pager: the fuzzer must live on */
	} else if (which == 1) {
		L4_ThreadControl(thread_id(), thread_id(), thread_id(), thread_id(), addr());
	} else if (which == 2) {
		L4_SpaceControl(thread_id(), rnd(), rnd(), rnd(), thread_id(), 0);
	} else if (which == 3) {
		L4_Schedule(thread_id(), rnd(), rnd() & 1 ? ~0UL : rnd(), rnd(), rnd(), 0);
	} else {
		L4_ThreadSwitch(thread_id());
	}
}

static void fuzzer(void)
{
	/* copy faults end at once: a pager cannot map the random addresses anyway */
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_ZERO));
	for (int i = 0; i < CALLS; i++) {
		if (rnd() & 1)
			fuzz_ipc();
		else
			fuzz_other();
		done_calls++;
	}
	tt_park();
}

TEST_CASE("fuzz.unprivileged", "3000 random system calls with hostile arguments from an unprivileged space")
{
	L4_ThreadId_t f = tt_id(20, 1);
	sink = tt_id(21, 1);
	L4_ThreadId_t me = L4_MyGlobalId();
	EXPECT(tt_start_space(f, fuzzer), "start fuzzer: %lx", L4_ErrorCode());
	/* the sink shares the fuzzer's space, so local IDs and ExchangeRegisters reach it */
	EXPECT(L4_ThreadControl(sink, f, me, me, tt_utcb(sink)) && tt_send_start(sink, sink_loop, tt_stack()) &&
	       L4_ThreadControl(sink, f, L4_NILTHREAD, tt_pager(), ~0UL), "start sink");
	for (int i = 0; i < 400 && done_calls < CALLS; i++)
		L4_Sleep(5000);
	EXPECT(done_calls == CALLS, "the fuzzer got through %lu calls only", done_calls);
	EXPECT(target_alive > 0, "the sink never ran");
	EXPECT(ipc_ok > 50 && ipc_failed > 50, "too one-sided to test much: %lu ok, %lu failed", ipc_ok, ipc_failed);
	EXPECT(tt_kill(sink) && tt_kill(f), "cleanup failed: %lx", L4_ErrorCode());
}

TEST_CASE("fuzz.privileged", "random privileged calls from the root task on test thread numbers; the kernel survives")
{
	L4_ThreadId_t me = L4_MyGlobalId();
	for (int i = 0; i < 2000; i++) {
		L4_ThreadId_t t = tt_id(30 + rnd() % 6, 1 + rnd() % 2);
		L4_Word_t w = rnd() % 5;
		if (w == 4) {                    /* interrupt lines: associate, release, bogus handlers */
			L4_ThreadId_t irq = l4_global_id(rnd() % 20, 1 + rnd() % 2);
			L4_ThreadControl(irq, rnd() & 1 ? irq : thread_id(), L4_NILTHREAD,
					 rnd() & 1 ? irq : thread_id(), ~0UL);
			continue;
		}
		if (w == 0)
			L4_ThreadControl(t, rnd() & 1 ? t : me, rnd() & 1 ? me : thread_id(),
					 rnd() & 1 ? me : thread_id(), rnd() & 1 ? tt_utcb(t) : addr());
		else if (w == 1)
			L4_SpaceControl(t, rnd() & 1 ? 0 : rnd(), rnd() & 1 ? L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0) : rnd(),
					rnd() & 1 ? L4_FPAGE_MAKE(ROOT_UTCB_AREA, 18, 0) : rnd(), 0, 0);
		else if (w == 2)
			tt_kill(t);
		else
			L4_Schedule(t, rnd(), ~0UL, rnd() % 256, ~0UL, 0);
	}
	for (int n = 30; n < 36; n++)
		for (int v = 1; v <= 2; v++)
			tt_kill(tt_id(n, v));
	for (int n = 1; n < 16; n++)         /* release every line the storm associated */
		L4_ThreadControl(l4_global_id(n, 1), l4_global_id(n, 1), L4_NILTHREAD,
				 l4_global_id(n, 1), ~0UL);
	/* the system still works: a fresh thread runs and answers */
	L4_ThreadId_t t = tt_id(40, 1);
	EXPECT(tt_start_local(t, tt_park), "a new thread after the storm: %lx", L4_ErrorCode());
	L4_Sleep(1000);
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(t, &x) == tt_utcb(t) + UTCB_P_OFFSET, "it does not answer");
	tt_kill(t);
	EXPECT(pecan_kdb_check_mappings() == 0, "the mapping database is inconsistent after the storm");
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
