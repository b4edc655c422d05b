// SPDX-License-Identifier: MIT
// The stub lx maps read-only at LX_STUB_PAGE in every process (copied there
// from lx's own image, so it is position independent).  A new thread starts
// at lx_stub_start: it makes its pager (lx) its exception handler, then asks
// lx for its registers with a private system call, whose answer replaces
// them all.  lx_stub_signal is where lx redirects a running thread
// (ExchangeRegisters) to have a signal delivered: the #UD there reaches lx
// with every register intact.
	.section .rodata
	.globl lx_stub_start, lx_stub_signal, lx_stub_end
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
lx_stub_end:
	.section .note.GNU-stack,"",@progbits
