// SPDX-License-Identifier: MIT
// lx's receive loop for the short fast calls (l4/stub.S lx_fast_pure and
// lx_fast_lean), entered from l4/main.c's loop with one just received:
//
// struct quick_msg lx_quick(L4_MsgTag_t tag, L4_ThreadId_t from,
//                           L4_Word_t reply_timeouts)
//
// The message (tag, from, MR1..MR7 in the UTCB) goes to
// syscall_quick_pure or syscall_quick_lean (syscall/syscall.c), which
// return the call's thread and handler (RAX, RDX) or NULL: the message then
// goes back to the caller as it came (stored into the UTCB, the tag and its
// sender returned), to be handled the general way.  Its MR2..MR7
// (RBX R10 R12..R15) stay in registers meanwhile, callee-saved ones in C
// but R10, kept in a slot here.  The handler runs from here with t and the
// call's arguments alone (RDI, then MR8..MR10 and MR3 as RSI RDX RCX R8: a
// lean handler reads no others, syscall.h), and its answer, MR1 = the
// result and MR2..MR7 as they came, goes out with the next receive from
// any thread (reply_timeouts: a send timeout of zero, and none for the
// receive: lx_quick runs only while lx's has none, l4/main.c quick).  A
// message received so that is handled the same way;
// one with any other tag (or a failed Ipc's) goes back to the caller.
// After a lean call, syscall_quick_lean_end may say (RDX) QUICK_LOADED: it
// loaded the answer in the UTCB's MR0 and MR1 (lx's pending reply):
// MR2..MR7 are stored there and LX_QUICK_AGAIN returned (an error tag:
// nothing received, l4/glue.h), from nil.
// Nothing a quick call does changes what the loop checks before each
// receive (the retry list, the deadline), so the same timeouts serve.
// (The tags and QUICK_* are checked against lx.h's by syscall.c.)
	.text
	.globl lx_quick
	.p2align 4
lx_quick:
	pushq %rbx
	pushq %rbp
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $40, %rsp                  /* 8: reply_timeouts, 16: MR3, 24: MR1, 32: t */
	movq %rdx, 8(%rsp)
	movq %rdi, %r9
	movq %gs:0, %rdi
	movq 0x08(%rdi), %rax
	movq 0x10(%rdi), %rbx
	movq 0x18(%rdi), %r10
	movq 0x20(%rdi), %r12
	movq 0x28(%rdi), %r13
	movq 0x30(%rdi), %r14
	movq 0x38(%rdi), %r15
	jmp .Lgot
.Lipc:                                  /* RSI to, R8 timeouts, RDI the UTCB, the MRs loaded */
	movq $-1, %rdx                  /* from: any thread */
	call *__L4_Ipc(%rip)
.Lgot:                                  /* R9 the tag, RSI the sender, MR1..MR7 in registers */
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
	movq %rsi, %rdx
	movq %r9, %rax
.Lret:                                  /* RAX the tag, RDX the sender */
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
	xorl %edx, %edx
	movl $0x4c578000, %eax          /* LX_QUICK_AGAIN (l4/glue.h) */
	jmp .Lret
.Llean_not:
	movl $0x4c5b000a, %r9d
	jmp .Lnot
	.section .note.GNU-stack,"",@progbits
