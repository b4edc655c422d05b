// SPDX-License-Identifier: MIT
// The one dispatch point for system calls, and the foreign-`syscall` rule.
#include "exception.h"
#include "printk.h"
#include "sched.h"
#include <l4/errors.h>
#include <l4/syscalls.h>
#include <l4/utcb.h>

typedef void (*syscall_fn)(struct trapframe *tf);

/* Report a failed non-IPC system call the L4 way: result 0, code in ErrorCode. */
static void sys_error(struct trapframe *tf, word_t code)
{
	utcb_set(current, UTCB_ERROR_CODE, code);
	tf->rax = 0;
}

/* ThreadSwitch(dest): dest = nil yields to the next ready thread. */
static void sys_thread_switch(struct trapframe *tf)
{
	(void)tf;
	sched_yield();
}

static const syscall_fn syscall_table[USTUB_SLOTS] = {
	[SYSNR_THREAD_SWITCH] = sys_thread_switch,
};

/*
 * A `syscall` from outside the stub page follows some other ABI (Linux's,
 * for the Linux personality).  Until exception handlers exist it fails with
 * -ENOSYS in RAX and L4_ERR_NO_SYSCALL in ErrorCode; the thread runs on.
 */
static void foreign_syscall(struct trapframe *tf)
{
	utcb_set(current, UTCB_ERROR_CODE, L4_ERR_NO_SYSCALL);
	tf->rax = (word_t)PECAN_FOREIGN_NOSYS;
}

void syscall_dispatch(struct trapframe *tf)
{
	word_t off = tf->rip - USTUB_BASE;
	if (off >= USTUB_SLOTS * USTUB_SLOT) {
		foreign_syscall(tf);
		return;
	}
	syscall_fn fn = syscall_table[off / USTUB_SLOT];
	if (fn)
		fn(tf);
	else
		sys_error(tf, L4_ERR_NO_SYSCALL);
}
