// SPDX-License-Identifier: MIT
// Root-task tests of the boot hand-off: KIP, UTCB, system-call entry, KDB.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include <l4/syscalls.h>

static const L4_Word_t *kip(void) { return __L4_KIP; }
static L4_Word_t kip_word(int off) { return kip()[off / 8]; }

TEST_CASE("kip.kernel_interface", "KernelInterface returns the KIP address, API version, flags and kernel ID")
{
	L4_Word_t ver, flags, id;
	void *k = L4_KernelInterface(&ver, &flags, &id);
	EXPECT(k == (void *)ROOT_KIP_AREA, "KIP at %p, expected %lx", k, ROOT_KIP_AREA);
	EXPECT(ver == KIP_API_VERSION, "API version %lx", ver);
	EXPECT(flags == KIP_API_FLAGS, "API flags %lx", flags);
	EXPECT(id == KIP_KERNEL_ID, "kernel ID %lx", id);
}

L4_Word_t kip_regs_out[11];          /* addressed by name: every general register is under test */

TEST_CASE("kip.preserves_registers", "KernelInterface changes only RAX, RCX, RDX and RSI")
{
	__asm__ __volatile__(
		"push %%rbp\n"
		"mov $0x1111, %%rbx; mov $0x2222, %%rdi; mov $0x3333, %%rbp\n"
		"mov $0x8888, %%r8; mov $0x9999, %%r9; mov $0xaaaa, %%r10; mov $0xbbbb, %%r11\n"
		"mov $0xcccc, %%r12; mov $0xdddd, %%r13; mov $0xeeee, %%r14; mov $0xffff, %%r15\n"
		".byte 0xf0, 0x90\n"
		"mov %%rbx, kip_regs_out(%%rip); mov %%rdi, kip_regs_out+8(%%rip)\n"
		"mov %%rbp, kip_regs_out+16(%%rip); mov %%r8, kip_regs_out+24(%%rip)\n"
		"mov %%r9, kip_regs_out+32(%%rip); mov %%r10, kip_regs_out+40(%%rip)\n"
		"mov %%r11, kip_regs_out+48(%%rip); mov %%r12, kip_regs_out+56(%%rip)\n"
		"mov %%r13, kip_regs_out+64(%%rip); mov %%r14, kip_regs_out+72(%%rip)\n"
		"mov %%r15, kip_regs_out+80(%%rip)\n"
		"pop %%rbp\n"
		: : : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		      "memory");
	static const L4_Word_t want[11] = { 0x1111, 0x2222, 0x3333, 0x8888, 0x9999, 0xaaaa, 0xbbbb, 0xcccc, 0xdddd,
					    0xeeee, 0xffff };
	static const char *const name[11] = { "rbx", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
	for (int i = 0; i < 11; i++)
		EXPECT(kip_regs_out[i] == want[i], "%s is %lx after KernelInterface, was %lx", name[i], kip_regs_out[i],
		       want[i]);
}

TEST_CASE("kip.layout", "KIP magic, UTCB and thread info, kernel descriptor")
{
	const unsigned char *b = (const unsigned char *)kip();
	EXPECT(b[0] == 'L' && b[1] == '4' && b[2] == 0xE6 && b[3] == 'K', "bad magic %02x%02x%02x%02x", b[0], b[1], b[2], b[3]);
	EXPECT(kip_word(KIP_OFF_API_VERSION) == KIP_API_VERSION, "ApiVersion %lx", kip_word(KIP_OFF_API_VERSION));
	EXPECT(kip_word(KIP_OFF_UTCB_INFO) == 0xC2801, "UtcbAreaInfo %lx", kip_word(KIP_OFF_UTCB_INFO));
	EXPECT(kip_word(KIP_OFF_KIP_AREA_INFO) == 12, "KipAreaInfo %lx", kip_word(KIP_OFF_KIP_AREA_INFO));
	L4_Word_t ti = kip_word(KIP_OFF_THREAD_INFO);
	EXPECT((ti >> 20 & 0xfff) == L4_USER_BASE && (ti >> 8 & 0xfff) == L4_SYSTEM_BASE, "ThreadInfo %lx", ti);
	const L4_Word_t *kd = (const L4_Word_t *)(b + kip_word(KIP_OFF_KERNEL_DESC));
	EXPECT(kd[0] == KIP_KERNEL_ID, "kernel descriptor ID %lx", kd[0]);
	EXPECT((kd[3] & 0xffffffff) == ('P' | 'C' << 8 | 'A' << 16 | (L4_Word_t)'N' << 24), "supplier %lx", kd[3]);
	EXPECT(kip_word(KIP_OFF_PROC_DESC) < 4096, "processor descriptor outside the KIP");
	const L4_Word_t *pd = (const L4_Word_t *)(b + kip_word(KIP_OFF_PROC_DESC));
	EXPECT(pd[0] == 1193 && pd[1] >= 100000, "processor frequencies %lu / %lu kHz", pd[0], pd[1]);
	EXPECT((kip_word(0x180) >> 16 & 0xffff) == 1000 && (kip_word(0x180) & 0xffff) == 1,
	       "ClockInfo %lx", kip_word(0x180));
}

TEST_CASE("kip.syscall_pointers", "the system-call pointers are distinct stubs in the stub page, Lipc shares Ipc's")
{
	static const int offs[] = { 0x1A0, 0x1A8, 0x1B0, 0x1B8, 0x1C0, 0x1C8, 0x1D0, 0x1D8, 0x1E0, 0x1E8, 0x1F0 };
	for (unsigned i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		L4_Word_t p = kip_word(offs[i]);
		EXPECT(p >= USTUB_BASE && p < USTUB_BASE + 4096, "pointer at %x is %lx", offs[i], p);
		for (unsigned j = 0; j < i; j++)
			EXPECT(p != kip_word(offs[j]) || (offs[i] == 0x1C8 && offs[j] == 0x1C0),
			       "pointers at %x and %x coincide", offs[i], offs[j]);
	}
}

TEST_CASE("kip.memory_descriptors", "memory descriptors list RAM and reserve the kernel's memory")
{
	L4_Word_t info = kip_word(KIP_OFF_MEMORY_INFO), n = info & 0xffffffff;
	const L4_Word_t *d = (const L4_Word_t *)((const char *)kip() + (info >> 32));
	int ram = 0, reserved = 0;
	EXPECT(n > 0 && n < 200, "%lu descriptors", n);
	for (L4_Word_t i = 0; i < n; i++) {
		L4_Word_t type = d[2 * i] & 0xf, low = d[2 * i] & ~0x3ffUL, high = d[2 * i + 1] | 0x3ff;
		EXPECT(high > low, "descriptor %lu is empty", i);
		ram += type == MEMDESC_CONVENTIONAL && high - low > (64UL << 20);
		reserved += type == MEMDESC_RESERVED;
	}
	EXPECT(ram >= 1, "no conventional memory larger than 64 MiB described");
	EXPECT(reserved >= 2, "kernel image and kernel pool not both reserved (%d)", reserved);
}

TEST_CASE("utcb.gs", "%gs:0 is the UTCB pointer, the UTCB holds MyGlobalId and is writable")
{
	L4_Word_t *u = L4_Utcb();
	EXPECT((L4_Word_t)u == ROOT_UTCB_AREA + UTCB_P_OFFSET, "UTCB pointer %p", u);
	EXPECT(L4_MyGlobalId() == l4_global_id(L4_USER_BASE + 2, 1), "MyGlobalId %lx", L4_MyGlobalId());
	u[0] = 0xfeedf00d;
	L4_SetTcr(UTCB_THREAD_WORD0, 0xabcdef);
	EXPECT(u[0] == 0xfeedf00d && L4_Tcr(UTCB_THREAD_WORD0) == 0xabcdef, "UTCB not writable");
}

TEST_CASE("syscall.unknown_number", "an unassigned system-call slot returns an error and the caller runs on")
{
	for (L4_Word_t nr = SYSNR_COUNT + 4; nr < USTUB_SLOTS; nr += 7) {
		L4_SetTcr(UTCB_ERROR_CODE, 0);
		L4_Word_t r = pecan_raw_syscall_at(USTUB_BASE + nr * USTUB_SLOT);
		EXPECT(r == 0, "slot %lu returned %lx", nr, r);
		EXPECT(L4_ErrorCode() == L4_ERR_NO_SYSCALL, "slot %lu left ErrorCode %lu", nr, L4_ErrorCode());
	}
}

L4_Word_t foreign_regs_out[13];      /* RAX, then the registers a foreign syscall must keep */

TEST_CASE("syscall.foreign", "a syscall outside the stub page fails with -ENOSYS, other registers kept")
{
	__asm__ __volatile__(
		"push %%rbp\n"
		"mov $39, %%eax\n"                                       /* Linux getpid */
		"mov $0x1111, %%rbx; mov $0x2222, %%rdx; mov $0x3333, %%rsi; mov $0x4444, %%rdi\n"
		"mov $0x5555, %%rbp; mov $0x8888, %%r8; mov $0x9999, %%r9; mov $0xaaaa, %%r10\n"
		"mov $0xcccc, %%r12; mov $0xdddd, %%r13; mov $0xeeee, %%r14; mov $0xffff, %%r15\n"
		"syscall\n"
		"mov %%rax, foreign_regs_out(%%rip); mov %%rbx, foreign_regs_out+8(%%rip)\n"
		"mov %%rdx, foreign_regs_out+16(%%rip); mov %%rsi, foreign_regs_out+24(%%rip)\n"
		"mov %%rdi, foreign_regs_out+32(%%rip); mov %%rbp, foreign_regs_out+40(%%rip)\n"
		"mov %%r8, foreign_regs_out+48(%%rip); mov %%r9, foreign_regs_out+56(%%rip)\n"
		"mov %%r10, foreign_regs_out+64(%%rip); mov %%r12, foreign_regs_out+72(%%rip)\n"
		"mov %%r13, foreign_regs_out+80(%%rip); mov %%r14, foreign_regs_out+88(%%rip)\n"
		"mov %%r15, foreign_regs_out+96(%%rip)\n"
		"pop %%rbp\n"
		: : : "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		      "memory");
	static const L4_Word_t want[13] = { (L4_Word_t)PECAN_FOREIGN_NOSYS, 0x1111, 0x2222, 0x3333, 0x4444, 0x5555,
					    0x8888, 0x9999, 0xaaaa, 0xcccc, 0xdddd, 0xeeee, 0xffff };
	static const char *const name[13] = { "rax", "rbx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r12",
					      "r13", "r14", "r15" };
	for (int i = 0; i < 13; i++)
		EXPECT(foreign_regs_out[i] == want[i], "%s is %lx after the syscall, want %lx", name[i],
		       foreign_regs_out[i], want[i]);
	EXPECT(L4_ErrorCode() == L4_ERR_NO_SYSCALL, "ErrorCode %lu", L4_ErrorCode());
}

TEST_CASE("syscall.thread_switch", "ThreadSwitch(nil) returns with the stack intact")
{
	volatile L4_Word_t canary = 0xc0ffee;
	for (int i = 0; i < 10; i++)
		L4_ThreadSwitch(L4_NILTHREAD);
	EXPECT(canary == 0xc0ffee, "stack changed");
}

TEST_CASE("kdb.enter", "L4_KDB_Enter prints its message and returns")
{
	L4_KDB_Enter("t_boot says hello to KDB");
}

int main(void)
{
	test_run_all();
	pecan_kdb_power_off(0);
	return 0;
}
