/* SPDX-License-Identifier: MIT */
/* The runtime's entry points, its table for the server, setjmp and longjmp. */
#include <mungi/protocol.h>

	.section .mungi_rt, "a"
	.balign 8
	.globl mungi_rt_table
mungi_rt_table:
	.quad MUNGI_RT_MAGIC, mungi_thread_entry, mungi_fault_entry

	.text
/* Every thread starts here: [rsp] = function, argument, kind (written by the server). */
	.globl mungi_thread_entry
mungi_thread_entry:
	movq (%rsp), %rdi
	movq 8(%rsp), %rsi
	movq 16(%rsp), %rdx
	andq $-16, %rsp
	call mungi_thread_main
	ud2

/* A protection fault sends the thread here, its registers as they were at the fault. */
	.globl mungi_fault_entry
mungi_fault_entry:
	andq $-16, %rsp
	call mungi_fault_main
	ud2

	.globl mungi_setjmp
mungi_setjmp:
	movq %rbx, 0(%rdi)
	movq %rbp, 8(%rdi)
	movq %r12, 16(%rdi)
	movq %r13, 24(%rdi)
	movq %r14, 32(%rdi)
	movq %r15, 40(%rdi)
	leaq 8(%rsp), %rax
	movq %rax, 48(%rdi)
	movq (%rsp), %rax
	movq %rax, 56(%rdi)
	xorl %eax, %eax
	ret

	.globl mungi_longjmp
mungi_longjmp:
	movl %esi, %eax
	testl %eax, %eax
	jnz 1f
	incl %eax
1:	movq 0(%rdi), %rbx
	movq 8(%rdi), %rbp
	movq 16(%rdi), %r12
	movq 24(%rdi), %r13
	movq 32(%rdi), %r14
	movq 40(%rdi), %r15
	movq 48(%rdi), %rsp
	jmpq *56(%rdi)

	.section .note.GNU-stack, "", @progbits
