/* SPDX-License-Identifier: MIT */
/* The local APIC (xAPIC, memory-mapped): only used when the machine has several processors. */
#ifndef ARCH_LAPIC_H
#define ARCH_LAPIC_H

#include "../../types.h"

/* Vectors of the local APIC's own interrupts, above the PIC's 32-47. */
#define VEC_LAPIC_TIMER    0xf0
#define VEC_IPI_WAKE       0xf1
#define VEC_LAPIC_SPURIOUS 0xff

void lapic_map(paddr_t pa);              /* once, on the boot CPU */
/*
 * Enable this CPU's local APIC.  The boot CPU keeps the 8259 PIC as its
 * interrupt source through LINT0 (virtual-wire mode) and NMIs on LINT1;
 * the others mask both.  The local timer stays masked.
 */
void lapic_init(bool boot_cpu);
unsigned lapic_id(void);
u32 lapic_read(unsigned reg);
void lapic_pic_off(void);                /* the boot CPU stops taking the 8259's interrupts */
void lapic_eoi(void);
void lapic_send_ipi(unsigned apic_id, unsigned vector);
void lapic_send_self(unsigned vector);
void lapic_send_init(unsigned apic_id);
void lapic_send_startup(unsigned apic_id, paddr_t code);   /* code: page-aligned, below 1 MiB */
void lapic_timer_calibrate(void);        /* on the boot CPU, once the TSC is calibrated */
void lapic_timer_start(word_t tick_us);  /* periodic VEC_LAPIC_TIMER on this CPU */
void lapic_timer_stop(void);
void udelay(word_t us);                  /* busy wait on the TSC */

#endif
