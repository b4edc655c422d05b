/* SPDX-License-Identifier: MIT */
/* Several processors: per-CPU kernel data, starting the other processors, their idle loop. */
#ifndef PECAN_SMP_H
#define PECAN_SMP_H

#include "types.h"
#include "config.h"

/*
 * What the kernel keeps per processor.  Each field is written only by its
 * own processor (the boot CPU writes `index` and `hw_id` before starting
 * it), so none needs a lock; others only read them.
 */
struct cpu {
	unsigned index;
	unsigned hw_id;              /* the firmware's ID (x86: local APIC ID) */
	volatile bool online;        /* it runs its idle loop */
	volatile u64 ticks;          /* its local timer's ticks */
	volatile u64 wakeups;        /* inter-processor interrupts it took */
};

extern struct cpu cpus[CONFIG_MAX_CPUS];
extern unsigned cpu_count;       /* processors online: 0..cpu_count-1 */

/* On the boot CPU, clock calibrated: start and check the other processors, fill in the KIP. */
void smp_init(word_t tick_us);
/* A started processor's first generic code: it reports itself and halts until interrupted. */
void smp_ap_main(unsigned index) __attribute__((noreturn));
/* Interrupt handlers of the other processors (the boot CPU's tick is timer_tick). */
void smp_tick(void);
void smp_wakeup(void);

#endif
