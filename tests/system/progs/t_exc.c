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

L4_Word_t foreign_rsp;                  /* addressed by name from the asm below */

/* A foreign syscall with a known value in every register it does not use (abi.md §7.4). */
static void foreign(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	L4_Word_t rax = 39, rbx = 7;       /* Linux getpid */
	__asm__ __volatile__(
		"push %%rbp\n\t"
		"mov $0x10, %%r10; mov $0x12, %%r12; mov $0x13, %%r13; mov $0x14, %%r14; mov $0x15, %%r15\n\t"
		"mov $0xd, %%rdx; mov $0x51, %%rsi; mov $0xd1, %%rdi; mov $0xb9, %%rbp\n\t"
		"mov $0x8, %%r8; mov $0x9, %%r9\n\t"
		"mov %%rsp, foreign_rsp(%%rip)\n\t"
		"syscall\n\t"
		"pop %%rbp"
		: "+a"(rax), "+b"(rbx)
		:
		: "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
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
	/* MR2 RBX, MR3 R10, MR4..7 R12..R15, MR8 RAX, MR10 RDX, MR11 RSI, MR12 RDI, MR13 RBP, MR14 R8, MR15 R9 */
	static const L4_Word_t want[16] = { [2] = 7, 0x10, 0x12, 0x13, 0x14, 0x15, 39, 0, 0xd, 0x51, 0xd1, 0xb9, 8, 9 };
	for (int i = 2; i <= 15; i++)
		EXPECT(i == 9 || L4_MR(i) == want[i], "MR%d %lx, the thread had %lx", i, L4_MR(i), want[i]);
	EXPECT(L4_MR(9) == L4_MR(1), "RCX %lx is not the return address %lx", L4_MR(9), L4_MR(1));
	EXPECT(L4_MR(16) == L4_MR(18) && (L4_MR(18) & 0x200), "R11 %lx is not the flags %lx", L4_MR(16), L4_MR(18));
	EXPECT(L4_MR(17) == foreign_rsp, "RSP %lx, the thread had %lx", L4_MR(17), foreign_rsp);
	L4_SetMR(8, 4242);      /* RAX: the result */
	L4_SetMR(2, 99);        /* RBX: any register may change */
	EXPECT(!L4_IpcFailed(reply_state(t)), "reply failed");
	TT_WAIT(got_rax != 0, 200);
	EXPECT(got_rax == 4242 && got_rbx == 99, "the thread saw RAX %lu RBX %lu", got_rax, got_rbx);
	tt_kill(t);
}

static volatile L4_Word_t seen_rcx[2], seen_r11[2];

static void foreign_rcx_r11(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	for (int i = 0; i < 2; i++) {
		register L4_Word_t r11 __asm__("r11");
		L4_Word_t rax = 39, rcx;
		__asm__ __volatile__("syscall" : "+a"(rax), "=c"(rcx), "=r"(r11) : : "memory");
		seen_rcx[i] = rcx;
		seen_r11[i] = r11;
	}
	tt_park();
}

TEST_CASE("exc.foreign_reply_rcx_r11", "a reply to a foreign syscall sets RCX and R11 as it says (rt_sigreturn), on the fast and the slow reply")
{
	handler_id = L4_MyGlobalId();
	seen_rcx[1] = seen_r11[1] = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, foreign_rcx_r11), "start");
	EXPECT(wait_exception(t, PECAN_VEC_SYSCALL), "no foreign-syscall message");
	L4_SetMR(9, 0x1111222233334444UL);      /* RCX */
	L4_SetMR(16, 0x5555666677778888UL);     /* R11 */
	L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_ReplyWait(t, &from);  /* the fastpath's reply where it is built */
	EXPECT(!L4_IpcFailed(tag) && from == t && L4_MR(19) == PECAN_VEC_SYSCALL,
	       "no second foreign-syscall message");
	L4_SetMR(9, 0x0123456789abcdefUL);
	L4_SetMR(16, 0x0fedcba987654321UL);
	EXPECT(!L4_IpcFailed(reply_state(t)), "reply failed");
	TT_WAIT(seen_r11[1] != 0, 200);
	EXPECT(seen_rcx[0] == 0x1111222233334444UL && seen_r11[0] == 0x5555666677778888UL,
	       "first reply: RCX %lx R11 %lx", seen_rcx[0], seen_r11[0]);
	EXPECT(seen_rcx[1] == 0x0123456789abcdefUL && seen_r11[1] == 0x0fedcba987654321UL,
	       "second reply: RCX %lx R11 %lx", seen_rcx[1], seen_r11[1]);
	tt_kill(t);
}

static volatile int unhandled_mr_bad;

static void foreign_unhandled(void)
{
	for (int i = 0; i < 64; i++)
		L4_SetMR(i, 0x6b6b0000UL + (L4_Word_t)i);
	L4_Word_t rax = 39;
	__asm__ __volatile__("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
	int bad = -1;
	for (int i = 0; i < 64 && bad < 0; i++)
		if (L4_MR(i) != 0x6b6b0000UL + (L4_Word_t)i)
			bad = i;
	unhandled_mr_bad = bad;
	got_rax = rax;
	tt_park();
}

TEST_CASE("exc.foreign_no_handler", "without a handler a foreign syscall returns -ENOSYS, changes no message register, and the thread runs on")
{
	got_rax = 0;
	unhandled_mr_bad = -2;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, foreign_unhandled), "start");
	TT_WAIT(got_rax != 0, 200);
	EXPECT(got_rax == (L4_Word_t)-38, "RAX %lx", got_rax);
	EXPECT(unhandled_mr_bad == -1, "MR%d changed", unhandled_mr_bad);
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

/*
 * FS.base from a handler's reply (PECAN_EXC_REPLY_FSBASE, MR19).  No
 * FSGSBASE on the test CPU, so the base is observed the way TLS code uses
 * it: by reading memory through %fs.
 */
static volatile L4_Word_t tls_block[2] = { 0x7e57000000000001UL, 0x7e57000000000002UL };
static volatile L4_Word_t stage, seen[5];

static L4_Word_t fs_read(L4_Word_t off)
{
	L4_Word_t v;
	__asm__ __volatile__("mov %%fs:(%1), %0" : "=r"(v) : "r"(off) : "memory");
	return v;
}

/* A foreign `syscall` nr (Linux numbering); returns RAX. */
static L4_Word_t foreign_call(L4_Word_t nr)
{
	__asm__ __volatile__("syscall" : "+a"(nr) : : "rcx", "r11", "memory");
	return nr;
}

#define LINUX_ARCH_PRCTL 158
#define LINUX_GETPID     39

static void tls_thread(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	foreign_call(LINUX_ARCH_PRCTL);
	seen[0] = fs_read(0);
	seen[1] = fs_read(8);
	foreign_call(LINUX_GETPID);
	seen[2] = fs_read(0);
	foreign_call(LINUX_GETPID);
	seen[3] = fs_read(0);
	foreign_call(LINUX_ARCH_PRCTL);
	seen[4] = fs_read(0);
	stage = 5;
	tt_park();
}

/* Reply to t's exception with the MRs set up, then wait for its next one (the IPC fastpath's way). */
static int reply_and_next(L4_ThreadId_t t)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Ipc(t, t, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_NEVER), &from);
	return !L4_IpcFailed(tag) && L4_TAG_U(tag) == 19 && L4_MR(19) == PECAN_VEC_SYSCALL;
}

static void set_fsbase_reply(L4_Word_t base, L4_Word_t u)
{
	L4_SetMR(0, L4_TAG_MAKE(PECAN_EXC_REPLY_FSBASE, u, 0));
	L4_SetMR(8, 0);
	L4_SetMR(19, base);
}

TEST_CASE("exc.fsbase_reply", "a reply with label bit 0 and u >= 19 sets FS.base to MR19; other replies leave it")
{
	handler_id = L4_MyGlobalId();
	stage = 0;
	for (int i = 0; i < 5; i++)
		seen[i] = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, tls_thread), "start");
	EXPECT(wait_exception(t, PECAN_VEC_SYSCALL), "no foreign-syscall message");
	EXPECT(L4_MR(8) == LINUX_ARCH_PRCTL, "RAX %lx", L4_MR(8));
	set_fsbase_reply((L4_Word_t)tls_block, 19);
	EXPECT(reply_and_next(t), "reply with the FS.base bit, or the next message, failed: %lx",
	       L4_ErrorCode());
	EXPECT(seen[0] == tls_block[0] && seen[1] == tls_block[1],
	       "%%fs:0 %lx %%fs:8 %lx after setting FS.base", seen[0], seen[1]);
	/* MR19 still holds the vector 0x100, a valid base if it were taken */
	L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
	EXPECT(reply_and_next(t), "reply without the bit failed: %lx", L4_ErrorCode());
	EXPECT(seen[2] == tls_block[0], "a reply without the bit changed FS.base: %%fs:0 %lx", seen[2]);
	set_fsbase_reply(8, 18);
	EXPECT(reply_and_next(t), "reply with the bit and u = 18 failed: %lx", L4_ErrorCode());
	EXPECT(seen[3] == tls_block[0], "a reply with u = 18 changed FS.base: %%fs:0 %lx", seen[3]);
	set_fsbase_reply((L4_Word_t)&tls_block[1], 19);
	EXPECT(!L4_IpcFailed(L4_Reply(t)), "plain reply with the bit failed: %lx", L4_ErrorCode());
	TT_WAIT(stage == 5, 200);
	EXPECT(stage == 5 && seen[4] == tls_block[1], "%%fs:0 %lx after the second base", seen[4]);
	tt_kill(t);
}

static void bad_tls_thread(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	foreign_call(LINUX_ARCH_PRCTL);
	after = 1;
	tt_park();
}

TEST_CASE("exc.fsbase_bad", "an FS.base outside the user half makes the reply garbage: the send fails, the thread halts")
{
	static const L4_Word_t bad[] = { 0x0000800000000000UL, 0xffff800000000000UL, ~0UL };
	handler_id = L4_MyGlobalId();
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		after = 0;
		L4_ThreadId_t t = fresh();
		EXPECT(tt_start_local(t, bad_tls_thread), "start %u", i);
		EXPECT(wait_exception(t, PECAN_VEC_SYSCALL), "no foreign-syscall message %u", i);
		set_fsbase_reply(bad[i], 19);
		L4_MsgTag_t tag = L4_Reply(t);
		EXPECT(L4_IpcFailed(tag) && L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_OVERFLOW,
		       "FS.base %lx accepted (%lx)", bad[i], L4_ErrorCode());
		L4_Sleep(2000);
		EXPECT(after == 0 && L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE,
		       "not halted after FS.base %lx", bad[i]);
		tt_kill(t);
	}
}

/*
 * Two threads with FS.base 8 and 16 switch back and forth (IPC, yields,
 * the handler with base 0 in between); each reads view[] through %fs and
 * must see view[base / 8].  With null_sel the client then loads the null
 * selector into %fs: whatever base the CPU gives it then must stay its own.
 */
static volatile L4_Word_t view[3] = { 0xa0, 0xa1, 0xa2 };
static volatile L4_Word_t bad_client, bad_server, rounds, null_view, null_sel;
static volatile L4_ThreadId_t server_id;

static L4_Word_t fs_view(void) { return fs_read((L4_Word_t)&view[0]); }

static void fs_server(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	foreign_call(LINUX_ARCH_PRCTL);
	L4_ThreadId_t from;
	L4_Wait(&from);
	for (;;) {
		if (fs_view() != view[2])
			bad_server++;
		L4_SetMR(0, 0);
		L4_ReplyWait(from, &from);
	}
}

static void fs_client(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	foreign_call(LINUX_ARCH_PRCTL);
	L4_Word_t want = view[1];
	for (int i = 0; i < 60; i++) {
		if (i == 30 && null_sel) {
			__asm__ __volatile__("mov %w0, %%fs" : : "r"(0) : "memory");
			want = null_view = fs_view();
		}
		if (fs_view() != want)
			bad_client++;
		L4_SetMR(0, 0);
		L4_Call(server_id);
		if (fs_view() != want)
			bad_client++;
		L4_ThreadSwitch(L4_NILTHREAD);
		if (i % 8 == 0)
			L4_Sleep(100);
		rounds++;
	}
	tt_park();
}

static void fsbase_switch(int with_null)
{
	handler_id = L4_MyGlobalId();
	bad_client = bad_server = rounds = 0;
	null_view = 0;
	null_sel = with_null;
	L4_ThreadId_t s = fresh(), c = fresh();
	server_id = s;
	EXPECT(tt_start_space(s, fs_server), "start server");
	EXPECT(wait_exception(s, PECAN_VEC_SYSCALL), "no message from the server");
	set_fsbase_reply(16, 19);
	EXPECT(!L4_IpcFailed(L4_Reply(s)), "server reply failed: %lx", L4_ErrorCode());
	EXPECT(tt_start_local(c, fs_client), "start client");
	EXPECT(wait_exception(c, PECAN_VEC_SYSCALL), "no message from the client");
	set_fsbase_reply(8, 19);
	EXPECT(!L4_IpcFailed(L4_Reply(c)), "client reply failed: %lx", L4_ErrorCode());
	TT_WAIT(rounds == 60, 2000);
	EXPECT(rounds == 60, "the client made %lu rounds", rounds);
	EXPECT(fs_read((L4_Word_t)&view[0]) == view[0], "the handler's FS.base is not 0");
	EXPECT(!bad_client && !bad_server, "wrong views through %%fs: client %lu, server %lu",
	       bad_client, bad_server);
	if (with_null)
		EXPECT(null_view == view[0] || null_view == view[1],
		       "after loading the null selector the client sees %lx", null_view);
	tt_kill(c);
	tt_kill(s);
}

TEST_CASE("exc.fsbase_switch", "threads with different FS.base switched back and forth keep their own")
{
	fsbase_switch(0);
}

TEST_CASE("exc.fsbase_null_selector", "a thread that loads the null selector into %fs keeps what the CPU gave it, never another thread's base")
{
	fsbase_switch(1);
}

/* landed_*: RCX, R11 and RFLAGS as exregs_landing found them; 0 until it ran */
volatile L4_Word_t landed_rcx, landed_r11, landed_flags;
void exregs_landing(void);
__asm__(".text\n"
	"exregs_landing:\n"
	"	movq %rcx, landed_rcx(%rip)\n"
	"	movq %r11, landed_r11(%rip)\n"
	"	pushfq\n"
	"	popq landed_flags(%rip)\n"
	"	andq $-16, %rsp\n"
	"	call tt_park\n");

static void foreign_then_park(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	foreign_call(LINUX_GETPID);
	tt_park();
}

TEST_CASE("exc.exregs_after_foreign_reply", "ExchangeRegisters' new IP and flags for a thread whose foreign-syscall reply is in but that has not run: RCX and R11 stay the reply's (a Linux signal's redirection)")
{
	handler_id = L4_MyGlobalId();
	landed_rcx = landed_r11 = landed_flags = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, foreign_then_park), "start");
	EXPECT(wait_exception(t, PECAN_VEC_SYSCALL), "no foreign-syscall message");
	L4_Word_t rcx = L4_MR(9), r11 = L4_MR(16), flags = L4_MR(18);
	EXPECT(rcx == L4_MR(1) && r11 == flags, "RCX %lx R11 %lx, not RIP and RFLAGS", rcx, r11);
	struct L4_ExRegs x = { .control = L4_EXREG_HALT_VALID | L4_EXREG_HALT };
	EXPECT(pecan_exregs(t, &x) != L4_NILTHREAD, "halt failed");
	EXPECT(!L4_IpcFailed(reply_state(t)), "reply failed");  /* Linux's: RCX = RIP, R11 = RFLAGS */
	x = (struct L4_ExRegs){ .control = L4_EXREG_SET_IP | L4_EXREG_SET_FLAGS | L4_EXREG_HALT_VALID,
				.ip = (L4_Word_t)exregs_landing, .flags = flags ^ 1 };   /* CF toggled */
	EXPECT(pecan_exregs(t, &x) != L4_NILTHREAD && x.ip == rcx, "redirect failed: old IP %lx", x.ip);
	TT_WAIT(landed_flags != 0, 200);
	EXPECT(landed_rcx == rcx && landed_r11 == r11, "at the new IP: RCX %lx R11 %lx, wanted %lx %lx",
	       landed_rcx, landed_r11, rcx, r11);
	EXPECT(((landed_flags ^ flags) & 0x8d5) == 1, "RFLAGS %lx, wanted %lx with CF toggled",
	       landed_flags, flags);
	tt_kill(t);
}

/*
 * A handler that waits with no timeout, so that an exception reaches it on
 * the exception fastpath where the kernel has one (its trap and foreign
 * `syscall` entries hand MR2 and MR4-7 over in the registers the thread
 * left them in): it keeps each message and answers with some registers
 * changed, RIP past a ud2.
 */
static volatile L4_ThreadId_t waiting_id;
static volatile L4_Word_t waiting_mr[21], seen_regs[4], seen_done;

static void waiting_handler(void)
{
	L4_ThreadId_t from;
	L4_Wait(&from);
	for (;;) {
		for (int i = 0; i < 21; i++)
			waiting_mr[i] = L4_MR(i);
		if (L4_MR(19) == 6)
			L4_SetMR(1, L4_MR(1) + 2);
		L4_SetMR(2, 99);                /* RBX (passed in place) */
		L4_SetMR(3, 0x1010);            /* R10 */
		L4_SetMR(6, 0x7777);            /* R14 (passed in place) */
		L4_SetMR(8, 4242);              /* RAX */
		L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
		L4_ReplyWait(from, &from);
	}
}

/* A known value in every register (RCX and R11 too, which `syscall` overwrites), then insn. */
#define ALL_REGS_THEN(insn)                                                                     \
	do {                                                                                    \
		register L4_Word_t r10 __asm__("r10"), r14 __asm__("r14");                      \
		L4_Word_t rax = 39, rbx = 7;                                                    \
		__asm__ __volatile__(                                                           \
			"push %%rbp\n\t"                                                        \
			"mov $0x10, %%r10; mov $0x12, %%r12; mov $0x13, %%r13; mov $0x14, %%r14\n\t" \
			"mov $0x15, %%r15; mov $0xc, %%rcx; mov $0xd, %%rdx; mov $0x51, %%rsi\n\t" \
			"mov $0xd1, %%rdi; mov $0xb9, %%rbp; mov $0x8, %%r8; mov $0x9, %%r9\n\t" \
			"mov $0x11, %%r11; mov %%rsp, foreign_rsp(%%rip)\n\t"                  \
			insn "\n\t"                                                             \
			"pop %%rbp"                                                             \
			: "+a"(rax), "+b"(rbx), "=r"(r10), "=r"(r14)                            \
			:                                                                       \
			: "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r11", "r12", "r13", "r15", "memory"); \
		seen_regs[0] = rax, seen_regs[1] = rbx, seen_regs[2] = r10, seen_regs[3] = r14; \
		seen_done = 1;                                                                  \
	} while (0)

static void ud2_all_regs(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, waiting_id);
	ALL_REGS_THEN("ud2");
	tt_park();
}

static void syscall_all_regs(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, waiting_id);
	ALL_REGS_THEN("syscall");
	tt_park();
}

static void all_registers_round_trip(int foreign)
{
	static int started;
	if (!started) {
		waiting_id = fresh();
		EXPECT(tt_start_local(waiting_id, waiting_handler), "start the handler");
		L4_Set_Priority(waiting_id, 200);
		L4_Sleep(1000);             /* it waits before the first exception */
		started = 1;
	}
	seen_done = 0;
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, foreign ? syscall_all_regs : ud2_all_regs), "start");
	TT_WAIT(seen_done, 200);
	EXPECT(seen_done, "the thread did not resume");
	L4_Word_t vector = foreign ? PECAN_VEC_SYSCALL : 6;
	EXPECT(waiting_mr[0] == L4_TAG_MAKE(L4_LABEL_EXCEPTION, 19, 0) && waiting_mr[19] == vector &&
	       waiting_mr[20] == 0, "tag %lx, vector %lu, code %lx", waiting_mr[0], waiting_mr[19], waiting_mr[20]);
	/* MR2 RBX, MR3 R10, MR4..7 R12..R15, MR8 RAX, MR9 RCX, MR10 RDX .. MR15 R9, MR16 R11 */
	static const L4_Word_t want[17] = { [2] = 7, 0x10, 0x12, 0x13, 0x14, 0x15, 39, 0xc, 0xd, 0x51, 0xd1, 0xb9,
					    8, 9, 0x11 };
	for (int i = 2; i <= 16; i++)
		EXPECT((foreign && (i == 9 || i == 16)) || waiting_mr[i] == want[i], "MR%d %lx, the thread had %lx",
		       i, waiting_mr[i], want[i]);
	if (foreign)
		EXPECT(waiting_mr[9] == waiting_mr[1] && waiting_mr[16] == waiting_mr[18],
		       "RCX %lx R11 %lx, not the return address and flags", waiting_mr[9], waiting_mr[16]);
	EXPECT(waiting_mr[17] == foreign_rsp, "RSP %lx, the thread had %lx", waiting_mr[17], foreign_rsp);
	EXPECT(seen_regs[0] == 4242 && seen_regs[1] == 99 && seen_regs[2] == 0x1010 && seen_regs[3] == 0x7777,
	       "the thread saw RAX %lu RBX %lu R10 %lx R14 %lx", seen_regs[0], seen_regs[1], seen_regs[2],
	       seen_regs[3]);
	tt_kill(t);
}

TEST_CASE("exc.ud2_all_registers", "a ud2 reaches a handler waiting without timeout with every register, and its reply's registers are the thread's")
{
	all_registers_round_trip(0);
}

TEST_CASE("exc.foreign_all_registers", "a foreign syscall reaches a handler waiting without timeout with every register, and its reply's registers are the thread's")
{
	all_registers_round_trip(1);
}

/*
 * A handler waiting without timeout (so the exception fastpath delivers to
 * it) that answers with no register state: the thread halts, and the
 * kernel's dump of it (test_faults.py reads it) shows the registers it had.
 */
static volatile L4_ThreadId_t garbage_id;
static volatile L4_Word_t garbage_seen;

static void garbage_handler(void)
{
	L4_ThreadId_t from;
	for (;;) {
		L4_Wait(&from);
		garbage_seen++;
		L4_SetMR(0, L4_TAG_MAKE(0, 3, 0));
		L4_Reply(from);                 /* fails: then a receive of its own */
	}
}

static void ud2_all_regs_garbage(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, garbage_id);
	ALL_REGS_THEN("ud2");
	tt_park();
}

static void syscall_all_regs_garbage(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, garbage_id);
	ALL_REGS_THEN("syscall");
	tt_park();
}

TEST_CASE("exc.halted_keeps_registers", "a thread whose exception IPC to a waiting handler fails halts with the registers it had (ud2, then a foreign syscall; test_faults.py checks the dump)")
{
	garbage_id = fresh();
	EXPECT(tt_start_local(garbage_id, garbage_handler), "start the handler");
	L4_Set_Priority(garbage_id, 200);
	L4_Sleep(1000);
	for (int foreign = 0; foreign < 2; foreign++) {
		garbage_seen = seen_done = 0;
		L4_ThreadId_t t = fresh();
		EXPECT(tt_start_space(t, foreign ? syscall_all_regs_garbage : ud2_all_regs_garbage), "start");
		TT_WAIT(garbage_seen, 200);
		L4_Sleep(2000);
		EXPECT(garbage_seen == 1 && !seen_done, "%lu messages, ran on: %lu", garbage_seen, seen_done);
		EXPECT(L4_Schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE, "not halted");
		tt_kill(t);
	}
	tt_kill(garbage_id);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
