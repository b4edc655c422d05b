// SPDX-License-Identifier: MIT
// lx's receive (l4/main.c loop): the Ipc system call with the message in
// lx's UTCB, as the L4_Ipc wrapper makes it, which also answers the short
// fast calls (l4/stub.S lx_fast_pure, lx_fast_lean) itself while they come.
//
// L4_MsgTag_t lx_wait(L4_ThreadId_t to, L4_Word_t timeouts,
//                     L4_Word_t reply_timeouts, L4_ThreadId_t *from)
//
// Sends MR0..MR7 of the UTCB to `to` (nil: none) and receives from any
// thread with `timeouts`.  A message with the exact tag of a short call
// goes to syscall_quick_pure or syscall_quick_lean (syscall/syscall.c),
// which return the call's thread and handler (RAX, RDX) or NULL: the
// message goes to lx_wait's caller as any other (stored into the UTCB, its
// sender in *from, the tag returned), to be handled the general way.  Its
// MR2..MR7 (RBX R10 R12..R15) stay in registers meanwhile, callee-saved
// ones in C but R10, kept in a slot here.  The handler runs from here with
// t and the call's arguments alone (RDI, then MR8..MR10 and MR3 as RSI RDX
// RCX R8), and its answer, MR1 = the result and MR2..MR7 as they came, goes
// out with the next receive (reply_timeouts: a send timeout of zero, the
// same receive timeout).  After a lean call, syscall_quick_lean_end says
// (RDX) QUICK_LOADED where it loaded the answer in the UTCB's MR0 and MR1
// (lx's pending reply) instead: MR2..MR7 are stored there and LX_WAIT_AGAIN
// returned (an error tag: nothing received, l4/glue.h).
// Nothing a quick call does changes what the loop checks before each
// receive (the retry list, the deadline), so the same timeouts serve.
// (The tags and QUICK_* are checked against lx.h's by syscall.c.)
	.text
	.globl lx_wait
	.p2align 4
lx_wait:
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $40, %rsp                  /* 0: from, 8: reply_timeouts, 16: MR3, 24: MR1, 32: t */
	movq %rcx, 0(%rsp)
	movq %rdx, 8(%rsp)
	movq %rsi, %r8
	movq %rdi, %rsi
	movq %gs:0, %rdi
	movq 0x00(%rdi), %r9
	movq 0x08(%rdi), %rax
	movq 0x10(%rdi), %rbx
	movq 0x18(%rdi), %r10
	movq 0x20(%rdi), %r12
	movq 0x28(%rdi), %r13
	movq 0x30(%rdi), %r14
	movq 0x38(%rdi), %r15
.Lipc:                                  /* RSI to, R8 timeouts, RDI the UTCB, the MRs loaded */
	movq $-1, %rdx                  /* from: any thread */
	call *__L4_Ipc(%rip)
	cmpq $0x4c5a0007, %r9           /* LX_PURE_LABEL, u = 7 */
	je .Lpure
	cmpq $0x4c5b000a, %r9           /* LX_LEAN_LABEL, u = 10 */
	je .Llean
.Lout:                                  /* the message as received: to the caller */
	movq %r9, 0x00(%rdi)
	movq %rax, 0x08(%rdi)
	movq %rbx, 0x10(%rdi)
	movq %r10, 0x18(%rdi)
	movq %r12, 0x20(%rdi)
	movq %r13, 0x28(%rdi)
	movq %r14, 0x30(%rdi)
	movq %r15, 0x38(%rdi)
	movq 0(%rsp), %rcx
	movq %rsi, (%rcx)
	movq %r9, %rax
.Lret:
	addq $40, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbp
	popq %rbx
	ret

.Lpure:                                 /* RSI the sender, RAX (MR1) the number */
	movq %rsi, %rbp
	movq %r10, 16(%rsp)
	movq %rax, 24(%rsp)
	movq %rax, %rdi
	call syscall_quick_pure
	testq %rax, %rax
	jz .Lpure_not
	movq %rax, %rdi
	call *%rdx
.Lanswer:                               /* RAX the result, RBP the caller */
	movq %rbp, %rsi
	movq 16(%rsp), %r10
	movq 8(%rsp), %r8
	movl $7, %r9d                   /* MR0: u = 7 */
	movq %gs:0, %rdi
	jmp .Lipc
.Lpure_not:
	movl $0x4c5a0007, %r9d
.Lnot:                                  /* R9 the tag: the message back as it came */
	movq 24(%rsp), %rax
	movq 16(%rsp), %r10
	movq %rbp, %rsi
	movq %gs:0, %rdi
	jmp .Lout

.Llean:                                 /* the same with arguments, and the end's answer */
	movq %rsi, %rbp
	movq %r10, 16(%rsp)
	movq %rax, 24(%rsp)
	movq %rax, %rdi
	call syscall_quick_lean
	testq %rax, %rax
	jz .Llean_not
	movq %rax, 32(%rsp)
	movq %rax, %rdi
	movq %rdx, %r11
	movq %gs:0, %r9
	movq 0x40(%r9), %rsi
	movq 0x48(%r9), %rdx
	movq 0x50(%r9), %rcx
	movq 16(%rsp), %r8
	call *%r11
	movq 32(%rsp), %rdi
	movq %rax, %rsi
	call syscall_quick_lean_end
	testq %rdx, %rdx                /* QUICK_DONE */
	jz .Lanswer
	movq %gs:0, %rdi                /* QUICK_LOADED: MR0, MR1 loaded already */
	movq %rbx, 0x10(%rdi)
	movq 16(%rsp), %r10
	movq %r10, 0x18(%rdi)
	movq %r12, 0x20(%rdi)
	movq %r13, 0x28(%rdi)
	movq %r14, 0x30(%rdi)
	movq %r15, 0x38(%rdi)
	movq 0(%rsp), %rcx
	movq $0, (%rcx)
	movl $0x4c578000, %eax          /* LX_WAIT_AGAIN (l4/glue.h) */
	jmp .Lret
.Llean_not:
	movl $0x4c5b000a, %r9d
	jmp .Lnot
	.section .note.GNU-stack,"",@progbits
