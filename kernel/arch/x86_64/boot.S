/* SPDX-License-Identifier: MIT */
/*
 * Multiboot (v1) entry.  QEMU's -kernel loads the flat image through the
 * a.out-kludge address fields, enters here in 32-bit protected mode with
 * paging off, EAX = magic and EBX = the Multiboot information.  We build
 * boot page tables (identity and -2 GiB map of the first 1 GiB, 2 MiB pages),
 * enter long mode and jump to kmain in the higher half.
 */
#include "asm.h"

#define MB_MAGIC   0x1BADB002
#define MB_FLAGS   0x00010003   /* page-align modules, memory map, a.out kludge */

	.section .multiboot, "a"
	.align 4
mb_header:
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)
	.long mb_header            /* header_addr */
	.long _load_start          /* load_addr */
	.long _load_end_phys       /* load_end_addr */
	.long _bss_end_phys        /* bss_end_addr */
	.long _start32             /* entry_addr */

	.section .boot.text, "ax"
	.code32
	.globl _start32
_start32:
	cli
	cmpl $0x2BADB002, %eax
	jne boot_hang
	movl %ebx, %esi              /* MBI physical address, kept in ESI */
	movl $boot_stack32_top, %esp

	/* long mode and NX supported? */
	movl $0x80000001, %eax
	cpuid
	btl $29, %edx
	jnc boot_hang

	/* pd[i] = i * 2 MiB, present | writable | huge */
	movl $boot_pd, %edi
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $0x83, %eax
	movl %eax, (%edi,%ecx,8)
	movl $0, 4(%edi,%ecx,8)
	incl %ecx
	cmpl $512, %ecx
	jb 1b
	movl $boot_pd + 0x3, boot_pdpt_low
	movl $boot_pd + 0x3, boot_pdpt_high + 510 * 8
	movl $boot_pdpt_low + 0x3, boot_pml4
	movl $boot_pdpt_high + 0x3, boot_pml4 + 511 * 8

	movl %cr4, %eax
	orl $(CR4_PAE | CR4_PGE), %eax
	movl %eax, %cr4
	movl $boot_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE | EFER_SCE), %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP), %eax
	movl %eax, %cr0

	lgdt boot_gdt_ptr
	ljmp $0x08, $start64_low

boot_hang:
	hlt
	jmp boot_hang

	.code64
start64_low:
	movabsq $start64_high, %rax
	jmp *%rax

	.section .boot.data, "aw"
	.align 4096
	.globl boot_pml4
boot_pml4:      .fill 512, 8, 0
boot_pdpt_low:  .fill 512, 8, 0
boot_pdpt_high: .fill 512, 8, 0
boot_pd:        .fill 512, 8, 0
	.align 16
boot_stack32:   .fill 256, 1, 0
boot_stack32_top:
	.align 8
boot_gdt:
	.quad 0
	.quad 0x00209a0000000000     /* 64-bit code */
	.quad 0x0000920000000000     /* data */
boot_gdt_end:
boot_gdt_ptr:
	.word boot_gdt_end - boot_gdt - 1
	.long boot_gdt

	.text
	.code64
start64_high:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	/* zero .bss (the boot stack lives there) */
	movabsq $_bss_start, %rdi
	movabsq $_bss_end, %rcx
	subq %rdi, %rcx
	xorl %eax, %eax
	rep stosb
	movabsq $boot_stack_top, %rsp
	movl %esi, %edi              /* kmain(mbi_phys) */
	xorl %ebp, %ebp
	call kmain
1:	hlt
	jmp 1b

	.bss
	.align 16
	.globl boot_stack_top
boot_stack:
	.skip 16384
boot_stack_top:

	.section .note.GNU-stack, "", @progbits
