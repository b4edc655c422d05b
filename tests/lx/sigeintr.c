// SPDX-License-Identifier: MIT
// Which calls a signal handler interrupts with EINTR and which restart
// under SA_RESTART, as signal(7) lists them: read on pipes and sockets,
// wait4 and a futex wait without a timeout restart; sleeps, pause,
// sigsuspend, select, poll, sigtimedwait, semop, msgrcv and a futex wait
// with a timeout fail with EINTR even under SA_RESTART.  nanosleep says
// how much time was left.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "sigeintr done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define LATER_US 700000                  /* the event a restarted call waits for */

static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* SIGALRM in 100 ms, its handler with or without SA_RESTART. */
static void arm(int restart)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = restart ? SA_RESTART : 0 };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
}

/* read(2) on a pipe or a socket whose writer writes later. */
static void read_case(const char *name, int restart, int use_socket)
{
	int fd[2];
	if (use_socket)
		socketpair(AF_UNIX, SOCK_STREAM, 0, fd);
	else
		pipe(fd);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(LATER_US);
		write(fd[1], "x", 1);
		_exit(0);
	}
	arm(restart);
	char c;
	long r = read(fd[0], &c, 1);
	char n[64];
	snprintf(n, sizeof(n), "%s_%s", name, restart ? "restarts" : "eintr");
	check(n, r == 1 && alarms == 1 ? 1 : r, restart ? 1 : -1, restart ? 0 : EINTR);
	reap(pid);
	close(fd[0]);
	close(fd[1]);
}

static void wait_case(int restart)
{
	pid_t pid = fork();
	if (pid == 0) {
		usleep(LATER_US);
		_exit(7);
	}
	arm(restart);
	int st;
	long r = waitpid(pid, &st, 0);
	if (restart)
		check("wait4_restarts", r == pid && alarms == 1, 1, 0);
	else
		check("wait4_eintr", r, -1, EINTR);
	if (!restart)
		reap(pid);
}

static long futex(volatile uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

/* A futex wait in the parent; the child wakes it later (retrying until it waits). */
static void futex_case(int restart, const struct timespec *timeout, const char *name)
{
	volatile uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				    -1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(LATER_US);
		for (int i = 0; i < 300 && futex(w, 1, 1, NULL) != 1; i++)
			usleep(10000);
		_exit(0);
	}
	arm(restart);
	long r = futex(w, 0, 0, timeout);
	if (restart && !timeout)
		check(name, r == 0 && alarms == 1, 1, 0);
	else
		check(name, r, -1, EINTR);
	reap(pid);
	munmap((void *)w, 4096);
}

static void restarted_calls(void)
{
	read_case("read_pipe", 1, 0);
	read_case("read_pipe", 0, 0);
	read_case("read_socket", 1, 1);
	read_case("read_socket", 0, 1);
	wait_case(1);
	wait_case(0);
	futex_case(1, NULL, "futex_wait_restarts");
	futex_case(0, NULL, "futex_wait_eintr");
	struct timespec two = { 2, 0 };
	futex_case(1, &two, "futex_wait_timeout_eintr_despite_sa_restart");
}

/* Calls a handler always ends with EINTR (signal(7)), SA_RESTART or not. */
static void never_restarted(void)
{
	struct timespec two = { 2, 0 }, rem = { 0, 0 };
	arm(1);
	check("nanosleep_eintr", nanosleep(&two, &rem), -1, EINTR);
	check("nanosleep_remaining", rem.tv_sec < 2 && (rem.tv_sec > 0 || rem.tv_nsec > 0), 1, 0);
	arm(1);
	check("clock_nanosleep_eintr", clock_nanosleep(CLOCK_MONOTONIC, 0, &two, NULL), EINTR, 0);
	arm(1);
	check("pause_eintr", pause(), -1, EINTR);
	sigset_t none;
	sigemptyset(&none);
	arm(1);
	check("sigsuspend_eintr", sigsuspend(&none), -1, EINTR);
	struct timeval tv = { 2, 0 };
	arm(1);
	check("select_timeout_eintr", select(0, NULL, NULL, NULL, &tv), -1, EINTR);
	arm(1);
	check("poll_timeout_eintr", poll(NULL, 0, 2000), -1, EINTR);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	arm(1);
	/* the raw call: musl's sigtimedwait() retries after EINTR */
	check("sigtimedwait_eintr", syscall(SYS_rt_sigtimedwait, &usr1, NULL, &two, 8), -1, EINTR);
	int sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	struct sembuf down = { 0, -1, 0 };
	arm(1);
	check("semop_eintr", semop(sem, &down, 1), -1, EINTR);
	semctl(sem, 0, IPC_RMID);
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	struct { long type; char text[8]; } m;
	arm(1);
	check("msgrcv_eintr", msgrcv(q, &m, sizeof(m.text), 0, 0), -1, EINTR);
	msgctl(q, IPC_RMID, NULL);
	check("every_handler_ran_once", alarms, 1, 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	restarted_calls();
	never_restarted();
	return checks_done("sigeintr");
}
