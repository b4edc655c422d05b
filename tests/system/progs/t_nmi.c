// SPDX-License-Identifier: MIT
// NMIs (injected from outside by the test harness) are the kernel's: user code never sees them.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

#define NMI_TARGET 3            /* NMIs each case waits for */
#define WAIT_MS    20000

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }

static L4_Word_t nmis_user(void) { return *(volatile L4_Word_t *)PECAN_NMI_USER_ADDR; }
static L4_Word_t nmis_kernel(void) { return *(volatile L4_Word_t *)PECAN_NMI_KERNEL_ADDR; }

static volatile L4_Word_t exc_messages, exc_vector, spin_stop, spin_rounds, spin_bad;

/* Every exception message that reaches us is a failure: an NMI is not the thread's. */
static void exc_sink(void)
{
	for (;;) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Wait(&from);
		if (!L4_IpcFailed(tag)) {
			exc_messages++;
			exc_vector = L4_MR(19);
		}
	}
}

static L4_ThreadId_t sink;

/* Spin in user mode with live values in every register the kernel saves. */
static void spinner(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, sink);
	while (!spin_stop) {
		L4_Word_t bad;
		__asm__ __volatile__(
			"push %%rbp\n\t"
			"movq $0x1111, %%rax; movq $0x2222, %%rbx; movq $0x3333, %%rcx; movq $0x4444, %%rdx\n\t"
			"movq $0x5555, %%rsi; movq $0x6666, %%rdi; movq $0x7777, %%rbp; movq $0x8888, %%r8\n\t"
			"movq $0x9999, %%r9; movq $0xaaaa, %%r10; movq $0xbbbb, %%r11; movq $0xcccc, %%r12\n\t"
			"movq $0xdddd, %%r13; movq $0xeeee, %%r14; movq $0xffff, %%r15\n\t"
			"movl $20000, %%eax; 1: decl %%eax; jnz 1b; movq $0x1111, %%rax\n\t"
			"xorq $0x1111, %%rax; xorq $0x2222, %%rbx; xorq $0x3333, %%rcx; xorq $0x4444, %%rdx\n\t"
			"xorq $0x5555, %%rsi; xorq $0x6666, %%rdi; xorq $0x7777, %%rbp; xorq $0x8888, %%r8\n\t"
			"xorq $0x9999, %%r9; xorq $0xaaaa, %%r10; xorq $0xbbbb, %%r11; xorq $0xcccc, %%r12\n\t"
			"xorq $0xdddd, %%r13; xorq $0xeeee, %%r14; xorq $0xffff, %%r15\n\t"
			"orq %%rbx, %%rax; orq %%rcx, %%rax; orq %%rdx, %%rax; orq %%rsi, %%rax; orq %%rdi, %%rax\n\t"
			"orq %%rbp, %%rax; orq %%r8, %%rax; orq %%r9, %%rax; orq %%r10, %%rax; orq %%r11, %%rax\n\t"
			"orq %%r12, %%rax; orq %%r13, %%rax; orq %%r14, %%rax; orq %%r15, %%rax\n\t"
			"pop %%rbp"
			: "=a"(bad)
			:
			: "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
			  "r14", "r15", "cc", "memory");
		spin_bad |= bad;
		spin_rounds++;
	}
	tt_park();
}

TEST_CASE("nmi.user", "NMIs that hit user code are the kernel's: no exception message, registers intact")
{
	sink = fresh();
	L4_ThreadId_t s = fresh();
	EXPECT(tt_start_local(sink, exc_sink), "sink");
	EXPECT(tt_start_space(s, spinner), "spinner");
	L4_Word_t before = nmis_user();
	L4_Set_Priority(L4_MyGlobalId(), 100);    /* share the CPU with the spinner */
	for (int i = 0; i < WAIT_MS && nmis_user() < before + NMI_TARGET; i++)
		L4_Sleep(1000);
	L4_Set_Priority(L4_MyGlobalId(), 255);
	spin_stop = 1;
	EXPECT(nmis_user() >= before + NMI_TARGET, "only %lu NMIs in user mode", nmis_user() - before);
	EXPECT(exc_messages == 0, "%lu exception messages (vector %lu)", exc_messages, exc_vector);
	EXPECT(spin_rounds > 0 && spin_bad == 0, "rounds %lu, register damage %lx", spin_rounds, spin_bad);
	tt_kill(s);
	tt_kill(sink);
}

TEST_CASE("nmi.kernel", "NMIs that hit the kernel (its idle loop, system calls) do not stop it")
{
	L4_Word_t before = nmis_kernel();
	for (int i = 0; i < WAIT_MS && nmis_kernel() < before + NMI_TARGET; i++)
		L4_Sleep(1000);      /* the CPU idles in the kernel meanwhile */
	EXPECT(nmis_kernel() >= before + NMI_TARGET, "only %lu NMIs in kernel mode", nmis_kernel() - before);
}

static volatile L4_Word_t pp_stop, pp_rounds, pp_bad;
static L4_ThreadId_t pp_server;

static void pp_serve(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		L4_SetMR(1, L4_MR(1) + 1);
		L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
		tag = L4_ReplyWait(from, &from);
		(void)tag;
	}
}

static void pp_client(void)
{
	for (L4_Word_t i = 0; !pp_stop; i++) {
		L4_SetMR(1, i);
		L4_SetMR(0, L4_TAG_MAKE(0, 1, 0));
		L4_MsgTag_t tag = L4_Call(pp_server);
		if (L4_IpcFailed(tag) || L4_MR(1) != i + 1)
			pp_bad++;
		pp_rounds++;
	}
	tt_park();
}

TEST_CASE("nmi.during_ipc", "NMIs while two threads do IPC (the CPU never idles): both run on correctly")
{
	pp_server = fresh();
	L4_ThreadId_t c = fresh();
	EXPECT(tt_start_local(pp_server, pp_serve), "server");
	EXPECT(tt_start_space(c, pp_client), "client");
	L4_Word_t before = nmis_kernel();
	for (int i = 0; i < WAIT_MS && nmis_kernel() < before + NMI_TARGET; i++)
		L4_Sleep(1000);
	pp_stop = 1;
	EXPECT(nmis_kernel() >= before + NMI_TARGET, "only %lu NMIs in kernel mode", nmis_kernel() - before);
	EXPECT(pp_rounds > 0 && pp_bad == 0, "rounds %lu, bad %lu", pp_rounds, pp_bad);
	tt_kill(c);
	tt_kill(pp_server);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
