// SPDX-License-Identifier: MIT
// AF_UNIX sockets against Linux's behaviour: stream and datagram pairs,
// sockets bound to paths and to abstract names, listen/accept/connect,
// shutdown, message boundaries, peeking, addresses, waiting and polling.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "sockets done, N failed"; the same program passes on Linux (run it in an
// empty directory: it binds names in /tmp).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static socklen_t addr_of(struct sockaddr_un *a, const char *path, int abstract)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t n = strlen(path);
	memcpy(a->sun_path + (abstract ? 1 : 0), path, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 1));
}

static void stream_pair(void)
{
	int sv[2];
	char b[64];
	check("socketpair_stream", socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0, 0);
	check("write_a", write(sv[0], "hello", 5), 5, 0);
	check("write_b", write(sv[0], "world", 5), 5, 0);
	check("stream_merges", read(sv[1], b, sizeof b), 10, 0);
	check("stream_data", memcmp(b, "helloworld", 10), 0, 0);
	check("other_way", write(sv[1], "x", 1) + read(sv[0], b, 1), 2, 0);
	int fl = fcntl(sv[0], F_GETFL);
	fcntl(sv[0], F_SETFL, fl | O_NONBLOCK);
	check("empty_nonblock", read(sv[0], b, 1), -1, EAGAIN);
	check("recv_dontwait", recv(sv[1], b, 1, MSG_DONTWAIT), -1, EAGAIN);
	write(sv[1], "abc", 3);
	check("peek", recv(sv[0], b, 2, MSG_PEEK), 2, 0);
	check("peek_keeps", read(sv[0], b, sizeof b), 3, 0);
	check("peek_data", memcmp(b, "abc", 3), 0, 0);
	int type = 0;
	socklen_t len = sizeof type;
	check("so_type", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM,
	      1, 0);
	struct stat st;
	check("fstat_sock", fstat(sv[0], &st) == 0 && S_ISSOCK(st.st_mode), 1, 0);
	check("lseek_sock", lseek(sv[0], 0, SEEK_SET), -1, ESPIPE);
	/* fill the other end until it refuses: the buffer is finite, nothing is lost */
	static char big[4096];
	long total = 0, r;
	while ((r = write(sv[0], big, sizeof big)) > 0)
		total += r;
	check("full_eagain", r, -1, EAGAIN);
	long got = 0;
	while ((r = recv(sv[1], big, sizeof big, MSG_DONTWAIT)) > 0)
		got += r;
	check("full_all_read", got == total && total > 0, 1, 0);
	check("shutdown_wr", shutdown(sv[0], SHUT_WR), 0, 0);
	check("eof_after_shutdown", read(sv[1], b, 1), 0, 0);
	check("write_after_shutdown", send(sv[0], "x", 1, MSG_NOSIGNAL), -1, EPIPE);
	check("still_reads", write(sv[1], "y", 1) + read(sv[0], b, 1), 2, 0);
	close(sv[1]);
	check("peer_closed_eof", read(sv[0], b, 1), 0, 0);
	close(sv[0]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	close(sv[1]);
	signal(SIGPIPE, SIG_IGN);
	check("epipe", write(sv[0], "x", 1), -1, EPIPE);
	close(sv[0]);
	check("bad_domain", socketpair(AF_INET6 + 100, SOCK_STREAM, 0, sv), -1, EAFNOSUPPORT);
	check("bad_type", socketpair(AF_UNIX, 77, 0, sv), -1, EINVAL);
	check("not_socket", shutdown(0 + 100, SHUT_RD), -1, EBADF);
	int fd = open("/tmp", O_RDONLY);
	check("enotsock", shutdown(fd, SHUT_RD), -1, ENOTSOCK);
	close(fd);
}

static void dgram_pair(void)
{
	int sv[2];
	char b[64];
	check("socketpair_dgram", socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0, 0);
	check("cloexec", fcntl(sv[0], F_GETFD), FD_CLOEXEC, 0);
	send(sv[0], "one", 3, 0);
	send(sv[0], "three", 5, 0);
	check("boundary_1", read(sv[1], b, sizeof b), 3, 0);
	check("boundary_2", read(sv[1], b, sizeof b), 5, 0);
	send(sv[0], "truncated", 9, 0);
	check("trunc_read", read(sv[1], b, 4), 4, 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	check("trunc_rest_gone", read(sv[1], b, sizeof b), -1, EAGAIN);
	send(sv[0], "truncated", 9, 0);
	check("msg_trunc_len", recv(sv[1], b, 2, MSG_TRUNC), 9, 0);
	struct msghdr mh = {0};
	struct iovec iov[2] = {{b, 2}, {b + 10, 3}};
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	send(sv[0], "abcdefg", 7, 0);
	check("recvmsg_iov", recvmsg(sv[1], &mh, 0), 5, 0);
	check("recvmsg_flag_trunc", (mh.msg_flags & MSG_TRUNC) != 0, 1, 0);
	check("recvmsg_data", memcmp(b, "ab", 2) == 0 && memcmp(b + 10, "cde", 3) == 0, 1, 0);
	struct iovec out[2] = {{"12", 2}, {"345", 3}};
	struct msghdr sm = {.msg_iov = out, .msg_iovlen = 2};
	check("sendmsg_iov", sendmsg(sv[0], &sm, 0), 5, 0);
	check("sendmsg_one_msg", read(sv[1], b, sizeof b), 5, 0);
	check("zero_len_dgram", send(sv[0], b, 0, 0), 0, 0);
	check("zero_len_read", read(sv[1], b, sizeof b), 0, 0);
	check("empty_again", read(sv[1], b, sizeof b), -1, EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

static void named_stream(void)
{
	struct sockaddr_un a, got;
	socklen_t alen = addr_of(&a, "/tmp/sock.s", 0), glen;
	char b[16];
	unlink("/tmp/sock.s");
	int ls = socket(AF_UNIX, SOCK_STREAM, 0);
	check("socket", ls >= 0, 1, 0);
	check("bind", bind(ls, (struct sockaddr *)&a, alen), 0, 0);
	struct stat st;
	check("bound_node", stat("/tmp/sock.s", &st) == 0 && S_ISSOCK(st.st_mode), 1, 0);
	int other = socket(AF_UNIX, SOCK_STREAM, 0);
	check("addr_in_use", bind(other, (struct sockaddr *)&a, alen), -1, EADDRINUSE);
	check("connect_not_listening", connect(other, (struct sockaddr *)&a, alen), -1, ECONNREFUSED);
	check("listen", listen(ls, 4), 0, 0);
	glen = sizeof got;
	check("getsockname", getsockname(ls, (struct sockaddr *)&got, &glen) == 0 &&
	      !strcmp(got.sun_path, "/tmp/sock.s"), 1, 0);
	check("connect", connect(other, (struct sockaddr *)&a, alen), 0, 0);
	check("connect_again", connect(other, (struct sockaddr *)&a, alen), -1, EISCONN);
	check("send_before_accept", write(other, "early", 5), 5, 0);
	glen = sizeof got;
	int c = accept4(ls, (struct sockaddr *)&got, &glen, SOCK_NONBLOCK);
	check("accept", c >= 0, 1, 0);
	check("accept_nonblock", (fcntl(c, F_GETFL) & O_NONBLOCK) != 0, 1, 0);
	check("accepted_addr_unnamed", glen, offsetof(struct sockaddr_un, sun_path), 0);
	check("read_early", read(c, b, sizeof b), 5, 0);
	glen = sizeof got;
	check("getpeername", getpeername(other, (struct sockaddr *)&got, &glen) == 0 &&
	      !strcmp(got.sun_path, "/tmp/sock.s"), 1, 0);
	glen = sizeof got;
	check("getpeername_unconnected", getpeername(ls, (struct sockaddr *)&got, &glen), -1, ENOTCONN);
	fcntl(ls, F_SETFL, O_NONBLOCK);
	check("accept_empty", accept(ls, 0, 0), -1, EAGAIN);
	struct pollfd pf = {ls, POLLIN, 0};
	check("poll_listener_idle", poll(&pf, 1, 0), 0, 0);
	check("read_unconnected", read(ls, b, 1), -1, EINVAL);

	/* a child connects while the parent waits in accept (blocking) */
	fcntl(ls, F_SETFL, 0);
	pid_t pid = fork();
	if (pid == 0) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		usleep(20000);
		if (connect(s, (struct sockaddr *)&a, alen) || write(s, "child", 5) != 5)
			_exit(1);
		_exit(read(s, b, 2) == 2 && !memcmp(b, "ok", 2) ? 0 : 2);
	}
	int d = accept(ls, 0, 0);
	check("accept_waits", d >= 0, 1, 0);
	check("read_waits", read(d, b, 5), 5, 0);
	check("reply", write(d, "ok", 2), 2, 0);
	int status;
	waitpid(pid, &status, 0);
	check("child_ok", WIFEXITED(status) && WEXITSTATUS(status) == 0, 1, 0);
	check("eof_after_child", read(d, b, 1), 0, 0);
	close(d);
	close(c);
	close(other);
	close(ls);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	check("connect_closed_listener", connect(s, (struct sockaddr *)&a, alen), -1, ECONNREFUSED);
	close(s);
	check("unlink_node", unlink("/tmp/sock.s"), 0, 0);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check("connect_missing", connect(s, (struct sockaddr *)&a, alen), -1, ENOENT);
	close(s);
}

static void named_dgram(void)
{
	struct sockaddr_un a, from;
	socklen_t alen = addr_of(&a, "pecan-test-dgram", 1), flen;
	char b[16];
	int r = socket(AF_UNIX, SOCK_DGRAM, 0), s = socket(AF_UNIX, SOCK_DGRAM, 0);
	check("bind_abstract", bind(r, (struct sockaddr *)&a, alen), 0, 0);
	check("send_unconnected", send(s, "x", 1, 0), -1, ENOTCONN);
	check("sendto", sendto(s, "hi", 2, 0, (struct sockaddr *)&a, alen), 2, 0);
	flen = sizeof from;
	check("recvfrom", recvfrom(r, b, sizeof b, 0, (struct sockaddr *)&from, &flen), 2, 0);
	check("recvfrom_unbound_sender", flen, 0, 0);
	struct sockaddr_un sa;
	socklen_t salen = addr_of(&sa, "/tmp/sock.d", 0);
	unlink("/tmp/sock.d");
	check("bind_sender", bind(s, (struct sockaddr *)&sa, salen), 0, 0);
	sendto(s, "yo", 2, 0, (struct sockaddr *)&a, alen);
	flen = sizeof from;
	check("recvfrom_named", recvfrom(r, b, sizeof b, 0, (struct sockaddr *)&from, &flen) == 2 &&
	      !strcmp(from.sun_path, "/tmp/sock.d"), 1, 0);
	check("connect_dgram", connect(s, (struct sockaddr *)&a, alen), 0, 0);
	check("send_connected", send(s, "abc", 3, 0), 3, 0);
	struct pollfd pf = {r, POLLIN, 0};
	check("poll_dgram", poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN), 1, 0);
	check("read_connected", read(r, b, sizeof b), 3, 0);
	close(r);
	check("send_to_closed", send(s, "x", 1, 0), -1, ECONNREFUSED);
	close(s);
	unlink("/tmp/sock.d");
	struct sockaddr_un bad = {.sun_family = AF_INET};
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	check("bind_bad_family", bind(s, (struct sockaddr *)&bad, sizeof bad), -1, EINVAL);
	check("bind_bad_pointer", bind(s, (struct sockaddr *)8, sizeof bad), -1, EFAULT);
	check("sendto_missing", sendto(s, "x", 1, 0, (struct sockaddr *)&sa, salen), -1, ENOENT);
	close(s);
}

/* A child writes more than the socket holds; the parent's reads make room for it. */
static void blocking_writer(void)
{
	int sv[2];
	static char buf[65536];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		long left = 1 << 20;
		memset(buf, 'q', sizeof buf);
		while (left > 0) {
			long w = write(sv[1], buf, left < (long)sizeof buf ? left : (long)sizeof buf);
			if (w <= 0)
				_exit(1);
			left -= w;
		}
		_exit(0);
	}
	close(sv[1]);
	long got = 0, r;
	int bad = 0;
	while ((r = read(sv[0], buf, sizeof buf)) > 0) {
		for (long i = 0; i < r; i++)
			bad |= buf[i] != 'q';
		got += r;
	}
	int status;
	waitpid(pid, &status, 0);
	check("megabyte_through", got, 1 << 20, 0);
	check("megabyte_intact", bad, 0, 0);
	check("writer_ok", WIFEXITED(status) && WEXITSTATUS(status) == 0, 1, 0);
	close(sv[0]);
}

/*
 * A read into a buffer that turns bad part-way: whatever the call returns
 * (Linux: EFAULT, the bytes left queued; lx: the bytes before the bad
 * page), no byte of the stream is lost or repeated.
 */
static void bad_buffer(void)
{
	int sv[2];
	static char pattern[8192], got[8192];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	for (int i = 0; i < (int)sizeof pattern; i++)
		pattern[i] = (char)(i * 7);
	write(sv[0], pattern, sizeof pattern);
	char *m = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + 4096, 4096);
	long r = read(sv[1], m + 4096 - 100, sizeof pattern), have = 0;
	check("bad_buffer_short_or_efault", r == 100 || (r == -1 && errno == EFAULT), 1, 0);
	if (r > 0) {
		memcpy(got, m + 4096 - 100, (size_t)r);
		have = r;
	}
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	while (have < (long)sizeof got && (r = read(sv[1], got + have, sizeof got - have)) > 0)
		have += r;
	check("bad_buffer_nothing_lost", have, sizeof pattern, 0);
	check("bad_buffer_in_order", memcmp(got, pattern, sizeof got), 0, 0);
	munmap(m, 4096);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	stream_pair();
	dgram_pair();
	named_stream();
	named_dgram();
	blocking_writer();
	bad_buffer();
	return checks_done("sockets");
}
