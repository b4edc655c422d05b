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
// registers to lx as an L4 IPC of 18 words laid out as an exception message:
// MR1 RIP, MR2..MR7 RBX R10 R12..R15 (in place), MR8..MR18 RAX RCX RDX RSI
// RDI RBP R8 R9 R11 RSP RFLAGS (struct regs' order; R11's word is left as it
// is: lx takes RFLAGS), in the thread's UTCB, which is also the private stack
// for the kernel stub's call: nothing at or below the user's RSP is touched
// (red zone).  A thread redirected for a signal inside the stub reaches lx
// by a #UD whose message overwrites MR0..MR20 with its registers there; from
// lx_fast_w2 on those are no longer the user's, so the seven words changed
// from there on are also kept in MR21..MR27, and lx resumes such a thread at
// lx_fast_redo, which writes them back (l4/fast.c fast_where).  lx answers
// with MR1 = the result and MR2..MR7 = RBX R10 R12..R15 back; the rest is
// reloaded from the message words.  A reply labelled
// LX_FAST_TRAP instead makes the thread execute the #UD at lx_fast_trap, so
// that lx can answer with a whole register state (a signal handler's frame,
// rt_sigreturn, a restarted call, a new FS.base).
// lx answers the pure calls (syscall/syscall.c, syscall_fast) keeping only
// RIP, RBP and RFLAGS of the message.  A thread stopped after such an answer
// is sent to lx_fast_sync with those (RCX, RBP, R11, RFLAGS) and the
// registers it stopped with (the answer's RAX RBX R10 R12..R15); it reloads
// the rest from MR22..MR27 and brings the user's whole state to lx by the
// #UD at lx_fast_sync_ud (RIP: RCX there).
// lx_fast_pure: the short fast call, for a site whose call is pure and has
// no arguments (getpid, getuid...: syscall.h LEAN_PURE0).  It keeps every
// register the Ipc or the stub changes in MR22..MR30 (RDX RSI RDI R8 R9 RSP
// RBP RCX RFLAGS; above MR20, where no #UD writes) and sends 7 words: MR1 =
// the number (RAX), MR2..MR7 in place.  lx answers MR1 = the result and
// MR2..MR7 as they came; any other answer (a label, an error) makes it
// reload the registers and bring them to lx by the #UD at
// lx_fast_pure_sync_ud (RIP: RCX there), which is also where lx sends a
// thread stopped after its call; stopped before (from lx_fast_pure_w2 on)
// it runs on from lx_fast_pure_redo, which reloads them and starts again.
// lx_fast_lean: the same for the other lean calls (syscall.h: up to four
// arguments; umask, uname, rt_sigprocmask), which also sends RDI RSI RDX in
// MR8..MR10 (u = 10; R10 is MR3).
// lx_sigthread: the process's signal thread (docs/lx.md "Signals").  It
// reports to lx and waits for a request: MR1 = a thread of its space, MR2 =
// where to send it (lx_stub_signal); it redirects that thread with
// ExchangeRegisters and reports MR1 = the thread, MR2 = ExchangeRegisters'
// result (nil: failed), MR3 = the IP it interrupted, MR4 = its flags, MR5 =
// its old control word.  The first report (MR1 = 0) says it is ready.
// lx_sigenter: a signal handler's first instructions: the interrupted code's
// FPU/SSE state goes to the frame's FPU area (R11), the handler starts from
// the default state (MXCSR 0x1f80, as on Linux), then the handler (RCX).
// lx_sigenter_saved: the same for a signal that comes at rt_sigreturn,
// whose state lx copied from the returning frame's area.
// lx_sigreturn: rt_sigreturn's last step: the state comes back from the FPU
// area at RSP + 40, and iretq (user to user) takes RIP, RFLAGS and RSP from
// the five words at RSP, which lx wrote below that area; lx installed all
// other registers.
	.section .rodata
	.globl lx_stub_start, lx_stub_signal, lx_stub_end
	.globl lx_fast, lx_fast_redo, lx_fast_w2, lx_fast_call, lx_fast_trap, lx_stub_ipc, lx_stub_exregs, lx_sigthread
	.globl lx_fast_sync, lx_fast_sync_ud, lx_fast_pure, lx_fast_pure_w2, lx_fast_pure_call
	.globl lx_fast_pure_sync, lx_fast_pure_sync_ud, lx_fast_pure_redo, lx_fast_pure_end
	.globl lx_fast_lean, lx_fast_lean_w2, lx_fast_lean_call, lx_fast_lean_sync
	.globl lx_fast_lean_sync_ud, lx_fast_lean_redo, lx_fast_lean_end
	.globl lx_sigenter, lx_sigenter_saved, lx_sigreturn
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
lx_fast_redo:                           /* RCX = return address; RBX RBP R10 R12..R15 RFLAGS the user's */
	movq %gs:0, %r11
	movq 0xa8(%r11), %rax           /* MR8, MR10..MR12, MR14, MR15, MR17 from MR21..MR27 */
	movq %rax, 0x40(%r11)
	movq 0xb0(%r11), %rax
	movq %rax, 0x50(%r11)
	movq 0xb8(%r11), %rax
	movq %rax, 0x58(%r11)
	movq 0xc0(%r11), %rax
	movq %rax, 0x60(%r11)
	movq 0xc8(%r11), %rax
	movq %rax, 0x70(%r11)
	movq 0xd0(%r11), %rax
	movq %rax, 0x78(%r11)
	movq 0xd8(%r11), %rax
	movq %rax, 0x88(%r11)
	movq %rcx, 0x48(%r11)
	jmp lx_fast_w2
lx_fast:                                /* RAX = n, RCX = return address */
	movq %gs:0, %r11                /* P: MRi at P + 8i */
	movq %rax, 0x40(%r11)           /* MR8..MR18: struct regs' order (R11: lx's) */
	movq %rax, 0xa8(%r11)           /* MR21..MR27: what lx_fast_w2 on changes */
	movq %rcx, 0x48(%r11)
	movq %rdx, 0x50(%r11)
	movq %rdx, 0xb0(%r11)
	movq %rsi, 0x58(%r11)
	movq %rsi, 0xb8(%r11)
	movq %rdi, 0x60(%r11)
	movq %rdi, 0xc0(%r11)
	movq %rbp, 0x68(%r11)
	movq %r8, 0x70(%r11)
	movq %r8, 0xc8(%r11)
	movq %r9, 0x78(%r11)
	movq %r9, 0xd0(%r11)
	movq %rsp, 0x88(%r11)
	movq %rsp, 0xd8(%r11)
lx_fast_w2:                             /* (nothing from here to the Ipc changes the flags) */
	leaq 0x98(%r11), %rsp
	pushfq                          /* MR18 RFLAGS */
	movq %r11, %rdi                 /* the UTCB pointer */
	leaq 0x200(%r11), %rsp          /* the stub's return address goes to MR63 */
	movq %rcx, %rax                 /* MR1 RIP; MR2..MR7 are RBX R10 R12..R15 in place */
	movq -0x60(%rdi), %rsi          /* to: the Pager TCR, lx */
	movq %rsi, %rdx                 /* from: lx */
	movl $0, %r8d                   /* timeouts: never */
	movq $0x4c580012, %r9           /* MR0: label LX_FAST_LABEL, u = 18 */
lx_fast_call:
	call *lx_stub_ipc(%rip)
	testl $0x1000f000, %r9d         /* label LX_FAST_TRAP (0x1000), or a flag (error) */
	jnz lx_fast_trap
	movq 0x48(%rdi), %rcx
	movq 0x50(%rdi), %rdx
	movq 0x58(%rdi), %rsi
	movq 0x68(%rdi), %rbp
	movq 0x70(%rdi), %r8
	movq 0x78(%rdi), %r9
	movq 0x90(%rdi), %r11           /* R11 = RFLAGS, as after `syscall` */
	leaq 0x90(%rdi), %rsp
	popfq
	movq 0x88(%rdi), %rsp
	movq 0x60(%rdi), %rdi
	jmp *%rcx
lx_fast_trap:
	ud2
lx_fast_sync:                           /* all but RDX RSI RDI R8 R9 RSP: the user's */
	movq %gs:0, %rdi
	movq 0xb0(%rdi), %rdx           /* from MR22..MR27 */
	movq 0xb8(%rdi), %rsi
	movq 0xc8(%rdi), %r8
	movq 0xd0(%rdi), %r9
	movq 0xd8(%rdi), %rsp
	movq 0xc0(%rdi), %rdi
lx_fast_sync_ud:
	ud2

	/* the short fast call's stub: name, its tag, whether it sends RDI RSI RDX in MR8..MR10 */
	.macro SHORT name, tag, args
	.p2align 4
\name:                                  /* RAX = n, RCX = return address */
	movq %gs:0, %r11
	.if \args
	movq %rdi, 0x40(%r11)           /* MR8..MR10: the first three arguments (R10: MR3) */
	movq %rsi, 0x48(%r11)
	movq %rdx, 0x50(%r11)
	.endif
	movq %rdx, 0xb0(%r11)           /* MR22..MR30: what the stub and the Ipc change */
	movq %rsi, 0xb8(%r11)
	movq %rdi, 0xc0(%r11)
	movq %r8, 0xc8(%r11)
	movq %r9, 0xd0(%r11)
	movq %rsp, 0xd8(%r11)
	movq %rbp, 0xe0(%r11)
	movq %rcx, 0xe8(%r11)
\name\()_w2:                            /* (nothing from here to the Ipc changes the flags) */
	leaq 0xf8(%r11), %rsp
	pushfq                          /* MR30 RFLAGS */
	movq %r11, %rdi
	leaq 0x200(%r11), %rsp
	movq -0x60(%rdi), %rsi          /* to and from: lx */
	movq %rsi, %rdx
	movl $0, %r8d
	movq $\tag, %r9                 /* MR0; MR1 = n (RAX), MR2..MR7 in place */
\name\()_call:
	call *lx_stub_ipc(%rip)
	testl $0x1000f000, %r9d         /* a label or a flag: lx wants the state */
	jnz \name\()_sync
	movq 0xb0(%rdi), %rdx
	movq 0xb8(%rdi), %rsi
	movq 0xc8(%rdi), %r8
	movq 0xd0(%rdi), %r9
	movq 0xe0(%rdi), %rbp
	movq 0xe8(%rdi), %rcx
	movq 0xf0(%rdi), %r11           /* R11 = RFLAGS, as after `syscall` */
	leaq 0xf0(%rdi), %rsp
	popfq
	movq 0xd8(%rdi), %rsp
	movq 0xc0(%rdi), %rdi
	jmp *%rcx
\name\()_sync:                          /* RAX RBX R10 R12..R15: the answer's */
	movq %gs:0, %rdi
	movq 0xb0(%rdi), %rdx
	movq 0xb8(%rdi), %rsi
	movq 0xc8(%rdi), %r8
	movq 0xd0(%rdi), %r9
	movq 0xe0(%rdi), %rbp
	movq 0xe8(%rdi), %rcx
	movq 0xf0(%rdi), %r11
	leaq 0xf0(%rdi), %rsp
	popfq
	movq 0xd8(%rdi), %rsp
	movq 0xc0(%rdi), %rdi
\name\()_sync_ud:
	ud2
\name\()_redo:                          /* RAX RBX RBP R10 R12..R15 RFLAGS: the user's */
	movq %gs:0, %r11
	movq 0xb0(%r11), %rdx
	movq 0xb8(%r11), %rsi
	movq 0xc0(%r11), %rdi
	movq 0xc8(%r11), %r8
	movq 0xd0(%r11), %r9
	movq 0xe8(%r11), %rcx
	movq 0xd8(%r11), %rsp
	jmp \name
\name\()_end:
	.endm

	SHORT lx_fast_pure, 0x4c5a0007, 0       /* label LX_PURE_LABEL, u = 7 */
	SHORT lx_fast_lean, 0x4c5b000a, 1       /* label LX_LEAN_LABEL, u = 10 */

	.p2align 4
lx_sigthread:
	xorl %eax, %eax                 /* the first report: ready */
	xorl %ebx, %ebx
	xorl %r10d, %r10d
	xorl %r12d, %r12d
	xorl %r13d, %r13d
1:	movq %gs:0, %rdi
	leaq 0x200(%rdi), %rsp          /* the stubs' return addresses go to MR63 */
	movq -0x60(%rdi), %rsi          /* to and from: the Pager TCR, lx */
	movq %rsi, %rdx
	xorl %r8d, %r8d
	movq $0x4c590005, %r9           /* MR0: label LX_SIG_LABEL, u = 5 */
	call *lx_stub_ipc(%rip)
	testl $0xf000, %r9d
	jnz lx_sigthread                /* failed: report ready again */
	movq %rax, 0x40(%rdi)           /* the thread, kept in MR8's word */
	movq %rbx, %r8                  /* IP */
	movq $0x210, %rsi               /* control: set IP, deliver */
	call *lx_stub_exregs(%rip)
	movq %gs:0, %rdi
	movq %rax, %rbx                 /* MR2 result */
	movq %r8, %r10                  /* MR3 old IP */
	movq %r9, %r12                  /* MR4 old flags */
	movq %rsi, %r13                 /* MR5 old control */
	movq 0x40(%rdi), %rax           /* MR1 the thread */
	jmp 1b

	.p2align 4
lx_sigenter:                            /* RCX = the handler, R11 = the FPU area */
	fxsave64 (%r11)
lx_sigenter_saved:                      /* (the area holds the state already) */
	fxrstor64 lx_fpu_init(%rip)
	xorl %eax, %eax
	jmp *%rcx
lx_sigreturn:
	fxrstor64 40(%rsp)
	iretq

	.p2align 6
lx_fpu_init:                            /* FXSAVE image of the initial state */
	.word 0x037f                    /* FCW */
	.fill 22, 1, 0
	.long 0x1f80                    /* MXCSR */
	.fill 484, 1, 0

	.p2align 3
lx_stub_ipc:
	.quad 0                         /* the kernel's Ipc stub, filled in by lx */
lx_stub_exregs:
	.quad 0                         /* its ExchangeRegisters stub */
lx_stub_end:
	.section .note.GNU-stack,"",@progbits
