// SPDX-License-Identifier: MIT
// Thread context on x86-64: kernel stacks, continuations, and switching spaces and FPU state.
#include <arch.h>
#include "../../thread.h"
#include "../../space.h"

void arch_switch_stacks(word_t *save_ksp, word_t new_ksp);
void arch_set_kernel_stack(word_t top);
void arch_set_console_ports(bool allowed);
extern char continuation_entry[];

struct trapframe *arch_user_frame(struct tcb *t)
{
	return (struct trapframe *)t->kstack_top - 1;
}

/*
 * A continuation is a switch frame (as arch_switch_stacks pops it: r15 r14
 * r13 r12 rbx rbp, return address) kept in the TCB, not on the kernel stack,
 * so it can be set while that stack is still in use.  It returns into
 * continuation_entry with RBX = the function and RBP = the user frame.
 */
void arch_set_continuation(struct tcb *t, void (*fn)(struct trapframe *))
{
	t->arch.cont[4] = (word_t)fn;
	t->arch.ksp = (word_t)t->arch.cont;
}

void arch_thread_init(struct tcb *t, word_t ip, word_t sp)
{
	*arch_user_frame(t) = (struct trapframe){
		.rip = ip, .cs = SEL_UCODE, .rflags = RFLAGS_IF | 2,
		.rsp = sp, .ss = SEL_UDATA, .vector = 0,
	};
	t->arch.cont[5] = (word_t)arch_user_frame(t);
	t->arch.cont[6] = (word_t)continuation_entry;
	arch_set_continuation(t, NULL);
	*(u16 *)&t->arch.fpu[0] = 0x037f;        /* FCW: all x87 exceptions masked */
	*(u32 *)&t->arch.fpu[24] = 0x1f80;       /* MXCSR: all SSE exceptions masked */
}

/* Load next's space, kernel stack and UTCB pointer (the idle thread has no space). */
void arch_enter_context(struct tcb *next, struct space *prev_space)
{
	if (!next->space)
		return;
	arch_set_kernel_stack(next->kstack_top);
	if (next->space != prev_space) {
		arch_space_activate(next->space->root);
		arch_set_console_ports(next->space->console_ports);
	}
	arch_set_utcb_pointer(next->utcb);
}

/*
 * Eager FPU/SSE switch: under the figure of record (icount) fxsave/fxrstor
 * cost one instruction each, and eager switching cannot leak state.
 */
void arch_switch_context(struct tcb *prev, struct tcb *next)
{
	arch_enter_context(next, prev->space);
	__asm__ __volatile__("fxsave64 %0" : "=m"(prev->arch.fpu));
	__asm__ __volatile__("fxrstor64 %0" : : "m"(next->arch.fpu));
}

void arch_switch_to(struct tcb *prev, struct tcb *next)
{
	arch_switch_context(prev, next);
	arch_switch_stacks(&prev->arch.ksp, next->arch.ksp);
}

void arch_idle_wait(void)
{
	__asm__ __volatile__("sti; hlt; cli" : : : "memory");
}
