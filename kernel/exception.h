/* SPDX-License-Identifier: MIT */
/* User-mode exceptions: KernelInterface, the kernel debugger, and unhandled faults. */
#ifndef PECAN_EXCEPTION_H
#define PECAN_EXCEPTION_H

#include <arch.h>
#include <l4/ipc.h>

/*
 * A CPU exception raised by the current (user) thread; fault_addr for page
 * faults.  Returns the frame to return through; the exception fastpath
 * leaves into the handler from within instead (exc_deliver_exit).
 */
struct trapframe *exception_user(struct trapframe *tf, word_t fault_addr);
/* The same for one that is neither KernelInterface nor a page fault, whose fastpath failed already. */
struct trapframe *exception_user_tried(struct trapframe *tf);
/* A foreign `syscall` whose fastpath failed already (syscall.c); the frame to return through. */
struct trapframe *foreign_syscall_slow(struct trapframe *tf);
/* Is the #UD at the frame's IP KernelInterface's opcode (read where the CPU fetched it)? */
static inline bool kif_opcode_at(const struct trapframe *tf)
{
	u16 op;
	return arch_user_read2(frame_ip(tf), &op) && op == ARCH_KIF_OPCODE;
}
/*
 * A page fault of the current thread at addr (rwx the access) that a kernel
 * copy met: sent to its pager like a user fault.  Returns the IPC error (0:
 * the pager replied; L4_IPC_NOPARTNER also when there is no pager).
 */
word_t pager_fault(word_t addr, unsigned rwx);
word_t handler_of(struct tcb *t, word_t handler);   /* the pager or handler a confined space reaches */
/* The preemption message to the current thread's scheduler, from the tick. */
void preemption_ipc(struct trapframe *tf);
/* Continuation of a thread whose exception IPC was answered on the slowpath. */
void exception_resume(struct trapframe *tf);
/* Stop the current thread with a message saying why; runs another thread. */
void thread_halt_current(const char *why, struct trapframe *tf, word_t addr);
enum exc_result { EXC_NO_HANDLER, EXC_HANDLED, EXC_FAILED };
/* Send the exception message for `vector` to current's handler and install its reply. */
enum exc_result exception_ipc(struct trapframe *tf, word_t vector, word_t code);
/*
 * The rendezvous of an exception IPC (either side waits with ipc_kind
 * IPC_EXCEPTION): the message goes to the handler with MR20, or the reply is
 * checked and installed as the faulter's registers.  0 or the IPC error.
 */
struct tcb;
word_t exception_transfer(struct tcb *snd, struct tcb *rcv);

#define EXC_U 19                 /* MR1..MR19 counted in the tag; MR20 written beyond it */
#define EXC_WORDS 21             /* MR0..MR20 */
_Static_assert(EXC_MSG_TAG == L4_TAG_MAKE(L4_LABEL_EXCEPTION, EXC_U, 0), "entry.S's exception tag");

/*
 * The exception message, the one definition both the fastpath and the
 * slowpath send: label -5<<4, u = 19, MR1..MR18 the registers and the
 * flags (exc_regs_to_mrs), MR19 the vector, MR20 the error code.
 */
static inline void exception_message_head(const struct trapframe *tf, word_t vector, word_t code,
					  word_t *mr)
{
	mr[0] = L4_TAG_MAKE(L4_LABEL_EXCEPTION, EXC_U, 0);
	exc_cpu_regs_to_mrs(tf, mr);
	mr[19] = vector;
	mr[20] = code;
}

/* The same with MR2..MR16 from the frame (the head alone: entry.S wrote them to mr already). */
static inline void exception_message(const struct trapframe *tf, word_t vector, word_t code,
				     word_t *mr)
{
	exc_regs_to_mrs(tf, mr);
	exception_message_head(tf, vector, code, mr);
}
/* A breakpoint trap from user mode: true if it was a kernel-debugger request (handled). */
bool kdb_trap(struct trapframe *tf);
/*
 * Nothing can ever run again: report it with the thread table and halt,
 * the kernel debugger on the console still answering.
 */
void kdb_deadlock(void) __attribute__((noreturn));

#endif
