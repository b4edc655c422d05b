// SPDX-License-Identifier: MIT
// AF_UNIX beyond tests/lx/sockets.c: SOCK_SEQPACKET, shutdown of each
// direction, EPIPE against SIGPIPE and MSG_NOSIGNAL, FIONREAD, ECONNREFUSED, EADDRINUSE and getsockname of unbound and bound sockets.
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

static volatile int sigpipes;
static void on_pipe(int s)
{
	(void)s;
	sigpipes++;
}

static void seqpacket_checks(void)
{
	int sv[2];
	check("socketpair SEQPACKET", socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0, 0);
	send(sv[0], "abc", 3, 0);
	send(sv[0], "de", 2, 0);
	char b[8];
	check("one record per read", recv(sv[1], b, sizeof b, 0), 3, 0);
	check("short read truncates", recv(sv[1], b, 1, 0), 1, 0);
	check("the rest is gone", recv(sv[1], b, sizeof b, MSG_DONTWAIT), -1, EAGAIN);
	close(sv[0]);
	check("EOF after the peer closes", recv(sv[1], b, sizeof b, 0), 0, 0);
	close(sv[1]);
}

static void shutdown_checks(void)
{
	int sv[2];
	char b[4];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	check("shutdown bad how: EINVAL", shutdown(sv[0], 7), -1, EINVAL);
	check("shutdown bad fd: EBADF", shutdown(99, SHUT_RD), -1, EBADF);
	check("shutdown not a socket: ENOTSOCK", shutdown(0, SHUT_RD), -1, ENOTSOCK);
	send(sv[1], "x", 1, 0);
	check("SHUT_RD", shutdown(sv[0], SHUT_RD), 0, 0);
	check("data queued before SHUT_RD still reads", recv(sv[0], b, 4, 0), 1, 0);
	check("then EOF", recv(sv[0], b, 4, 0), 0, 0);
	check("SHUT_RD side still writes", send(sv[0], "y", 1, 0), 1, 0);
	signal(SIGPIPE, on_pipe);
	check("writing to a SHUT_RD peer: EPIPE", send(sv[1], "z", 1, 0), -1, EPIPE);
	check("and SIGPIPE", sigpipes, 1, 0);
	check("MSG_NOSIGNAL: EPIPE, no signal", send(sv[1], "z", 1, MSG_NOSIGNAL), -1, EPIPE);
	check("no second SIGPIPE", sigpipes, 1, 0);
	check("SHUT_RDWR", shutdown(sv[1], SHUT_RDWR), 0, 0);
	check("write after SHUT_RDWR: EPIPE", write(sv[1], "z", 1), -1, EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(sv[0]), close(sv[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	check("shutdown twice", (shutdown(sv[0], SHUT_WR), shutdown(sv[0], SHUT_WR)), 0, 0);
	int n = -1;
	send(sv[1], "abc", 3, 0);
	check("FIONREAD on a stream socket", (ioctl(sv[0], FIONREAD, &n), n), 3, 0);
	close(sv[0]), close(sv[1]);
}

static void name_checks(void)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a;
	socklen_t len = sizeof a;
	memset(&a, 0x55, sizeof a);
	check("getsockname unbound", getsockname(s, (struct sockaddr *)&a, &len), 0, 0);
	check("unbound name is the family only", len == sizeof(sa_family_t) && a.sun_family == AF_UNIX,
	      1, 0);
	struct sockaddr_un b = { .sun_family = AF_UNIX };
	strcpy(b.sun_path, "/tmp/unixmsg.sock");
	unlink(b.sun_path);
	check("bind", bind(s, (struct sockaddr *)&b, sizeof b), 0, 0);
	len = sizeof a;
	getsockname(s, (struct sockaddr *)&a, &len);
	check("bound name and length",
	      len == offsetof(struct sockaddr_un, sun_path) + strlen(b.sun_path) + 1 &&
		      !strcmp(a.sun_path, b.sun_path),
	      1, 0);
	struct sockaddr_un b2 = { .sun_family = AF_UNIX };
	strcpy(b2.sun_path, "/tmp/unixmsg2.sock");
	unlink(b2.sun_path);
	check("bind a bound socket again: EINVAL", bind(s, (struct sockaddr *)&b2, sizeof b2), -1,
	      EINVAL);
	struct stat st;
	check("the node is a socket", stat(b.sun_path, &st) == 0 && S_ISSOCK(st.st_mode), 1, 0);
	int t = socket(AF_UNIX, SOCK_STREAM, 0);
	check("connect to a bound, not listening socket: ECONNREFUSED",
	      connect(t, (struct sockaddr *)&b, sizeof b), -1, ECONNREFUSED);
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	check("bind a taken path: EADDRINUSE", bind(u, (struct sockaddr *)&b, sizeof b), -1,
	      EADDRINUSE);
	struct sockaddr_un ab = { .sun_family = AF_UNIX };
	memcpy(ab.sun_path, "\0unixmsg", 8);
	socklen_t alen = offsetof(struct sockaddr_un, sun_path) + 8;
	check("bind abstract", bind(u, (struct sockaddr *)&ab, alen), 0, 0);
	len = sizeof a;
	getsockname(u, (struct sockaddr *)&a, &len);
	check("abstract name and length", len == alen && !memcmp(a.sun_path, ab.sun_path, 8), 1, 0);
	int v = socket(AF_UNIX, SOCK_STREAM, 0);
	check("abstract name taken: EADDRINUSE", bind(v, (struct sockaddr *)&ab, alen), -1,
	      EADDRINUSE);
	check("connect to abstract not listening: ECONNREFUSED",
	      connect(v, (struct sockaddr *)&ab, alen), -1, ECONNREFUSED);
	check("bind short length: EINVAL", bind(v, (struct sockaddr *)&ab, 1), -1, EINVAL);
	check("listen on an unbound stream: EINVAL", listen(v, 1), -1, EINVAL);
	check("bind of the family alone autobinds", bind(v, (struct sockaddr *)&ab, sizeof(sa_family_t)),
	      0, 0);
	len = sizeof a;
	getsockname(v, (struct sockaddr *)&a, &len);
	check("autobound abstract name: 5 hex digits",
	      len == offsetof(struct sockaddr_un, sun_path) + 6 && a.sun_path[0] == 0, 1, 0);
	int d = socket(AF_UNIX, SOCK_DGRAM, 0);
	check("listen on a datagram socket: EOPNOTSUPP", listen(d, 1), -1, EOPNOTSUPP);
	close(s), close(t), close(u), close(v), close(d);
	unlink(b.sun_path);
	unlink(b2.sun_path);
}

int main(void)
{
	seqpacket_checks();
	shutdown_checks();
	name_checks();
	return checks_done("unixmsg");
}
