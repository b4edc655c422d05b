// SPDX-License-Identifier: MIT
// A hostile Linux process under lx (issue: isolation).  It knows Pecan's L4
// interface and tries, as an unprivileged user, to reach past lx: sigma0's
// memory, ports and debug extension, the console and timer drivers, lx's
// own threads, another process's threads, privileged system calls, forged
// exception messages, rewritten Pager and ExceptionHandler TCRs, the
// kernel debugger.  Each attempt runs in a child; the parent checks how the
// child ended against what lx's trust model promises (docs/lx.md): a
// message outside lx's protocol kills the sender with SIGSYS, a privileged
// call fails with an L4 error, a rewritten TCR reaches only lx.
// Under lx only: on Linux the first L4 instruction is SIGILL.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../lib/l4/l4.h"

static int fails;
static L4_ThreadId_t lx, victim;         /* lx's main thread; another process's thread */
static char untouched[3 * 4096] __attribute__((aligned(4096)));

#define SIGMA0        l4_global_id(48, 1)
#define LX_THREAD(n)  l4_global_id(l4_thread_no(lx) + (n), 1)
#define SIGMA0_LABEL  ((L4_Word_t)-6 << 4 & 0xffffffffffffUL)
#define SIGMA0_DEBUG  ((L4_Word_t)-1001 << 4 & 0xffffffffffffUL)

/* How an IPC that came back ends the child: 3 it failed (an error), 7 it went through. */
static void came_back(L4_MsgTag_t tag)
{
	printf("hostile: the IPC came back (tag %lx, ErrorCode %lx)\n", tag, L4_ErrorCode());
	exit(L4_IpcFailed(tag) ? 3 : 7);
}

/* A Call of label with two words to dest. */
static void call(L4_ThreadId_t dest, L4_Word_t label, L4_Word_t w1, L4_Word_t w2)
{
	L4_SetMR(0, L4_TAG_MAKE(label, 2, 0));
	L4_SetMR(1, w1);
	L4_SetMR(2, w2);
	came_back(L4_Call(dest));
}

static void to_sigma0_memory(void) { call(SIGMA0, SIGMA0_LABEL, L4_FPAGE_MAKE(0, 12, 7), 0); }
static void to_sigma0_ports(void) { call(SIGMA0, SIGMA0_LABEL, L4_IO_FPAGE(0xf4, 2, 7), 0); }
static void to_sigma0_debug(void) { call(SIGMA0, SIGMA0_DEBUG, 0, 0); }
static void to_console(void) { call(LX_THREAD(1), 1, 0, 0); }
static void to_timer(void) { call(LX_THREAD(2), 1, 1000, 0); }
static void to_tty_reader(void) { call(LX_THREAD(3), 0, 0, 0); }
static void to_clock(void) { call(LX_THREAD(4), 0, 0, 0); }
static void to_far_thread(void) { call(l4_global_id(1000, 1), 0, 0, 0); }
static void to_other_process(void) { call(victim, 0, 0, 0); }
static void to_lx_bad_label(void) { call(lx, 0x1234, 0, 0); }

/*
 * A string item from an untouched page, to the console driver: redirected to
 * lx, whose receive takes no strings, so the send fails; the driver never
 * sees it (it used to sit in the copy for good, and lx and everyone with it).
 */
static void string_to_console(void)
{
	L4_SetMR(0, L4_TAG_MAKE(2, 0, 2));
	L4_SetMR(1, 4096UL << 10);                       /* simple string item, 4 KiB */
	L4_SetMR(2, (L4_Word_t)&untouched[4096]);
	came_back(L4_Send(LX_THREAD(1)));
}

/* Send a message in lx's own page-fault format, but not from the kernel and sent on
 * behalf of nobody: lx takes it as the fault it looks like (the process's own memory). */
static void propagated_to_lx(void)
{
	L4_SetTcr(UTCB_VIRTUAL_SENDER, L4_MyGlobalId());
	L4_SetMR(0, L4_TAG_MAKE(L4_LABEL_PAGEFAULT | 4, 2, 0) | L4_TAG_PROPAGATE);
	L4_SetMR(1, (L4_Word_t)untouched);
	L4_SetMR(2, 0);
	L4_Call(lx);
	exit(3);
}

/* Privileged calls: each must fail with an error, and the child goes on. */
static void privileged(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	struct L4_ExRegs r = { .control = L4_EXREG_SET_IP, .ip = 0 };
	int bad = 0;
	if (L4_ThreadControl(l4_global_id(1500, 1), me, me, me, ~0UL) || L4_ErrorCode() != 1)
		bad |= 1;
	if (L4_SpaceControl(me, 0, 0, 0, L4_ANYTHREAD, 0) || L4_ErrorCode() != 1)
		bad |= 2;
	if (pecan_exregs(victim, &r) != L4_NILTHREAD)
		bad |= 4;
	exit(bad);
}

/*
 * Pager TCR rewritten to the console driver: the fault still reaches lx,
 * which serves it.  (lx's fast call path also finds lx through that TCR, so
 * the TCR is put back before the next system call.)
 */
static void pager_rewritten(void)
{
	L4_SetTcr(UTCB_PAGER, LX_THREAD(1));
	untouched[0] = 42;
	L4_SetTcr(UTCB_PAGER, lx);
	exit(untouched[0] == 42 ? 0 : 3);
}

/* ExceptionHandler TCR rewritten to sigma0, then an int3: lx's SIGTRAP, not sigma0. */
static void handler_rewritten(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, SIGMA0);
	__asm__ volatile("int3");
	exit(3);
}

/* The kernel debugger's PrintString marker after int3: a strictly confined space gets SIGTRAP. */
static void kdb_print(void)
{
	static const char msg[] = "hostile: printed through the kernel debugger\n";
	__asm__ volatile("int3; cmpb $0x01, %%al" : : "a"(msg) : "memory");
	exit(3);
}

/*
 * A forged exception message, sent without waiting for the answer: "read(fd,
 * buf, 1), then go on at landed()".  Then a real read that blocks.  lx takes
 * the first (the thread ran its own code), drops the second (the thread
 * waits in lx already); when the parent writes a byte, the one answer brings
 * the thread to landed().  Before lx checked states, the thread sat on lx's
 * blocked list twice and lx hung for good.
 */
static int forged_fd;
static char forged_buf[8];
static char landing_stack[16384] __attribute__((aligned(16)));

static void landed(void)
{
	_exit(forged_buf[0] == 'x' ? 0 : 4);
}

static void forged_exception(void)
{
	L4_Word_t *mr = L4_Utcb();
	memset(mr, 0, 21 * 8);
	mr[0] = L4_TAG_MAKE(L4_LABEL_EXCEPTION, 19, 0);
	mr[1] = (L4_Word_t)landed;                                  /* rip */
	mr[8] = 0;                                                  /* rax: read */
	mr[12] = (L4_Word_t)forged_fd;                              /* rdi */
	mr[11] = (L4_Word_t)forged_buf;                             /* rsi */
	mr[10] = 1;                                                 /* rdx */
	mr[17] = (L4_Word_t)(landing_stack + sizeof(landing_stack) - 8);   /* rsp */
	mr[18] = 0x202;                                             /* rflags */
	mr[19] = PECAN_VEC_SYSCALL;
	L4_Send_Timeout(lx, L4_TIMEOUT_ZERO);
	/* dropped: waits in lx.  A trapping `syscall` (this site runs once, so lx
	 * never rewrites it), whose exception reply can carry landed()'s state;
	 * musl's read() may be a rewritten fast-path site, whose answer cannot */
	char c;
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(0L), "D"((long)forged_fd), "S"(&c), "d"(1L)
			 : "rcx", "r11", "memory");
	(void)r;
	_exit(5);
}

struct attack {
	const char *name;
	void (*fn)(void);
	int sig;                /* the signal the child must die of, or 0 */
	int status;             /* else its exit status */
};

static const struct attack attacks[] = {
	{ "sigma0 memory (page 0)", to_sigma0_memory, SIGSYS, 0 },
	{ "sigma0 I/O ports (isa-debug-exit)", to_sigma0_ports, SIGSYS, 0 },
	{ "sigma0 debug extension -1001", to_sigma0_debug, SIGSYS, 0 },
	{ "console driver", to_console, SIGSYS, 0 },
	{ "timer service", to_timer, SIGSYS, 0 },
	{ "lx's console reader", to_tty_reader, SIGSYS, 0 },
	{ "lx's clock thread", to_clock, SIGSYS, 0 },
	{ "a thread that does not exist", to_far_thread, 0, 3 },
	{ "another process's thread", to_other_process, SIGSYS, 0 },
	{ "lx with a label of no protocol", to_lx_bad_label, SIGSYS, 0 },
	{ "string item from an untouched page to the console", string_to_console, 0, 3 },
	{ "propagated page fault to lx", propagated_to_lx, SIGSYS, 0 },
	{ "ThreadControl, SpaceControl, ExchangeRegisters", privileged, 0, 0 },
	{ "Pager TCR names the console driver", pager_rewritten, 0, 0 },
	{ "ExceptionHandler TCR names sigma0", handler_rewritten, SIGTRAP, 0 },
	{ "kernel debugger PrintString", kdb_print, SIGTRAP, 0 },
};

static void run_attack(const struct attack *a)
{
	pid_t pid = fork();
	if (pid == 0) {
		a->fn();
		_exit(6);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	int ok = a->sig ? WIFSIGNALED(st) && WTERMSIG(st) == a->sig
			: WIFEXITED(st) && WEXITSTATUS(st) == a->status;
	printf("%s %s: wait status %#x\n", ok ? "ok" : "FAIL", a->name, st);
	fails += !ok;
}

static void run_forged(void)
{
	int p[2];
	pipe(p);
	forged_fd = p[0];
	pid_t pid = fork();
	if (pid == 0) {
		close(p[1]);
		forged_exception();
	}
	close(p[0]);
	sleep(1);                       /* it has sent both messages and waits */
	write(p[1], "x", 1);
	int st = 0;
	alarm(20);                      /* a hung lx would never answer anyone: SIGALRM ends us */
	waitpid(pid, &st, 0);
	alarm(0);
	int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	printf("%s forged exception then a real call: one answer (wait status %#x)\n", ok ? "ok" : "FAIL", st);
	fails += !ok;
	close(p[1]);
}

int main(void)
{
	__l4_init();
	lx = L4_Tcr(UTCB_PAGER);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (setuid(65534))
		printf("hostile: setuid(65534) failed; attacking as uid %d\n", getuid());
	int sync[2];
	pipe(sync);
	pid_t w = fork();
	if (w == 0) {                   /* the victim: another process, which tells us its thread */
		L4_ThreadId_t me = L4_MyGlobalId();
		write(sync[1], &me, sizeof(me));
		for (;;)
			pause();
	}
	read(sync[0], &victim, sizeof(victim));
	for (unsigned i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++)
		run_attack(&attacks[i]);
	run_forged();
	kill(w, SIGKILL);
	while (wait(NULL) > 0)
		;
	printf("hostile done, %d failed\n", fails);
	return fails != 0;
}
