/* SPDX-License-Identifier: MIT */
/*
 * Advisory locks between processes: flock (per open file description),
 * fcntl record locks (per process: ranges, F_GETLK's holder, release on
 * closing any descriptor, EDEADLK) and OFD locks.  Passes on Linux too.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static const char *path = "locks.tmp";

static int setlk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	return fcntl(fd, cmd, &fl);
}

/* F_GETLK from this process: the conflicting lock's type (and pid/range into *out). */
static int getlk(int fd, int cmd, short type, off_t start, off_t len, struct flock *out)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int r = fcntl(fd, cmd, &fl);
	if (out)
		*out = fl;
	return r < 0 ? -1 : fl.l_type;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Wait until process pid sleeps (its /proc/PID/stat state is S): it waits for a lock. */
static void wait_asleep(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		char *end = strrchr(buf, ')');
		if (end && end[1] == ' ' && end[2] == 'S')
			return;
		sleep_ms(10);
	}
}

/* A child runs fn(fd of its own open) and exits with its result. */
static pid_t child(int (*fn)(int), int *pipe_to_parent)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(path, O_RDWR);
		int r = fn(fd);
		if (pipe_to_parent)
			close(pipe_to_parent[1]);
		_exit(r);
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int try_ex_nb(int fd) { return flock(fd, LOCK_EX | LOCK_NB) < 0 ? errno : 0; }
static int try_sh_nb(int fd) { return flock(fd, LOCK_SH | LOCK_NB) < 0 ? errno : 0; }
static int try_wr_0_10(int fd) { return setlk(fd, F_SETLK, F_WRLCK, 0, 10) < 0 ? errno : 0; }
static int try_wr_10_10(int fd) { return setlk(fd, F_SETLK, F_WRLCK, 10, 10) < 0 ? errno : 0; }
static int try_rd_0_10(int fd) { return setlk(fd, F_SETLK, F_RDLCK, 0, 10) < 0 ? errno : 0; }
static int wait_ex(int fd) { return flock(fd, LOCK_EX); }
static int wait_wr_0_10(int fd) { return setlk(fd, F_SETLKW, F_WRLCK, 0, 10) < 0 ? errno : 0; }

static void test_flock(void)
{
	int fd = open(path, O_RDWR), fd2 = open(path, O_RDWR);
	check("flock LOCK_EX", flock(fd, LOCK_EX), 0, 0);
	check("flock second description LOCK_NB: EWOULDBLOCK", flock(fd2, LOCK_EX | LOCK_NB), -1,
	      EWOULDBLOCK);
	check("flock other process LOCK_EX|LOCK_NB: EWOULDBLOCK",
	      wait_status(child(try_ex_nb, NULL)), EWOULDBLOCK, 0);
	int dup_fd = dup(fd);
	check("flock through a dup shares the lock", flock(dup_fd, LOCK_EX | LOCK_NB), 0, 0);
	check("flock convert to LOCK_SH", flock(fd, LOCK_SH), 0, 0);
	check("flock shared by another process", wait_status(child(try_sh_nb, NULL)), 0, 0);
	check("flock LOCK_UN", flock(fd, LOCK_UN), 0, 0);
	check("flock after unlock", wait_status(child(try_ex_nb, NULL)), 0, 0);
	check("flock bad operation: EINVAL", flock(fd, 0), -1, EINVAL);
	check("flock bad fd: EBADF", flock(-1, LOCK_SH), -1, EBADF);

	/* a waiter wakes when the holder unlocks */
	check("flock LOCK_EX again", flock(fd, LOCK_EX), 0, 0);
	pid_t w = child(wait_ex, NULL);
	sleep_ms(100);
	check("flock waiter still waits", waitpid(w, NULL, WNOHANG), 0, 0);
	flock(fd, LOCK_UN);
	check("flock waiter got the lock", wait_status(w), 0, 0);
	/* closing the last descriptor of the description drops it */
	flock(fd, LOCK_EX);
	close(fd);
	check("flock held through the dup", wait_status(child(try_ex_nb, NULL)), EWOULDBLOCK, 0);
	close(dup_fd);
	check("flock dropped with the description", wait_status(child(try_ex_nb, NULL)), 0, 0);
	close(fd2);
}

static void test_posix(void)
{
	int fd = open(path, O_RDWR);
	struct flock got;
	check("F_SETLK write 0..9", setlk(fd, F_SETLK, F_WRLCK, 0, 10), 0, 0);
	check("own lock: F_GETLK finds none", getlk(fd, F_GETLK, F_WRLCK, 0, 100, NULL), F_UNLCK, 0);
	check("other process: F_SETLK EAGAIN", wait_status(child(try_wr_0_10, NULL)), EAGAIN, 0);
	check("other process: a free range", wait_status(child(try_wr_10_10, NULL)), 0, 0);
	pid_t c = fork();
	if (c == 0) {
		int cfd = open(path, O_RDWR);
		int type = getlk(cfd, F_GETLK, F_RDLCK, 5, 1, &got);
		_exit(type == F_WRLCK && got.l_pid == getppid() && got.l_start == 0 &&
		      got.l_len == 10 ? 0 : 1);
	}
	check("F_GETLK reports the holder's pid and range", wait_status(c), 0, 0);

	/* unlocking the middle splits the lock */
	check("F_SETLK unlock 3..5", setlk(fd, F_SETLK, F_UNLCK, 3, 3), 0, 0);
	c = fork();
	if (c == 0) {
		int cfd = open(path, O_RDWR);
		int mid = getlk(cfd, F_GETLK, F_WRLCK, 3, 3, NULL);
		int hi = getlk(cfd, F_GETLK, F_WRLCK, 6, 1, &got);
		_exit(mid == F_UNLCK && hi == F_WRLCK && got.l_start == 6 && got.l_len == 4 ? 0 : 1);
	}
	check("split lock: the hole is free, the rest held", wait_status(c), 0, 0);
	/* read locks share */
	setlk(fd, F_SETLK, F_UNLCK, 0, 0);
	check("F_SETLK read 0..9", setlk(fd, F_SETLK, F_RDLCK, 0, 10), 0, 0);
	check("read locks share", wait_status(child(try_rd_0_10, NULL)), 0, 0);
	check("write against read: EAGAIN", wait_status(child(try_wr_0_10, NULL)), EAGAIN, 0);

	/* closing ANY descriptor of the file drops the process's locks */
	int other = open(path, O_RDONLY);
	close(other);
	check("close of another descriptor drops them", wait_status(child(try_wr_0_10, NULL)), 0, 0);

	/* F_SETLKW waits until the holder unlocks */
	setlk(fd, F_SETLK, F_WRLCK, 0, 10);
	pid_t w = child(wait_wr_0_10, NULL);
	sleep_ms(100);
	check("F_SETLKW waiter still waits", waitpid(w, NULL, WNOHANG), 0, 0);
	setlk(fd, F_SETLK, F_UNLCK, 0, 10);
	check("F_SETLKW waiter got the lock", wait_status(w), 0, 0);

	check("F_SETLK bad type: EINVAL", setlk(fd, F_SETLK, 7, 0, 1), -1, EINVAL);
	check("F_SETLK negative start: EINVAL", setlk(fd, F_SETLK, F_WRLCK, -5, 1), -1, EINVAL);
	check("F_GETLK F_UNLCK: EINVAL", getlk(fd, F_GETLK, F_UNLCK, 0, 1, NULL), -1, EINVAL);
	int ro = open(path, O_RDONLY);
	check("F_WRLCK on a read-only descriptor: EBADF", setlk(ro, F_SETLK, F_WRLCK, 0, 1), -1, EBADF);
	close(ro);
	close(fd);
}

/* Two processes each hold one range and wait for the other's: one gets EDEADLK. */
static void test_deadlock(void)
{
	int fd = open(path, O_RDWR);
	setlk(fd, F_SETLK, F_WRLCK, 0, 1);
	int sync[2];
	if (pipe(sync))
		return;
	pid_t c = fork();
	if (c == 0) {
		int cfd = open(path, O_RDWR);
		setlk(cfd, F_SETLK, F_WRLCK, 1, 1);
		close(sync[1]);                     /* tell the parent: range 1 is held */
		int r = setlk(cfd, F_SETLKW, F_WRLCK, 0, 1);   /* waits for the parent */
		_exit(r == 0 ? 0 : 2);
	}
	close(sync[1]);
	char b;
	check("child holds its range", (long)read(sync[0], &b, 1), 0, 0);
	wait_asleep(c);                             /* the child waits for range 0 */
	check("F_SETLKW that would deadlock: EDEADLK", setlk(fd, F_SETLKW, F_WRLCK, 1, 1), -1,
	      EDEADLK);
	setlk(fd, F_SETLK, F_UNLCK, 0, 1);
	check("the child then gets its lock", wait_status(c), 0, 0);
	close(sync[0]);
	close(fd);
}

static void on_alarm(int s) { (void)s; }

static void test_interrupted(void)
{
	int fd = open(path, O_RDWR);
	flock(fd, LOCK_EX);
	pid_t c = fork();
	if (c == 0) {
		struct sigaction sa = { .sa_handler = on_alarm };   /* no SA_RESTART */
		sigaction(SIGALRM, &sa, NULL);
		int cfd = open(path, O_RDWR);
		alarm(1);
		int r = flock(cfd, LOCK_EX);
		_exit(r < 0 && errno == EINTR ? 0 : 1);
	}
	check("flock waiter interrupted by a signal: EINTR", wait_status(c), 0, 0);
	close(fd);
}

static void test_ofd(void)
{
	int fd = open(path, O_RDWR), fd2 = open(path, O_RDWR);
	check("F_OFD_SETLK write", setlk(fd, F_OFD_SETLK, F_WRLCK, 0, 10), 0, 0);
	check("OFD: another description of this process conflicts",
	      setlk(fd2, F_OFD_SETLK, F_WRLCK, 5, 1), -1, EAGAIN);
	struct flock got;
	check("F_OFD_GETLK sees it", getlk(fd2, F_OFD_GETLK, F_RDLCK, 0, 1, &got), F_WRLCK, 0);
	check("F_OFD_GETLK's l_pid is -1", got.l_pid == -1, 1, 0);
	check("OFD vs a POSIX lock of another process", wait_status(child(try_wr_0_10, NULL)), EAGAIN,
	      0);
	int other = open(path, O_RDONLY);
	close(other);
	check("OFD lock survives closing another descriptor",
	      setlk(fd2, F_OFD_SETLK, F_WRLCK, 5, 1), -1, EAGAIN);
	struct flock bad = { .l_type = F_WRLCK, .l_pid = 1 };
	check("F_OFD_SETLK with l_pid set: EINVAL", fcntl(fd2, F_OFD_SETLK, &bad), -1, EINVAL);
	close(fd);
	check("OFD lock goes with its description", setlk(fd2, F_OFD_SETLK, F_WRLCK, 5, 1), 0, 0);
	close(fd2);
}

int main(void)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "0123456789abcdefghij", 20) != 20)
		return 2;
	close(fd);
	test_flock();
	test_posix();
	test_deadlock();
	test_interrupted();
	test_ofd();
	unlink(path);
	return checks_done("locks");
}
