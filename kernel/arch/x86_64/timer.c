// SPDX-License-Identifier: MIT
// The clock and the tick: TSC calibrated against the PIT, PIT channel 0 on IRQ 0.
#include <arch.h>
#include "io.h"
#include "../../timer.h"

#define PIT_HZ          1193182UL
#define PIT_CH0         0x40
#define PIT_CH2         0x42
#define PIT_CMD         0x43
#define PORT_B          0x61            /* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 out */
#define CALIBRATE_US    10000UL

static u64 tsc_per_us = 1000, tsc_at_boot;

/* Count TSC ticks across a PIT channel-2 one-shot of CALIBRATE_US. */
static void calibrate_tsc(void)
{
	word_t count = PIT_HZ * CALIBRATE_US / 1000000;
	outb(PORT_B, (inb(PORT_B) & ~2) | 1);
	outb(PIT_CMD, 0xb0);                    /* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	u64 start = rdtsc();
	while (!(inb(PORT_B) & 0x20))
		;
	u64 ticks = rdtsc() - start;
	if (ticks >= CALIBRATE_US)
		tsc_per_us = ticks / CALIBRATE_US;
}

void arch_timer_init(word_t tick_us)
{
	calibrate_tsc();
	tsc_at_boot = rdtsc();
	word_t div = PIT_HZ * tick_us / 1000000;
	outb(PIT_CMD, 0x34);                    /* ch0, lo/hi, mode 2 (rate generator) */
	outb(PIT_CH0, div & 0xff);
	outb(PIT_CH0, div >> 8);
	arch_irq_unmask(ARCH_IRQ_TIMER);
}

u64 arch_clock_us(void)
{
	return (rdtsc() - tsc_at_boot) / tsc_per_us;
}

u64 arch_tsc_per_us(void)
{
	return tsc_per_us;
}
