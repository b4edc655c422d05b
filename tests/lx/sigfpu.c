// SPDX-License-Identifier: MIT
// The FPU/SSE state across a signal handler, as Linux keeps it: the
// interrupted code's XMM registers and MXCSR come back after a handler that
// changes them, the handler starts from the default state (MXCSR 0x1f80),
// and its ucontext's fpregs show the interrupted values.  For a signal sent
// to itself (delivered when the kill call returns), for one that its handler
// sends again (delivered as the first handler returns), and for a timer
// signal while it spins with values in XMM registers.
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

static uint64_t before[32], after[32];
static uint32_t mxcsr_before = 0x7f80, mxcsr_after, mxcsr_in_handler;
static volatile int hits;
static uint64_t seen_xmm5;
static int failed;

#define CHECK(cond, ...) do { if (!(cond)) { printf("sigfpu: FAIL " __VA_ARGS__); \
	printf("\n"); failed = 1; } } while (0)

#define LOAD_XMM "movdqu 0(%%rsi), %%xmm0; movdqu 16(%%rsi), %%xmm1; movdqu 32(%%rsi), %%xmm2;" \
	"movdqu 48(%%rsi), %%xmm3; movdqu 64(%%rsi), %%xmm4; movdqu 80(%%rsi), %%xmm5;" \
	"movdqu 96(%%rsi), %%xmm6; movdqu 112(%%rsi), %%xmm7; movdqu 128(%%rsi), %%xmm8;" \
	"movdqu 144(%%rsi), %%xmm9; movdqu 160(%%rsi), %%xmm10; movdqu 176(%%rsi), %%xmm11;" \
	"movdqu 192(%%rsi), %%xmm12; movdqu 208(%%rsi), %%xmm13; movdqu 224(%%rsi), %%xmm14;" \
	"movdqu 240(%%rsi), %%xmm15;"
#define STORE_XMM "movdqu %%xmm0, 0(%%rdi); movdqu %%xmm1, 16(%%rdi); movdqu %%xmm2, 32(%%rdi);" \
	"movdqu %%xmm3, 48(%%rdi); movdqu %%xmm4, 64(%%rdi); movdqu %%xmm5, 80(%%rdi);" \
	"movdqu %%xmm6, 96(%%rdi); movdqu %%xmm7, 112(%%rdi); movdqu %%xmm8, 128(%%rdi);" \
	"movdqu %%xmm9, 144(%%rdi); movdqu %%xmm10, 160(%%rdi); movdqu %%xmm11, 176(%%rdi);" \
	"movdqu %%xmm12, 192(%%rdi); movdqu %%xmm13, 208(%%rdi); movdqu %%xmm14, 224(%%rdi);" \
	"movdqu %%xmm15, 240(%%rdi);"

static void handler(int sig, siginfo_t *si, void *ctx)
{
	(void)sig; (void)si;
	ucontext_t *uc = ctx;
	uint32_t m;
	__asm__ volatile("stmxcsr %0" : "=m"(m));
	mxcsr_in_handler = m;
	if (uc->uc_mcontext.fpregs)
		memcpy(&seen_xmm5, &uc->uc_mcontext.fpregs->_xmm[5], 8);
	static const uint64_t junk[32] = { [0 ... 31] = 0xdeaddeaddeaddeadULL };
	uint32_t other = 0x1fc0;
	__asm__ volatile(LOAD_XMM "ldmxcsr %1" : : "S"(junk), "m"(other)
			 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
			   "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	hits++;
}

/* SIGUSR2's handler sends SIGUSR2 again once: blocked now, it comes at rt_sigreturn. */
static int nested;
static void again(int sig, siginfo_t *si, void *ctx)
{
	if (nested++ == 0)
		kill(getpid(), SIGUSR2);
	handler(sig, si, ctx);
}

static void fill(void)
{
	for (int i = 0; i < 32; i++)
		before[i] = 0x0101010101010101ULL * (uint64_t)(i + 1);
	memset(after, 0, sizeof(after));
	mxcsr_after = 0;
	seen_xmm5 = 0;
}

static void compare(const char *how)
{
	CHECK(!memcmp(before, after, sizeof(before)), "%s: XMM registers changed", how);
	CHECK(mxcsr_after == mxcsr_before, "%s: MXCSR %x, wanted %x", how, mxcsr_after,
	      mxcsr_before);
	CHECK(mxcsr_in_handler == 0x1f80, "%s: the handler started with MXCSR %x", how,
	      mxcsr_in_handler);
	CHECK(seen_xmm5 == before[10], "%s: the frame's XMM5 is %llx", how,
	      (unsigned long long)seen_xmm5);
}

/* kill(self) with values in every XMM register and a non-default MXCSR. */
static void by_kill(int sig)
{
	fill();
	hits = 0;
	uint32_t dflt = 0x1f80;
	long pid = getpid();
	__asm__ volatile("ldmxcsr %[m];" LOAD_XMM
			 "movl $62, %%eax; movq %[pid], %%rdi; movl %[sig], %%esi; syscall;"
			 "leaq after(%%rip), %%rdi;" STORE_XMM
			 "stmxcsr mxcsr_after(%%rip); ldmxcsr %[d]"
			 : : "S"(before), [pid] "r"(pid), [sig] "r"(sig), [m] "m"(mxcsr_before),
			   [d] "m"(dflt)
			 : "rax", "rcx", "rdx", "rdi", "r11", "memory", "xmm0", "xmm1", "xmm2",
			   "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
			   "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	compare(sig == SIGUSR1 ? "kill" : "nested");
	CHECK(sig == SIGUSR1 || nested == 2, "nested: %d handlers ran", nested);
}

/* A timer signal while spinning with the values in XMM registers. */
static void while_running(void)
{
	fill();
	uint32_t dflt = 0x1f80;
	hits = 0;
	struct itimerval it = { .it_value = { 0, 20000 } };
	setitimer(ITIMER_REAL, &it, 0);
	__asm__ volatile("ldmxcsr %[m];" LOAD_XMM
			 "1: cmpl $0, hits(%%rip); je 1b;"
			 "leaq after(%%rip), %%rdi;" STORE_XMM
			 "stmxcsr mxcsr_after(%%rip); ldmxcsr %[d]"
			 : : "S"(before), [m] "m"(mxcsr_before), [d] "m"(dflt)
			 : "rdi", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
			   "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
			   "xmm14", "xmm15");
	compare("timer");
}

int main(void)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	sigaction(SIGUSR1, &sa, 0);
	sigaction(SIGALRM, &sa, 0);
	struct sigaction sa2 = { .sa_sigaction = again, .sa_flags = SA_SIGINFO };
	sigaction(SIGUSR2, &sa2, 0);
	by_kill(SIGUSR1);
	by_kill(SIGUSR2);
	while_running();
	printf("sigfpu: %s\n", failed ? "failed" : "all ok");
	return failed;
}
