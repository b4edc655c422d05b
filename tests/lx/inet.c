// SPDX-License-Identifier: MIT
// AF_INET and AF_INET6 sockets over the loopback against Linux's behaviour:
// TCP between two processes (connect, accept, data both ways, end of
// stream, blocking and non-blocking connect, refused connections, MSG_PEEK,
// MSG_DONTWAIT, MSG_WAITALL, shutdown and EPIPE/SIGPIPE), UDP datagrams
// (sizes, truncation, peeking, connected sockets, datagrams left unread),
// addresses and options,
// EADDRINUSE/EADDRNOTAVAIL, a dying process's ports coming free, many
// connections opened and closed, and a stream with its checksum compared.
//
//     inet [CONNECTIONS [STREAM_KIB]]    (defaults 200 and 4096)
//
// Prints "ok NAME" or "FAIL NAME: detail" per check, then "inet done, N
// failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static struct sockaddr_in lo(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A TCP listener on 127.0.0.1 with an ephemeral port; the port in *port. */
static int listener(int *port)
{
	struct sockaddr_in a = lo(0);
	socklen_t len = sizeof a;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 4) ||
	    getsockname(s, (struct sockaddr *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	return s;
}

static int connect_to(int port)
{
	struct sockaddr_in a = lo(port);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a)) {
		close(s);
		return -1;
	}
	return s;
}

/* Read exactly n bytes (or to the end); the count. */
static long read_all(int fd, char *b, long n)
{
	long got = 0, r;
	while (got < n && (r = read(fd, b + got, n - got)) > 0)
		got += r;
	return got;
}

static int wait_child(pid_t pid)
{
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void tcp_basic(void)
{
	int port, l = listener(&port);
	char b[64];
	check("tcp_listen", l >= 0, 1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		int c = connect_to(port);
		if (c < 0 || write(c, "hello", 5) != 5 || read_all(c, b, 5) != 5 || memcmp(b, "world", 5))
			_exit(1);
		shutdown(c, SHUT_WR);
		_exit(read(c, b, 1) == 0 ? 0 : 2);
	}
	struct sockaddr_in peer;
	socklen_t len = sizeof peer;
	int s = accept(l, (struct sockaddr *)&peer, &len);
	check("tcp_accept", s >= 0, 1, 0);
	check("accept_peer", len == sizeof peer && peer.sin_family == AF_INET &&
	      peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && ntohs(peer.sin_port) != port, 1, 0);
	check("tcp_read", read_all(s, b, 5), 5, 0);
	check("tcp_data", memcmp(b, "hello", 5), 0, 0);
	check("tcp_write", write(s, "world", 5), 5, 0);
	check("tcp_eof", read(s, b, sizeof b), 0, 0);
	struct sockaddr_in me, him;
	socklen_t ml = sizeof me, hl = sizeof him;
	check("getsockname", getsockname(s, (struct sockaddr *)&me, &ml) == 0 && ntohs(me.sin_port) == port, 1, 0);
	check("getpeername", getpeername(s, (struct sockaddr *)&him, &hl) == 0 && him.sin_port == peer.sin_port, 1, 0);
	close(s);
	check("child_saw_all", wait_child(pid), 0, 0);
	int type = 0, acc = 0;
	len = sizeof type;
	check("so_type", getsockopt(l, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM, 1, 0);
	len = sizeof acc;
	check("so_acceptconn", getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) == 0 && acc == 1, 1, 0);
	check("getpeername_listener", getpeername(l, (struct sockaddr *)&him, &hl), -1, ENOTCONN);
	close(l);
}

/* As nobody: a port below 1024 is EACCES (CAP_NET_BIND_SERVICE), a raw socket EPERM
 * (CAP_NET_RAW); the child's exit status says which check failed. */
static void unprivileged(void)
{
	if (getuid() != 0)
		return;                         /* the checks need a root parent to drop from */
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(1);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = lo(0);
		a.sin_port = htons(81);
		if (bind(s, (struct sockaddr *)&a, sizeof a) != -1 || errno != EACCES)
			_exit(2);
		a.sin_port = 0;
		if (bind(s, (struct sockaddr *)&a, sizeof a) != 0)
			_exit(3);
		if (socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) != -1 || errno != EPERM)
			_exit(4);
		_exit(0);
	}
	check("unprivileged_low_port_and_raw", wait_child(pid), 0, 0);
}

static void tcp_errors(void)
{
	char b[4];
	struct sockaddr_in a = lo(0);
	int port, l = listener(&port);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = htons(port);
	check("bind_in_use", bind(s, (struct sockaddr *)&a, sizeof a), -1, EADDRINUSE);
	struct sockaddr_in far = lo(0);
	far.sin_addr.s_addr = inet_addr("192.0.2.1");      /* TEST-NET-1: not ours */
	check("bind_not_local", bind(s, (struct sockaddr *)&far, sizeof far), -1, EADDRNOTAVAIL);
	check("bind_short", bind(s, (struct sockaddr *)&a, sizeof a - 1), -1, EINVAL);
	struct sockaddr_in6 six = { .sin6_family = AF_INET6 };
	check("bind_wrong_family", bind(s, (struct sockaddr *)&six, sizeof six), -1, EAFNOSUPPORT);
	check("send_unconnected", send(s, "x", 1, MSG_NOSIGNAL), -1, EPIPE);
	check("recv_unconnected", recv(s, b, 1, 0), -1, ENOTCONN);
	check("accept_unlistening", accept(s, NULL, NULL), -1, EINVAL);
	int c = connect_to(port);
	socklen_t alen = sizeof a;
	check("accept_efault", accept(l, (struct sockaddr *)16, &alen), -1, EFAULT);
	close(c);
	close(l);
	a = lo(port);                    /* nobody listens there now */
	check("connect_refused", connect(s, (struct sockaddr *)&a, sizeof a), -1, ECONNREFUSED);
	close(s);
	check("seqpacket", socket(AF_INET, SOCK_SEQPACKET, 0), -1, ESOCKTNOSUPPORT);
	check("stream_udp", socket(AF_INET, SOCK_STREAM, IPPROTO_UDP), -1, EPROTONOSUPPORT);
	check("dgram_tcp", socket(AF_INET6, SOCK_DGRAM, IPPROTO_TCP), -1, EPROTONOSUPPORT);
	int sv[2];
	check("socketpair_inet", socketpair(AF_INET, SOCK_STREAM, 0, sv), -1, EOPNOTSUPP);
	check("listen_udp", listen(socket(AF_INET, SOCK_DGRAM, 0), 1), -1, EOPNOTSUPP);
}

static void tcp_nonblocking(void)
{
	int port, l = listener(&port);
	struct sockaddr_in a = lo(port);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int r = connect(c, (struct sockaddr *)&a, sizeof a);
	check("connect_inprogress", r == 0 || errno == EINPROGRESS, 1, 0);
	struct pollfd p = { c, POLLOUT, 0 };
	check("poll_connected", poll(&p, 1, 5000) == 1 && (p.revents & POLLOUT), 1, 0);
	int err = -1;
	socklen_t len = sizeof err;
	check("so_error_0", getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0, 1, 0);
	fcntl(l, F_SETFL, O_NONBLOCK);
	struct pollfd pl = { l, POLLIN, 0 };
	check("poll_listener", poll(&pl, 1, 5000) == 1 && (pl.revents & POLLIN), 1, 0);
	int s = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	check("accept4", s >= 0 && (fcntl(s, F_GETFD) & FD_CLOEXEC) && (fcntl(s, F_GETFL) & O_NONBLOCK), 1, 0);
	check("accept_empty", accept(l, NULL, NULL), -1, EAGAIN);
	char b[16];
	check("recv_empty", recv(s, b, sizeof b, 0), -1, EAGAIN);
	check("recv_dontwait", recv(c, b, sizeof b, MSG_DONTWAIT), -1, EAGAIN);
	check("send_nb", send(c, "peekaboo", 8, 0), 8, 0);
	struct pollfd ps = { s, POLLIN, 0 };
	poll(&ps, 1, 5000);
	check("peek", recv(s, b, 4, MSG_PEEK), 4, 0);
	check("peek_again", recv(s, b, 8, MSG_PEEK), 8, 0);
	check("after_peek", recv(s, b, sizeof b, 0) == 8 && memcmp(b, "peekaboo", 8) == 0, 1, 0);
	/* wild pointers: EFAULT, and the bytes stay for the next receive */
	check("send_efault", send(c, (void *)16, 4, 0), -1, EFAULT);
	send(c, "kept", 4, 0);
	poll(&ps, 1, 5000);
	check("recv_efault", recv(s, (void *)16, 4, 0), -1, EFAULT);
	check("recv_after_efault", recv(s, b, sizeof b, 0) == 4 && memcmp(b, "kept", 4) == 0, 1, 0);
	check("bind_efault", bind(socket(AF_INET, SOCK_STREAM, 0), (struct sockaddr *)16, sizeof(struct sockaddr_in)), -1, EFAULT);
	check("getsockname_efault", getsockname(s, (struct sockaddr *)&a, (socklen_t *)16), -1, EFAULT);
	check("getsockopt_efault", getsockopt(s, SOL_SOCKET, SO_TYPE, (void *)16, &len), -1, EFAULT);
	int one = 1, v = 0;
	len = sizeof v;
	check("nodelay", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0 &&
	      getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, &len) == 0 && v == 1, 1, 0);
	check("reuseaddr", setsockopt(c, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), 0, 0);
	check("reuseport", setsockopt(c, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one), 0, 0);
	check("keepalive", setsockopt(c, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one), 0, 0);
	check("bad_option", setsockopt(c, SOL_SOCKET, 12345, &one, sizeof one), -1, ENOPROTOOPT);
	/* our own end shut for writing: EPIPE, and SIGPIPE unless MSG_NOSIGNAL */
	check("shutdown_wr", shutdown(c, SHUT_WR), 0, 0);
	check("epipe_nosignal", send(c, "x", 1, MSG_NOSIGNAL), -1, EPIPE);
	signal(SIGPIPE, SIG_IGN);
	check("epipe_write", write(c, "x", 1), -1, EPIPE);
	signal(SIGPIPE, SIG_DFL);
	pid_t pid = fork();
	if (pid == 0) {
		write(c, "x", 1);               /* SIGPIPE's default action ends us */
		_exit(0);
	}
	check("sigpipe_kills", wait_child(pid), 128 + SIGPIPE, 0);
	struct stat st;
	check("fstat_inet", fstat(c, &st) == 0 && S_ISSOCK(st.st_mode), 1, 0);
	fcntl(s, F_SETFL, 0);
	check("eof_after_shutdown", read(s, b, sizeof b), 0, 0);
	close(s);
	close(c);
	/* a refused non-blocking connect: SO_ERROR tells it once */
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	close(l);
	r = connect(c, (struct sockaddr *)&a, sizeof a);
	if (r < 0 && errno == EINPROGRESS) {
		p.fd = c;
		poll(&p, 1, 5000);
		len = sizeof err;
		getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
		errno = err;
		r = -1;
	}
	check("nonblocking_refused", r, -1, ECONNREFUSED);
	close(c);
}

static void tcp_waitall(void)
{
	int port, l = listener(&port);
	pid_t pid = fork();
	if (pid == 0) {
		int c = connect_to(port);
		write(c, "abc", 3);
		usleep(200000);
		write(c, "defgh", 5);
		usleep(200000);
		_exit(0);
	}
	int s = accept(l, NULL, NULL);
	char b[16];
	check("waitall", recv(s, b, 8, MSG_WAITALL), 8, 0);
	check("waitall_data", memcmp(b, "abcdefgh", 8), 0, 0);
	check("waitall_eof", recv(s, b, 8, MSG_WAITALL), 0, 0);
	wait_child(pid);
	close(s);
	close(l);
}

/* A server that closed its connection first can listen on its port again at once with SO_REUSEADDR. */
static void reuse_after_close(void)
{
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = lo(0);
	socklen_t len = sizeof a;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);   /* Linux wants it on both */
	bind(l, (struct sockaddr *)&a, sizeof a);
	listen(l, 1);
	getsockname(l, (struct sockaddr *)&a, &len);
	int port = ntohs(a.sin_port), c = connect_to(port), s = accept(l, NULL, NULL);
	char b;
	close(s);                        /* the server's end closes first: it waits in TIME-WAIT */
	check("peer_sees_eof", read(c, &b, 1), 0, 0);
	close(c);
	close(l);
	a = lo(port);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	check("rebind_reuseaddr", bind(l, (struct sockaddr *)&a, sizeof a), 0, 0);
	check("relisten", listen(l, 1), 0, 0);
	close(l);
}

/* A process killed with its sockets open gives its ports back. */
static void dying_process(void)
{
	int fd[2];
	pipe(fd);
	pid_t pid = fork();
	if (pid == 0) {
		int port, l = listener(&port);
		int c = connect_to(port);
		write(fd[1], &port, sizeof port);
		(void)l, (void)c;
		pause();
		_exit(0);
	}
	int port = 0;
	read(fd[0], &port, sizeof port);
	kill(pid, SIGKILL);
	wait_child(pid);
	struct sockaddr_in a = lo(port);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	check("port_freed_by_death", bind(s, (struct sockaddr *)&a, sizeof a), 0, 0);
	close(s);
	close(fd[0]);
	close(fd[1]);
}

static void udp(void)
{
	int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in aa = lo(0), ba = lo(0), from;
	socklen_t len = sizeof aa;
	bind(a, (struct sockaddr *)&aa, sizeof aa);
	getsockname(a, (struct sockaddr *)&aa, &len);
	bind(b, (struct sockaddr *)&ba, sizeof ba);
	len = sizeof ba;
	getsockname(b, (struct sockaddr *)&ba, &len);
	check("udp_bound", aa.sin_port != 0 && ba.sin_port != 0 && aa.sin_port != ba.sin_port, 1, 0);
	static char out[65507], in[65536];
	for (int i = 0; i < (int)sizeof out; i++)
		out[i] = (char)(i * 13 + 7);
	/* every size class: one frame, two, many fragments, the largest */
	static const int sizes[] = { 0, 1, 2, 100, 512, 1000, 1472, 1473, 2000, 4096, 8192, 16384,
				     32768, 50000, 65507 };
	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "udp_size_%d", sizes[i]);
		len = sizeof from;
		long r = sendto(b, out, sizes[i], 0, (struct sockaddr *)&aa, sizeof aa);
		struct pollfd pa = { a, POLLIN, 0 };
		if (r == sizes[i])
			r = poll(&pa, 1, 5000) == 1 ? recvfrom(a, in, sizeof in, 0, (struct sockaddr *)&from, &len) : -2;
		check(name, r == sizes[i] && !memcmp(in, out, sizes[i]) && from.sin_port == ba.sin_port, 1, 0);
	}
	sendto(b, "datagram", 8, 0, (struct sockaddr *)&aa, sizeof aa);
	check("udp_peek", recv(a, in, 4, MSG_PEEK), 4, 0);
	struct iovec iov = { in, 4 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	check("udp_trunc", recvmsg(a, &m, 0) == 4 && (m.msg_flags & MSG_TRUNC) && !memcmp(in, "data", 4), 1, 0);
	sendto(b, "datagram", 8, 0, (struct sockaddr *)&aa, sizeof aa);
	check("udp_trunc_len", recv(a, in, 2, MSG_TRUNC), 8, 0);
	check("udp_empty", recv(a, in, sizeof in, MSG_DONTWAIT), -1, EAGAIN);
	check("udp_no_dest", send(b, "x", 1, 0), -1, EDESTADDRREQ);
	check("udp_connect", connect(b, (struct sockaddr *)&aa, sizeof aa), 0, 0);
	check("udp_send_connected", send(b, "hi", 2, 0), 2, 0);
	check("udp_read", read(a, in, sizeof in) == 2 && !memcmp(in, "hi", 2), 1, 0);
	struct sockaddr_in p;
	len = sizeof p;
	check("udp_peername", getpeername(b, (struct sockaddr *)&p, &len) == 0 && p.sin_port == aa.sin_port, 1, 0);
	int c = socket(AF_INET, SOCK_DGRAM, 0);      /* a stranger: b must not see it */
	sendto(c, "stranger", 8, 0, (struct sockaddr *)&ba, sizeof ba);
	sendto(a, "friend", 6, 0, (struct sockaddr *)&ba, sizeof ba);
	struct pollfd pf = { b, POLLIN, 0 };
	poll(&pf, 1, 5000);
	usleep(100000);
	check("udp_connected_filters", recv(b, in, sizeof in, 0) == 6 && !memcmp(in, "friend", 6), 1, 0);
	static char huge[65508];
	check("udp_too_big", sendto(c, huge, sizeof huge, 0, (struct sockaddr *)&aa, sizeof aa), -1, EMSGSIZE);
	close(a);
	close(b);
	close(c);
}

/* A UDP socket on 127.0.0.1 connected to itself (Re-aim's udp_test). */
static int udp_self(struct sockaddr_in *a)
{
	socklen_t len = sizeof *a;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	*a = lo(0);
	if (s < 0 || bind(s, (struct sockaddr *)a, sizeof *a) ||
	    getsockname(s, (struct sockaddr *)a, &len) || connect(s, (struct sockaddr *)a, sizeof *a))
		return -1;
	return s;
}

/*
 * Datagrams to oneself, in lengths 1..4096: each read gives back the whole
 * datagram just written; a short read() drops the rest; a receive or read
 * into a bad buffer fails and drops the datagram (Linux's udp_recvmsg frees
 * it), a read of 0 bytes takes none;
 * FIONREAD tells its length; a blocking read is woken by another process's send.
 */
static void udp_more(void)
{
	struct sockaddr_in a;
	int s = udp_self(&a);
	check("udpself_socket", s >= 0, 1, 0);
	static char out[4096], in[8192];
	int ok = 1;
	for (int i = 0; i < 200 && ok; i++) {
		int n = 1 + (i * 997) % 4096;
		for (int j = 0; j < n; j++)
			out[j] = (char)(i + j);
		ok = write(s, out, n) == n && read(s, in, sizeof in) == n && !memcmp(in, out, n);
	}
	check("udpself_rounds", ok, 1, 0);
	write(s, "datagram", 8);
	check("udp_read_short", read(s, in, 3) == 3 && !memcmp(in, "dat", 3), 1, 0);
	check("udp_read_short_drops_rest", recv(s, in, sizeof in, MSG_DONTWAIT), -1, EAGAIN);
	write(s, "keep", 4);
	check("udp_recv_efault", recv(s, (void *)16, 4, 0), -1, EFAULT);
	check("udp_recv_efault_drops", recv(s, in, sizeof in, MSG_DONTWAIT), -1, EAGAIN);   /* as Linux */
	char *volatile bad = (char *)16;     /* hidden from the compiler's checks of read() */
	write(s, "lost", 4);
	check("udp_read_efault", read(s, bad, 4), -1, EFAULT);
	check("udp_read_efault_drops", recv(s, in, sizeof in, MSG_DONTWAIT), -1, EAGAIN);
	write(s, "zero", 4);
	check("udp_read_zero_keeps", read(s, in, 0) == 0 && read(s, in, sizeof in) == 4, 1, 0);
	int pending = -1;
	write(s, "fives", 5);
	check("udp_fionread", ioctl(s, FIONREAD, &pending) == 0 && pending == 5, 1, 0);
	check("udp_recv_after_fionread", recv(s, in, sizeof in, 0) == 5 && !memcmp(in, "fives", 5), 1, 0);
	pid_t child = fork();
	if (child == 0) {               /* through the same socket: it takes only its own datagrams */
		usleep(100000);             /* the parent is asleep in recv by then */
		_exit(write(s, "late", 4) != 4);
	}
	long r = recv(s, in, sizeof in, 0);
	int st = -1;
	waitpid(child, &st, 0);
	check("udp_blocking_recv_woken", r == 4 && !memcmp(in, "late", 4) && st == 0, 1, 0);
	close(s);
}

/* A UDP socket bound to 127.0.0.1 (port 0: an ephemeral one); its address in *a. */
static int udp_bound(struct sockaddr_in *a, int port)
{
	socklen_t len = sizeof *a;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	*a = lo(port);
	if (s < 0 || bind(s, (struct sockaddr *)a, sizeof *a) || getsockname(s, (struct sockaddr *)a, &len))
		return -1;
	return s;
}

static int readable(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	return poll(&p, 1, 100) == 1 && (p.revents & POLLIN);
}

static long send_to(int fd, const char *m, const struct sockaddr_in *to)
{
	return sendto(fd, m, strlen(m), 0, (const struct sockaddr *)to, sizeof *to);
}

/* recv with MSG_DONTWAIT: whether the next datagram is m (whole). */
static int next_is(int fd, const char *m)
{
	char in[64];
	long n = recv(fd, in, sizeof in, MSG_DONTWAIT);
	return n == (long)strlen(m) && !memcmp(in, m, n);
}

/*
 * Datagrams left unread while other sockets send and receive keep their
 * order, readiness and length; one from a stranger to a connected socket is
 * never readable (Linux drops it on arrival); a socket's unread datagrams go
 * with it when it closes, and a new socket on its port starts empty.
 */
static void udp_unread(void)
{
	struct sockaddr_in xa, wa, ya, za, sa;
	int x = udp_bound(&xa, 0), w = udp_bound(&wa, 0), y = udp_bound(&ya, 0), z = udp_bound(&za, 0);
	int stranger = udp_bound(&sa, 0);
	check("udp_unread_sockets", x >= 0 && w >= 0 && y >= 0 && z >= 0 && stranger >= 0, 1, 0);
	check("udp_unread_first", send_to(w, "first", &xa), 5, 0);
	check("udp_unread_readable", readable(x), 1, 0);
	check("udp_unread_other", send_to(y, "other", &za), 5, 0);
	check("udp_unread_other_arrives", readable(z) && next_is(z, "other"), 1, 0);
	check("udp_unread_second", send_to(w, "second!", &xa), 7, 0);
	int pending = -1;
	check("udp_unread_fionread", ioctl(x, FIONREAD, &pending) == 0 && pending == 5, 1, 0);
	char in[64];
	check("udp_unread_peek", recv(x, in, sizeof in, MSG_PEEK) == 5 && !memcmp(in, "first", 5), 1, 0);
	check("udp_unread_in_order", next_is(x, "first") && next_is(x, "second!"), 1, 0);
	check("udp_unread_then_none", recv(x, in, sizeof in, MSG_DONTWAIT), -1, EAGAIN);
	check("udp_unread_connect", connect(x, (struct sockaddr *)&wa, sizeof wa), 0, 0);
	check("udp_unread_stranger", send_to(stranger, "stranger", &xa), 8, 0);
	check("udp_unread_stranger_not_readable", readable(x), 0, 0);
	check("udp_unread_peer", send_to(w, "peer", &xa) == 4 && readable(x) && next_is(x, "peer"), 1, 0);
	check("udp_unread_before_close", send_to(w, "gone", &xa), 4, 0);
	close(x);
	int x2 = udp_bound(&xa, ntohs(xa.sin_port));
	check("udp_unread_new_socket_empty", x2 >= 0 && recv(x2, in, sizeof in, MSG_DONTWAIT) == -1 &&
	      errno == EAGAIN, 1, 0);
	check("udp_unread_new_socket_gets", send_to(w, "new", &xa) == 3 && readable(x2) && next_is(x2, "new"), 1, 0);
	close(x2);
	close(w);
	close(y);
	close(z);
	close(stranger);
}

static void udp6(void)
{
	/* the server has no ::1 yet (docs/net.md): its own address, found by a connected UDP socket */
	int a = socket(AF_INET6, SOCK_DGRAM, 0);
	struct sockaddr_in6 aa = { .sin6_family = AF_INET6 };
	socklen_t len = sizeof aa;
	check("udp6_socket", a >= 0, 1, 0);
	check("udp6_bind_any", bind(a, (struct sockaddr *)&aa, sizeof aa), 0, 0);
	check("udp6_name", getsockname(a, (struct sockaddr *)&aa, &len) == 0 && len == sizeof aa &&
	      aa.sin6_family == AF_INET6 && aa.sin6_port != 0, 1, 0);
	int v = 0;
	len = sizeof v;
	check("v6only", getsockopt(a, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len), 0, 0);
	/* a datagram of a whole frame to ::1 and back (lx's IPv6 datagrams fit one, docs/lx.md) */
	static char out[1452], in[2048];
	for (int i = 0; i < (int)sizeof out; i++)
		out[i] = (char)(i * 7 + 1);
	int b = socket(AF_INET6, SOCK_DGRAM, 0);
	aa.sin6_addr = in6addr_loopback;
	struct pollfd p = { a, POLLIN, 0 };
	long r = sendto(b, out, sizeof out, 0, (struct sockaddr *)&aa, sizeof aa);
	if (r == (long)sizeof out)
		r = poll(&p, 1, 5000) == 1 ? recv(a, in, sizeof in, 0) : -2;
	check("udp6_1452", r == (long)sizeof out && !memcmp(in, out, sizeof out), 1, 0);
	close(b);
	close(a);
}

/* TCP over IPv6's loopback: a listener on ::, a connection to ::1, bytes both ways. */
static void tcp6(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	socklen_t len = sizeof a;
	int l = socket(AF_INET6, SOCK_STREAM, 0);
	check("tcp6_listen", bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 2) == 0 &&
	      getsockname(l, (struct sockaddr *)&a, &len) == 0 && len == sizeof a && a.sin6_port != 0, 1, 0);
	a.sin6_addr = in6addr_loopback;
	int c = socket(AF_INET6, SOCK_STREAM, 0);
	check("tcp6_connect_loopback", connect(c, (struct sockaddr *)&a, sizeof a), 0, 0);
	int s = accept(l, NULL, NULL);
	char b[8];
	check("tcp6_data", write(c, "six", 3) == 3 && read_all(s, b, 3) == 3 && !memcmp(b, "six", 3) &&
	      write(s, "xis", 3) == 3 && read_all(c, b, 3) == 3 && !memcmp(b, "xis", 3), 1, 0);
	struct sockaddr_in6 p;
	len = sizeof p;
	check("tcp6_peername", getpeername(c, (struct sockaddr *)&p, &len) == 0 && p.sin6_family == AF_INET6 &&
	      p.sin6_port == a.sin6_port, 1, 0);
	close(s);
	close(c);
	/* dual stack: an IPv4 client of the IPv6 wildcard is ::ffff:127.0.0.1 */
	c = connect_to(ntohs(a.sin6_port));
	len = sizeof p;
	s = accept(l, (struct sockaddr *)&p, &len);
	check("tcp6_v4_mapped_peer", s >= 0 && len == sizeof p && p.sin6_family == AF_INET6 &&
	      IN6_IS_ADDR_V4MAPPED(&p.sin6_addr) && p.sin6_addr.s6_addr[15] == 1, 1, 0);
	close(s);
	close(c);
	close(l);
}

/* ::ffff:127.0.0.1 port `port` (network order): IPv4's loopback for a dual-stack socket. */
static struct sockaddr_in6 mapped_lo(in_port_t port)
{
	struct sockaddr_in6 m = { .sin6_family = AF_INET6, .sin6_port = port };
	m.sin6_addr.s6_addr[10] = m.sin6_addr.s6_addr[11] = 0xff;
	m.sin6_addr.s6_addr[12] = 127;
	m.sin6_addr.s6_addr[15] = 1;
	return m;
}

/* Wait up to 5 s for a datagram on fd; its first byte, or -1. */
static int dgram_byte(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char c;
	return poll(&p, 1, 5000) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) == 1 ? c : -1;
}

/* IPV6_V6ONLY off (the default): IPv4 peers through ::ffff:a.b.c.d, both ways. */
static void dual_stack(void)
{
	struct sockaddr_in fa = lo(0);
	socklen_t len = sizeof fa;
	int four = socket(AF_INET, SOCK_DGRAM, 0);
	bind(four, (struct sockaddr *)&fa, sizeof fa);
	getsockname(four, (struct sockaddr *)&fa, &len);
	struct sockaddr_in6 m = mapped_lo(fa.sin_port), from;
	int d = socket(AF_INET6, SOCK_DGRAM, 0);
	check("dual_sendto_mapped", sendto(d, "m", 1, 0, (struct sockaddr *)&m, sizeof m), 1, 0);
	check("dual_v4_receives", dgram_byte(four), 'm', 0);
	len = sizeof from;
	check("dual_own_name_unspecified", getsockname(d, (struct sockaddr *)&from, &len) == 0 &&
	      from.sin6_family == AF_INET6 && from.sin6_port != 0, 1, 0);
	struct sockaddr_in back = lo(ntohs(from.sin6_port));
	check("dual_connect_mapped", connect(d, (struct sockaddr *)&m, sizeof m), 0, 0);
	sendto(four, "r", 1, 0, (struct sockaddr *)&back, sizeof back);
	check("dual_connected_receives_v4", dgram_byte(d), 'r', 0);
	close(d);
	close(four);
	int port, l = listener(&port);
	int c = socket(AF_INET6, SOCK_STREAM, 0);
	m = mapped_lo(htons(port));
	check("dual_tcp_connect_mapped", connect(c, (struct sockaddr *)&m, sizeof m), 0, 0);
	struct sockaddr_in peer;
	len = sizeof peer;
	int s = accept(l, (struct sockaddr *)&peer, &len);
	check("dual_tcp_peer_is_v4", s >= 0 && peer.sin_family == AF_INET &&
	      peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK), 1, 0);
	close(s);
	close(c);
	close(l);
}

/* IPV6_V6ONLY on: no IPv4 addresses, no IPv4 traffic; fixed once the socket is bound. */
static void v6only(void)
{
	int one = 1, zero = 0;
	struct sockaddr_in6 any = { .sin6_family = AF_INET6 }, m = mapped_lo(htons(9));
	socklen_t len = sizeof any;
	int o = socket(AF_INET6, SOCK_DGRAM, 0);
	check("v6only_set", setsockopt(o, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one), 0, 0);
	check("v6only_bind_mapped", bind(o, (struct sockaddr *)&m, sizeof m), -1, EINVAL);
	check("v6only_bind_any", bind(o, (struct sockaddr *)&any, sizeof any) == 0 &&
	      getsockname(o, (struct sockaddr *)&any, &len) == 0, 1, 0);
	check("v6only_sendto_mapped", sendto(o, "x", 1, 0, (struct sockaddr *)&m, sizeof m), -1, ENETUNREACH);
	check("v6only_connect_mapped", connect(o, (struct sockaddr *)&m, sizeof m), -1, ENETUNREACH);
	int t = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(t, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	check("v6only_tcp_connect_mapped", connect(t, (struct sockaddr *)&m, sizeof m), -1, ENETUNREACH);
	close(t);
	check("v6only_fixed_once_bound", setsockopt(o, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero), -1, EINVAL);
	/* an IPv4 datagram to its port is not its: the IPv6 one sent after is the first it gets */
	struct sockaddr_in to4 = lo(ntohs(any.sin6_port));
	int four = socket(AF_INET, SOCK_DGRAM, 0), six = socket(AF_INET6, SOCK_DGRAM, 0);
	sendto(four, "4", 1, 0, (struct sockaddr *)&to4, sizeof to4);
	usleep(100000);
	any.sin6_addr = in6addr_loopback;
	sendto(six, "6", 1, 0, (struct sockaddr *)&any, sizeof any);
	check("v6only_udp_ignores_v4", dgram_byte(o), '6', 0);
	close(four);
	close(six);
	close(o);
	/* a v6-only listener: an IPv4 client is refused (lx: reset), the IPv6 one accepted */
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	len = sizeof a;
	int l = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	check("v6only_listen", bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 2) == 0 &&
	      getsockname(l, (struct sockaddr *)&a, &len) == 0, 1, 0);
	int c4 = connect_to(ntohs(a.sin6_port));
	a.sin6_addr = in6addr_loopback;
	int c6 = socket(AF_INET6, SOCK_STREAM, 0);
	connect(c6, (struct sockaddr *)&a, sizeof a);
	struct sockaddr_in6 p;
	len = sizeof p;
	int s = accept(l, (struct sockaddr *)&p, &len);
	check("v6only_accepts_v6_only", s >= 0 && p.sin6_family == AF_INET6 &&
	      !IN6_IS_ADDR_V4MAPPED(&p.sin6_addr), 1, 0);
	close(s);
	close(c6);
	if (c4 >= 0)
		close(c4);
	close(l);
}

/* Many connections, each opened, used for a byte and closed. */
static void many(int n)
{
	int port, l = listener(&port);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < n; i++) {
			int c = connect_to(port);
			char b = (char)i;
			if (c < 0 || write(c, &b, 1) != 1 || read(c, &b, 1) != 1)
				_exit(1);
			close(c);
		}
		_exit(0);
	}
	int good = 0;
	for (int i = 0; i < n; i++) {
		int s = accept(l, NULL, NULL);
		char b;
		if (s >= 0 && read(s, &b, 1) == 1 && b == (char)i && write(s, &b, 1) == 1)
			good++;
		if (s >= 0)
			close(s);
	}
	check("many_connections", good, n, 0);
	check("many_child", wait_child(pid), 0, 0);
	close(l);
}

static uint32_t sum_of(uint32_t sum, const unsigned char *b, long n)
{
	for (long i = 0; i < n; i++)
		sum = (sum << 5 | sum >> 27) ^ b[i];
	return sum;
}

/* kib KiB from a child to us with a checksum, the child's sent over a pipe. */
static void stream(long kib)
{
	int port, l = listener(&port), fd[2];
	pipe(fd);
	pid_t pid = fork();
	if (pid == 0) {
		static unsigned char b[65536];
		int c = connect_to(port);
		uint32_t sum = 0, x = 12345;
		for (long k = 0; k < kib; k += 64) {
			long n = kib - k < 64 ? (kib - k) * 1024 : 65536;
			for (long i = 0; i < n; i++)
				b[i] = (unsigned char)((x = x * 1103515245 + 12345) >> 16);
			sum = sum_of(sum, b, n);
			for (long off = 0; off < n;) {
				long w = write(c, b + off, n - off);
				if (w <= 0)
					_exit(1);
				off += w;
			}
		}
		write(fd[1], &sum, sizeof sum);
		close(c);
		_exit(0);
	}
	int s = accept(l, NULL, NULL);
	static unsigned char b[65536];
	long total = 0, r;
	uint32_t sum = 0, theirs = 1;
	while ((r = read(s, b, sizeof b)) > 0) {
		sum = sum_of(sum, b, r);
		total += r;
	}
	read(fd[0], &theirs, sizeof theirs);
	check("stream_bytes", total, kib * 1024, 0);
	check("stream_checksum", sum == theirs, 1, 0);
	check("stream_child", wait_child(pid), 0, 0);
	close(s);
	close(l);
	close(fd[0]);
	close(fd[1]);
}

int main(int argc, char **argv)
{
	int conns = argc > 1 ? atoi(argv[1]) : 200;
	long kib = argc > 2 ? atol(argv[2]) : 4096;
	setvbuf(stdout, NULL, _IOLBF, 0);
	tcp_basic();
	tcp_errors();
	unprivileged();
	tcp_nonblocking();
	tcp_waitall();
	reuse_after_close();
	dying_process();
	udp();
	udp_more();
	udp_unread();
	udp6();
	tcp6();
	dual_stack();
	v6only();
	many(conns);
	stream(kib);
	return checks_done("inet");
}
