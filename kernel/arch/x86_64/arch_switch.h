/* SPDX-License-Identifier: MIT */
/* The inline part of a thread switch, for the scheduler and the IPC fastpath. */
#ifndef ARCH_SWITCH_H
#define ARCH_SWITCH_H

#include "../../space.h"
#include "../../thread.h"

extern word_t kernel_stack_top;          /* entry.S: the stack `syscall` switches to */
extern word_t *const arch_tss_rsp0;      /* cpu.c: where interrupts from ring 3 land */
extern paddr_t arch_loaded_root;         /* the page table CR3 holds */
/* Load s's I/O permission bitmap into the TSS if it differs from the loaded one. */
void arch_io_switch(const struct space *s);
extern bool arch_io_enabled;             /* the TSS bitmap is in force */

/* Everything of a switch but the kernel stack: space, UTCB pointer, FPU state. */
static inline void arch_switch_context(struct tcb *prev, struct tcb *next)
{
	if (next->space) {              /* the idle thread has none and keeps the last one */
		*arch_tss_rsp0 = kernel_stack_top = next->kstack_top;
		if (next->space->root != arch_loaded_root) {
			arch_loaded_root = next->space->root;
			__asm__ __volatile__("mov %0, %%cr3" : : "r"(arch_loaded_root) : "memory");
			if (next->space->io_any || arch_io_enabled)
				arch_io_switch(next->space);
		}
		user_gs_page[0] = next->utcb;
	}
	__asm__ __volatile__("fxsave64 %0" : "=m"(prev->arch.fpu));
	__asm__ __volatile__("fxrstor64 %0" : : "m"(next->arch.fpu));
}

#endif
