/* SPDX-License-Identifier: MIT */
/*
 * The other processors' way in: a real-mode trampoline that mp.c copies to
 * TRAMP_PHYS below 1 MiB (a startup IPI starts a processor there), which
 * enters long mode on the boot page tables and jumps to ap_entry on the
 * stack mp.c left in its parameter block; and the local APIC's interrupt
 * stubs, which save only what C code may clobber.
 */
#include "asm.h"

#define TRAMP_PHYS 0x7000
#define T(sym) ((sym) - ap_tramp + TRAMP_PHYS)

	.section .rodata
	.align 16
	.code16
	.globl ap_tramp
ap_tramp:                            /* CS = TRAMP_PHYS >> 4, IP = 0 */
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl tramp_gdt_ptr - ap_tramp
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $T(ap_pm32)

	.code32
ap_pm32:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $(CR4_PAE | CR4_PGE), %eax
	movl %eax, %cr4
	movl T(ap_tramp_cr3), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE | EFER_SCE), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP), %eax
	movl %eax, %cr0
	ljmpl $0x18, $T(ap_lm64)

	.code64
ap_lm64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movq T(ap_tramp_stack), %rsp
	movq T(ap_tramp_arg), %rdi
	movq T(ap_tramp_entry), %rax
	xorl %ebp, %ebp
	jmp *%rax

	.align 8
tramp_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff         /* 0x08 32-bit code */
	.quad 0x00cf92000000ffff         /* 0x10 data */
	.quad 0x00af9a000000ffff         /* 0x18 64-bit code */
tramp_gdt_ptr:
	.word 31
	.long T(tramp_gdt)
	.align 8
	/* The parameter block, written by mp.c before each startup IPI. */
	.globl ap_tramp_cr3, ap_tramp_stack, ap_tramp_arg, ap_tramp_entry, ap_tramp_end
ap_tramp_cr3:   .quad 0              /* a page table below 4 GiB mapping this page 1:1 */
ap_tramp_stack: .quad 0
ap_tramp_arg:   .quad 0              /* the processor's index */
ap_tramp_entry: .quad 0
ap_tramp_end:

	/* Local APIC interrupts: lapic_interrupt(vector) with the caller-saved registers kept. */
.macro LAPIC_STUB name, vec
	.globl \name
	.align 16
\name:
	cld
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	movl $\vec, %edi
	call lapic_interrupt
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq
.endm

	.text
	LAPIC_STUB lapic_isr_spurious, 0xff

	.section .note.GNU-stack, "", @progbits
