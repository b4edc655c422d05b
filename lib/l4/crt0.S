/* SPDX-License-Identifier: MIT */
/* User start-up: the kernel starts us with RSP = 0 (abi.md §8), so set our own stack. */
	.text
	.globl _start
_start:
	leaq __stack_top(%rip), %rsp
	xorl %ebp, %ebp
	call __l4_init
	call main
	movl %eax, %edi
	call __l4_exit
1:	jmp 1b

	.bss
	.align 16
	.skip 32768
__stack_top:

	.section .note.GNU-stack, "", @progbits
