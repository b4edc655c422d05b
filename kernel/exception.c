// SPDX-License-Identifier: MIT
// User exceptions.  Without an exception handler (the exception-IPC work adds
// them) a faulting thread is halted with a message; the kernel runs on.
#include "exception.h"
#include "kip.h"
#include "printk.h"
#include "sched.h"
#include "space.h"
#include <l4/thread.h>
#include "../lib/fmt/fmt.h"

#define VEC_BP 3
#define VEC_UD 6

/* KernelInterface is the 2-byte #UD `F0 90` (lock; nop). */
static bool kernel_interface(struct trapframe *tf)
{
	u8 op[2];
	if (!space_read(current->space, tf->rip, op, 2) || op[0] != 0xF0 || op[1] != 0x90)
		return false;
	tf->rax = current->space->kip_base;
	tf->rcx = KIP_API_VERSION;
	tf->rdx = KIP_API_FLAGS;
	tf->rsi = KIP_KERNEL_ID;
	tf->rip += 2;
	return true;
}

void thread_halt_current(const char *why, struct trapframe *tf, word_t addr)
{
	struct tcb *t = current;
	printk("pecan: thread %lx.%lx (%s) halted: %s at rip %lx", l4_thread_no(t->id),
	       l4_version(t->id), t->name, why, tf->rip);
	if (addr)
		printk(", address %lx", addr);
	printk("\n");
	t->state = TS_HALTED;
	sched_leave();
	panic("halted thread %lx resumed", t->id);
}

void exception_user(struct trapframe *tf, word_t fault_addr)
{
	if (tf->vector == VEC_UD && kernel_interface(tf))
		return;
	if (tf->vector == VEC_BP && kdb_trap(tf))
		return;
	char why[96];
	snfmt(why, sizeof(why), "%s (vector %lu, error %lx), no exception handler",
	      arch_vector_name(tf->vector), tf->vector, tf->error);
	thread_halt_current(why, tf, tf->vector == 14 ? fault_addr : 0);
}
