// SPDX-License-Identifier: MIT
// Job control as Linux does it: SIGSTOP and SIGTSTP stop every thread of a
// process, SIGCONT continues it, the parent sees both through wait4
// (WUNTRACED, WCONTINUED), waitid (WSTOPPED, WCONTINUED, WNOWAIT) and
// SIGCHLD (CLD_STOPPED, CLD_CONTINUED; none with SA_NOCLDSTOP); a stopped
// process's signals wait for SIGCONT, SIGKILL ends it; a call it was
// blocked in goes on after it continues.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "jobctl done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

struct shared {
	volatile unsigned long count[2];         /* the child's threads spin on these */
	volatile int conts, tstps;               /* its handlers ran */
};
static struct shared *sh;

static void *spin(void *arg)
{
	long i = (long)arg;
	for (;;)
		sh->count[i]++;
	return NULL;
}

static void on_cont(int sig) { (void)sig; sh->conts++; }

/*
 * A child of two spinning threads, with a SIGCONT handler, in a process
 * group of its own: a group whose parents are all inside it or outside the
 * session (the test run as init) is orphaned, and SIGTSTP would not stop it.
 */
static pid_t spinner(void)
{
	sh->count[0] = sh->count[1] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGCONT, on_cont);
		pthread_t t;
		pthread_create(&t, NULL, spin, (void *)1L);
		spin(0);
	}
	setpgid(pid, pid);
	while (!sh->count[0] || !sh->count[1])
		usleep(1000);
	return pid;
}

/* Do both counters stand still (stopped: 1) or both move (0)?  -1 for a mix. */
static int stands_still(void)
{
	unsigned long a = sh->count[0], b = sh->count[1];
	usleep(200000);
	int sa = a == sh->count[0], sb = b == sh->count[1];
	return sa && sb ? 1 : !sa && !sb ? 0 : -1;
}

static sigset_t chld;

static int chld_code(int *status)
{
	siginfo_t si;
	struct timespec t = { 5, 0 };
	memset(&si, 0, sizeof(si));
	if (sigtimedwait(&chld, &si, &t) != SIGCHLD)
		return -1;
	*status = si.si_status;
	return si.si_code;
}

static void stop_and_continue(void)
{
	pid_t pid = spinner();
	int st = 0, sig = 0;
	check("sigstop_sent", kill(pid, SIGSTOP), 0, 0);
	check("wait_wuntraced_reports_stop", waitpid(pid, &st, WUNTRACED), pid, 0);
	check("status_stopped_by_sigstop", WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP, 1, 0);
	check("sigchld_cld_stopped", chld_code(&sig) == CLD_STOPPED && sig == SIGSTOP, 1, 0);
	check("every_thread_stands_still", stands_still(), 1, 0);
	check("stop_reported_once", waitpid(pid, &st, WUNTRACED | WNOHANG), 0, 0);
	kill(pid, SIGUSR2);                      /* would kill it: it waits for SIGCONT */
	usleep(100000);
	check("signal_waits_while_stopped", waitpid(pid, &st, WNOHANG), 0, 0);
	kill(pid, SIGKILL);
	check("sigkill_ends_stopped", waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGKILL, 1, 0);
	chld_code(&sig);

	pid = spinner();
	kill(pid, SIGSTOP);
	waitpid(pid, &st, WUNTRACED);
	chld_code(&sig);
	int conts = sh->conts;
	check("sigcont_sent", kill(pid, SIGCONT), 0, 0);
	check("wait_wcontinued_reports_continue", waitpid(pid, &st, WCONTINUED), pid, 0);
	check("status_continued", WIFCONTINUED(st), 1, 0);
	check("sigchld_cld_continued", chld_code(&sig) == CLD_CONTINUED && sig == SIGCONT, 1, 0);
	check("every_thread_runs_again", stands_still(), 0, 0);
	check("sigcont_handler_ran", sh->conts, conts + 1, 0);
	check("wait_without_wuntraced_ignores_stop", (kill(pid, SIGTSTP), usleep(100000),
						      waitpid(pid, &st, WNOHANG)), 0, 0);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	check("waitid_wstopped_wnowait", waitid(P_PID, pid, &si, WSTOPPED | WNOWAIT), 0, 0);
	check("waitid_cld_stopped_sigtstp", si.si_code == CLD_STOPPED && si.si_status == SIGTSTP &&
	      si.si_pid == pid, 1, 0);
	memset(&si, 0, sizeof(si));
	check("waitid_wstopped_again", waitid(P_PID, pid, &si, WSTOPPED), 0, 0);
	check("waitid_consumed", (memset(&si, 0, sizeof(si)),
				  waitid(P_PID, pid, &si, WSTOPPED | WNOHANG)) == 0 && si.si_pid == 0, 1, 0);
	kill(pid, SIGCONT);
	memset(&si, 0, sizeof(si));
	check("waitid_wcontinued", waitid(P_PID, pid, &si, WCONTINUED), 0, 0);
	check("waitid_cld_continued", si.si_code == CLD_CONTINUED && si.si_status == SIGCONT, 1, 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	while (sigtimedwait(&chld, NULL, &(struct timespec){ 0, 0 }) == SIGCHLD)
		;
}

static void on_tstp(int sig) { (void)sig; sh->tstps++; }

static void handled_and_nocldstop(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGTSTP, on_tstp);
		for (;;)
			pause();
	}
	usleep(100000);
	int st;
	kill(pid, SIGTSTP);
	for (int i = 0; i < 100 && !sh->tstps; i++)
		usleep(10000);
	check("sigtstp_handler_instead_of_stop", sh->tstps == 1 && waitpid(pid, &st, WUNTRACED | WNOHANG) == 0,
	      1, 0);
	struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_NOCLDSTOP };
	sigaction(SIGCHLD, &sa, NULL);
	kill(pid, SIGSTOP);
	check("stop_with_nocldstop_waitable", waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), 1, 0);
	sigset_t p;
	sigpending(&p);
	check("nocldstop_no_sigchld", sigismember(&p, SIGCHLD), 0, 0);
	sa.sa_flags = 0;
	sigaction(SIGCHLD, &sa, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	sigtimedwait(&chld, NULL, &(struct timespec){ 0, 0 });
}

/* The state letter of /proc/PID/stat. */
static int proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	char *end = strrchr(buf, ')');
	return end && end[1] == ' ' ? end[2] : 0;
}

/* A child stopped while it waits in read does not read while stopped, and
 * goes on reading after SIGCONT. */
static void blocked_call_goes_on(void)
{
	int fd[2];
	pipe(fd);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		_exit(read(fd[0], &c, 1) == 1 && c == 'x' ? 0 : 1);
	}
	usleep(100000);
	int st;
	kill(pid, SIGSTOP);
	check("stopped_in_read", waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st), 1, 0);
	write(fd[1], "x", 1);
	usleep(200000);
	check("stopped_does_not_exit", waitpid(pid, &st, WNOHANG), 0, 0);
	int left = -1;
	ioctl(fd[0], FIONREAD, &left);
	check("stopped_reader_leaves_the_data_unread", left, 1, 0);
	check("proc_stat_state_stopped", proc_state(pid), 'T', 0);
	kill(pid, SIGCONT);
	check("read_completes_after_sigcont", waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, 1, 0);
	while (sigtimedwait(&chld, NULL, &(struct timespec){ 0, 0 }) == SIGCHLD)
		;
}

static int hup_pipe;
static void on_hup(int sig) { (void)sig; write(hup_pipe, "h", 1); }

/*
 * A stopped process whose group loses its last parent in the session (the
 * parent, leader of a new session, exits) gets SIGHUP and then SIGCONT.
 */
static void orphaned_stopped_group(void)
{
	int p[2];
	pipe2(p, O_NONBLOCK);                        /* the parent polls: a missing byte fails, not hangs */
	hup_pipe = p[1];
	pid_t mid = fork();
	if (mid == 0) {
		setsid();
		pid_t c = fork();
		if (c == 0) {
			setpgid(0, 0);
			signal(SIGHUP, on_hup);
			raise(SIGSTOP);
			write(p[1], "c", 1);         /* continued */
			_exit(0);
		}
		int st;
		_exit(waitpid(c, &st, WUNTRACED) == c && WIFSTOPPED(st) ? 0 : 1);
	}
	check("orphaning_parent_exits", waitpid(mid, NULL, 0), mid, 0);
	char got[3] = { 0 };
	for (int i = 0; i < 2; i++) {
		struct timespec t = { 0, 10000000 };
		for (int n = 0; n < 500 && read(p[0], got + i, 1) != 1; n++)
			nanosleep(&t, NULL);
	}
	check("orphaned_stopped_gets_sighup_then_sigcont", strcmp(got, "hc"), 0, 0);
	close(p[0]);
	close(p[1]);
}

static void wait_options(void)
{
	int st;
	check("wait4_bad_option_einval", waitpid(-1, &st, 0x100), -1, EINVAL);
	siginfo_t si;
	check("waitid_no_event_einval", waitid(P_ALL, 0, &si, WNOHANG), -1, EINVAL);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	stop_and_continue();
	handled_and_nocldstop();
	blocked_call_goes_on();
	orphaned_stopped_group();
	wait_options();
	return checks_done("jobctl");
}
