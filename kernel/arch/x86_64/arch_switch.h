/* SPDX-License-Identifier: MIT */
/* The inline part of a thread switch, for the scheduler and the IPC fastpath. */
#ifndef ARCH_SWITCH_H
#define ARCH_SWITCH_H

#include "../../space.h"
#include "../../thread.h"
#include "io.h"

extern word_t kernel_stack_top;          /* entry.S: the stack `syscall` switches to */
extern word_t *const arch_tss_rsp0;      /* cpu.c: where interrupts from ring 3 land */
extern paddr_t arch_loaded_root;         /* the page table CR3 holds */
/* Load s's I/O permission bitmap into the TSS if it differs from the loaded one. */
void arch_io_switch(const struct space *s);
extern bool arch_io_enabled;             /* the TSS bitmap is in force */

extern word_t arch_gs_base_loaded;      /* GS.base as the kernel last read or wrote it */

/*
 * %fs and %gs are per thread.  A user `mov` to %gs also sets GS.base (to 0,
 * the base of every loadable descriptor), so the base is read back from the
 * MSR when a user thread leaves the CPU, and the next thread's selectors and
 * base are loaded where they differ.  Only selectors a thread loaded itself
 * (which cannot fault) are ever loaded, and the kernel itself never uses
 * %fs or %gs, so whatever user code puts there cannot make the kernel fault.
 */
static inline void arch_switch_segments(struct tcb *prev, struct tcb *next)
{
	u16 fs, gs;
	__asm__ __volatile__("mov %%fs, %0; mov %%gs, %1" : "=r"(fs), "=r"(gs));
	if (prev->space) {
		prev->arch.fs_sel = fs;
		prev->arch.gs_sel = gs;
		prev->arch.gs_base = arch_gs_base_loaded = rdmsr(MSR_GS_BASE);
	}
	if (!next->space)
		return;
	if (unlikely(fs != next->arch.fs_sel))
		__asm__ __volatile__("mov %0, %%fs" : : "r"(next->arch.fs_sel));
	if (unlikely(gs != next->arch.gs_sel)) {
		__asm__ __volatile__("mov %0, %%gs" : : "r"(next->arch.gs_sel));
		arch_gs_base_loaded = ~0UL;          /* the load replaced the base */
	}
	if (unlikely(arch_gs_base_loaded != next->arch.gs_base))
		wrmsr(MSR_GS_BASE, arch_gs_base_loaded = next->arch.gs_base);
}

/* Everything of a switch but the kernel stack: space, UTCB pointer, segments, FPU state. */
static inline void arch_switch_context(struct tcb *prev, struct tcb *next)
{
	arch_switch_segments(prev, next);
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
