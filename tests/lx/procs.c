// SPDX-License-Identifier: MIT
// Process calls errno by errno, as LTP's syscalls/ tests check them: wait4 and
// waitid (WNOHANG, WNOWAIT, P_PGID, P_PIDFD, the siginfo they fill), getpgid,
// setpgid and setsid, getpriority/setpriority, sched_{get,set}affinity sizes,
// uname, sysinfo, getrusage, times, vfork and prlimit on another process.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

// a child that exits with code after it reads a byte from fd (or at once, fd < 0)
static pid_t child(int code, int fd)
{
	pid_t p = fork();
	if (p == 0) {
		char c;
		if (fd >= 0)
			read(fd, &c, 1);
		_exit(code);
	}
	return p;
}

static void wait4_checks(void)
{
	int st;
	check("wait4 no children: ECHILD", wait4(-1, &st, 0, NULL), -1, ECHILD);
	int p[2];
	pipe(p);
	pid_t c = child(3, p[0]);
	check("wait4 WNOHANG running child", wait4(c, &st, WNOHANG, NULL), 0, 0);
	check("wait4 bad options: EINVAL", wait4(c, &st, 0x100, NULL), -1, EINVAL);
	check("wait4 a stranger: ECHILD", wait4(1, &st, WNOHANG, NULL), -1, ECHILD);
	write(p[1], "x", 1);
	struct rusage ru;
	check("wait4 reaps", wait4(c, &st, 0, &ru) == c && WIFEXITED(st) && WEXITSTATUS(st) == 3, 1,
	      0);
	check("wait4 bad status pointer: EFAULT",
	      (c = child(0, -1), wait4(c, (int *)8, 0, NULL)), -1, EFAULT);
	// Linux reaps the child before it finds it cannot store the status
	check("EFAULT has reaped it", wait4(c, &st, 0, NULL), -1, ECHILD);
	close(p[0]), close(p[1]);
}

static void waitid_checks(void)
{
	siginfo_t si;
	check("waitid bad idtype: EINVAL", waitid(17, 0, &si, WEXITED), -1, EINVAL);
	check("waitid no options: EINVAL", waitid(P_ALL, 0, &si, 0), -1, EINVAL);
	check("waitid no children: ECHILD", waitid(P_ALL, 0, &si, WEXITED), -1, ECHILD);
	int p[2];
	pipe(p);
	pid_t c = child(9, p[0]);
	memset(&si, 0x55, sizeof si);
	check("waitid WNOHANG running", waitid(P_PID, c, &si, WEXITED | WNOHANG), 0, 0);
	check("WNOHANG with none ready zeroes si_pid", si.si_pid, 0, 0);
	write(p[1], "x", 1);
	check("waitid WNOWAIT", waitid(P_PID, c, &si, WEXITED | WNOWAIT), 0, 0);
	check("siginfo: SIGCHLD CLD_EXITED pid status",
	      si.si_signo == SIGCHLD && si.si_code == CLD_EXITED && si.si_pid == c &&
		      si.si_status == 9 && si.si_uid == getuid(),
	      1, 0);
	check("WNOWAIT left it waitable", waitid(P_PGID, getpgrp(), &si, WEXITED), 0, 0);
	check("P_PGID reaps it", si.si_pid, c, 0);
	c = child(0, -1);
	setpgid(c, c);
	check("waitid P_PGID other group: ECHILD",
	      waitid(P_PGID, getpgrp(), &si, WEXITED | WNOHANG), -1, ECHILD);
	check("waitid P_PGID its group", waitid(P_PGID, c, &si, WEXITED), 0, 0);
	c = fork();
	if (c == 0) {
		raise(SIGKILL);
		_exit(0);
	}
	int pfd = syscall(SYS_pidfd_open, c, 0);
	check("pidfd_open", pfd >= 0, 1, 0);
	check("waitid P_PIDFD", waitid(P_PIDFD, pfd, &si, WEXITED), 0, 0);
	check("killed: CLD_KILLED SIGKILL",
	      si.si_pid == c && si.si_code == CLD_KILLED && si.si_status == SIGKILL, 1, 0);
	check("waitid P_PIDFD bad fd: EBADF", waitid(P_PIDFD, 99, &si, WEXITED), -1, EBADF);
	check("waitid P_PIDFD not a pidfd: EBADF", waitid(P_PIDFD, p[0], &si, WEXITED), -1, EBADF);
	close(pfd), close(p[0]), close(p[1]);
}

// a stop and a continue, as waitid and wait4 report them
static void stop_checks(void)
{
	// the children wait after the continue: a zombie would no longer report it
	pid_t c = fork();
	if (c == 0) {
		raise(SIGSTOP);
		pause();
		_exit(0);
	}
	siginfo_t si;
	check("waitid WSTOPPED", waitid(P_PID, c, &si, WSTOPPED), 0, 0);
	check("CLD_STOPPED SIGSTOP", si.si_code == CLD_STOPPED && si.si_status == SIGSTOP, 1, 0);
	int st;
	check("the stop was consumed", wait4(c, &st, WUNTRACED | WNOHANG, NULL), 0, 0);
	kill(c, SIGCONT);
	check("waitid WCONTINUED", waitid(P_PID, c, &si, WCONTINUED), 0, 0);
	check("CLD_CONTINUED SIGCONT", si.si_code == CLD_CONTINUED && si.si_status == SIGCONT, 1, 0);
	kill(c, SIGKILL);
	check("reaped", waitpid(c, &st, 0) == c && WIFSIGNALED(st), 1, 0);
	c = fork();
	if (c == 0) {
		raise(SIGSTOP);
		pause();
		_exit(0);
	}
	check("wait4 WUNTRACED", wait4(c, &st, WUNTRACED, NULL) == c && WIFSTOPPED(st) &&
					 WSTOPSIG(st) == SIGSTOP, 1, 0);
	kill(c, SIGCONT);
	check("wait4 WCONTINUED", wait4(c, &st, WCONTINUED, NULL) == c && WIFCONTINUED(st), 1, 0);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
}

static void pgid_checks(void)
{
	check("getpgid(0) is getpgrp", getpgid(0), getpgrp(), 0);
	check("getpgid no such pid: ESRCH", getpgid(999999), -1, ESRCH);
	check("setpgid negative pgid: EINVAL", setpgid(0, -1), -1, EINVAL);
	check("setpgid no such pid: ESRCH", setpgid(999999, 0), -1, ESRCH);
	int p[2];
	pipe(p);
	pid_t c = child(0, p[0]);
	check("setpgid a child into its own group", setpgid(c, c), 0, 0);
	check("getpgid of the child", getpgid(c), c, 0);
	int q[2];
	pipe(q);
	pid_t other = fork();
	if (other == 0) { // a group of its own in a session of its own
		char ch;
		setsid();
		write(q[1], "s", 1);
		read(p[0], &ch, 1);
		_exit(0);
	}
	char ch;
	read(q[0], &ch, 1);
	check("setpgid into another session's group: EPERM", setpgid(c, other), -1, EPERM);
	check("setpgid to a group that does not exist: EPERM", setpgid(c, 999999), -1, EPERM);
	write(p[1], "xx", 2);
	waitpid(c, NULL, 0);
	waitpid(other, NULL, 0);
	close(q[0]), close(q[1]);
	int st;
	pid_t s = fork();
	if (s == 0) {
		pid_t sid = setsid();
		_exit(sid == getpid() && getsid(0) == sid && setsid() == -1 && errno == EPERM ? 0 : 1);
	}
	waitpid(s, &st, 0);
	check("setsid in a child; again: EPERM", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	check("setsid as group leader: EPERM", (setpgid(0, 0), setsid()), -1, EPERM);
	check("getsid no such pid: ESRCH", getsid(999999), -1, ESRCH);
}

static void exec_child_checks(void)
{
	int p[2];
	pipe(p);
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		dup2(p[1], 1);
		execl("/bin/sh", "sh", "-c", "echo; read x", (char *)NULL);
		_exit(1);
	}
	close(p[1]);
	char b[2];
	read(p[0], b, 1); // it has exec'd
	check("setpgid a child after exec: EACCES", setpgid(c, c), -1, EACCES);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	close(p[0]);
}

static void priority_checks(void)
{
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, 0);
	check("getpriority", errno, 0, 0);
	check("getpriority bad which: EINVAL", getpriority(7, 0), -1, EINVAL);
	check("getpriority no such pid: ESRCH", getpriority(PRIO_PROCESS, 999999), -1, ESRCH);
	check("setpriority bad which: EINVAL", setpriority(7, 0, 0), -1, EINVAL);
	check("setpriority no such pid: ESRCH", setpriority(PRIO_PROCESS, 999999, 0), -1, ESRCH);
	check("setpriority 5", setpriority(PRIO_PROCESS, 0, prio + 5), 0, 0);
	check("reads back", getpriority(PRIO_PROCESS, 0), prio + 5, 0);
	check("setpriority clamps at 19", setpriority(PRIO_PROCESS, 0, 100), 0, 0);
	check("reads 19", getpriority(PRIO_PROCESS, 0), 19, 0);
	// the raw call returns 20 - nice (1..40), not the nice value
	check("raw getpriority is 20 - nice", syscall(SYS_getpriority, PRIO_PROCESS, 0), 1, 0);
	pid_t c = fork();
	if (c == 0) {
		setuid(65534);
		errno = 0;
		int r = setpriority(PRIO_PROCESS, 0, 0);
		_exit(r == -1 && errno == EACCES ? 0 : 1);
	}
	int st;
	waitpid(c, &st, 0);
	check("raising priority unprivileged: EACCES", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	check("setpriority back", setpriority(PRIO_PROCESS, 0, prio), 0, 0);
	errno = 0;
	check("nice(0)", nice(0), prio, 0);
}

static void affinity_checks(void)
{
	cpu_set_t set;
	long n = syscall(SYS_sched_getaffinity, 0, sizeof set, &set);
	check("sched_getaffinity returns a size", n > 0 && n <= (long)sizeof set && n % 8 == 0, 1,
	      0);
	check("at least one cpu", CPU_COUNT(&set) > 0, 1, 0);
	check("sched_getaffinity size too small: EINVAL", syscall(SYS_sched_getaffinity, 0, 4, &set),
	      -1, EINVAL);
	check("sched_getaffinity size not a multiple: EINVAL",
	      syscall(SYS_sched_getaffinity, 0, 9, &set), -1, EINVAL);
	check("sched_getaffinity bad pointer: EFAULT",
	      syscall(SYS_sched_getaffinity, 0, sizeof set, (void *)8), -1, EFAULT);
	check("sched_getaffinity no such pid: ESRCH",
	      syscall(SYS_sched_getaffinity, 999999, sizeof set, &set), -1, ESRCH);
	check("sched_setaffinity the same", sched_setaffinity(0, sizeof set, &set), 0, 0);
	cpu_set_t none;
	CPU_ZERO(&none);
	check("sched_setaffinity empty: EINVAL", sched_setaffinity(0, sizeof none, &none), -1,
	      EINVAL);
	check("sched_setaffinity no such pid: ESRCH", sched_setaffinity(999999, sizeof set, &set),
	      -1, ESRCH);
}

static void info_checks(void)
{
	struct utsname u;
	check("uname", uname(&u), 0, 0);
	check("sysname Linux", strcmp(u.sysname, "Linux"), 0, 0);
	check("machine x86_64", strcmp(u.machine, "x86_64"), 0, 0);
	check("uname bad pointer: EFAULT", syscall(SYS_uname, (void *)8), -1, EFAULT);
	struct sysinfo si;
	check("sysinfo", sysinfo(&si), 0, 0);
	check("sysinfo uptime", si.uptime > 0, 1, 0);
	check("sysinfo freeram within totalram", si.totalram > 0 && si.freeram <= si.totalram, 1, 0);
	check("sysinfo mem_unit and procs", si.mem_unit >= 1 && si.procs > 0, 1, 0);
	check("sysinfo bad pointer: EFAULT", syscall(SYS_sysinfo, (void *)8), -1, EFAULT);
	struct rusage ru;
	check("getrusage bad who: EINVAL", getrusage(7, &ru), -1, EINVAL);
	check("getrusage bad pointer: EFAULT", syscall(SYS_getrusage, RUSAGE_SELF, (void *)8), -1,
	      EFAULT);
	for (volatile long i = 0; i < 20000000; i++)
		;
	check("getrusage self", getrusage(RUSAGE_SELF, &ru), 0, 0);
	check("user time counted", ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0, 1, 0);
	check("maxrss in kilobytes", ru.ru_maxrss > 0 && ru.ru_maxrss < (1L << 30), 1, 0);
	check("getrusage thread", getrusage(RUSAGE_THREAD, &ru), 0, 0);
	pid_t c = fork();
	if (c == 0) {
		for (volatile long i = 0; i < 20000000; i++)
			;
		_exit(0);
	}
	waitpid(c, NULL, 0);
	check("getrusage children", getrusage(RUSAGE_CHILDREN, &ru), 0, 0);
	check("children's time counted", ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0, 1, 0);
	struct tms t;
	clock_t r = times(&t);
	check("times", r != (clock_t)-1, 1, 0);
	check("times' clock does not go back", times(&t) >= r, 1, 0);
	check("times(NULL)", times(NULL) != (clock_t)-1, 1, 0);
	check("times bad pointer: EFAULT", syscall(SYS_times, (void *)8), -1, EFAULT);
}

static void vfork_checks(void)
{
	volatile int shared = 0;
	pid_t c = vfork();
	if (c == 0) {
		shared = 42; // vfork shares the memory until _exit
		_exit(0);
	}
	check("vfork child wrote the parent's memory", shared, 42, 0);
	int st;
	check("vfork child reaped", waitpid(c, &st, 0), c, 0);
	int p[2];
	pipe(p);
	c = child(0, p[0]);
	struct rlimit rl = { 100, 200 }, old;
	check("prlimit on a child", prlimit(c, RLIMIT_NOFILE, &rl, &old), 0, 0);
	check("prlimit reads it back", prlimit(c, RLIMIT_NOFILE, NULL, &old), 0, 0);
	check("the child's limit", old.rlim_cur == 100 && old.rlim_max == 200, 1, 0);
	check("prlimit no such pid: ESRCH", prlimit(999999, RLIMIT_NOFILE, NULL, &old), -1, ESRCH);
	check("prlimit bad resource: EINVAL", prlimit(c, 99, NULL, &old), -1, EINVAL);
	struct rlimit bad = { 300, 200 };
	check("prlimit cur > max: EINVAL", prlimit(c, RLIMIT_NOFILE, &bad, NULL), -1, EINVAL);
	write(p[1], "x", 1);
	waitpid(c, NULL, 0);
	close(p[0]), close(p[1]);
}

static void *exit_from_thread(void *arg)
{
	(void)arg;
	_exit(5); // exit_group: the whole process goes, main's sleep included
}

static volatile int vm_shared;
static int clone_vm_child(void *arg)
{
	vm_shared = *(int *)arg;
	return 7;
}

static void thread_exit_checks(void)
{
	pid_t c = fork();
	if (c == 0) {
		pthread_t th;
		pthread_create(&th, NULL, exit_from_thread, NULL);
		sleep(10);
		_exit(1);
	}
	int st;
	waitpid(c, &st, 0);
	check("exit_group from a thread ends the process", WIFEXITED(st) && WEXITSTATUS(st) == 5, 1,
	      0);
	static char stack[64 * 1024];
	int v = 42;
	c = clone(clone_vm_child, stack + sizeof stack, CLONE_VM | SIGCHLD, &v);
	check("clone CLONE_VM", c > 0, 1, 0);
	check("CLONE_VM child's exit status", waitpid(c, &st, 0) == c && WEXITSTATUS(st) == 7, 1, 0);
	check("CLONE_VM child wrote our memory", vm_shared, 42, 0);
	check("clone CLONE_THREAD without CLONE_SIGHAND: EINVAL",
	      clone(clone_vm_child, stack + sizeof stack, CLONE_VM | CLONE_THREAD, &v), -1, EINVAL);
	check("clone CLONE_SIGHAND without CLONE_VM: EINVAL",
	      clone(clone_vm_child, stack + sizeof stack, CLONE_SIGHAND, &v), -1, EINVAL);
}

int main(void)
{
	wait4_checks();
	waitid_checks();
	priority_checks();
	affinity_checks();
	info_checks();
	vfork_checks();
	thread_exit_checks();
	stop_checks();
	exec_child_checks();
	pgid_checks();
	return checks_done("procs");
}
