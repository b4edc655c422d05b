// SPDX-License-Identifier: MIT
// Thread context on x86-64: kernel stacks, continuations, and switching spaces and FPU state.
#include <arch.h>
#include "../../thread.h"
#include "../../space.h"
#include "arch_switch.h"
#include "../../sched.h"
#include <l4/syscalls.h>

void arch_switch_stacks(word_t *save_ksp, word_t new_ksp);
paddr_t arch_loaded_root;
extern char continuation_entry[];

/* A new thread's continuation: straight to user mode. */
static void resume_as_is(struct trapframe *tf)
{
	(void)tf;
}

/*
 * A continuation is a switch frame (as arch_switch_stacks pops it: r15 r14
 * r13 r12 rbx rbp, return address) kept in the TCB, not on the kernel stack,
 * so it can be set while that stack is still in use.  It returns into
 * continuation_entry with RBX = the function and RBP = the user frame
 * (arch_set_continuation in arch_thread.h fills in RBX).
 */
void arch_thread_init(struct tcb *t, word_t ip, word_t sp)
{
	*arch_user_frame(t) = (struct trapframe){
		.rip = ip, .cs = SEL_UCODE, .rflags = RFLAGS_IF | 2,
		.rsp = sp, .ss = SEL_UDATA, .vector = 0,
	};
	t->arch.gs_lo = (u32)USER_GS_PAGE;
	t->arch.fs_tag = 0;
	t->arch.fs_base = 0;
	t->arch.io_user = 0;
	t->arch.sel[0] = t->arch.sel[1] = t->arch.sel[2] = 0;   /* null: fine in 64-bit mode */
	t->arch.sel[3] = SEL_UGS;
	t->arch.cont[5] = (word_t)arch_user_frame(t);
	t->arch.cont[6] = (word_t)continuation_entry;
	arch_set_continuation(t, resume_as_is);
	*(u16 *)&t->arch.fpu[0] = 0x037f;        /* FCW: all x87 exceptions masked */
	*(u32 *)&t->arch.fpu[24] = 0x1f80;       /* MXCSR: all SSE exceptions masked */
}

/*
 * prev's state is read back in full (the CPU's, for the idle thread); the
 * idle thread loads nothing and takes prev's, as it stands for the CPU.
 */
struct tcb *arch_prev;

void arch_load_segments(void)
{
	struct tcb *prev = arch_prev, *next = current;
	__asm__ __volatile__("mov %%ds, %0; mov %%es, %1; mov %%fs, %2; mov %%gs, %3"
			     : "=m"(prev->arch.sel[0]), "=m"(prev->arch.sel[1]),
			       "=m"(prev->arch.sel[2]), "=m"(prev->arch.sel[3]));
	prev->arch.gs_lo = (u32)rdmsr(MSR_GS_BASE);
	if (prev->arch.fs_base && prev->space)
		arch_set_tls_base(prev, rdmsr(MSR_FS_BASE));
	if (!next->space) {
		next->arch.sels = prev->arch.sels;
		next->arch.seg2 = prev->arch.seg2;
		next->arch.fs_base = prev->arch.fs_base;
		return;
	}
	if (prev->arch.sel[0] != next->arch.sel[0])
		__asm__ __volatile__("mov %0, %%ds" : : "r"(next->arch.sel[0]));
	if (prev->arch.sel[1] != next->arch.sel[1])
		__asm__ __volatile__("mov %0, %%es" : : "r"(next->arch.sel[1]));
	if (prev->arch.sel[2] != next->arch.sel[2])
		__asm__ __volatile__("mov %0, %%fs" : : "r"(next->arch.sel[2]));   /* may reset the base */
	if (prev->arch.sel[3] != next->arch.sel[3])
		__asm__ __volatile__("mov %0, %%gs" : : "r"(next->arch.sel[3]));   /* resets the base */
	wrmsr(MSR_GS_BASE, (word_t)(long)(int)next->arch.gs_lo);
	if (prev->arch.sel[2] != next->arch.sel[2] || prev->arch.fs_base != next->arch.fs_base)
		wrmsr(MSR_FS_BASE, next->arch.fs_base);
}

/*
 * The whole switch, eager FPU/SSE state included: eager switching cannot
 * leak state.  prev resumes from the stack saved here unless a
 * continuation is set for it meanwhile (arch_set_continuation).
 */
void arch_switch_to(struct tcb *prev, struct tcb *next)
{
	arch_switch_context(prev, next);
	word_t to = next->arch.cont[4] ? (word_t)next->arch.cont : next->arch.ksp;
	prev->arch.cont[4] = 0;
	arch_switch_stacks(&prev->arch.ksp, to);
}

void arch_idle_wait(void)
{
	__asm__ __volatile__("sti; hlt; cli" : : : "memory");
}
