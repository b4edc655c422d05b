// SPDX-License-Identifier: MIT
// Signals as Linux queues them: real-time signals queue with their values
// and come in order, standard ones coalesce; the siginfo of kill, tgkill,
// sigqueue, SIGCHLD, waitid and faults; sigtimedwait; sigaltstack's
// argument checks; PR_SET_PDEATHSIG; no core bit with RLIMIT_CORE 0.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "sigqueue done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define PAGE 4096

static struct { int sig, code, pid, uid, value; } got[16];
static volatile int ngot;

static void record(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (ngot < 16)
		got[ngot] = (typeof(got[0])){ sig, si->si_code, si->si_pid, (int)si->si_uid,
					       si->si_value.sival_int };
	ngot++;
}

static void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa = { .sa_sigaction = fn, .sa_flags = SA_SIGINFO | flags };
	sigfillset(&sa.sa_mask);                 /* one handler at a time, as lx delivers them */
	sigaction(sig, &sa, NULL);
}

static void block(int sig, int how)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(how, &s, NULL);
}

static void queued_and_coalesced(void)
{
	on(SIGRTMIN, record, 0);
	on(SIGUSR1, record, 0);
	block(SIGRTMIN, SIG_BLOCK);
	for (int i = 1; i <= 5; i++)
		sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = i * 10 });
	ngot = 0;
	block(SIGRTMIN, SIG_UNBLOCK);
	check("rt_five_sends_five_deliveries", ngot, 5, 0);
	int order = 1;
	for (int i = 0; i < 5; i++)
		order &= got[i].value == (i + 1) * 10 && got[i].code == SI_QUEUE &&
			 got[i].pid == getpid() && got[i].uid == (int)getuid();
	check("rt_values_in_order_si_queue", order, 1, 0);

	block(SIGUSR1, SIG_BLOCK);
	for (int i = 0; i < 3; i++)
		kill(getpid(), SIGUSR1);
	ngot = 0;
	block(SIGUSR1, SIG_UNBLOCK);
	check("standard_three_sends_one_delivery", ngot, 1, 0);
	check("kill_si_user_pid_uid", got[0].code == SI_USER && got[0].pid == getpid() &&
	      got[0].uid == (int)getuid(), 1, 0);

	sigset_t all;
	sigfillset(&all);
	sigset_t old;
	sigprocmask(SIG_BLOCK, &all, &old);
	on(SIGRTMIN + 1, record, 0);
	on(SIGUSR2, record, 0);
	sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 7 });
	sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 8 });
	kill(getpid(), SIGUSR2);
	ngot = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	check("lowest_number_first", ngot == 3 && got[0].sig == SIGUSR2 && got[1].sig == SIGRTMIN &&
	      got[2].sig == SIGRTMIN + 1, 1, 0);

	ngot = 0;
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
	check("tgkill_si_tkill", ngot == 1 && got[0].code == SI_TKILL && got[0].pid == getpid(), 1, 0);
}

static void queueinfo_checks(void)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_code = SI_USER;                    /* posing as kill: only to oneself */
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	check("sigqueueinfo_si_user_other_eperm", syscall(SYS_rt_sigqueueinfo, pid, SIGUSR1, &si), -1,
	      EPERM);
	si.si_code = SI_QUEUE;
	si.si_value.sival_int = 99;
	check("sigqueueinfo_no_such_esrch", syscall(SYS_rt_sigqueueinfo, 0x3ffffff0, SIGUSR1, &si), -1,
	      ESRCH);
	check("sigqueueinfo_bad_pointer_efault", syscall(SYS_rt_sigqueueinfo, pid, SIGUSR1, (void *)8),
	      -1, EFAULT);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	check("tgsigqueueinfo_bad_tid_einval", syscall(SYS_rt_tgsigqueueinfo, getpid(), 0, SIGUSR1, &si),
	      -1, EINVAL);
	ngot = 0;
	si.si_pid = getpid();
	si.si_uid = getuid();
	check("tgsigqueueinfo_self", syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid),
					      SIGRTMIN, &si), 0, 0);
	check("tgsigqueueinfo_value", ngot == 1 && got[0].value == 99 && got[0].code == SI_QUEUE, 1, 0);
}

static void sigwait_and_sigchld(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	sigaddset(&s, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &s, NULL);
	siginfo_t si;
	struct timespec zero = { 0, 0 }, bad = { 0, 1000000000 }, five = { 5, 0 };
	check("sigtimedwait_nothing_eagain", sigtimedwait(&s, &si, &zero), -1, EAGAIN);
	check("sigtimedwait_bad_timeout_einval", sigtimedwait(&s, &si, &bad), -1, EINVAL);
	sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 1 });
	sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 2 });
	int a = sigtimedwait(&s, &si, &zero), av = si.si_value.sival_int;
	int b = sigwaitinfo(&s, &si), bv = si.si_value.sival_int;
	check("sigwaitinfo_takes_queued_in_order", a == SIGRTMIN && av == 1 && b == SIGRTMIN && bv == 2,
	      1, 0);

	pid_t pid = fork();
	if (pid == 0)
		_exit(3);
	memset(&si, 0, sizeof(si));
	check("sigchld_waited", sigtimedwait(&s, &si, &five), SIGCHLD, 0);
	check("sigchld_cld_exited", si.si_code == CLD_EXITED && si.si_pid == pid && si.si_status == 3 &&
	      si.si_uid == getuid(), 1, 0);
	waitpid(pid, NULL, 0);
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	kill(pid, SIGTERM);
	memset(&si, 0, sizeof(si));
	sigtimedwait(&s, &si, &five);
	check("sigchld_cld_killed", si.si_code == CLD_KILLED && si.si_pid == pid &&
	      si.si_status == SIGTERM, 1, 0);

	memset(&si, 0, sizeof(si));
	check("waitid_wnowait", waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0, 0);
	check("waitid_info", si.si_signo == SIGCHLD && si.si_code == CLD_KILLED && si.si_pid == pid &&
	      si.si_status == SIGTERM, 1, 0);
	memset(&si, 0, sizeof(si));
	check("waitid_again_reaps", waitid(P_ALL, 0, &si, WEXITED), 0, 0);
	check("waitid_same_child", si.si_pid, pid, 0);
	check("waitid_no_options_einval", waitid(P_ALL, 0, &si, 0), -1, EINVAL);
	check("waitid_no_child_echild", waitid(P_ALL, 0, &si, WEXITED), -1, ECHILD);
	pid = fork();
	if (pid == 0) {
		usleep(300000);
		_exit(0);
	}
	si.si_pid = 123;
	check("waitid_wnohang_running", waitid(P_PID, pid, &si, WEXITED | WNOHANG), 0, 0);
	check("waitid_wnohang_pid_zero", si.si_pid, 0, 0);
	waitpid(pid, NULL, 0);
	sigtimedwait(&s, &si, &zero);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
}

static sigjmp_buf jb;
static siginfo_t fault;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	fault = *si;
	siglongjmp(jb, 1);
}

extern char ud2_here[];

static void faults(void)
{
	on(SIGSEGV, on_fault, SA_NODEFER);
	on(SIGBUS, on_fault, SA_NODEFER);
	on(SIGILL, on_fault, SA_NODEFER);
	on(SIGFPE, on_fault, SA_NODEFER);
	on(SIGTRAP, on_fault, SA_NODEFER);
	char *none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(none, PAGE);
	if (!sigsetjmp(jb, 1))
		*(volatile char *)(none + 5) = 1;
	check("segv_maperr", fault.si_signo == SIGSEGV && fault.si_code == SEGV_MAPERR &&
	      fault.si_addr == none + 5, 1, 0);
	char *ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!sigsetjmp(jb, 1))
		*(volatile char *)(ro + 9) = 1;
	check("segv_accerr", fault.si_code == SEGV_ACCERR && fault.si_addr == ro + 9, 1, 0);
	int fd = open("/tmp/sigqueue.bus", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ftruncate(fd, 10);
	char *f = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (!sigsetjmp(jb, 1))
		(void)*(volatile char *)(f + PAGE + 3);
	check("sigbus_adrerr", fault.si_signo == SIGBUS && fault.si_code == BUS_ADRERR &&
	      fault.si_addr == f + PAGE + 3, 1, 0);
	close(fd);
	unlink("/tmp/sigqueue.bus");
	if (!sigsetjmp(jb, 1))
		__asm__ volatile("ud2_here: ud2");
	check("sigill_illopn_at_insn", fault.si_signo == SIGILL && fault.si_code == ILL_ILLOPN &&
	      fault.si_addr == (void *)ud2_here, 1, 0);
	volatile int zero = 0, x = 1;
	if (!sigsetjmp(jb, 1))
		x = x / zero;
	check("sigfpe_intdiv", fault.si_signo == SIGFPE && fault.si_code == FPE_INTDIV, 1, 0);
	if (!sigsetjmp(jb, 1))
		__asm__ volatile("int3");
	check("sigtrap_int3_si_kernel", fault.si_signo == SIGTRAP && fault.si_code == SI_KERNEL, 1, 0);
}

static void altstack(void)
{
	static char mem[65536];
	stack_t ss = { .ss_sp = mem, .ss_size = 1024 };
	check("sigaltstack_small_enomem", sigaltstack(&ss, NULL), -1, ENOMEM);
	ss.ss_flags = SS_DISABLE | SS_ONSTACK;
	ss.ss_size = sizeof(mem);
	check("sigaltstack_two_modes_einval", sigaltstack(&ss, NULL), -1, EINVAL);
	ss.ss_flags = 4;
	check("sigaltstack_unknown_flag_einval", sigaltstack(&ss, NULL), -1, EINVAL);
	ss.ss_flags = 0;
	check("sigaltstack_set", sigaltstack(&ss, NULL), 0, 0);
	stack_t old;
	ss.ss_flags = SS_DISABLE;
	ss.ss_size = 0;
	check("sigaltstack_disable_any_size", sigaltstack(&ss, &old), 0, 0);
	check("sigaltstack_old", old.ss_sp == mem && old.ss_size == sizeof(mem) && old.ss_flags == 0, 1,
	      0);
}

static int child_status_of(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A grandchild asks for SIGUSR1 when its parent dies and says so through a pipe. */
static void pdeathsig(void)
{
	int sig = -1;
	check("pdeathsig_bad_einval", prctl(PR_SET_PDEATHSIG, 65), -1, EINVAL);
	check("pdeathsig_set", prctl(PR_SET_PDEATHSIG, SIGUSR2), 0, 0);
	check("pdeathsig_get", prctl(PR_GET_PDEATHSIG, &sig) == 0 && sig == SIGUSR2, 1, 0);
	prctl(PR_SET_PDEATHSIG, 0);
	int p[2];
	pipe(p);
	pid_t mid = fork();
	if (mid == 0) {
		if (fork() == 0) {
			sigset_t s;
			sigemptyset(&s);
			sigaddset(&s, SIGUSR1);
			sigprocmask(SIG_BLOCK, &s, NULL);
			prctl(PR_SET_PDEATHSIG, SIGUSR1);
			int child_sig = 0;
			prctl(PR_GET_PDEATHSIG, &child_sig);
			write(p[1], child_sig == SIGUSR1 ? "r" : "x", 1);   /* ready */
			struct timespec t = { 10, 0 };
			char c = sigtimedwait(&s, NULL, &t) == SIGUSR1 ? 'd' : 'n';
			write(p[1], &c, 1);
			_exit(0);
		}
		char c;
		read(p[0], &c, 1);
		_exit(c == 'r' ? 0 : 1);             /* the grandchild's parent dies */
	}
	check("pdeathsig_parent_exits", child_status_of(mid), 0, 0);
	char c = 0;
	struct pollfd pf = { p[0], POLLIN, 0 };
	if (poll(&pf, 1, 10000) == 1)
		read(p[0], &c, 1);
	check("pdeathsig_sent_at_parent_death", c, 'd', 0);
}

static void no_core_bit(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit r;
		getrlimit(RLIMIT_CORE, &r);
		r.rlim_cur = 0;
		setrlimit(RLIMIT_CORE, &r);
		signal(SIGABRT, SIG_DFL);
		kill(getpid(), SIGABRT);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	check("abort_status_no_core_bit", st, SIGABRT, 0);
	struct rlimit r;
	getrlimit(RLIMIT_CORE, &r);
	printf("RLIMIT_CORE soft %ld\n", (long)r.rlim_cur);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	queued_and_coalesced();
	queueinfo_checks();
	sigwait_and_sigchld();
	faults();
	altstack();
	pdeathsig();
	no_core_bit();
	return checks_done("sigqueue");
}
