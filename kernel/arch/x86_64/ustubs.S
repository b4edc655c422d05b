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
	syscall
	movq %r9, %rcx            /* Ipc and Unmap return MR0 in RCX too (abi.md §2) */
	ret
	.set nr, nr + 1
	.endr
	.org USTUB_SLOTS * USTUB_SLOT, 0xcc

	.section .note.GNU-stack, "", @progbits
