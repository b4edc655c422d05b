/* SPDX-License-Identifier: MIT */
/* x86-64 architectural constants shared by assembly and C. */
#ifndef ARCH_ASM_H
#define ARCH_ASM_H

#define KERNEL_VMA      0xffffffff80000000
#define PHYS_MAP_BASE   0xffff800000000000   /* direct map of physical memory */

#define CR0_PE   (1 << 0)
#define CR0_MP   (1 << 1)
#define CR0_EM   (1 << 2)
#define CR0_TS   (1 << 3)
#define CR0_NE   (1 << 5)
#define CR0_WP   (1 << 16)
#define CR0_PG   (1 << 31)
#define CR4_PAE  (1 << 5)
#define CR4_PGE  (1 << 7)
#define CR4_OSFXSR    (1 << 9)
#define CR4_OSXMMEXCPT (1 << 10)
#define CR4_SMEP (1 << 20)

#define MSR_EFER        0xC0000080
#define MSR_STAR        0xC0000081
#define MSR_LSTAR       0xC0000082
#define MSR_CSTAR       0xC0000083
#define MSR_SFMASK      0xC0000084
#define MSR_FS_BASE     0xC0000100
#define MSR_GS_BASE     0xC0000101
#define EFER_SCE  (1 << 0)
#define EFER_LME  (1 << 8)
#define EFER_NXE  (1 << 11)

/* GDT selectors; STAR makes sysret load 0x2B/0x23 (abi.md §1.3). */
#define SEL_KCODE   0x08
#define SEL_KDATA   0x10
#define SEL_UCODE32 0x1B
#define SEL_UDATA   0x23
#define SEL_UCODE   0x2B
#define SEL_UGS     0x33
#define SEL_TSS     0x38

#define RFLAGS_IF   (1 << 9)
#define RFLAGS_IOPL3 (3 << 12)

/* Trap-frame words entry.S uses (struct trapframe in arch.h checks them). */
#define TF_RBX 0
#define TF_R10 1
#define TF_R12 2
#define TF_R13 3
#define TF_R14 4
#define TF_R15 5
#define TF_RAX 6
#define TF_RCX 7
#define TF_RDX 8
#define TF_RSI 9
#define TF_RDI 10
#define TF_RBP 11
#define TF_R8 12
#define TF_R9 13
#define TF_R11 14
#define TF_VECTOR 15
#define TF_ERROR 16
#define TF_RIP 17
#define TF_CS 18
#define TF_RFLAGS 19
#define TF_RSP 20
#define TF_SS 21
#define TF_WORDS 22

/* struct tcb's utcb_mr8, the kernel address of MR8 (the fast exception entries; ipc_fast.c checks it) */
#define TCB_UTCB_MR8 48
/* From MR8, the MR of the exception message that carries frame word tf's register (TF_RBX..TF_R11: MR2..MR16) */
#define MR_OF_TF(tf) (((tf) - 6) * 8)

/* MR0 of an exception message: label -5<<4, u = 19 (exception.h checks it) */
#define EXC_MSG_TAG 0xffffffffffb00013
#define VEC_SYSCALL 0x100   /* pseudo vector recorded for syscall entries */
#define VEC_SYSCALL_IRET 0x101 /* a syscall frame whose RCX/R11 must survive: leave by iretq */
#define VEC_UD 6
/* abi.md §1.1: KernelInterface is the two bytes F0 90 (as one little-endian u16), a #UD. */
#define ARCH_KIF_OPCODE 0x90F0

#endif
