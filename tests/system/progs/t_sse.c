// SPDX-License-Identifier: MIT
// Per-thread FPU/SSE state: another thread (s_sse_clobber) scribbles over every
// XMM register and MXCSR whenever it runs; ours must come back unchanged.
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"

/* global, so the asm below can name them: it leaves no register for addresses */
unsigned char sse_pattern[16][16] __attribute__((aligned(16)));
unsigned char sse_after[16][16] __attribute__((aligned(16)));

TEST_CASE("sse.xmm_preserved", "XMM0-15 survive switches to a thread that overwrites them")
{
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < 16; b++)
			sse_pattern[r][b] = (unsigned char)(r * 16 + b + 1);
	L4_Word_t switches = pecan_counter(PECAN_CTR_context_switches);
	__asm__ __volatile__(
		"movdqa sse_pattern+0(%%rip), %%xmm0\n"
		"movdqa sse_pattern+16(%%rip), %%xmm1\n"
		"movdqa sse_pattern+32(%%rip), %%xmm2\n"
		"movdqa sse_pattern+48(%%rip), %%xmm3\n"
		"movdqa sse_pattern+64(%%rip), %%xmm4\n"
		"movdqa sse_pattern+80(%%rip), %%xmm5\n"
		"movdqa sse_pattern+96(%%rip), %%xmm6\n"
		"movdqa sse_pattern+112(%%rip), %%xmm7\n"
		"movdqa sse_pattern+128(%%rip), %%xmm8\n"
		"movdqa sse_pattern+144(%%rip), %%xmm9\n"
		"movdqa sse_pattern+160(%%rip), %%xmm10\n"
		"movdqa sse_pattern+176(%%rip), %%xmm11\n"
		"movdqa sse_pattern+192(%%rip), %%xmm12\n"
		"movdqa sse_pattern+208(%%rip), %%xmm13\n"
		"movdqa sse_pattern+224(%%rip), %%xmm14\n"
		"movdqa sse_pattern+240(%%rip), %%xmm15\n"
		"push %%rbp; push %%rdi; call *%0; pop %%rdi; pop %%rbp\n"      /* ThreadSwitch(nil) */
		"push %%rbp; push %%rdi; call *%0; pop %%rdi; pop %%rbp\n"
		"movdqa %%xmm0, sse_after+0(%%rip)\n"
		"movdqa %%xmm1, sse_after+16(%%rip)\n"
		"movdqa %%xmm2, sse_after+32(%%rip)\n"
		"movdqa %%xmm3, sse_after+48(%%rip)\n"
		"movdqa %%xmm4, sse_after+64(%%rip)\n"
		"movdqa %%xmm5, sse_after+80(%%rip)\n"
		"movdqa %%xmm6, sse_after+96(%%rip)\n"
		"movdqa %%xmm7, sse_after+112(%%rip)\n"
		"movdqa %%xmm8, sse_after+128(%%rip)\n"
		"movdqa %%xmm9, sse_after+144(%%rip)\n"
		"movdqa %%xmm10, sse_after+160(%%rip)\n"
		"movdqa %%xmm11, sse_after+176(%%rip)\n"
		"movdqa %%xmm12, sse_after+192(%%rip)\n"
		"movdqa %%xmm13, sse_after+208(%%rip)\n"
		"movdqa %%xmm14, sse_after+224(%%rip)\n"
		"movdqa %%xmm15, sse_after+240(%%rip)\n"
		: : "m"(__L4_ThreadSwitch), "D"(0UL)
		: "rax", "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
		  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
		  "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
	switches = pecan_counter(PECAN_CTR_context_switches) - switches;
	/* the clobbering thread (the only other one of our priority) ran after each yield */
	EXPECT(switches >= 4, "%lu context switches in two yields", switches);
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < 16; b++)
			EXPECT(sse_after[r][b] == sse_pattern[r][b], "xmm%d byte %d is %02x, expected %02x",
			       r, b, sse_after[r][b], sse_pattern[r][b]);
}

TEST_CASE("sse.mxcsr_preserved", "MXCSR survives switches to a thread that changes it")
{
	unsigned mine = 0x1f80 | (1 << 13), now = 0;   /* round down */
	L4_Word_t switches = pecan_counter(PECAN_CTR_context_switches);
	__asm__ __volatile__("ldmxcsr %0" : : "m"(mine));
	L4_ThreadSwitch(L4_NILTHREAD);
	L4_ThreadSwitch(L4_NILTHREAD);
	__asm__ __volatile__("stmxcsr %0" : "=m"(now));
	switches = pecan_counter(PECAN_CTR_context_switches) - switches;
	EXPECT(switches >= 4, "%lu context switches in two yields", switches);
	EXPECT(now == mine, "MXCSR %x, expected %x", now, mine);
}

int main(void)
{
	test_run_all();
	pecan_kdb_power_off(0);
	return 0;
}
