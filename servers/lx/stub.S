// SPDX-License-Identifier: MIT
// The stub lx maps read-only at LX_STUB_PAGE in every process (copied there
// from lx's own image, so it is position independent), and a second time at
// LX_FAST_BASE in processes with a fast-path area (docs/lx.md).
//
// lx_stub_start: a new thread starts here: it makes its pager (lx) its
// exception handler, then asks lx for its registers with a private system
// call, whose answer replaces them all.
// lx_stub_signal: where a running thread is redirected (ExchangeRegisters)
// to have a signal delivered: the #UD there reaches lx with every register.
// lx_fast: the fast library path.  A rewritten `mov $n,%eax; syscall` site
// jumps (no stack) to its trampoline, which sets EAX = n and RCX = the
// return address, as `syscall` would, and jumps here.  This sends the
// registers to lx as an L4 IPC in the exception message's layout (MR1..MR18),
// with the thread's UTCB as scratch and as a private stack for the kernel
// stub's call, so nothing at or below the user's RSP is touched (red zone).
// lx answers with MR1 = the result and MR2..MR7 = RBX R10 R12..R15 back;
// everything else is reloaded from the UTCB.  A reply labelled
// LX_FAST_TRAP instead makes the thread execute the #UD at lx_fast_trap, so
// that lx can answer with a whole register state (a signal handler's frame,
// rt_sigreturn, a restarted call, a new FS.base).
	.section .rodata
	.globl lx_stub_start, lx_stub_signal, lx_stub_end
	.globl lx_fast, lx_fast_call, lx_fast_trap, lx_fast_ipc
	.p2align 6
lx_stub_start:
	movq %gs:0, %rax
	movq -0x60(%rax), %rcx          /* Pager TCR */
	movq %rcx, -0x58(%rax)          /* ExceptionHandler TCR */
	movl $0x4c580001, %eax          /* LX_SYS_START */
	syscall
	ud2
	.p2align 6
lx_stub_signal:
	ud2

	.p2align 4
lx_fast:                                /* RAX = n, RCX = return address */
	movq %rsp, %r11
	movq %gs:0, %rsp                /* P: MRi at P + 8i */
	movq %r11, 0x88(%rsp)           /* MR17 RSP */
	movq %rcx, 0x48(%rsp)           /* MR9 RCX */
	movq %rax, 0x40(%rsp)           /* MR8 RAX */
	leaq 0x98(%rsp), %rsp
	pushfq                          /* MR18 RFLAGS */
	leaq -0x90(%rsp), %rax          /* P (lea leaves the flags alone) */
	movq 0x90(%rax), %r11
	movq %r11, 0x80(%rax)           /* MR16 R11 = RFLAGS, as after `syscall` */
	movq %rdx, 0x50(%rax)           /* MR10..MR15 RDX RSI RDI RBP R8 R9 */
	movq %rsi, 0x58(%rax)
	movq %rdi, 0x60(%rax)
	movq %rbp, 0x68(%rax)
	movq %r8, 0x70(%rax)
	movq %r9, 0x78(%rax)
	movq %rax, %rdi                 /* the UTCB pointer */
	leaq 0x200(%rax), %rsp          /* the stub's return address goes to MR63 */
	movq %rcx, %rax                 /* MR1 RIP; MR2..MR7 are RBX R10 R12..R15 in place */
	movq -0x60(%rdi), %rsi          /* to: the Pager TCR, lx */
	movq %rsi, %rdx                 /* from: lx */
	xorl %r8d, %r8d                 /* timeouts: never */
	movq $0x4c580012, %r9           /* MR0: label LX_FAST_LABEL, u = 18 */
lx_fast_call:
	call *lx_fast_ipc(%rip)
	testl $0x1000f000, %r9d         /* label LX_FAST_TRAP (0x1000), or a flag (error) */
	jnz lx_fast_trap
	movq 0x48(%rdi), %rcx
	movq 0x50(%rdi), %rdx
	movq 0x58(%rdi), %rsi
	movq 0x68(%rdi), %rbp
	movq 0x70(%rdi), %r8
	movq 0x78(%rdi), %r9
	movq 0x80(%rdi), %r11
	leaq 0x90(%rdi), %rsp
	popfq
	movq 0x88(%rdi), %rsp
	movq 0x60(%rdi), %rdi
	jmp *%rcx
lx_fast_trap:
	ud2
	.p2align 3
lx_fast_ipc:
	.quad 0                         /* the kernel's Ipc stub, filled in by lx */
lx_stub_end:
	.section .note.GNU-stack,"",@progbits
