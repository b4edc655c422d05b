// SPDX-License-Identifier: MIT
// Threads and spaces: ThreadControl, SpaceControl, ExchangeRegisters, privileged calls, bad input.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

static int slot;
static volatile L4_Word_t result[8];
static volatile L4_Word_t counter;

static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }

static void spin(void)
{
	for (;;)
		counter++;
}

TEST_CASE("thread.create_run_delete", "a created thread runs; deleted, it is gone; its number is reusable")
{
	L4_ThreadId_t t = fresh();
	counter = 0;
	EXPECT(tt_start_local(t, spin), "create: ErrorCode %lx", L4_ErrorCode());
	L4_Set_Priority(t, 255);
	L4_ThreadSwitch(t);
	L4_Set_Priority(t, 100);
	EXPECT(counter > 0, "the thread did not run");
	EXPECT(tt_kill(t), "delete: ErrorCode %lx", L4_ErrorCode());
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(t, &x) == L4_NILTHREAD && L4_ErrorCode() == L4_ERR_INVALID_THREAD,
	       "deleted thread still answers ExchangeRegisters");
	EXPECT(!tt_kill(t) && L4_ErrorCode() == L4_ERR_INVALID_THREAD, "deleted twice");
	counter = 0;
	EXPECT(tt_start_local(t, spin), "the number is not reusable: ErrorCode %lx", L4_ErrorCode());
	L4_Set_Priority(t, 255);
	L4_ThreadSwitch(t);
	L4_Set_Priority(t, 100);
	EXPECT(counter > 0, "the re-created thread did not run");
	EXPECT(tt_kill(t), "delete the re-created thread: ErrorCode %lx", L4_ErrorCode());
}

TEST_CASE("thread.new_version", "re-created with a new version, the stale ID is rejected everywhere")
{
	L4_ThreadId_t v1 = fresh();
	L4_ThreadId_t v2 = l4_global_id(l4_thread_no(v1), 2);
	EXPECT(tt_start_local(v1, tt_park), "create v1");
	EXPECT(!L4_ThreadControl(v2, L4_MyGlobalId(), L4_MyGlobalId(), L4_MyGlobalId(), tt_utcb(v2)) &&
	       L4_ErrorCode() == L4_ERR_INVALID_THREAD, "a second version while v1 lives: %lx", L4_ErrorCode());
	EXPECT(tt_kill(v1), "delete v1");
	EXPECT(tt_start_local(v2, tt_park), "create v2: %lx", L4_ErrorCode());
	L4_SetMR(0, 0);
	EXPECT(L4_IpcFailed(L4_Send_Timeout(v1, L4_TIMEOUT_ZERO)) && L4_ErrorCode() == L4_IPC_NOPARTNER,
	       "IPC to the stale ID: %lx", L4_ErrorCode());
	EXPECT(!tt_kill(v1) && L4_ErrorCode() == L4_ERR_INVALID_THREAD, "delete by stale ID");
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(v1, &x) == L4_NILTHREAD, "ExchangeRegisters by stale ID");
	EXPECT(tt_kill(v2), "delete v2");
}

TEST_CASE("thread.delete_self", "a thread cannot delete itself")
{
	EXPECT(!tt_kill(L4_MyGlobalId()) && L4_ErrorCode() == L4_ERR_INVALID_THREAD,
	       "ErrorCode %lx", L4_ErrorCode());
}

TEST_CASE("thread.bad_ids", "nil, interrupt-range, kernel-range, local-looking and huge thread IDs are refused")
{
	L4_ThreadId_t me = L4_MyGlobalId();
	const L4_Word_t bad[] = {
		0, l4_global_id(3, 1), l4_global_id(20, 1), l4_global_id(70, 0x40),
		l4_global_id(1UL << 20, 1), ~0UL,
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(!L4_ThreadControl(bad[i], me, me, me, ~0UL) &&
		       L4_ErrorCode() == L4_ERR_INVALID_THREAD, "ID %lx: ErrorCode %lx", bad[i], L4_ErrorCode());
}

TEST_CASE("thread.bad_utcb", "UTCB locations outside the area or misaligned are refused; nothing is created")
{
	L4_ThreadId_t me = L4_MyGlobalId(), t = fresh();
	static const L4_Word_t bad[] = { ROOT_UTCB_AREA + 100, ROOT_UTCB_AREA - UTCB_SIZE,
					 ROOT_UTCB_AREA + (1UL << ROOT_UTCB_AREA_LOG2), 0xffffffff80000000UL };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(!L4_ThreadControl(t, me, me, me, bad[i]) && L4_ErrorCode() == L4_ERR_UTCB_AREA,
		       "UTCB %lx: ErrorCode %lx", bad[i], L4_ErrorCode());
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(t, &x) == L4_NILTHREAD, "a thread was created anyway");
}

TEST_CASE("thread.bad_space_sched", "a nonexistent space or scheduler is refused")
{
	L4_ThreadId_t me = L4_MyGlobalId(), t = fresh(), ghost = tt_id(140, 1);
	EXPECT(!L4_ThreadControl(t, ghost, me, me, tt_utcb(t)) && L4_ErrorCode() == L4_ERR_INVALID_SPACE,
	       "space: ErrorCode %lx", L4_ErrorCode());
	EXPECT(!L4_ThreadControl(t, me, ghost, me, tt_utcb(t)) && L4_ErrorCode() == L4_ERR_INVALID_SCHED,
	       "scheduler: ErrorCode %lx", L4_ErrorCode());
}

TEST_CASE("space.create_delete", "spaces are created, configured, used and deleted, many times over")
{
	for (int round = 0; round < 40; round++) {
		L4_ThreadId_t t = tt_id(100 + round % 4, 1 + round);
		EXPECT(tt_start_space(t, tt_park), "round %d: create: ErrorCode %lx", round, L4_ErrorCode());
		L4_Sleep(500);
		EXPECT(tt_kill(t), "round %d: delete: ErrorCode %lx", round, L4_ErrorCode());
	}
}

TEST_CASE("space.bad_areas", "SpaceControl refuses bad KIP and UTCB areas, then accepts good ones")
{
	L4_ThreadId_t me = L4_MyGlobalId(), t = fresh();
	EXPECT(L4_ThreadControl(t, t, me, L4_NILTHREAD, ~0UL), "create: %lx", L4_ErrorCode());
	L4_Word_t kip = L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0), utcb = L4_FPAGE_MAKE(ROOT_UTCB_AREA, 18, 0);
	EXPECT(!L4_SpaceControl(t, 0, L4_FPAGE_MAKE(ROOT_KIP_AREA, 13, 0), utcb, 0, 0) &&
	       L4_ErrorCode() == L4_ERR_KIP_AREA, "8 KiB KIP area: %lx", L4_ErrorCode());
	EXPECT(!L4_SpaceControl(t, 0, L4_FPAGE_MAKE(0xffffffff80000000UL, 12, 0), utcb, 0, 0) &&
	       L4_ErrorCode() == L4_ERR_KIP_AREA, "kernel KIP area: %lx", L4_ErrorCode());
	EXPECT(!L4_SpaceControl(t, 0, kip, L4_FPAGE_MAKE(0xBFF00000UL, 20, 0), 0, 0) &&
	       L4_ErrorCode() == L4_ERR_UTCB_AREA, "UTCB area over the KIP: %lx", L4_ErrorCode());
	EXPECT(!L4_SpaceControl(t, 0, kip, 0, 0, 0) && L4_ErrorCode() == L4_ERR_UTCB_AREA,
	       "nil UTCB area: %lx", L4_ErrorCode());
	/* areas whose end wraps past 2^64 to 0: a check written as base + size <= top passes them */
	EXPECT(!L4_SpaceControl(t, 0, L4_FPAGE_MAKE(0xfffffffffffff000UL, 12, 0), utcb, 0, 0) &&
	       L4_ErrorCode() == L4_ERR_KIP_AREA, "KIP area in the last page: %lx", L4_ErrorCode());
	EXPECT(!L4_SpaceControl(t, 0, kip, L4_FPAGE_MAKE(0xffffc00000000000UL, 46, 0), 0, 0) &&
	       L4_ErrorCode() == L4_ERR_UTCB_AREA, "2^46 UTCB area at the top: %lx", L4_ErrorCode());
	EXPECT(L4_SpaceControl(t, 0, kip, utcb, 0, 0), "good areas refused: %lx", L4_ErrorCode());
	EXPECT(!L4_SpaceControl(tt_id(141, 1), 0, kip, utcb, 0, 0) && L4_ErrorCode() == L4_ERR_INVALID_SPACE,
	       "nonexistent space: %lx", L4_ErrorCode());
	EXPECT(tt_kill(t), "delete");
}

static void unprivileged(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	result[0] = L4_ThreadControl(tt_id(142, 1), me, me, me, ~0UL) ? 99 : L4_ErrorCode();
	result[1] = L4_SpaceControl(me, 0, 0, 0, 0, 0) ? 99 : L4_ErrorCode();
	L4_Word_t rax = 0;
	__asm__ __volatile__("push %%rbp; call *%1; pop %%rbp" : "=a"(rax) : "m"(__L4_ProcessorControl), "D"(0UL)
			     : "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
	result[2] = rax ? 99 : L4_ErrorCode();
	L4_Word_t rdx;
	__asm__ __volatile__("push %%rbp; call *%1; pop %%rbp" : "=d"(rdx) : "m"(__L4_MemoryControl), "d"(0UL),
			     "c"(0UL), "S"(0UL)
			     : "rax", "rbx", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
	result[3] = rdx ? 99 : L4_ErrorCode();
	result[4] = L4_Schedule(L4_MyGlobalId(), ~0UL, ~0UL, 10, ~0UL, 0) ? 99 : L4_ErrorCode();
	result[5] = 1;
	tt_park();
}

TEST_CASE("priv.unprivileged_refused", "an unprivileged space gets 'no privilege' from the privileged calls")
{
	result[5] = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, unprivileged), "start: %lx", L4_ErrorCode());
	TT_WAIT(result[5] == 1, 300);
	EXPECT(result[5] == 1, "the thread did not finish");
	EXPECT(result[0] == L4_ERR_NO_PRIVILEGE, "ThreadControl: %lx", result[0]);
	EXPECT(result[1] == L4_ERR_NO_PRIVILEGE, "SpaceControl: %lx", result[1]);
	EXPECT(result[2] == L4_ERR_NO_PRIVILEGE, "ProcessorControl: %lx", result[2]);
	EXPECT(result[3] == L4_ERR_NO_PRIVILEGE, "MemoryControl: %lx", result[3]);
	EXPECT(result[4] == L4_ERR_NO_PRIVILEGE, "Schedule on itself (the root task schedules it): %lx", result[4]);
	tt_kill(t);
}

static void exreg_target(void)
{
	for (;;) {
		counter++;
		L4_ThreadSwitch(L4_NILTHREAD);
	}
}

static void landing(void)
{
	result[6] = 0x1a2d;
	tt_park();
}

TEST_CASE("exregs.read_set", "ExchangeRegisters reads and sets SP, IP, flags, handle and pager; halts and resumes")
{
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, exreg_target), "start");
	L4_Sleep(1000);
	struct L4_ExRegs x = { .control = L4_EXREG_HALT | L4_EXREG_HALT_VALID };
	L4_ThreadId_t r = pecan_exregs(t, &x);
	EXPECT(r == tt_utcb(t) + UTCB_P_OFFSET, "global dest gives the local ID: %lx", r);
	L4_Word_t c0 = counter;
	L4_Sleep(2000);
	EXPECT(counter == c0, "a halted thread ran (%lu -> %lu)", c0, counter);
	x = (struct L4_ExRegs){ .control = 0 };
	r = pecan_exregs(tt_utcb(t) + UTCB_P_OFFSET, &x);
	EXPECT(r == t, "local dest gives the global ID: %lx", r);
	EXPECT(x.control & 1, "old control %lx does not say halted", x.control);
	EXPECT(x.ip > 0x1000000 && x.sp, "ip %lx sp %lx", x.ip, x.sp);
	EXPECT(x.pager == L4_MyGlobalId(), "pager %lx", x.pager);
	result[6] = 0;
	L4_Word_t sp = tt_stack();
	x = (struct L4_ExRegs){ .control = L4_EXREG_SET_IP | L4_EXREG_SET_SP | L4_EXREG_SET_FLAGS |
				L4_EXREG_SET_HANDLE | L4_EXREG_SET_PAGER | L4_EXREG_HALT_VALID,
				.ip = (L4_Word_t)landing, .sp = sp, .flags = ~0UL, .handle = 0xabc,
				.pager = tt_id(143, 1) };
	pecan_exregs(t, &x);
	x = (struct L4_ExRegs){ 0 };
	pecan_exregs(t, &x);            /* before it runs: it has priority 100, we 255 and do not block */
	EXPECT(x.ip == (L4_Word_t)landing && x.sp == sp, "ip %lx sp %lx, set %p %lx", x.ip, x.sp, landing, sp);
	EXPECT(x.handle == 0xabc && x.pager == tt_id(143, 1), "handle %lx pager %lx", x.handle, x.pager);
	EXPECT((x.flags & 0x8d5) == 0x8d5 && (x.flags & 0x200), "flags %lx: user flags set, IF kept", x.flags);
	EXPECT(!(x.flags & 0x3000), "flags %lx: IOPL is not the user's to set", x.flags);
	TT_WAIT(result[6] == 0x1a2d, 200);
	EXPECT(result[6] == 0x1a2d, "the resumed thread did not start at the new IP");
	tt_kill(t);
}

TEST_CASE("exregs.noncanonical_ip", "a non-canonical IP, by ExchangeRegisters or a start message, never reaches the CPU")
{
	L4_ThreadId_t t = fresh(), u = fresh(), me = L4_MyGlobalId();
	EXPECT(tt_start_local(t, tt_park), "start");
	L4_Sleep(1000);
	struct L4_ExRegs x = { .control = L4_EXREG_SET_IP | L4_EXREG_ABORT_RECV,
			       .ip = 0x8000000000001000UL };
	EXPECT(pecan_exregs(t, &x) == L4_NILTHREAD && L4_ErrorCode() == L4_ERR_INVALID_PARAM,
	       "ExchangeRegisters took it: %lx", L4_ErrorCode());
	x = (struct L4_ExRegs){ 0 };
	EXPECT(pecan_exregs(t, &x) != L4_NILTHREAD && x.ip != 0x8000000000001000UL, "IP is %lx", x.ip);
	EXPECT(L4_ThreadControl(u, me, me, me, tt_utcb(u)), "create");
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, 0x8000000000001000UL);
	L4_SetMR(2, tt_stack());
	EXPECT(!L4_IpcFailed(L4_Send(u)), "start message");
	L4_Sleep(2000);
	EXPECT(L4_Schedule(u, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE, "the thread was not halted");
	tt_kill(t);
	tt_kill(u);
}

TEST_CASE("exregs.other_space", "ExchangeRegisters on a thread of another space fails unless we page it; an inactive one fails")
{
	L4_ThreadId_t far = fresh(), paged = fresh(), idle = fresh(), me = L4_MyGlobalId();
	L4_ThreadId_t sigma0 = l4_global_id(L4_USER_BASE, 1);
	EXPECT(tt_start_space_paged(far, tt_park, sigma0), "start far");
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(far, &x) == L4_NILTHREAD && L4_ErrorCode() == L4_ERR_INVALID_THREAD,
	       "other space, paged by sigma0: %lx", L4_ErrorCode());
	/* its pager is a thread of our space (tt_pager): allowed, as l4test's pagers need */
	EXPECT(tt_start_space(paged, tt_park), "start paged");
	EXPECT(pecan_exregs(paged, &x) != L4_NILTHREAD && x.pager == tt_pager(),
	       "other space, paged by us: %lx, pager %lx", L4_ErrorCode(), x.pager);
	tt_kill(paged);
	EXPECT(L4_ThreadControl(idle, me, me, L4_NILTHREAD, tt_utcb(idle)), "create inactive");
	EXPECT(pecan_exregs(idle, &x) == L4_NILTHREAD, "inactive thread answered");
	tt_kill(far);
	tt_kill(idle);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
