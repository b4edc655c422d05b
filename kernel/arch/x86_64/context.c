// SPDX-License-Identifier: MIT
// Thread context on x86-64: the initial kernel stack, switching stacks, spaces and FPU state.
#include <arch.h>
#include "../../thread.h"
#include "../../space.h"

void arch_switch_stacks(word_t *save_ksp, word_t new_ksp);
void arch_set_kernel_stack(word_t top);
extern char thread_first_entry[];

void arch_thread_init(struct tcb *t, word_t ip, word_t sp, word_t kstack_top)
{
	struct trapframe *tf = (struct trapframe *)kstack_top - 1;
	*tf = (struct trapframe){
		.rip = ip, .cs = SEL_UCODE, .rflags = RFLAGS_IF | 2,
		.rsp = sp, .ss = SEL_UDATA, .vector = 0,
	};
	/* arch_switch_stacks pops six callee-saved registers, then returns */
	word_t *ksp = (word_t *)tf;
	*--ksp = (word_t)thread_first_entry;
	for (int i = 0; i < 6; i++)
		*--ksp = 0;
	t->arch.ksp = (word_t)ksp;
	*(u16 *)&t->arch.fpu[0] = 0x037f;        /* FCW: all x87 exceptions masked */
	*(u32 *)&t->arch.fpu[24] = 0x1f80;       /* MXCSR: all SSE exceptions masked */
}

/*
 * Eager FPU/SSE switch: under the figure of record (icount) fxsave/fxrstor
 * cost one instruction each, and eager switching cannot leak state.
 */
void arch_switch_to(struct tcb *prev, struct tcb *next)
{
	static word_t discard_ksp;
	arch_set_kernel_stack(next->kstack_top);
	arch_space_activate(next->space->root);
	arch_set_utcb_pointer(next->utcb);
	if (prev)
		__asm__ __volatile__("fxsave64 %0" : "=m"(prev->arch.fpu));
	__asm__ __volatile__("fxrstor64 %0" : : "m"(next->arch.fpu));
	arch_switch_stacks(prev ? &prev->arch.ksp : &discard_ksp, next->arch.ksp);
}
