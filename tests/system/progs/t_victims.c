// SPDX-License-Identifier: MIT
// Victims: unprivileged tasks (a space the root task creates, with a pager) that
// touch what is not theirs.  Page faults reach their pager with the true address
// and access and are never resolved; other faults halt the thread (it has no
// exception handler); the rest of the system runs on and stays consistent.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/c/stdio.h"
#include <l4/syscalls.h>

static volatile L4_Word_t survived, fault_label, fault_addr, fault_ip, faults;
static volatile const char *victim_name;
static void (*volatile victim_act)(void);
static int slot;

/* The victim thread: say what it is about to do, do it, and (wrongly) go on. */
static void victim_main(void)
{
	printf("victim %s: about to act\n", victim_name);
	victim_act();
	survived = 1;
	printf("victim %s: survived (unexpected)\n", victim_name);
	tt_park();
}

/*
 * The victims' pager: maps the root task's own pages where they fault (so
 * the victim can run its code) and records, without answering, the first
 * fault anywhere else.
 */
static void victim_pager(void)
{
	L4_ThreadId_t from;
	for (;;) {
		L4_MsgTag_t tag = L4_Wait(&from);
		L4_Word_t label = L4_TAG_LABEL(tag), addr = L4_MR(1) & ~0xfffUL;
		extern char __executable_start[], _end[];
		if (!L4_IpcFailed(tag) && label >> 4 == L4_LABEL_PAGEFAULT >> 4 &&
		    addr >= (L4_Word_t)__executable_start && addr < (L4_Word_t)_end) {
			L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
			L4_SetMR(1, addr | L4_ITEM_MAP);
			L4_SetMR(2, L4_FPAGE_MAKE(addr, 12, 7));
			L4_Reply(from);
			continue;
		}
		if (L4_IpcFailed(tag) || faults++)
			continue;
		fault_label = label;
		fault_addr = L4_MR(1);
		fault_ip = L4_MR(2);
	}
}

static L4_ThreadId_t pager_id;

/* Start the victim *v in a new space paged by victim_pager; 0 on failure. */
static int start_victim(const char *name, void (*act)(void), L4_ThreadId_t *v)
{
	if (!pager_id) {
		pager_id = tt_id(slot++, 1);
		tt_start_local(pager_id, victim_pager);
	}
	survived = faults = fault_label = fault_addr = fault_ip = 0;
	victim_name = name;
	victim_act = act;
	*v = tt_id(slot++, 1);
	return tt_start_space_paged(*v, victim_main, pager_id);
}

/* The victim and its space are gone; the kernel is consistent; a new task still runs. */
static volatile L4_Word_t witness_ran;
static void witness(void)
{
	witness_ran = 1;
	tt_park();
}

static void end_victim(L4_ThreadId_t v)
{
	EXPECT(!survived, "the faulting instruction was skipped");
	EXPECT(tt_kill(v), "delete victim: %lx", L4_ErrorCode());
	L4_Word_t free = 0;
	EXPECT(pecan_kdb_check_kernel(&free) == 0, "kernel invariants broken");
	L4_ThreadId_t w = tt_id(slot++, 1);
	witness_ran = 0;
	EXPECT(tt_start_space(w, witness), "start witness: %lx", L4_ErrorCode());
	TT_WAIT(witness_ran, 2000);
	EXPECT(witness_ran, "a new task no longer runs");
	tt_kill(w);
}

/* A victim whose fault must reach its pager: label, address and instruction. */
static void expect_fault(const char *name, void (*act)(void), L4_Word_t label, L4_Word_t addr)
{
	L4_ThreadId_t v;
	EXPECT(start_victim(name, act, &v), "start victim: %lx", L4_ErrorCode());
	TT_WAIT(faults > 0, 2000);
	EXPECT(faults == 1, "the pager saw %lu faults", faults);
	EXPECT(fault_label == label && fault_addr == addr, "fault label %lx address %lx, expected %lx %lx",
	       fault_label, fault_addr, label, addr);
	EXPECT(fault_ip >= (L4_Word_t)act && fault_ip < (L4_Word_t)act + 64, "fault at rip %lx, not in the victim %p",
	       fault_ip, act);
	end_victim(v);
}

/* A victim that must be halted by the kernel (no exception handler); the console says why. */
static void expect_halt(const char *name, void (*act)(void))
{
	L4_ThreadId_t v;
	EXPECT(start_victim(name, act, &v), "start victim: %lx", L4_ErrorCode());
	TT_WAIT(L4_Schedule(v, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE, 2000);
	EXPECT(L4_Schedule(v, ~0UL, ~0UL, ~0UL, ~0UL, 0) == L4_SCHED_INACTIVE, "the victim was not halted");
	EXPECT(faults == 0, "the pager saw a fault at %lx", fault_addr);
	end_victim(v);
}

static void kread(void) { (void)*(volatile L4_Word_t *)0xffffffff80100000UL; }
static void kwrite(void) { *(volatile L4_Word_t *)0xffff800000100000UL = 1; }
static void stubwrite(void) { *(volatile L4_Word_t *)USTUB_BASE = 0; }
static void kipwrite(void) { *(volatile L4_Word_t *)(ROOT_KIP_AREA + 0x100) = 1; }
static void port(void) { __asm__ __volatile__("inb $0x64, %%al" : : : "rax"); }
static void hlt(void) { __asm__ __volatile__("hlt"); }
static void cr3(void) { __asm__ __volatile__("mov %0, %%cr3" : : "r"(0UL)); }
static void ud2(void) { __asm__ __volatile__("ud2"); }
static void div0(void)
{
	volatile unsigned long zero = 0;
	__asm__ __volatile__("divq %1" : : "a"(1UL), "r"(zero), "d"(0UL));
}
static void int3(void) { __asm__ __volatile__("int3; nop; nop; nop"); }
static void int80(void) { __asm__ __volatile__("int $0x80"); }
static void noncanon(void) { ((void (*)(void))0x8000000000000000UL)(); }

TEST_CASE("victim.kread", "reading kernel memory is a read fault at that address for the pager")
{
	expect_fault("kread", kread, L4_LABEL_PAGEFAULT | 4, 0xffffffff80100000UL);
}

TEST_CASE("victim.kwrite", "writing the kernel's direct map is a write fault for the pager")
{
	expect_fault("kwrite", kwrite, L4_LABEL_PAGEFAULT | 2, 0xffff800000100000UL);
}

TEST_CASE("victim.stubwrite", "writing the system-call stub page is a write fault for the pager")
{
	expect_fault("stubwrite", stubwrite, L4_LABEL_PAGEFAULT | 2, USTUB_BASE);
}

TEST_CASE("victim.kipwrite", "writing the read-only KIP is a write fault for the pager")
{
	expect_fault("kipwrite", kipwrite, L4_LABEL_PAGEFAULT | 2, ROOT_KIP_AREA + 0x100);
}

TEST_CASE("victim.port", "reading a port the task lacks is an I/O fault for the pager")
{
	expect_fault("port", port, L4_LABEL_IO_PAGEFAULT | 4, L4_IO_FPAGE(0x64, 0, 0) | 4);
}

TEST_CASE("victim.hlt", "hlt halts the thread (#GP)") { expect_halt("hlt", hlt); }
TEST_CASE("victim.cr3", "writing CR3 halts the thread (#GP)") { expect_halt("cr3", cr3); }
TEST_CASE("victim.ud2", "ud2 halts the thread (#UD)") { expect_halt("ud2", ud2); }
TEST_CASE("victim.div0", "dividing by zero halts the thread (#DE)") { expect_halt("div0", div0); }
TEST_CASE("victim.int3", "a bare int3 that is no KDB request halts the thread (#BP)") { expect_halt("int3", int3); }
TEST_CASE("victim.int80", "int $0x80 (no user gate) halts the thread (#GP)") { expect_halt("int80", int80); }
TEST_CASE("victim.noncanon", "a jump to a non-canonical address halts the thread (#GP)") { expect_halt("noncanon", noncanon); }

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
