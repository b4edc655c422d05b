/* SPDX-License-Identifier: MIT */
/*
 * Kernel entry and exit: exception/interrupt stubs, the `syscall` entry, the
 * two ways back to user mode (sysretq when the frame allows it, iretq
 * otherwise) and the kernel-stack switch between threads.  All entries build
 * the same struct trapframe (arch.h).
 */
#include "asm.h"
#include "../../config.h"
#include <l4/syscalls.h>
#include <l4/utcb.h>

/*
 * The general registers in the frame, lowest address first: RBX, R10,
 * R12-R15, RAX, RCX, RDX, RSI, RDI, RBP, R8, R9, R11 (struct trapframe),
 * the order of MR2..MR16 of the exception message, so that it is built
 * with one word copy (exc_regs_to_mrs).
 */
.macro SAVE_GPRS
	pushq %r11
	pushq %r9
	pushq %r8
	pushq %rbp
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %rax
	pushq %r15
	pushq %r14
	pushq %r13
	pushq %r12
	pushq %r10
	pushq %rbx
.endm

.macro RESTORE_GPRS
	popq %rbx
	popq %r10
	popq %r12
	popq %r13
	popq %r14
	popq %r15
	popq %rax
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	popq %rbp
	popq %r8
	popq %r9
	popq %r11
.endm

/*
 * The fast exception entries' (trap_exc, foreign_entry): RSP at the frame's
 * vector word, the general registers go straight to the current thread's
 * MR2..MR16, where the exception message wants them (exception_message),
 * instead of the frame; R10 to both (exc_deliver_exit_live reads MR3
 * there, and trap_exc uses R10 before).  RBX and R12-R15 stay as they
 * were; RCX and R10 are clobbered.  A thread without an exception handler
 * (its TCR 0: no message to send, and a foreign `syscall` returns
 * -ENOSYS) goes to nohandler first, its MRs untouched, R10 in the frame.
 */
.macro SAVE_R10_IN_FRAME
	subq $TF_VECTOR*8, %rsp
	movq %r10, TF_R10*8(%rsp)
.endm

.macro SAVE_GPRS_TO_MRS_REST nohandler
	movq current(%rip), %r10
	movq TCB_UTCB_MR8(%r10), %r10
	cmpq $0, (UTCB_EXC_HANDLER - UTCB_MR(8))(%r10)
	je \nohandler
	movq %rbx, MR_OF_TF(TF_RBX)(%r10)
	movq %r12, MR_OF_TF(TF_R12)(%r10)
	movq %r13, MR_OF_TF(TF_R13)(%r10)
	movq %r14, MR_OF_TF(TF_R14)(%r10)
	movq %r15, MR_OF_TF(TF_R15)(%r10)
	movq %rax, MR_OF_TF(TF_RAX)(%r10)
	movq %rcx, MR_OF_TF(TF_RCX)(%r10)
	movq %rdx, MR_OF_TF(TF_RDX)(%r10)
	movq %rsi, MR_OF_TF(TF_RSI)(%r10)
	movq %rdi, MR_OF_TF(TF_RDI)(%r10)
	movq %rbp, MR_OF_TF(TF_RBP)(%r10)
	movq %r8, MR_OF_TF(TF_R8)(%r10)
	movq %r9, MR_OF_TF(TF_R9)(%r10)
	movq %r11, MR_OF_TF(TF_R11)(%r10)
	movq TF_R10*8(%rsp), %rcx
	movq %rcx, MR_OF_TF(TF_R10)(%r10)
.endm

/* Leave through the frame a dispatcher returned in RAX. */
.macro LEAVE_THROUGH_RAX
	movq %rax, %rsp
	jmp return_to_user_or_kernel
.endm

/*
 * The Ipc entry's part of the frame on the kernel stack whose top rsp0
 * holds (or points at, indirect): RIP, RFLAGS, RSP (carried in RBP).  RBP
 * then carries MR1 (RAX) through C, which keeps it as a callee-saved
 * register: the paths that need it in the frame put it there.
 */
.macro IPC_FRAME rsp0, indirect=0
	movq %rsp, %rbp
	movq \rsp0, %rsp
	.if \indirect                  /* rsp0 holds where RSP0 is */
	movq (%rsp), %rsp
	.endif
	subq $TF_WORDS*8, %rsp
	movq %rcx, TF_RIP*8(%rsp)
	movq %r11, TF_RFLAGS*8(%rsp)
	movq %rbp, TF_RSP*8(%rsp)
	movq %rax, %rbp
.endm

/* Jump to label if the frame's RIP is not canonical (bits 63..47 not all equal); reg is clobbered. */
.macro JNONCANONICAL_RIP reg, label
	movq TF_RIP*8(%rsp), \reg
	sarq $47, \reg
	incq \reg
	cmpq $1, \reg
	ja \label
.endm

/*
 * Every exit to user mode lets the big kernel lock go (smp.h), as its last
 * store: what follows reads only the frame of the thread that now runs
 * here, which no other processor touches without parking this one.  With
 * one processor the lock is never taken and the store changes nothing (so
 * exc_deliver_exit_live, used only then, leaves it out).
 */
.macro BKL_RELEASE
	movb $0, bkl_word(%rip)
.endm

/*
 * Processor k's Ipc entry takes the big kernel lock (smp.h): one cmpxchg
 * when it is free, nobody waits and k held it last, else smp_lock_ipc
 * (which keeps every register but RDI).  MR1 is in RBP already.
 */
.macro BKL_TAKE k
	movl $(\k << 16), %eax
	movl $((\k << 16) | (\k + 1)), %edi
	lock cmpxchgl %edi, bkl_word(%rip)
	je 1f
	movl $\k, %edi
	call smp_lock_ipc               /* below the frame: its CS and SS words stay as they are */
1:
.endm

/* trap_exc takes the exceptions whose user instances go to the exception fastpath first. */
.macro ISR_JMP vec
	.if (\vec < 32) && (\vec != 2) && (\vec != 3) && (\vec != 8) && (\vec != 13) && (\vec != 14)
	jmp trap_exc
	.else
	jmp trap_common
	.endif
.endm

.macro ISR_NOERR vec
	.align 16
	pushq $0
	pushq $\vec
	ISR_JMP \vec
.endm

.macro ISR_ERR vec
	.align 16
	pushq $\vec
	ISR_JMP \vec
.endm

	.text
	.align 16
	.globl isr_table
isr_table:            /* 48 stubs of 16 bytes: exceptions 0-31, PIC vectors 32-47 */
	.set v, 0
	.rept 48
	.if (v == 8) || (v == 10) || (v == 11) || (v == 12) || (v == 13) || (v == 14) || (v == 17) || (v == 21) || (v == 29) || (v == 30)
	ISR_ERR v
	.else
	ISR_NOERR v
	.endif
	.set v, v + 1
	.endr

trap_common:
	cld
	SAVE_GPRS
	movq %rsp, %rdi
	call trap_dispatch          /* returns the frame to leave through */
	LEAVE_THROUGH_RAX

	/*
	 * An exception with no handling of its own before the exception
	 * fastpath (all but NMI, #BP, #DF, #GP and #PF): from user mode while
	 * only the boot processor runs threads (smp_active clear: no lock to
	 * take, and this is processor 0) it goes to exception_trap_fast with
	 * the general registers in the thread's MR2..MR16 (SAVE_GPRS_TO_MRS_REST)
	 * and RBX and R12-R15 as the thread left them (MR2, MR4-7: the handler
	 * gets them in place), else the common way, as KernelInterface's #UD
	 * does, told apart before any MR is written (the two bytes at RIP read
	 * through R10 as arch_user_read2 reads them: not at USER_TOP - 1 or
	 * above; a fault there is no KernelInterface).
	 */
trap_exc:
	testb $3, (TF_CS-TF_VECTOR)*8(%rsp)
	jz trap_common
	cmpb $0, smp_active(%rip)
	jne trap_common
	cld
	SAVE_R10_IN_FRAME
	cmpq $VEC_UD, TF_VECTOR*8(%rsp)
	jne 2f
	movq TF_RIP*8(%rsp), %r10
	incq %r10
	shrq $47, %r10
	jnz 2f
	movq TF_RIP*8(%rsp), %r10
	.globl trap_exc_kif_insn, trap_exc_kif_fixup
trap_exc_kif_insn:                  /* a fault here goes on at trap_exc_kif_fixup (trap_dispatch) */
	movzwl (%r10), %r10d
	cmpl $ARCH_KIF_OPCODE, %r10d
	je 1f
trap_exc_kif_fixup:
2:	SAVE_GPRS_TO_MRS_REST 1f
	movq %rsp, %rdi
	call exception_trap_fast    /* returns the frame to leave through */
	LEAVE_THROUGH_RAX
1:	movq TF_R10*8(%rsp), %r10     /* KernelInterface, no handler: the common way, no MR touched */
	addq $TF_VECTOR*8, %rsp
	jmp trap_common

	/* Return through whatever frame sits at RSP. */
	.globl return_to_user_or_kernel
return_to_user_or_kernel:
	JNONCANONICAL_RIP %r11, bad_rip   /* sysretq and iretq to one fault in ring 0 */
	testb $3, TF_CS*8(%rsp)
	jz 1f
	BKL_RELEASE
1:
	cmpq $VEC_SYSCALL, TF_VECTOR*8(%rsp)
	jne iret_path
	/* A frame from `syscall` whose RIP is canonical: sysretq is safe. */
	.globl sysret_path
sysret_path:
	RESTORE_GPRS
	addq $16, %rsp            /* vector, error */
	popq %rcx                 /* rip */
	addq $8, %rsp             /* cs */
	popq %r11                 /* rflags */
	popq %rsp                 /* user rsp; NMI and #DF use IST stacks */
	sysretq
iret_path:
	RESTORE_GPRS
	addq $16, %rsp
	iretq
	/* No path should produce such a frame; if one does, the thread faults, not the kernel. */
bad_rip:
	movq %rsp, %rdi
	call exit_bad_rip           /* returns the frame to leave through */
	LEAVE_THROUGH_RAX

	/* A `syscall`'s frame at the top of the thread's kernel stack, up to its vector word. */
.macro SYSCALL_FRAME_CPU
	movq %rsp, syscall_user_rsp(%rip)
	movq cpu_tss+4(%rip), %rsp      /* TSS.RSP0: the current thread's kernel stack top */
	pushq $SEL_UDATA
	pushq syscall_user_rsp(%rip)
	pushq %r11
	pushq $SEL_UCODE
	pushq %rcx
	pushq $0
	pushq $VEC_SYSCALL
.endm

	/* The whole frame of a `syscall`, RDI pointing at it. */
.macro SYSCALL_FRAME
	SYSCALL_FRAME_CPU
	SAVE_GPRS
	movq %rsp, %rdi
.endm

	/*
	 * syscall: RCX = user RIP, R11 = user RFLAGS, IF masked by SFMASK.  The
	 * Ipc stub's calls are told apart first, before any register is
	 * touched, then the foreign ones (from below the stub page: every
	 * user address).  This is the LSTAR only while the boot processor
	 * alone runs threads (arch_smp_entry), so neither takes the big
	 * kernel lock.
	 */
	.align 16
	.globl syscall_entry
syscall_entry:
	.if CONFIG_FASTPATH && CONFIG_SCHED_DIRECT      /* else Ipc takes the common path */
	cmpq $USTUB_IPC_RETURN, %rcx
	je ipc_entry
	.endif
	cmpq $USTUB_BASE, %rcx
	jb foreign_entry
syscall_common:
	SYSCALL_FRAME
	call syscall_dispatch       /* returns the frame to leave through */
	LEAVE_THROUGH_RAX

	/*
	 * A foreign `syscall` goes to exception_foreign_fast with the general
	 * registers in the thread's MR2..MR16 (SAVE_GPRS_TO_MRS_REST) and RBX and
	 * R12-R15 as the thread left them (MR2, MR4-7 of the exception
	 * message: the handler gets them in place).
	 */
foreign_entry:
	SYSCALL_FRAME_CPU
	SAVE_R10_IN_FRAME
	SAVE_GPRS_TO_MRS_REST 1f
	movq %rsp, %rdi
	call exception_foreign_fast /* returns the frame to leave through */
	LEAVE_THROUGH_RAX
1:	movq TF_R10*8(%rsp), %r10     /* no handler: -ENOSYS, no MR touched */
	addq $TF_VECTOR*8, %rsp
	SAVE_GPRS
	movq %rsp, %rdi
	call foreign_syscall_slow
	LEAVE_THROUGH_RAX

	/*
	 * The boot CPU's `syscall` while several processors run threads
	 * (arch_smp_entry): the Ipc fastpath takes the big kernel lock first,
	 * on the thread's kernel stack, with the frame's RIP, RFLAGS and RSP
	 * stored (what ExchangeRegisters may read or change while we wait for
	 * the lock, parked) and MR1 in RBP (the lock's `cmpxchg` takes RAX);
	 * the other calls take it in syscall_dispatch.
	 */
	.align 16
	.globl syscall_entry_smp
syscall_entry_smp:
	.if CONFIG_FASTPATH && CONFIG_SCHED_DIRECT
	cmpq $USTUB_IPC_RETURN, %rcx
	jne syscall_common
	IPC_FRAME cpu_tss+4(%rip)
	BKL_TAKE 0
	movq %r10, TF_R10*8(%rsp)
	call ipc_fastpath
	jmp ipc_not_fast
	.else
	jmp syscall_common
	.endif

	/*
	 * `syscall` from 32-bit compatibility mode (a thread may far-jump to
	 * the 32-bit user code segment): AMD CPUs and QEMU enter here through
	 * CSTAR, Intel CPUs raise #UD.  It becomes that #UD, at the instruction,
	 * for the thread; RCX and R11 are lost as with any `syscall`.
	 */
	.align 16
	.globl syscall32_entry
syscall32_entry:
	movq %rsp, syscall_user_rsp(%rip)
	movq cpu_tss+4(%rip), %rsp
	pushq $SEL_UDATA
	pushq syscall_user_rsp(%rip)
	pushq %r11
	pushq $SEL_UCODE32
	subq $2, %rcx
	pushq %rcx
	pushq $0
	pushq $VEC_UD
	jmp trap_common

	/*
	 * Ipc: the fastpath is tried before the frame is complete.  RBP is
	 * free (every system call may change it, abi.md §2) and holds the user
	 * RSP, then MR1 (IPC_FRAME); the frame gets only RIP, RFLAGS, RSP and
	 * MR3, which C may clobber and does not get.  ipc_fastpath takes To,
	 * FromSpecifier, Timeouts and MR0 in their registers (RSI, RDX, R8,
	 * R9 are its arguments 2, 3, 5, 6); RBX, RBP and R12-R15 (MR2, MR1,
	 * MR4-7) stay live through it and pass to the partner in place.  A
	 * delivered message leaves by a tail call to ipc_exit below, with RDI
	 * the partner's UTCB pointer and RSI its From, an exception reply by one
	 * to exc_reply_exit (through exception_reply, which hands MR1 to C).
	 * ipc_fastpath returns only for the slowpath (RAX 1; it has stored RSI,
	 * RDX, R8 and R9 in the frame).  Nothing of the kernel or of the caller
	 * is left in the registers the Ipc convention clobbers: RDX and R8 hold
	 * MR0, RBP MR1.
	 */
#define TOP(word) ((word) - TF_WORDS) * 8
ipc_entry:
	IPC_FRAME cpu_tss+4(%rip)
	movq %r10, TF_R10*8(%rsp)
	call ipc_fastpath
	jmp ipc_not_fast
	/*
	 * ipc_exit(utcb, from, mr0, top, mr0, mr0): a delivered Ipc leaves
	 * from C (ipc_fast.c) straight into the partner; the registers not
	 * loaded here are the arguments' or the caller's MRs.  C reaches it
	 * by tail calls only, so RSP is where the call above left it: the
	 * caller's frame is just above.
	 */
	.globl ipc_exit
ipc_exit:
	movq %rbp, %rax
	movq TF_R10*8+8(%rsp), %r10
	movq TOP(TF_RFLAGS)(%rcx), %r11
	movq TOP(TF_RSP)(%rcx), %rsp
	movq TOP(TF_RIP)(%rcx), %rcx
	BKL_RELEASE
	sysretq
	/*
	 * A typed message: ipc_fastpath jumps here (a tail call, so RBX and
	 * RBP are the caller's MR2 and MR1 again): MR1 into the frame and MR2
	 * into ipc_fastpath_string's first argument, the others unchanged.
	 */
	.globl ipc_fastpath_typed
ipc_fastpath_typed:
	movq %rbp, TF_RAX*8+8(%rsp)
	movq %rbx, %rdi
	jmp ipc_fastpath_string
	/*
	 * An exception reply: ipc_fastpath or lipc jumps here (RBP is MR1, the
	 * faulter's new RIP, again), exception_reply_c gets it as its fourth
	 * argument, the others unchanged.
	 */
	.globl exception_reply
exception_reply:
	movq %rbp, %rcx
	jmp exception_reply_c
ipc_not_fast:
	movq user_gs_page(%rip), %rcx   /* the caller's UTCB pointer (word 0 of this CPU's %gs page) */
ipc_not_fast_utcb:
	movq %rbp, TF_RAX*8(%rsp)       /* MR1 */
	movq %rcx, TF_RDI*8(%rsp)
	movq %rbx, TF_RBX*8(%rsp)
	movq %rbp, TF_RBP*8(%rsp)
	movq %r12, TF_R12*8(%rsp)
	movq %r13, TF_R13*8(%rsp)
	movq %r14, TF_R14*8(%rsp)
	movq %r15, TF_R15*8(%rsp)
	movq TF_RIP*8(%rsp), %rcx
	movq %rcx, TF_RCX*8(%rsp)
	movq TF_RFLAGS*8(%rsp), %r11
	movq %r11, TF_R11*8(%rsp)
	movq $SEL_UDATA, TF_SS*8(%rsp)
	movq $SEL_UCODE, TF_CS*8(%rsp)
	movq $VEC_SYSCALL, TF_VECTOR*8(%rsp)
	movq $0, TF_ERROR*8(%rsp)
	movq %rsp, %rdi
	call syscall_dispatch
	movq %rax, %rsp
	jmp return_to_user_or_kernel

	/*
	 * exc_deliver_exit(tf, hf, from): the exception fastpath delivered the
	 * message of the faulting thread (its frame tf) to its handler (frame
	 * hf), never returning: the handler leaves its Ipc with MR0 the tag,
	 * MR1 the faulter's RIP, MR2-7 the faulter's RBX, R10, R12-R15 (the
	 * message's order), RSI its From.  exc_deliver_exit_live(hf, from) is
	 * reached by a tail call from the function entry.S called with RSP at
	 * tf (trap_exc, foreign_entry), so tf lies just above the return
	 * address, and RBX and R12-R15 are the faulter's still; only while the
	 * boot processor alone runs threads, so without the lock to let go.
	 * RBP is the handler's own RSP, RDX and R8 zeroed: no kernel value
	 * stays in a register.
	 */
	.globl exc_deliver_exit, exc_deliver_exit_live
exc_deliver_exit:
	movq TF_RBX*8(%rdi), %rbx
	movq TF_R12*8(%rdi), %r12
	movq TF_R13*8(%rdi), %r13
	movq TF_R14*8(%rdi), %r14
	movq TF_R15*8(%rdi), %r15
	movq TF_R10*8(%rdi), %r10
	movq TF_RIP*8(%rdi), %rax
	movq %rsi, %rdi
	movq %rdx, %rsi
	BKL_RELEASE                 /* what follows reads the frame of the handler, which runs here now */
	jmp 1f
exc_deliver_exit_live:
	movq 8+TF_R10*8(%rsp), %r10
	movq 8+TF_RIP*8(%rsp), %rax
1:	movabsq $EXC_MSG_TAG, %r9
	movq TF_RIP*8(%rdi), %rcx
	movq TF_RFLAGS*8(%rdi), %r11
	movq TF_RSP*8(%rdi), %rsp
	movq user_gs_page(%rip), %rdi
	movq %rsp, %rbp
	xorl %edx, %edx
	xorl %r8d, %r8d
	sysretq

	/*
	 * exc_reply_exit(df, mr): the fastpath delivered an exception reply;
	 * df is the faulter's frame, where C checked the reply and wrote
	 * RIP, RSP and the flags (exc_fast_reply_frame) and R10 (MR3, from
	 * the replier's frame); RAX..R11 come from the replier's MR8..MR16
	 * (mr), each word read once; RBX and R12-R15 (MR2, MR4-7) are live:
	 * it is reached by a tail call.  Always iretq, so RCX and R11 are the
	 * reply's also after a foreign syscall, where sysretq would reload
	 * them.
	 */
	.globl exc_reply_exit
exc_reply_exit:
	movq TF_R10*8(%rdi), %r10
	leaq TF_RIP*8(%rdi), %rsp
	movq 8*8(%rsi), %rax
	movq 9*8(%rsi), %rcx
	movq 10*8(%rsi), %rdx
	movq 12*8(%rsi), %rdi
	movq 13*8(%rsi), %rbp
	movq 14*8(%rsi), %r8
	movq 15*8(%rsi), %r9
	movq 16*8(%rsi), %r11
	movq 11*8(%rsi), %rsi
	BKL_RELEASE
	iretq

	/*
	 * u32 user_read2(word_t va): the two bytes at user address va in bits
	 * 0-15, or 0x10000 if reading them faults: trap_dispatch sends a
	 * kernel page fault at user_read2_insn to user_read2_fixup.
	 */
	.globl user_read2, user_read2_insn, user_read2_fixup
user_read2:
user_read2_insn:
	movzwl (%rdi), %eax
	ret
user_read2_fixup:
	movl $0x10000, %eax
	ret

	/* arch_switch_stacks(word_t *save_ksp, word_t new_ksp) */
	.globl arch_switch_stacks
arch_switch_stacks:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

	/*
	 * A continuation (context.c): the switch returns here with RBP = the
	 * thread's user trap frame and RBX = the function to run on it.
	 */
	.globl continuation_entry
continuation_entry:
	movq %rbp, %rsp
	movq %rsp, %rdi
	call *%rbx
	jmp return_to_user_or_kernel

	/*
	 * The local APIC's timer and wake-up IPI with a whole frame (they may
	 * switch threads): trap_dispatch sends them to smp_interrupt.
	 */
	.align 16
	.globl lapic_isr_timer, lapic_isr_wake
lapic_isr_timer:
	pushq $0
	pushq $0xf0
	jmp trap_common
	.align 16
lapic_isr_wake:
	pushq $0
	pushq $0xf1
	jmp trap_common

	/*
	 * `syscall` on processor k > 0 (its LSTAR; cpu.c): as syscall_entry_smp,
	 * with its own user-RSP slot and its TSS's RSP0 (through ap_rsp0[k]).
	 * Its Ipc fastpath is the second copy (ipc_fast_ap.c), whose functions
	 * find this CPU's TSS and %gs page through the lock holder's globals.
	 */
.macro AP_SYSCALL k, cs, vec, ipadj
	.if \vec == VEC_SYSCALL && CONFIG_FASTPATH && CONFIG_SCHED_DIRECT
	cmpq $USTUB_IPC_RETURN, %rcx
	je ap_ipc_\k
	.endif
	movq %rsp, ap_user_rsp+8*\k(%rip)
	movq ap_rsp0+8*\k(%rip), %rsp
	movq (%rsp), %rsp
	pushq $SEL_UDATA
	pushq ap_user_rsp+8*\k(%rip)
	pushq %r11
	pushq $\cs
	subq $\ipadj, %rcx
	pushq %rcx
	pushq $0
	pushq $\vec
	.if \vec == VEC_SYSCALL
	SAVE_GPRS
	movq %rsp, %rdi
	call syscall_dispatch
	LEAVE_THROUGH_RAX
	.else
	jmp trap_common
	.endif
.endm
.macro AP_IPC k
ap_ipc_\k:
	IPC_FRAME ap_rsp0+8*\k(%rip), 1
	BKL_TAKE \k
	movq %r10, TF_R10*8(%rsp)
	call ipc_fastpath_ap
	jmp ipc_not_fast_ap
.endm
	/* What ipc_not_fast does, with this CPU's %gs page found through arch_gs_page. */
ipc_not_fast_ap:
	movq arch_gs_page(%rip), %rcx
	movq (%rcx), %rcx
	jmp ipc_not_fast_utcb
	.globl ipc_fastpath_typed_ap, exception_reply_ap
ipc_fastpath_typed_ap:
	movq %rbp, TF_RAX*8+8(%rsp)
	movq %rbx, %rdi
	jmp ipc_fastpath_string_ap
exception_reply_ap:
	movq %rbp, %rcx
	jmp exception_reply_c_ap

	.irp k, 0, 1, 2, 3, 4, 5, 6, 7
	.if CONFIG_FASTPATH && CONFIG_SCHED_DIRECT
	.align 16
	AP_IPC \k
	.endif
	.align 16
ap_syscall_\k:
	AP_SYSCALL \k, SEL_UCODE, VEC_SYSCALL, 0
	.align 16
ap_syscall32_\k:
	AP_SYSCALL \k, SEL_UCODE32, VEC_UD, 2
	.endr

	.section .rodata
	.align 8
	.globl ap_syscall_entries, ap_syscall32_entries
ap_syscall_entries:
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7
	.quad ap_syscall_\k
	.endr
ap_syscall32_entries:
	.irp k, 0, 1, 2, 3, 4, 5, 6, 7
	.quad ap_syscall32_\k
	.endr

	.bss
	.align 8
syscall_user_rsp:  .quad 0
ap_user_rsp:       .fill 8, 8, 0

	.section .note.GNU-stack, "", @progbits
