// SPDX-License-Identifier: MIT
// System-call sites as Linux's ABI defines them, on either of lx's paths
// (docs/lx.md "The fast library path"): `mov $n,%eax; syscall` sites and a
// copy of musl's __syscall_cp_c (any number in RAX; static musl's read,
// write, close... go through it) in hand-written assembly, called twice
// (the first call traps, and lx may rewrite the site), checked for the
// registers Linux keeps (all but RAX, RCX = the return address, R11 =
// RFLAGS), the red zone below RSP, a jump straight to a site's `syscall`,
// data and errors of reads and writes, a restart after a signal handler,
// EINTR, fork (and the registers on both sides of a fork site), and the
// registers of calls that a fast timer's signals interrupt anywhere, and
// seccomp's strict mode at a getpid site (which lx answers by a short fast
// call), a signal let through by sigprocmask handled before it returns.  Prints whether the sites were rewritten; exits 0 when all holds.
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* name(u64 in[16], u64 out[32]): registers from in, the site (getpid), registers to out */
#define PROBE(name, site) \
	".globl " name "\n" \
	name ":\n" \
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n" \
	"	movq %rsi, probe_out(%rip)\n" \
	"	leaq -128(%rsp), %rcx\n"           /* the red zone: each word holds its address */ \
	"1:	movq %rcx, (%rcx)\n" \
	"	addq $8, %rcx\n" \
	"	cmpq %rsp, %rcx\n" \
	"	jb 1b\n" \
	"	movq 8(%rdi), %rbx; movq 16(%rdi), %rdx; movq 24(%rdi), %rsi\n" \
	"	movq 32(%rdi), %rbp; movq 40(%rdi), %r8; movq 48(%rdi), %r9\n" \
	"	movq 56(%rdi), %r10; movq 64(%rdi), %r12; movq 72(%rdi), %r13\n" \
	"	movq 80(%rdi), %r14; movq 88(%rdi), %r15; movq 96(%rdi), %rcx\n" \
	"	movq 104(%rdi), %r11; movq 0(%rdi), %rdi\n" \
	"	stc\n"                              /* CF set: R11 must show it */ \
	site \
	"	movq %rax, probe_rax(%rip)\n" \
	"	lahf\n"                             /* the flags' low byte, without the stack */ \
	"	movb %ah, probe_flags(%rip)\n" \
	"	movq probe_out(%rip), %rax\n" \
	"	movq %rdi, 0(%rax); movq %rbx, 8(%rax); movq %rdx, 16(%rax); movq %rsi, 24(%rax)\n" \
	"	movq %rbp, 32(%rax); movq %r8, 40(%rax); movq %r9, 48(%rax); movq %r10, 56(%rax)\n" \
	"	movq %r12, 64(%rax); movq %r13, 72(%rax); movq %r14, 80(%rax); movq %r15, 88(%rax)\n" \
	"	movq %rcx, 96(%rax); movq %r11, 104(%rax)\n" \
	"	xorl %ecx, %ecx\n"                  /* count red-zone words that changed */ \
	"	leaq -128(%rsp), %rdx\n" \
	"2:	cmpq %rdx, (%rdx)\n" \
	"	je 3f\n" \
	"	incl %ecx\n" \
	"3:	addq $8, %rdx\n" \
	"	cmpq %rsp, %rdx\n" \
	"	jb 2b\n" \
	"	movq %rcx, 112(%rax)\n" \
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n" \
	"	ret\n"

/* long site_getpid(void); long site_read(int, void *, long); probe(in, out) */
__asm__(
	".text\n"
	".globl site_getpid, site_getpid_sc, site_getuid, site_getuid_sc, site_read\n"
	"site_getpid:\n"
	"	movl $39, %eax\n"
	"site_getpid_sc:\n"
	"	syscall\n"
	"	ret\n"
	"site_getuid:\n"
	"	movl $102, %eax\n"
	"site_getuid_sc:\n"
	"	syscall\n"
	"	ret\n"
	"site_read:\n"
	"	movl $0, %eax\n"
	"	syscall\n"
	"	ret\n"
	PROBE("probe", "probe_site: movl $39, %eax\n probe_sc: syscall\n")
	PROBE("probe_fork", "movl $57, %eax\n probe_fork_sc: syscall\n")
	/* musl's __syscall_cp_c idiom: RDX and R9 are the idiom's to set */
	PROBE("probe_cp", "movl $39, %eax\n movq 8(%rsp), %r9\n movq %rcx, %rdx\n"
		  "probe_cp_sc: syscall\n")
	/* long site_cp(long n, a, b, c, d, e, f), as musl's __syscall_cp_c */
	".globl site_cp, site_cp_idiom, site_cp_mid, site_cp_sc\n"
	"site_cp:\n"
	"	movq %rdi, %rax\n"
	"	movq %r8, %r10\n"
	"	movq %rsi, %rdi\n"
	"	movq %r9, %r8\n"
	"	movq %rdx, %rsi\n"
	"site_cp_idiom:\n"
	"	movq 8(%rsp), %r9\n"
	"site_cp_mid:\n"                   /* where a thread may stop between the two */
	"	movq %rcx, %rdx\n"
	"site_cp_sc:\n"
	"	syscall\n"
	"	ret\n"
	".data\n"
	"probe_out: .quad 0\n"
	".globl probe_flags, probe_rax\n"
	"probe_flags: .quad 0\n"
	"probe_rax: .quad 0\n"
	/* looks like a site, lies in text, and never runs: lx must leave it alone */
	".section .text.decoy, \"ax\"\n"
	".globl decoy\n"
	"decoy: .byte 0xb8, 0x27, 0, 0, 0, 0x0f, 0x05\n"
	".text\n");

extern char site_getpid_sc[], site_getuid_sc[], probe_sc[], probe_cp_sc[], probe_fork_sc[],
	decoy[];
extern char site_cp_idiom[], site_cp_mid[], site_cp_sc[];
long site_cp(long n, long a, long b, long c, long d, long e, long f);
void probe_cp(const uint64_t *in, uint64_t *out);
long site_getpid(void);
long site_getuid(void);
long site_read(long fd, void *buf, long n);
void probe(const uint64_t *in, uint64_t *out);
void probe_fork(const uint64_t *in, uint64_t *out);
extern uint64_t probe_flags, probe_rax;

static int failed;

#define CHECK(cond, ...) do { if (!(cond)) { printf("fastpath: FAIL " __VA_ARGS__); \
	printf("\n"); failed = 1; } } while (0)

static int rewritten(const void *fn)
{
	const char *site = fn;
	return (unsigned char)site[0] == 0xff && site[1] == 0x24 && site[2] == 0x25;
}

static const char *const reg_name[] = { "rdi", "rbx", "rdx", "rsi", "rbp", "r8", "r9",
					"r10", "r12", "r13", "r14", "r15" };

static void fill_in(uint64_t *in, int round)
{
	for (int i = 0; i < 14; i++)
		in[i] = 0x1111111111111111ULL * (uint64_t)(i + 1) + (uint64_t)round;
}

/* What differs between a probe's registers and Linux's contract: 0 if nothing. */
static int regs_bad(const uint64_t *in, const uint64_t *out, const char *sc, unsigned skip,
		    char *why, size_t n)
{
	for (int i = 0; i < 12; i++)
		if (!(skip & (1u << i)) && out[i] != in[i])
			return snprintf(why, n, "%s %lx, wanted %lx", reg_name[i],
					(unsigned long)out[i], (unsigned long)in[i]);
	if (out[12] != (uint64_t)(sc + 2))
		return snprintf(why, n, "rcx %lx, wanted %p", (unsigned long)out[12],
				(void *)(sc + 2));
	if (((out[13] ^ probe_flags) & 0xd5) || !(out[13] & 1))
		return snprintf(why, n, "r11 %lx, flags %lx", (unsigned long)out[13],
				(unsigned long)probe_flags);
	if (out[14])
		return snprintf(why, n, "%lu red-zone words changed", (unsigned long)out[14]);
	return 0;
}

/* Registers around a probe's site (sc: its `syscall`); skip: names the site itself sets. */
static void regs(void (*fn)(const uint64_t *, uint64_t *), const char *sc, unsigned skip)
{
	for (int round = 0; round < 3; round++) {
		uint64_t in[16], out[32];
		char why[128];
		fill_in(in, round);
		memset(out, 0, sizeof(out));
		fn(in, out);
		CHECK((long)probe_rax == getpid(), "round %d: getpid %ld", round, (long)probe_rax);
		CHECK(!regs_bad(in, out, sc, skip, why, sizeof(why)), "round %d: %s", round, why);
	}
}

/*
 * A signal that an unblocking sigprocmask lets through is handled before
 * the call returns (libc's site, rewritten after the first round).
 */
static volatile int usr1;
static void on_usr1(int sig) { (void)sig; usr1++; }

static void unblock_delivers(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 3; i++) {
		usr1 = 0;
		sigprocmask(SIG_BLOCK, &s, NULL);
		kill(getpid(), SIGUSR1);
		int blocked = usr1;
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		CHECK(blocked == 0 && usr1 == 1, "round %d: SIGUSR1 handled %d times blocked, %d after",
		      i, blocked, usr1);
	}
	signal(SIGUSR1, SIG_DFL);
}

/* seccomp's strict mode kills at the (rewritten) getpid site as at any call but four. */
static void seccomp_site(void)
{
	int p[2], st = 0;
	char b = 0;
	if (pipe(p)) {
		CHECK(0, "pipe for the seccomp child");
		return;
	}
	pid_t c = fork();
	if (!c) {
		site_getpid();
		if (syscall(SYS_seccomp, 0, 0, NULL))     /* SECCOMP_SET_MODE_STRICT */
			syscall(SYS_exit, 1);
		syscall(SYS_write, p[1], "w", 1);
		site_getpid();
		syscall(SYS_exit, 2);
	}
	close(p[1]);
	CHECK(read(p[0], &b, 1) == 1 && b == 'w', "the seccomp child's write: %c", b);
	CHECK(waitpid(c, &st, 0) == c && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "seccomp strict at the getpid site: status %x", st);
	close(p[0]);
}

static volatile int ticks;
static void on_tick(int sig) { (void)sig; ticks++; }

/*
 * The getpid probe in a loop while a fast timer's handler interrupts it:
 * signals stop the thread anywhere, inside lx's fast-call stub too (before
 * its message is sent, after the answer), and every call must keep Linux's
 * register contract.
 */
static void regs_under_signals(void)
{
	struct sigaction sa = { .sa_handler = on_tick, .sa_flags = SA_RESTART };
	sigaction(SIGALRM, &sa, 0);
	struct itimerval it = { { 0, 500 }, { 0, 500 } };
	long bad = 0, n = 0;
	char why[128] = "";
	ticks = 0;
	setitimer(ITIMER_REAL, &it, 0);
	while (ticks < 300 && n < 20000000) {
		uint64_t in[16], out[32];
		fill_in(in, (int)n);
		probe(in, out);
		if ((long)probe_rax != getpid() || regs_bad(in, out, probe_sc, 0, why, sizeof(why)))
			bad++;
		n++;
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, 0);
	CHECK(ticks >= 300 && !bad, "%ld of %ld calls under %d signals broke the contract (%s)",
	      bad, n, ticks, why);
}

/* fork from a site (rewritten after its first call): both sides keep the registers. */
static void fork_regs(void)
{
	for (int round = 0; round < 2; round++) {
		uint64_t in[16], out[32];
		char why[128];
		fill_in(in, round);
		probe_fork(in, out);
		long pid = (long)probe_rax;
		if (pid == 0)
			_exit(regs_bad(in, out, probe_fork_sc, 0, why, sizeof(why)) ? 1 : 0);
		int st = -1;
		CHECK(pid > 0 && waitpid((pid_t)pid, &st, 0) == pid && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0, "fork site round %d: child %ld, status %x", round, pid, st);
		CHECK(!regs_bad(in, out, probe_fork_sc, 0, why, sizeof(why)),
		      "fork site round %d, the parent: %s", round, why);
	}
}

static volatile int alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

static long read_cp(long fd, void *buf, long n)
{
	return site_cp(0, fd, (long)buf, n, 0, 0, 0);
}

/* A read through a site, blocked in lx when SIGALRM comes; the writer child comes later. */
static long read_with_alarm(long (*rd)(long, void *, long), int restart)
{
	int p[2];
	char c = 0;
	if (pipe(p))
		return -1000;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = restart ? SA_RESTART : 0 };
	sigaction(SIGALRM, &sa, 0);
	pid_t w = fork();
	if (!w) {
		usleep(600000);
		write(p[1], "x", 1);
		_exit(0);
	}
	alarms = 0;
	struct itimerval it = { .it_value = { 0, 100000 } };
	setitimer(ITIMER_REAL, &it, 0);
	long r = rd(p[0], &c, 1);
	waitpid(w, 0, 0);
	close(p[0]);
	close(p[1]);
	return r == 1 && c != 'x' ? -2000 : r;
}

/*
 * The musl idiom's site with several numbers (RAX differs from call to call):
 * reads and writes of a pipe, byte for byte, and their errors.
 */
static void cp_site(void)
{
	for (int i = 0; i < 2; i++)
		CHECK(site_cp(39, 0, 0, 0, 0, 0, 0) == getpid(), "cp site: getpid %d", i);
	printf("fastpath: cp site %s\n", rewritten(site_cp_idiom) ? "rewritten" : "original");
	CHECK(site_cp(110, 0, 0, 0, 0, 0, 0) == getppid(), "cp site: getppid");
	int p[2];
	CHECK(!pipe(p), "pipe");
	char out[300], in[300];
	for (int n = 1; n <= 256; n += 51) {
		for (int i = 0; i < n; i++)
			out[i] = (char)(n * 7 + i * 13);
		memset(in, 0, sizeof(in));
		long w = site_cp(1, p[1], (long)out, n, 0, 0, 0);
		long r = site_cp(0, p[0], (long)in, sizeof(in), 0, 0, 0);
		CHECK(w == n && r == n && !memcmp(in, out, (size_t)n), "cp site: %d bytes: wrote %ld, "
		      "read %ld", n, w, r);
	}
	CHECK(site_cp(0, -1, (long)in, 1, 0, 0, 0) == -EBADF, "cp site: read of fd -1");
	CHECK(site_cp(1, p[0], (long)out, 1, 0, 0, 0) == -EBADF, "cp site: write to a read end");
	CHECK(site_cp(1, p[1], 8, 1, 0, 0, 0) == -EFAULT, "cp site: write from address 8");
	CHECK(site_cp(3, p[1], 0, 0, 0, 0, 0) == 0, "cp site: close");
	CHECK(site_cp(0, p[0], (long)in, 1, 0, 0, 0) == 0, "cp site: read at end of file");
	CHECK(site_cp(3, p[0], 0, 0, 0, 0, 0) == 0 && site_cp(3, p[0], 0, 0, 0, 0, 0) == -EBADF,
	      "cp site: close twice");
	/* resuming between the idiom's two moves, as a thread stopped there would */
	long r, d;
	__asm__ volatile("subq $128, %%rsp; leaq 1f(%%rip), %%rcx; pushq %%rcx; movl $39, %%eax;"
			 "jmp site_cp_mid; 1: addq $128, %%rsp"
			 : "=a"(r), "=d"(d) : : "rcx", "r8", "r9", "r10", "r11", "memory");
	CHECK(r == getpid() && d != 0, "cp site entered between its moves: %ld, rdx %lx", r,
	      (unsigned long)d);
}

int main(void)
{
	for (int i = 0; i < 2; i++)
		CHECK(site_getpid() == getpid(), "call %d of the getpid site", i);
	printf("fastpath: site %s\n", rewritten(site_getpid) ? "rewritten" : "original");
	regs(probe, probe_sc, 0);
	regs(probe_cp, probe_cp_sc, 1u << 2 | 1u << 6);     /* the idiom sets rdx and r9 */
	fork_regs();
	regs_under_signals();
	/* a jump to a rewritten site's `syscall`: RAX as the jumper set it */
	long r;
	__asm__ volatile("subq $128, %%rsp; leaq 1f(%%rip), %%rcx; pushq %%rcx; movl $102, %%eax;"
			 "jmp site_getpid_sc; 1: addq $128, %%rsp"
			 : "=a"(r) : : "rcx", "r11", "memory");
	CHECK(r == 0, "jump into the getpid site with getuid's number: %ld", r);
	/* the same into a site never run from its start: it stays as it is */
	__asm__ volatile("subq $128, %%rsp; leaq 1f(%%rip), %%rcx; pushq %%rcx; movl $39, %%eax;"
			 "jmp site_getuid_sc; 1: addq $128, %%rsp"
			 : "=a"(r) : : "rcx", "r11", "memory");
	CHECK(r == getpid(), "jump into the getuid site with getpid's number: %ld", r);
	CHECK(!rewritten(site_getuid), "the getuid site changed though its mov never ran");
	CHECK(site_getuid() == 0 && site_getuid() == 0, "the getuid site from its start");
	CHECK(decoy[0] == (char)0xb8 && decoy[5] == 0x0f, "text that never ran was rewritten");
	int p[2];
	char c2;
	CHECK(!pipe(p) && write(p[1], "y", 1) == 1 && site_read(p[0], &c2, 1) == 1 && c2 == 'y',
	      "a read through the read site");
	cp_site();                      /* (rewrites the cp site before its restarts below) */
	for (int i = 0; i < 2; i++) {
		long (*rd)(long, void *, long) = i ? read_cp : site_read;
		r = read_with_alarm(rd, 1);
		CHECK(r == 1 && alarms == 1, "SA_RESTART read %d: %ld, %d alarms", i, r, alarms);
		r = read_with_alarm(rd, 0);
		CHECK(r == -EINTR && alarms == 1, "read %d without SA_RESTART: %ld, %d alarms", i, r,
		      alarms);
	}
	pid_t c = fork();
	if (!c)
		_exit(site_getpid() == getpid() && site_getpid() == getpid() ? 0 : 1);
	int st;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child's getpid site: status %x", st);
	CHECK(site_getpid() == getpid(), "the parent's site after fork");
	seccomp_site();
	unblock_delivers();
	printf("fastpath: %s\n", failed ? "failed" : "all ok");
	return failed;
}
