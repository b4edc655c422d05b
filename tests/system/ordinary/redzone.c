// SPDX-License-Identifier: MIT
// Built with ordinary compiler flags (red zone on) by the documented line:
// data a leaf function keeps below RSP must survive every system-call wrapper.
#include <l4/l4.h>
#include <c/stdio.h>

#define WORDS 12

/* A leaf to the compiler (the asm hides the call), so its locals may live in the red zone. */
static __attribute__((noinline)) int survives_thread_switch(void)
{
	volatile unsigned long w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = 0x1111111111111111UL * (i + 1);
	L4_ThreadSwitch(L4_NILTHREAD);
	int bad = 0;
	for (int i = 0; i < WORDS; i++)
		bad += w[i] != 0x1111111111111111UL * (i + 1);
	return bad;
}

static __attribute__((noinline)) int survives_clock(void)
{
	volatile unsigned long w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = ~0UL - i;
	(void)L4_SystemClock();
	int bad = 0;
	for (int i = 0; i < WORDS; i++)
		bad += w[i] != ~0UL - i;
	return bad;
}

static __attribute__((noinline)) int survives_ipc(void)
{
	volatile unsigned long w[WORDS];
	for (int i = 0; i < WORDS; i++)
		w[i] = 0xa5a5a5a500000000UL + i;
	L4_Sleep(100);      /* an Ipc: receive from ourselves with a timeout */
	int bad = 0;
	for (int i = 0; i < WORDS; i++)
		bad += w[i] != 0xa5a5a5a500000000UL + i;
	return bad;
}

int main(void)
{
	int bad = survives_thread_switch() + survives_clock() + survives_ipc();
	printf("redzone: %d words below the stack pointer changed across system calls\n", bad);
	pecan_kdb_power_off(bad ? 1 : 0);
	return 0;
}
