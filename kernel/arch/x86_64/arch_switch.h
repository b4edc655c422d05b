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

/*
 * Read back prev's FS.base if it has one, then load next's data-segment
 * selectors, GS.base and FS.base where they differ from prev's (context.c).
 * It saves every register it uses and is called from inline assembly that
 * says so, because the compiler does not see that at a plain call: the
 * switch paths, which rarely take it, would keep their registers across it.
 */
__attribute__((noinline, no_caller_saved_registers))
void arch_load_segments(struct tcb *prev, struct tcb *next);

static inline void arch_load_segments_call(struct tcb *prev, struct tcb *next)
{
	__asm__ __volatile__("call %P[fn]" : "+D"(prev), "+S"(next)
			     : [fn] "i"(arch_load_segments) : "memory", "cc");
}

/*
 * Data-segment registers are per thread.  A user `mov` to %gs also sets
 * GS.base (to 0, the base of every loadable descriptor), so the selectors
 * and the base are read back whenever a thread leaves the CPU (the idle
 * thread's copy then stands for whatever the CPU holds), and the next
 * thread's are loaded where they differ.  Only selectors a thread loaded
 * itself (which cannot fault) are ever loaded, and the kernel itself never
 * uses %fs or %gs (so no swapgs) and ignores %ds and %es (64-bit mode), so
 * whatever user code puts there cannot make the kernel fault.
 *
 * FS.base (the TLS pointer an exception handler's reply sets) costs one
 * test to threads that never have one: user code cannot make it other
 * than 0 (FSGSBASE stays disabled, every descriptor has base 0), so while
 * a thread whose fs_base is 0 runs the CPU holds 0, and only a switch from
 * or to a thread with a base goes out of line.  A user `mov` to %fs may
 * reset the base, so a base that is not 0 is read back when its thread
 * leaves the CPU.
 */
static inline void arch_switch_segments(struct tcb *prev, struct tcb *next)
{
	__asm__ __volatile__("mov %%ds, %0; mov %%es, %1; mov %%fs, %2; mov %%gs, %3"
			     : "=m"(prev->arch.sel[0]), "=m"(prev->arch.sel[1]),
			       "=m"(prev->arch.sel[2]), "=m"(prev->arch.sel[3]));
	prev->arch.gs_base = rdmsr(MSR_GS_BASE);
	if (unlikely(prev->arch.fs_base | next->arch.fs_base) ||
	    (next->space && unlikely(prev->arch.sels != next->arch.sels ||
				     prev->arch.gs_base != next->arch.gs_base)))
		arch_load_segments_call(prev, next);
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
