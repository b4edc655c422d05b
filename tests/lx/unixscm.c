// SPDX-License-Identifier: MIT
// AF_UNIX control messages: SCM_RIGHTS (descriptors received, MSG_CTRUNC,
// MSG_CMSG_CLOEXEC, a bad descriptor), SCM_CREDENTIALS with SO_PASSCRED and
// forged by a non-root sender, SO_PEERCRED.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

// sends one byte with a control message of `n` descriptors
static long send_fds(int s, const int *fds, int n)
{
	char buf[CMSG_SPACE(4 * sizeof(int))] = { 0 };
	struct iovec iov = { "x", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(s, &m, 0);
}

static void rights_checks(void)
{
	int sv[2], p[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pipe(p);
	write(p[1], "hi", 2);
	int fds[2] = { p[0], p[1] };
	check("sendmsg SCM_RIGHTS", send_fds(sv[0], fds, 2), 1, 0);
	char buf[CMSG_SPACE(4 * sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof buf };
	check("recvmsg SCM_RIGHTS", recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC), 1, 0);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	check("one SCM_RIGHTS header of two fds",
	      c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		      c->cmsg_len == CMSG_LEN(2 * sizeof(int)) && !(m.msg_flags & MSG_CTRUNC),
	      1, 0);
	int got[2];
	memcpy(got, CMSG_DATA(c), sizeof got);
	char two[2];
	check("received read end reads the pipe", read(got[0], two, 2), 2, 0);
	check("received fds are new numbers", got[0] != p[0] && got[1] != p[1], 1, 0);
	check("MSG_CMSG_CLOEXEC set FD_CLOEXEC", fcntl(got[0], F_GETFD), FD_CLOEXEC, 0);
	// a control buffer with room for one descriptor: the rest are closed, MSG_CTRUNC
	check("send two again", send_fds(sv[0], fds, 2), 1, 0);
	m.msg_controllen = CMSG_LEN(sizeof(int));
	check("recvmsg small control buffer", recvmsg(sv[1], &m, 0), 1, 0);
	check("MSG_CTRUNC", !!(m.msg_flags & MSG_CTRUNC), 1, 0);
	c = CMSG_FIRSTHDR(&m);
	check("one fd delivered", c && c->cmsg_len == CMSG_LEN(sizeof(int)), 1, 0);
	check("send two, receive without control", send_fds(sv[0], fds, 2), 1, 0);
	m.msg_control = NULL, m.msg_controllen = 0;
	check("recvmsg no control buffer", recvmsg(sv[1], &m, 0), 1, 0);
	check("MSG_CTRUNC without room", !!(m.msg_flags & MSG_CTRUNC), 1, 0);
	int bad = 999;
	check("SCM_RIGHTS bad fd: EBADF", send_fds(sv[0], &bad, 1), -1, EBADF);
	close(sv[0]), close(sv[1]), close(p[0]), close(p[1]);
}

// SCM_RIGHTS on a datagram pair, and MSG_PEEK: a peek gets copies, the read the originals
static void dgram_rights_checks(void)
{
	int sv[2], p[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	pipe(p);
	check("SCM_RIGHTS on a datagram", send_fds(sv[0], &p[1], 1), 1, 0);
	char buf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof buf };
	check("recvmsg MSG_PEEK", recvmsg(sv[1], &m, MSG_PEEK), 1, 0);
	int a = -1, c = -1;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	if (h)
		memcpy(&a, CMSG_DATA(h), sizeof a);
	m.msg_controllen = sizeof buf;
	check("recvmsg after the peek", recvmsg(sv[1], &m, 0), 1, 0);
	h = CMSG_FIRSTHDR(&m);
	if (h)
		memcpy(&c, CMSG_DATA(h), sizeof c);
	check("peek and read each got a descriptor", a >= 0 && c >= 0 && a != c, 1, 0);
	check("both write the pipe", write(a, "1", 1) + write(c, "2", 1), 2, 0);
	char two[2];
	check("the pipe got both", read(p[0], two, 2), 2, 0);
	check("nothing more queued", recv(sv[1], &b, 1, MSG_DONTWAIT), -1, EAGAIN);
	close(a), close(c), close(sv[0]), close(sv[1]), close(p[0]), close(p[1]);
}

static void cred_checks(void)
{
	int sv[2], on = 1;
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	struct ucred uc;
	socklen_t len = sizeof uc;
	check("SO_PEERCRED", getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &uc, &len), 0, 0);
	check("peer is this process", uc.pid == getpid() && uc.uid == getuid() && uc.gid == getgid(),
	      1, 0);
	check("SO_PEERCRED length", len, sizeof uc, 0);
	check("SO_PASSCRED", setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on), 0, 0);
	int v = 0;
	len = sizeof v;
	getsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &v, &len);
	check("SO_PASSCRED reads back", v, 1, 0);
	send(sv[0], "c", 1, 0);
	char buf[CMSG_SPACE(sizeof(struct ucred))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			    .msg_controllen = sizeof buf };
	check("recvmsg with SO_PASSCRED", recvmsg(sv[1], &m, 0), 1, 0);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	check("SCM_CREDENTIALS arrives", c && c->cmsg_type == SCM_CREDENTIALS, 1, 0);
	if (c)
		memcpy(&uc, CMSG_DATA(c), sizeof uc);
	check("credentials are the sender's", c && uc.pid == getpid() && uc.uid == getuid(), 1, 0);
	// sending explicit credentials of another pid: EPERM even for root
	struct ucred lie = { .pid = 1, .uid = getuid(), .gid = getgid() };
	m.msg_controllen = CMSG_SPACE(sizeof lie);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof lie);
	memcpy(CMSG_DATA(c), &lie, sizeof lie);
	b = 'x';
	pid_t k = fork();
	if (k == 0) {
		setuid(65534);
		lie.uid = 0;
		memcpy(CMSG_DATA(c), &lie, sizeof lie);
		_exit(sendmsg(sv[0], &m, 0) == -1 && errno == EPERM ? 0 : 1);
	}
	int st;
	waitpid(k, &st, 0);
	check("SCM_CREDENTIALS forged by non-root: EPERM", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1,
	      0);
	close(sv[0]), close(sv[1]);
}

int main(void)
{
	rights_checks();
	dgram_rights_checks();
	cred_checks();
	return checks_done("unixscm");
}
