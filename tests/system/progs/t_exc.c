// SPDX-License-Identifier: MIT
// Exceptions as IPC: fixing up, killing, garbage replies, and the foreign `syscall` path.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

static int slot;
static volatile L4_ThreadId_t handler_id;
static volatile L4_Word_t after, got_rax, got_rbx;

static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }

static void do_ud2(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	__asm__ __volatile__("ud2");
	after = 1;
	tt_park();
}

/* Wait for one exception message from t; false if something else came. */
static int wait_exception(L4_ThreadId_t t, L4_Word_t vector)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(t, L4_TimePeriod(100000), &from);
	return !L4_IpcFailed(tag) && (L4_TAG_LABEL(tag) >> 4) == (L4_LABEL_EXCEPTION >> 4) &&
	       L4_TAG_U(tag) == 19 && L4_MR(19) == vector;
}

/* Reply with the received state, MR0 = u 19. */
static L4_MsgTag_t reply_state(L4_ThreadId_t t)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
	return L4_Reply(t);
}

static void exception_fixup(int inter)
{
	handler_id = L4_MyGlobalId();
	after = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(inter ? tt_start_space(t, do_ud2) : tt_start_local(t, do_ud2), "start");
	EXPECT(wait_exception(t, 6), "no #UD exception message (ErrorCode %lx)", L4_ErrorCode());
	L4_Word_t rip = L4_MR(1);
	EXPECT(*(unsigned short *)rip == 0x0b0f, "MR1 %lx is not the ud2", rip);
	L4_SetMR(1, rip + 2);
	EXPECT(!L4_IpcFailed(reply_state(t)), "reply failed: %lx", L4_ErrorCode());
	TT_WAIT(after == 1, 200);
	EXPECT(after == 1, "the thread did not resume after the ud2");
	tt_kill(t);
}

TEST_CASE("exc.fixup_intra", "a handler in the same space skips a ud2 and the thread runs on")
{
	exception_fixup(0);
}

TEST_CASE("exc.fixup_inter", "a handler in another space skips a ud2 and the thread runs on")
{
	exception_fixup(1);
}

static void do_div0(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	volatile int zero = 0;
	after = 1000 / zero;
	after = 2;
	tt_park();
}

TEST_CASE("exc.kill", "a handler that deletes the faulting thread instead of replying")
{
	handler_id = L4_MyGlobalId();
	after = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, do_div0), "start");
	EXPECT(wait_exception(t, 0), "no #DE exception message");
	EXPECT(tt_kill(t), "delete failed: %lx", L4_ErrorCode());
	L4_Sleep(2000);
	EXPECT(after == 0, "the thread ran on");
	EXPECT(!L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0), "the thread still exists");
}

TEST_CASE("exc.garbage_reply", "a reply that is no register state fails for the handler and halts the thread")
{
	handler_id = L4_MyGlobalId();
	after = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, do_ud2), "start");
	EXPECT(wait_exception(t, 6), "no exception message");
	L4_SetMR(0, L4_TAG_MAKE(0, 3, 0));
	L4_MsgTag_t tag = L4_Reply(t);
	EXPECT(L4_IpcFailed(tag) && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_OVERFLOW,
	       "short reply: %lx", L4_ErrorCode());
	L4_Sleep(2000);
	EXPECT(after == 0, "the thread ran on");
	EXPECT(L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE, "not halted");
	tt_kill(t);

	t = fresh();
	EXPECT(tt_start_local(t, do_ud2), "start 2");
	EXPECT(wait_exception(t, 6), "no exception message 2");
	L4_SetMR(1, 0x8000000000000000UL);     /* a non-canonical RIP */
	tag = reply_state(t);
	EXPECT(L4_IpcFailed(tag), "a non-canonical RIP was accepted");
	L4_Sleep(2000);
	EXPECT(after == 0 && L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE,
	       "not halted after the bad RIP");
	tt_kill(t);
}

static void foreign(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	L4_Word_t rax = 39, rbx = 7;       /* Linux getpid */
	__asm__ __volatile__("syscall" : "+a"(rax), "+b"(rbx) : : "rcx", "r11", "memory");
	got_rax = rax;
	got_rbx = rbx;
	tt_park();
}

TEST_CASE("exc.foreign_syscall", "a foreign syscall reaches the handler with all registers; its reply is the result")
{
	handler_id = L4_MyGlobalId();
	got_rax = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, foreign), "start");
	EXPECT(wait_exception(t, PECAN_VEC_SYSCALL), "no foreign-syscall message (ErrorCode %lx)", L4_ErrorCode());
	EXPECT(L4_MR(8) == 39 && L4_MR(2) == 7, "RAX %lx RBX %lx", L4_MR(8), L4_MR(2));
	EXPECT(L4_MR(9) == L4_MR(1), "RCX %lx is not the return address %lx", L4_MR(9), L4_MR(1));
	L4_SetMR(8, 4242);      /* RAX: the result */
	L4_SetMR(2, 99);        /* RBX: any register may change */
	EXPECT(!L4_IpcFailed(reply_state(t)), "reply failed");
	TT_WAIT(got_rax != 0, 200);
	EXPECT(got_rax == 4242 && got_rbx == 99, "the thread saw RAX %lu RBX %lu", got_rax, got_rbx);
	tt_kill(t);
}

static void foreign_unhandled(void)
{
	L4_Word_t rax = 39;
	__asm__ __volatile__("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
	got_rax = rax;
	tt_park();
}

TEST_CASE("exc.foreign_no_handler", "without a handler a foreign syscall returns -ENOSYS and the thread runs on")
{
	got_rax = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, foreign_unhandled), "start");
	TT_WAIT(got_rax != 0, 200);
	EXPECT(got_rax == (L4_Word_t)-38, "RAX %lx", got_rax);
	tt_kill(t);
}

static void flags_thread(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	L4_Word_t fl;
	__asm__ __volatile__("ud2; pushfq; popq %0" : "=r"(fl) : : "memory");
	got_rax = fl;
	tt_park();
}

TEST_CASE("exc.flags_masked", "a handler may set the user flags but not IOPL or clear IF")
{
	handler_id = L4_MyGlobalId();
	got_rax = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, flags_thread), "start");
	EXPECT(wait_exception(t, 6), "no exception message");
	L4_SetMR(1, L4_MR(1) + 2);
	L4_SetMR(18, 0x3001UL);      /* IOPL 3, CF, IF clear */
	EXPECT(!L4_IpcFailed(reply_state(t)), "reply failed");
	TT_WAIT(got_rax != 0, 200);
	EXPECT((got_rax & 1) && !(got_rax & 0x3000) && (got_rax & 0x200), "flags %lx", got_rax);
	tt_kill(t);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
