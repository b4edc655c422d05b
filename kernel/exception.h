/* SPDX-License-Identifier: MIT */
/* User-mode exceptions: KernelInterface, the kernel debugger, and unhandled faults. */
#ifndef PECAN_EXCEPTION_H
#define PECAN_EXCEPTION_H

#include <arch.h>

/*
 * A CPU exception raised by the current (user) thread; fault_addr for page
 * faults.  Returns the frame to return through (another thread's when the
 * exception fastpath switched to the handler).
 */
struct trapframe *exception_user(struct trapframe *tf, word_t fault_addr);
/*
 * A page fault of the current thread at addr (rwx the access) that a kernel
 * copy met: sent to its pager like a user fault.  Returns the IPC error (0:
 * the pager replied; L4_IPC_NOPARTNER also when there is no pager).
 */
word_t pager_fault(word_t addr, unsigned rwx);
/* The preemption message to the current thread's scheduler, from the tick. */
void preemption_ipc(struct trapframe *tf);
/* Continuation of a thread whose exception IPC was answered on the slowpath. */
void exception_resume(struct trapframe *tf);
/* Stop the current thread with a message saying why; runs another thread. */
void thread_halt_current(const char *why, struct trapframe *tf, word_t addr);
enum exc_result { EXC_NO_HANDLER, EXC_HANDLED, EXC_FAILED };
/* Send the exception message for `vector` to current's handler and install its reply. */
enum exc_result exception_ipc(struct trapframe *tf, word_t vector, word_t code);
/* Is the handler's reply (in its UTCB) a register state the kernel may install? */
struct tcb;
bool exception_reply_valid(struct tcb *handler);
/* int3 from user mode: true if it was a kernel-debugger request (handled). */
bool kdb_trap(struct trapframe *tf);

#endif
