// SPDX-License-Identifier: MIT
// The local APIC: enable, end of interrupt, inter-processor interrupts, the local timer.
#include <arch.h>
#include "io.h"
#include "lapic.h"
#include "../../printk.h"

#define LAPIC_ID        0x020
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0b0
#define LAPIC_SVR       0x0f0
#define LAPIC_ICR_LO    0x300
#define LAPIC_ICR_HI    0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR 0x390
#define LAPIC_TIMER_DIV 0x3e0

#define SVR_ENABLE      (1u << 8)
#define LVT_MASKED      (1u << 16)
#define LVT_EXTINT      (7u << 8)
#define LVT_NMI         (4u << 8)
#define LVT_PERIODIC    (1u << 17)
#define ICR_PENDING     (1u << 12)
#define ICR_INIT        (5u << 8)
#define ICR_STARTUP     (6u << 8)
#define ICR_ASSERT      (1u << 14)
#define ICR_LEVEL       (1u << 15)
#define ICR_SELF        (1u << 18)      /* destination shorthand: this CPU */
#define TIMER_DIV_16    0x3
#define CALIBRATE_US    10000

static volatile u32 *lapic;
static u32 timer_per_us;            /* local-timer counts (divided by 16) per microsecond */

static u32 rd(unsigned reg) { return lapic[reg / 4]; }
static void wr(unsigned reg, u32 v) { lapic[reg / 4] = v; }

void udelay(word_t us)
{
	u64 end = rdtsc() + us * arch_tsc_per_us();
	while (rdtsc() < end)
		arch_spin_a_while();
}

/*
 * Through the direct map: the firmware's MTRRs make the APIC ranges
 * uncached whatever the page tables say (and TCG emulates no caches), and
 * the paging code stays as it is for one processor.
 */
void lapic_map(paddr_t pa)
{
	lapic = phys_to_virt(pa);
}

void lapic_init(bool boot_cpu)
{
	wr(LAPIC_TPR, 0);
	wr(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
	wr(LAPIC_LVT_ERROR, LVT_MASKED);
	wr(LAPIC_LVT_LINT0, boot_cpu ? LVT_EXTINT : LVT_MASKED);
	wr(LAPIC_LVT_LINT1, boot_cpu ? LVT_NMI : LVT_MASKED);
	wr(LAPIC_SVR, SVR_ENABLE | VEC_LAPIC_SPURIOUS);
}

u32 lapic_read(unsigned reg)
{
	return rd(reg);
}

void lapic_pic_off(void)
{
	wr(LAPIC_LVT_LINT0, LVT_MASKED);
}

unsigned lapic_id(void)
{
	return rd(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

/* Write the ICR and wait until the APIC has sent it (xAPIC: one at a time). */
static void icr_send(unsigned apic_id, u32 lo)
{
	while (rd(LAPIC_ICR_LO) & ICR_PENDING)
		arch_cpu_relax();
	wr(LAPIC_ICR_HI, apic_id << 24);
	wr(LAPIC_ICR_LO, lo);
	while (rd(LAPIC_ICR_LO) & ICR_PENDING)
		arch_cpu_relax();
}

void lapic_send_ipi(unsigned apic_id, unsigned vector)
{
	icr_send(apic_id, vector);
}

void lapic_send_self(unsigned vector)
{
	icr_send(0, ICR_SELF | vector);
}

void lapic_send_init(unsigned apic_id)
{
	icr_send(apic_id, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
}

void lapic_send_startup(unsigned apic_id, paddr_t code)
{
	icr_send(apic_id, ICR_STARTUP | (u32)(code >> 12));
}

/* Count the local timer down for CALIBRATE_US of TSC time (every CPU's timer runs alike). */
void lapic_timer_calibrate(void)
{
	wr(LAPIC_TIMER_DIV, TIMER_DIV_16);
	wr(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
	wr(LAPIC_TIMER_INIT, 0xffffffff);
	udelay(CALIBRATE_US);
	u32 used = 0xffffffff - rd(LAPIC_TIMER_CUR);
	wr(LAPIC_TIMER_INIT, 0);
	timer_per_us = used / CALIBRATE_US ? used / CALIBRATE_US : 1;
}

void lapic_timer_start(word_t tick_us)
{
	wr(LAPIC_TIMER_DIV, TIMER_DIV_16);
	wr(LAPIC_LVT_TIMER, LVT_PERIODIC | VEC_LAPIC_TIMER);
	wr(LAPIC_TIMER_INIT, timer_per_us * tick_us);
}

void lapic_timer_stop(void)
{
	wr(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
	wr(LAPIC_TIMER_INIT, 0);
}
