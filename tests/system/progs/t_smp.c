// SPDX-License-Identifier: MIT
// Several processors: what the KIP says about them.  Root args: "cpus=N", the processors QEMU has.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/c/stdio.h"
#include <l4/syscalls.h>

static unsigned expected = 1;

static L4_Word_t kip_word(int off) { return ((const L4_Word_t *)__L4_KIP)[off / 8]; }

static unsigned nprocs(void) { return (unsigned)(kip_word(KIP_OFF_PROC_INFO) & 0xffff) + 1; }

TEST_CASE("smp.processor_info", "ProcessorInfo counts the processors QEMU has, with 32-byte descriptors")
{
	L4_Word_t pi = kip_word(KIP_OFF_PROC_INFO);
	EXPECT(nprocs() == expected, "ProcessorInfo %lx: %u processors, QEMU has %u", pi, nprocs(), expected);
	EXPECT(pi >> 60 == 5, "descriptor size 2^%lu", pi >> 60);
	EXPECT((pi & ~(0xfUL << 60) & ~0xffffUL) == 0, "reserved bits set in %lx", pi);
}

TEST_CASE("smp.descriptors", "every processor descriptor lies in the KIP, clear of the others, with its frequencies")
{
	L4_Word_t off = kip_word(KIP_OFF_PROC_DESC), n = nprocs();
	L4_Word_t mi = kip_word(KIP_OFF_MEMORY_INFO), mem_lo = mi >> 32, mem_hi = mem_lo + 16 * (mi & 0xffffffff);
	EXPECT(off >= 0x240 && off + 32 * n <= 4096, "descriptors at %lx..%lx", off, off + 32 * n);
	EXPECT(off + 32 * n <= mem_lo || off >= mem_hi, "descriptors %lx..%lx overlap the memory descriptors %lx..%lx",
	       off, off + 32 * n, mem_lo, mem_hi);
	EXPECT(n > 1 || off == KIP_PROC_DESC_OFF, "one processor's descriptor moved to %lx", off);
	const L4_Word_t *d = (const L4_Word_t *)((const char *)__L4_KIP + off);
	for (L4_Word_t i = 0; i < n; i++, d += 4)
		EXPECT(d[0] == 1193 && d[1] >= 100000 && d[1] == ((const L4_Word_t *)((const char *)__L4_KIP + off))[1],
		       "processor %lu: %lu / %lu kHz", i, d[0], d[1]);
}

static L4_Word_t processor_control(L4_Word_t cpu)
{
	L4_Word_t rax = 0;
	__asm__ __volatile__("push %%rbp; call *%1; pop %%rbp" : "=a"(rax) : "m"(__L4_ProcessorControl), "D"(cpu),
			     "S"(0UL), "d"(0UL)
			     : "rbx", "rcx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory");
	return rax;
}

TEST_CASE("smp.processor_control", "ProcessorControl accepts every listed processor and refuses the next")
{
	for (L4_Word_t i = 0; i < nprocs(); i++)
		EXPECT(processor_control(i) == 1, "processor %lu refused: ErrorCode %lu", i, L4_ErrorCode());
	EXPECT(processor_control(nprocs()) == 0 && L4_ErrorCode() == L4_ERR_INVALID_PARAM,
	       "processor %u accepted (ErrorCode %lu)", nprocs(), L4_ErrorCode());
}

static void parse_args(void)
{
	char args[64];
	if (pecan_boot_args(args, sizeof(args)) > 5 && args[0] == 'c' && args[4] == '=') {
		expected = 0;
		for (const char *p = args + 5; *p >= '0' && *p <= '9'; p++)
			expected = expected * 10 + (unsigned)(*p - '0');
	}
	printf("t_smp: the KIP lists %u processor(s), QEMU has %u\n", nprocs(), expected);
}

int main(void)
{
	parse_args();
	test_run_all();
	pecan_kdb_power_off(0);
	return 0;
}
