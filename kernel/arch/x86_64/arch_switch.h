/* SPDX-License-Identifier: MIT */
/* The inline part of a thread switch, for the scheduler and the IPC fastpaths. */
#ifndef ARCH_SWITCH_H
#define ARCH_SWITCH_H

#include "../../space.h"
#include "../../thread.h"
#include "io.h"

extern word_t *arch_tss_rsp0;            /* cpu.c: where entries from ring 3 land (this CPU's TSS) */

/* The current thread's user frame, read where the CPU found its kernel stack. */
static inline struct trapframe *arch_own_frame(void)
{
	return (struct trapframe *)*arch_tss_rsp0 - 1;
}
/* The boot CPU's TSS.RSP0, at a fixed address (its fastpaths' copy: ipc_fast.c). */
extern word_t *const arch_boot_rsp0;
extern paddr_t arch_loaded_root;         /* the page table CR3 holds */
/* Load s's I/O permission bitmap into the TSS if it differs from the loaded one. */
void arch_io_switch(const struct space *s);
extern const struct space *arch_io_loaded;  /* whose bitmap the TSS holds */
extern u8 arch_io_on;                       /* arch_io_loaded's ports are in force */
extern u16 *arch_iomap_base;                /* this CPU's TSS's bitmap offset: in force or beyond it */
extern const u16 arch_iomap_on, arch_iomap_off;

/*
 * Read back prev's segment state in full, then load next's data-segment
 * selectors, GS.base and FS.base where they differ from prev's
 * (context.c); next is current already, prev is arch_prev.  It saves every
 * register it uses and is called from inline assembly that says so and
 * takes no register arguments, because the compiler does not see the call:
 * the switch paths, which rarely take it, would otherwise keep their
 * registers across it and move them out of the argument registers.
 */
extern struct tcb *arch_prev;
__attribute__((noinline, no_caller_saved_registers)) void arch_load_segments(void);

static inline void arch_load_segments_call(struct tcb *prev)
{
	arch_prev = prev;
	__asm__ __volatile__("call %P[fn]" : : [fn] "i"(arch_load_segments) : "memory", "cc");
}

/* The same for arch_io_switch of the current thread's space. */
__attribute__((noinline, no_caller_saved_registers)) void arch_io_switch_current(void);

static inline void arch_io_switch_call(void)
{
	__asm__ __volatile__("call %P[fn]" : : [fn] "i"(arch_io_switch_current) : "memory", "cc");
}

/*
 * Between user threads whose selectors and GS.base agree: only FS.base
 * may differ (a Linux thread with a TLS base and its server without, say),
 * so inline, where arch_load_segments would cost a call and its saves.
 * The CPU holds 0 for a prev without a base, else prev's base or 0 (a
 * user `mov` to %fs, the one change user code can make), read back here;
 * the rare change goes the general way.
 */
static inline void arch_switch_fs_base(struct tcb *prev, const struct tcb *next)
{
	word_t held = prev->arch.fs_base;
	if (held && unlikely(rdmsr(MSR_FS_BASE) != held)) {
		arch_load_segments_call(prev);  /* prev changed it: the general way, which reads it back */
		return;
	}
	if (next->arch.fs_base != held)
		wrmsr(MSR_FS_BASE, next->arch.fs_base);
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
 * or to a thread with a base does more (arch_switch_fs_base, inline).  A
 * user `mov` to %fs may reset the base, so a base that is not 0 is read
 * back when its thread leaves the CPU.  The idle thread (no space) takes
 * over prev's state out of line.
 */
static inline void arch_switch_segments(struct tcb *prev, struct tcb *next)
{
	u32 lo, hi;
	__asm__ __volatile__("mov %%ds, %0; mov %%es, %1; mov %%fs, %2; mov %%gs, %3"
			     : "=m"(prev->arch.sel[0]), "=m"(prev->arch.sel[1]),
			       "=m"(prev->arch.sel[2]), "=m"(prev->arch.sel[3]));
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(MSR_GS_BASE));
	prev->arch.gs_lo = lo;
	if (unlikely(prev->arch.sels != next->arch.sels || prev->arch.seg2 != next->arch.seg2)) {
		if (prev->arch.sels == next->arch.sels && prev->arch.gs_lo == next->arch.gs_lo)
			arch_switch_fs_base(prev, next);
		else
			arch_load_segments_call(prev);
	}
}

/*
 * Ports follow the thread, lazily: a thread's switch-in puts its space's
 * ports in force only if it has used them (io_user, set by arch_io_lazy at
 * its first `in` or `out`), so switches between threads that never touch
 * ports (a driver's space's other threads, its clients) leave the bitmap
 * alone.  Either way the TSS holds the bitmap of the space being
 * switched to or none: a thread of another space never runs with ports in
 * force.  Between threads of one space nothing changes (the ports are the
 * same); a thread that finds them off there faults once more and gets
 * them.  Another space's bitmap is copied out of line.
 */
static inline void arch_io_follow(const struct tcb *next, const struct space *s)
{
	/* read again (volatile): the caller's test then needs no copy kept in a register */
	if (!(*(volatile const u8 *)&next->arch.io_user & s->io_any)) {
		*arch_iomap_base = arch_iomap_off;
		arch_io_on = 0;
	} else if (s == arch_io_loaded) {
		*arch_iomap_base = arch_iomap_on;
		arch_io_on = 1;
	} else {
		arch_io_switch_call();
	}
}

/* Space s's page table (next's) and I/O bitmap. */
static inline void arch_switch_root(const struct tcb *next, const struct space *s)
{
	if (s->root != arch_loaded_root) {
		arch_loaded_root = s->root;
		__asm__ __volatile__("mov %0, %%cr3" : : "r"(arch_loaded_root) : "memory");
		if (unlikely(arch_io_on | next->arch.io_user))
			arch_io_follow(next, s);
	}
}

/* Next's kernel stack (rsp0: this CPU's TSS), space s, I/O bitmap and UTCB pointer (gs: its %gs page). */
static inline void arch_switch_space_on(word_t *rsp0, u64 *gs, const struct tcb *next,
					const struct space *s)
{
	*rsp0 = next->kstack_top;
	arch_switch_root(next, s);
	gs[0] = next->utcb;
}

/* Next is current already. */
static inline void arch_switch_space(const struct tcb *next, const struct space *s)
{
	arch_switch_space_on(arch_tss_rsp0, arch_gs_page, next, s);
}

/* Eager FPU/SSE switch: under icount fxsave and fxrstor cost one instruction each. */
static inline void arch_switch_fpu(struct tcb *prev, struct tcb *next)
{
	__asm__ __volatile__("fxsave64 %0" : "=m"(prev->arch.fpu));
	__asm__ __volatile__("fxrstor64 %0" : : "m"(next->arch.fpu));
}

/* Everything of a switch between two user threads but the kernel stack. */
static inline void arch_switch_user(struct tcb *prev, struct tcb *next)
{
	const struct space *s = next->space;
	arch_switch_segments(prev, next);
	arch_switch_space(next, s);
	arch_switch_fpu(prev, next);
}

/*
 * The same with this CPU's RSP0 and %gs page given (the fastpaths: the boot
 * CPU's at fixed addresses, the others' through arch_tss_rsp0 and arch_gs_page).
 */
static inline void arch_switch_user_on(word_t *rsp0, u64 *gs, struct tcb *prev, struct tcb *next)
{
	const struct space *s = next->space;
	arch_switch_segments(prev, next);
	arch_switch_space_on(rsp0, gs, next, s);
	arch_switch_fpu(prev, next);
}

/* The same for any two threads; the idle thread has no space and keeps the last one. */
static inline void arch_switch_context(struct tcb *prev, struct tcb *next)
{
	if (likely(prev->space && next->space)) {
		arch_switch_user(prev, next);
		return;
	}
	arch_load_segments_call(prev);
	if (next->space)
		arch_switch_space(next, next->space);
	arch_switch_fpu(prev, next);
}

#endif
