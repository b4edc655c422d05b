// SPDX-License-Identifier: MIT
// The process and signal calls of issue 12's ABI list against Linux's
// behaviour: clone's flags, futex wait/wake/requeue and bitsets, pselect's
// signal mask, waitid, sigaltstack, sigtimedwait, timers, process groups
// and sessions, and the small calls C libraries make at start-up.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "abi done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Linux's futex operations (musl has no <linux/futex.h>) */
#define FUTEX_WAIT          0
#define FUTEX_WAKE          1
#define FUTEX_CMP_REQUEUE   4
#define FUTEX_WAIT_BITSET   9
#define FUTEX_WAKE_BITSET   10
#define FUTEX_PRIVATE_FLAG  128
#define FUTEX_WAIT_PRIVATE  (FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE  (FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_CMP_REQUEUE_PRIVATE (FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG)

static long futex(volatile int *addr, int op, int val, const struct timespec *ts, volatile int *addr2,
		  int val3)
{
	return syscall(SYS_futex, addr, op, val, ts, addr2, val3);
}

/* --- clone --- */

static volatile int ctid = -1, ptid, shared_word;

static int clone_child(void *arg)
{
	(void)arg;
	shared_word = 42;
	return 0;
}

static void clone_flags(void)
{
	char *stack = mmap(0, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	int tid = clone(clone_child, stack + 65536, flags, 0, &ptid, 0, &ctid);
	check("clone_thread", tid > 0, 1, 0);
	check("clone_parent_settid", ptid, tid, 0);
	/* CLONE_CHILD_CLEARTID: the word becomes 0 and a futex wake comes when the thread ends */
	while (ctid != 0)
		futex(&ctid, FUTEX_WAIT, ctid, 0, 0, 0);
	check("clone_child_cleartid", ctid, 0, 0);
	check("clone_shared_memory", shared_word, 42, 0);

	shared_word = 0;
	int pid = clone(clone_child, stack + 65536, CLONE_VM | CLONE_VFORK | SIGCHLD, 0);
	check("clone_vfork_ran_first", shared_word, 42, 0);
	int st;
	check("clone_vfork_reaped", waitpid(pid, &st, 0) == pid && WIFEXITED(st), 1, 0);
	munmap(stack, 65536);

	pid_t sp;
	char *argv[] = { "sh", "-c", "exit 7", 0 };
	check("posix_spawn", posix_spawn(&sp, "/bin/sh", 0, 0, argv, environ), 0, 0);
	check("posix_spawn_status", waitpid(sp, &st, 0) == sp && WEXITSTATUS(st) == 7, 1, 0);
}

/* --- futexes --- */

static volatile int fa, fb, woken;

static void *waiter(void *arg)
{
	(void)arg;
	futex(&fa, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
	__atomic_add_fetch(&woken, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Waits until n threads sleep on fa (FUTEX_WAKE of 0 threads tells nothing, so poll by requeue). */
static void settle(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, 0);
}

static void futexes(void)
{
	volatile int word = 1;
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	check("futex_wait_value_differs", futex(&word, FUTEX_WAIT, 0, 0, 0, 0), -1, EAGAIN);
	check("futex_wait_timeout", futex(&word, FUTEX_WAIT, 1, &ts, 0, 0), -1, ETIMEDOUT);
	check("futex_wake_none", futex(&word, FUTEX_WAKE, 1, 0, 0, 0), 0, 0);
	check("futex_bad_op", futex(&word, 99, 0, 0, 0, 0), -1, ENOSYS);

	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], 0, waiter, 0);
	settle();
	check("cmp_requeue_mismatch", futex(&fa, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)2L, &fb, 5), -1,
	      EAGAIN);
	/* wake one, move the other two to fb */
	check("cmp_requeue", futex(&fa, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)2L, &fb, 0), 3, 0);
	settle();
	check("requeue_woke_one", woken, 1, 0);
	check("requeued_not_on_fa", futex(&fa, FUTEX_WAKE_PRIVATE, 10, 0, 0, 0), 0, 0);
	check("requeued_on_fb", futex(&fb, FUTEX_WAKE_PRIVATE, 10, 0, 0, 0), 2, 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	check("all_woken", woken, 3, 0);

	/* bitsets: a waker whose mask misses the waiter's wakes nobody */
	struct timespec abs;
	clock_gettime(CLOCK_MONOTONIC, &abs);
	abs.tv_nsec += 5 * 1000 * 1000;
	if (abs.tv_nsec >= 1000000000) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000;
	}
	check("wait_bitset_abs_timeout", futex(&word, FUTEX_WAIT_BITSET, 1, &abs, 0, 2), -1, ETIMEDOUT);
	check("wait_bitset_zero", futex(&word, FUTEX_WAIT_BITSET, 1, 0, 0, 0), -1, EINVAL);
	check("wake_bitset_none", futex(&word, FUTEX_WAKE_BITSET, 1, 0, 0, 4), 0, 0);
}

/* --- signals --- */

static volatile int got_sig;
static volatile uintptr_t handler_sp;
static volatile int handler_onstack;

static void on_sig(int sig)
{
	got_sig = sig;
}

static void on_alt(int sig)
{
	stack_t now;
	int local;
	got_sig = sig;
	handler_sp = (uintptr_t)&local;
	sigaltstack(0, &now);
	handler_onstack = (now.ss_flags & SS_ONSTACK) != 0;
	stack_t other = { .ss_sp = malloc(65536), .ss_size = 65536 };
	handler_onstack += sigaltstack(&other, 0) == -1 && errno == EPERM ? 10 : 0;
}

static void altstack(void)
{
	static char alt[65536];
	stack_t ss = { .ss_sp = alt, .ss_size = 100 };
	check("altstack_too_small", sigaltstack(&ss, 0), -1, ENOMEM);
	ss.ss_size = sizeof alt;
	check("altstack_set", sigaltstack(&ss, 0), 0, 0);
	stack_t old;
	check("altstack_get", sigaltstack(0, &old) == 0 && old.ss_sp == alt && old.ss_size == sizeof alt &&
	      old.ss_flags == 0, 1, 0);
	struct sigaction sa = { .sa_handler = on_alt, .sa_flags = SA_ONSTACK };
	sigaction(SIGUSR1, &sa, 0);
	got_sig = 0;
	raise(SIGUSR1);
	check("altstack_handler_ran", got_sig, SIGUSR1, 0);
	check("altstack_used", handler_sp > (uintptr_t)alt && handler_sp < (uintptr_t)alt + sizeof alt, 1, 0);
	check("altstack_onstack_and_eperm", handler_onstack, 11, 0);
	ss.ss_flags = SS_DISABLE;
	check("altstack_disable", sigaltstack(&ss, 0), 0, 0);
	check("altstack_disabled", sigaltstack(0, &old) == 0 && (old.ss_flags & SS_DISABLE), 1, 0);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGUSR1, &sa, 0);
}

static void masks_and_waits(void)
{
	struct sigaction sa = { .sa_handler = on_sig };
	sigaction(SIGUSR1, &sa, 0);
	sigset_t block, orig;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &orig);
	got_sig = 0;
	raise(SIGUSR1);
	check("blocked_not_delivered", got_sig, 0, 0);
	sigset_t pend;
	sigpending(&pend);
	check("sigpending", sigismember(&pend, SIGUSR1), 1, 0);
	struct timespec ts = { 1, 0 };
	sigset_t open = orig;
	sigdelset(&open, SIGUSR1);
	check("pselect_mask_eintr", pselect(0, 0, 0, 0, &ts, &open), -1, EINTR);
	check("pselect_handler_ran", got_sig, SIGUSR1, 0);
	sigset_t now;
	sigprocmask(SIG_BLOCK, 0, &now);
	check("pselect_mask_restored", sigismember(&now, SIGUSR1), 1, 0);
	ts.tv_sec = 0;
	ts.tv_nsec = 1000000;
	check("pselect_timeout", pselect(0, 0, 0, 0, &ts, &open), 0, 0);

	raise(SIGUSR2);
	siginfo_t si;
	sigset_t want;
	sigemptyset(&want);
	sigaddset(&want, SIGUSR2);
	check("sigtimedwait", sigtimedwait(&want, &si, &ts), SIGUSR2, 0);
	check("sigtimedwait_info", si.si_signo, SIGUSR2, 0);
	check("sigtimedwait_timeout", sigtimedwait(&want, &si, &ts), -1, EAGAIN);
	sigprocmask(SIG_SETMASK, &orig, 0);

	got_sig = 0;
	sa.sa_handler = on_sig;
	sigaction(SIGALRM, &sa, 0);
	struct itimerval it = { .it_value = { 0, 20000 } };
	check("setitimer", setitimer(ITIMER_REAL, &it, 0), 0, 0);
	while (!got_sig)
		pause();
	check("itimer_sigalrm", got_sig, SIGALRM, 0);
	struct timespec rq = { 0, 2000000 }, t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	check("clock_nanosleep", clock_nanosleep(CLOCK_MONOTONIC, 0, &rq, 0), 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	check("slept_long_enough", (t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec >= 2000000,
	      1, 0);
	t1.tv_nsec += 1000000;
	if (t1.tv_nsec >= 1000000000) {
		t1.tv_sec++;
		t1.tv_nsec -= 1000000000;
	}
	check("clock_nanosleep_abs", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t1, 0), 0, 0);
}

/* --- waitid, process groups, sessions --- */

static void waiting(void)
{
	siginfo_t si;
	pid_t pid = fork();
	if (pid == 0)
		_exit(3);
	memset(&si, 0, sizeof si);
	check("waitid_nowait", waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0, 0);
	check("waitid_nowait_info", si.si_pid == pid && si.si_code == CLD_EXITED && si.si_status == 3, 1, 0);
	memset(&si, 0, sizeof si);
	check("waitid_exited", waitid(P_ALL, 0, &si, WEXITED), 0, 0);
	check("waitid_same_child", si.si_pid, pid, 0);
	check("waitid_none_left", waitid(P_ALL, 0, &si, WEXITED), -1, ECHILD);

	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	memset(&si, 0xff, sizeof si);
	check("waitid_wnohang", waitid(P_PID, pid, &si, WEXITED | WNOHANG), 0, 0);
	check("waitid_wnohang_zero_pid", si.si_pid, 0, 0);
	kill(pid, SIGKILL);
	check("waitid_killed", waitid(P_PID, pid, &si, WEXITED), 0, 0);
	check("waitid_killed_info", si.si_code == CLD_KILLED && si.si_status == SIGKILL, 1, 0);
	check("waitid_bad_options", waitid(P_ALL, 0, &si, 0), -1, EINVAL);

	pid = fork();
	if (pid == 0) {
		pid_t me = getpid();
		int ok = setsid() == me && getsid(0) == me && getpgid(0) == me;
		ok = ok && setpgid(0, 0) == -1 && errno == EPERM;   /* a session leader */
		_exit(ok ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	check("setsid_in_child", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	check("setpgid_child", setpgid(pid, pid), 0, 0);
	check("getpgid_child", getpgid(pid), pid, 0);
	check("kill_group", kill(-pid, SIGTERM), 0, 0);
	waitpid(pid, &st, 0);
	check("group_got_signal", WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, 1, 0);
	pid = fork();
	if (pid == 0) {
		/* a process group leader may not start a session, even alone in its group */
		setpgid(0, 0);
		_exit(setsid() == -1 && errno == EPERM ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	check("setsid_as_leader", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
}

/* --- what C libraries call at start-up and now and then --- */

static void small_calls(void)
{
	char buf[16];
	check("getrandom", getrandom(buf, sizeof buf, 0), sizeof buf, 0);
	check("getrandom_bad_flags", getrandom(buf, sizeof buf, 0x100), -1, EINVAL);
	check("getrandom_random_and_insecure", getrandom(buf, sizeof buf, GRND_RANDOM | 4), -1, EINVAL);
	struct rlimit rl;
	check("prlimit_nofile", prlimit(0, RLIMIT_NOFILE, 0, &rl) == 0 && rl.rlim_cur > 0, 1, 0);
	check("prlimit_stack", getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur >= 8 << 20, 1, 0);
	static struct { void *next; long off; void *pending; } head;
	check("set_robust_list", syscall(SYS_set_robust_list, &head, sizeof head), 0, 0);
	check("set_robust_list_size", syscall(SYS_set_robust_list, &head, 8), -1, EINVAL);
	int tid;
	check("set_tid_address", syscall(SYS_set_tid_address, &tid), syscall(SYS_gettid), 0);
	check("tgkill_zero", syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0), 0, 0);
	check("tgkill_wrong_group", syscall(SYS_tgkill, 999999, syscall(SYS_gettid), 0), -1, ESRCH);
	struct {                        /* the head of Linux's struct statx */
		uint32_t mask, blksize;
		uint64_t attributes;
		uint32_t nlink, uid, gid;
		uint16_t mode, pad;
		uint64_t ino, size;
		char rest[256 - 48];
	} sx;
	int fd = open("/tmp/abi.statx", O_CREAT | O_WRONLY | O_TRUNC, 0640);
	write(fd, "12345", 5);
	close(fd);
	check("statx", syscall(SYS_statx, AT_FDCWD, "/tmp/abi.statx", 0, 0x7ff /* STATX_BASIC_STATS */, &sx),
	      0, 0);
	check("statx_fields", sx.size == 5 && (sx.mode & 0777) == 0640 && S_ISREG(sx.mode), 1, 0);
	unlink("/tmp/abi.statx");
	check("umask", umask(022) >= 0 && umask(022) == 022, 1, 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	clone_flags();
	futexes();
	altstack();
	masks_and_waits();
	waiting();
	small_calls();
	return checks_done("abi");
}
