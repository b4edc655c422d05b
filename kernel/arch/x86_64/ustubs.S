/* SPDX-License-Identifier: MIT */
/*
 * System-call stubs, mapped user-executable at USTUB_BASE in every space.
 * Slot n belongs to system call n (include/l4/syscalls.h); the kernel tells
 * the calls apart by the slot the return address lies in.  Slots without a
 * system call still enter the kernel, which answers "no such system call".
 */
#include <l4/syscalls.h>

	.section .ustub, "ax"
	.code64
	.globl ustub_page
ustub_page:
	.set nr, 0
	.rept USTUB_SLOTS
	.org nr * USTUB_SLOT, 0xcc
	.if nr == SYSNR_MEMORY_CONTROL
	/*
	 * MemoryControl passes attributes 0 and 3 in RCX and R11, which
	 * `syscall` overwrites: park them in the caller's UTCB (reserved words)
	 * for the kernel.  The push is below the caller's RSP, as a call's is.
	 */
	pushq %rax
	movq %gs:0, %rax
	movq %rcx, USTUB_MEMCTL_ATTR0(%rax)
	movq %r11, USTUB_MEMCTL_ATTR3(%rax)
	popq %rax
	.endif
	syscall
	movq %r9, %rcx            /* Ipc and Unmap return MR0 in RCX too (abi.md §2) */
	ret
	.set nr, nr + 1
	.endr
	.org USTUB_SLOTS * USTUB_SLOT, 0xcc

	.section .note.GNU-stack, "", @progbits
