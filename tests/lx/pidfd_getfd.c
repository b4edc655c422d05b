// SPDX-License-Identifier: MIT
// pidfd_getfd(2) against Linux: a duplicate of a child's descriptor (the same
// open file: its offset and status flags), close-on-exec; one's own
// descriptors through a pidfd of oneself; permission as ptrace's
// PTRACE_MODE_ATTACH_REALCREDS (same real ids and dumpable, or root); and the
// errors errno by errno, a zombie's and a reaped child's ESRCH included.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static long pidfd_open(pid_t pid) { return syscall(SYS_pidfd_open, pid, 0); }
static long getfd(int pidfd, int fd, unsigned flags) { return syscall(SYS_pidfd_getfd, pidfd, fd, flags); }

/* A child that opens a file (O_APPEND), writes 5 bytes, tells its descriptor
 * over a pipe and waits until killed; uid: the ids it takes first (-1: none),
 * dumpable: PR_SET_DUMPABLE after that. */
static pid_t holder(int uid, int dumpable, int *fd_out)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (uid >= 0 && (setgid(uid) < 0 || setuid(uid) < 0))
			_exit(1);
		prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
		char name[] = "/tmp/pidfd_getfd.XXXXXX";
		int fd = mkstemp(name);
		unlink(name);
		fcntl(fd, F_SETFL, O_APPEND);
		if (write(fd, "hello", 5) != 5)
			_exit(1);
		write(p[1], &fd, sizeof(fd));
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], fd_out, sizeof(*fd_out)) != sizeof(*fd_out))
		*fd_out = -1;
	close(p[0]);
	return pid;
}

static void end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Run pidfd_getfd(pidfd, fd, 0) in a child with ids uid: 0 or its errno. */
static long as_user(int uid, int pidfd, int fd)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(uid) < 0 || setuid(uid) < 0)
			_exit(99);
		_exit(getfd(pidfd, fd, 0) >= 0 ? 0 : errno);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 98;
}

static void duplicate_checks(void)
{
	int cfd;
	pid_t c = holder(-1, 1, &cfd);
	int pfd = (int)pidfd_open(c);
	long fd = getfd(pfd, cfd, 0);
	check("a child's descriptor", fd >= 0, 1, 0);
	check("the same open file: its offset", lseek((int)fd, 0, SEEK_CUR), 5, 0);
	check("the same open file: its status flags", fcntl((int)fd, F_GETFL) & O_APPEND, O_APPEND, 0);
	check("the duplicate is close-on-exec", fcntl((int)fd, F_GETFD), FD_CLOEXEC, 0);
	lseek((int)fd, 1, SEEK_SET);
	long again = getfd(pfd, cfd, 0);
	check("the offset is shared with the child's", lseek((int)again, 0, SEEK_CUR), 1, 0);
	check("a new descriptor each time", again != fd, 1, 0);
	check("targetfd not open in the target", getfd(pfd, cfd + 50, 0), -1, EBADF);
	check("negative targetfd", getfd(pfd, -1, 0), -1, EBADF);
	check("flags must be 0", getfd(pfd, cfd, 1), -1, EINVAL);
	check("flags checked before the pidfd", getfd(-1, cfd, 1), -1, EINVAL);
	siginfo_t si;
	kill(c, SIGKILL);
	waitid(P_PID, c, &si, WEXITED | WNOWAIT);
	check("a zombie: ESRCH", getfd(pfd, cfd, 0), -1, ESRCH);
	waitpid(c, NULL, 0);
	close(pfd);
	close((int)fd);
	close((int)again);
}

static void error_checks(void)
{
	int p[2];
	pipe(p);
	check("pidfd not open", getfd(999, 0, 0), -1, EBADF);
	check("pidfd negative", getfd(-1, 0, 0), -1, EBADF);
	check("pidfd not a pidfd", getfd(p[0], 0, 0), -1, EBADF);
	int self = (int)pidfd_open(getpid());
	long fd = getfd(self, p[1], 0);
	check("one's own descriptor", fd >= 0 && fd != p[1], 1, 0);
	check("own: the same pipe", write((int)fd, "x", 1) == 1 && read(p[0], (char[1]){0}, 1) == 1, 1, 0);
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	int pfd = (int)pidfd_open(c);
	waitpid(c, NULL, 0);
	check("a reaped child: ESRCH", getfd(pfd, 0, 0), -1, ESRCH);
	close(pfd);
	close(self);
	close((int)fd);
	close(p[0]);
	close(p[1]);
}

/* Needs root to make processes of other users (natively and under lx). */
static void permission_checks(void)
{
	if (geteuid() != 0) {
		printf("skip permission checks: not root\n");
		return;
	}
	int cfd;
	pid_t c = holder(-1, 1, &cfd);
	int pfd = (int)pidfd_open(c);
	check("another user's process: EPERM", as_user(65534, pfd, cfd), EPERM, 0);
	end(c);
	close(pfd);
	c = holder(65534, 1, &cfd);
	pfd = (int)pidfd_open(c);
	check("the same user's dumpable process", as_user(65534, pfd, cfd), 0, 0);
	check("root takes another user's", getfd(pfd, cfd, 0) >= 0, 1, 0);
	end(c);
	close(pfd);
	c = holder(65534, 0, &cfd);
	pfd = (int)pidfd_open(c);
	check("the same user's undumpable process: EPERM", as_user(65534, pfd, cfd), EPERM, 0);
	end(c);
	close(pfd);
}

int main(void)
{
	duplicate_checks();
	error_checks();
	permission_checks();
	return checks_done("pidfd_getfd");
}
