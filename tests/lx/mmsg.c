// SPDX-License-Identifier: MIT
// sendmmsg(2) and recvmmsg(2) on AF_UNIX (datagram, stream) and UDP sockets
// against Linux: counts and msg_len, the partial count when a later message
// fails, MSG_WAITFORONE, MSG_DONTWAIT, the timeout checked after each datagram
// (and the time left written back), a wait for the rest of the vector, errors.
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/syscall.h>

#include "check.h"

// the system calls themselves: musl's sendmmsg loops over sendmsg in the
// process, and its recvmmsg writes the vector before the call
static long sendmmsg_(int fd, void *vec, unsigned n, int flags)
{
	return syscall(SYS_sendmmsg, fd, vec, n, flags);
}

static long recvmmsg_(int fd, void *vec, unsigned n, int flags, struct timespec *ts)
{
	return syscall(SYS_recvmmsg, fd, vec, n, flags, ts);
}

#define N 4

static char bufs[N][64];
static struct iovec iovs[N];
static struct mmsghdr vec[N];

// vec's entries reset: each receives into (or sends) bufs[i], len bytes
static void setup(int len)
{
	memset(vec, 0, sizeof vec);
	for (int i = 0; i < N; i++) {
		iovs[i] = (struct iovec){ bufs[i], len };
		vec[i].msg_hdr.msg_iov = &iovs[i];
		vec[i].msg_hdr.msg_iovlen = 1;
		vec[i].msg_len = 999;
	}
}

// n datagrams "m0", "m1", ... sent one by one
static void send_n(int s, int n)
{
	for (int i = 0; i < n; i++) {
		char m[3] = { 'm', (char)('0' + i), 0 };
		send(s, m, 2, 0);
	}
}

static void unix_dgram_checks(void)
{
	int sv[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	setup(0);
	for (int i = 0; i < 3; i++) {
		memset(bufs[i], 'a' + i, i + 1);
		iovs[i].iov_len = i + 1;
	}
	check("sendmmsg three", sendmmsg_(sv[0], vec, 3, 0), 3, 0);
	check("sendmmsg msg_len", vec[0].msg_len == 1 && vec[1].msg_len == 2 && vec[2].msg_len == 3, 1, 0);
	check("sendmmsg untouched past vlen", vec[3].msg_len, 999, 0);
	setup(64);
	check("recvmmsg three", recvmmsg_(sv[1], vec, N, MSG_DONTWAIT, NULL), 3, 0);
	check("recvmmsg msg_len", vec[0].msg_len == 1 && vec[1].msg_len == 2 && vec[2].msg_len == 3, 1, 0);
	check("recvmmsg data", bufs[1][0] == 'b' && bufs[2][2] == 'c', 1, 0);
	check("recvmmsg nothing, dontwait", recvmmsg_(sv[1], vec, N, MSG_DONTWAIT, NULL), -1, EAGAIN);

	send_n(sv[0], 2);
	setup(64);
	check("recvmmsg waitforone", recvmmsg_(sv[1], vec, N, MSG_WAITFORONE, NULL), 2, 0);
	check("recvmmsg waitforone second", bufs[1][1], '1', 0);

	send_n(sv[0], 1);
	setup(1);
	check("recvmmsg truncated", recvmmsg_(sv[1], vec, 1, 0, NULL), 1, 0);
	check("recvmmsg truncated msg_len", vec[0].msg_len, 1, 0);
	check("recvmmsg truncated flag", (vec[0].msg_hdr.msg_flags & MSG_TRUNC) != 0, 1, 0);

	send_n(sv[0], 1);
	setup(64);
	struct timespec zero = { 0, 0 };
	check("recvmmsg zero timeout ends after one", recvmmsg_(sv[1], vec, 2, 0, &zero), 1, 0);
	check("recvmmsg zero timeout left", zero.tv_sec == 0 && zero.tv_nsec == 0, 1, 0);

	send_n(sv[0], 2);
	setup(64);
	struct timespec ten = { 10, 0 };
	check("recvmmsg timeout, all there", recvmmsg_(sv[1], vec, 2, 0, &ten), 2, 0);
	check("recvmmsg time left written back",
	      ten.tv_sec <= 10 && (ten.tv_sec < 10 || ten.tv_nsec == 0) && ten.tv_sec >= 5, 1, 0);

	// one datagram now, one 100 ms later: the call waits for the second
	send_n(sv[0], 1);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(100000);
		send(sv[0], "late", 4, 0);
		_exit(0);
	}
	setup(64);
	check("recvmmsg waits for the rest", recvmmsg_(sv[1], vec, 2, 0, NULL), 2, 0);
	check("recvmmsg the late one", vec[1].msg_len == 4 && memcmp(bufs[1], "late", 4) == 0, 1, 0);
	waitpid(pid, NULL, 0);

	send_n(sv[0], 1);
	setup(64);
	check("recvmmsg partial, dontwait", recvmmsg_(sv[1], vec, 3, MSG_DONTWAIT, NULL), 1, 0);
	close(sv[0]);
	close(sv[1]);
}

static void error_checks(void)
{
	int sv[2], p[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	pipe(p);
	setup(2);
	struct timespec bad = { 0, 1000000000 };
	check("recvmmsg bad timeout", recvmmsg_(sv[1], vec, 1, 0, &bad), -1, EINVAL);
	check("recvmmsg timeout efault", recvmmsg_(sv[1], vec, 1, 0, (struct timespec *)16), -1, EFAULT);
	check("sendmmsg ebadf", sendmmsg_(99, vec, 1, 0), -1, EBADF);
	check("recvmmsg ebadf", recvmmsg_(99, vec, 1, 0, NULL), -1, EBADF);
	check("sendmmsg enotsock", sendmmsg_(p[1], vec, 1, 0), -1, ENOTSOCK);
	check("recvmmsg enotsock", recvmmsg_(p[0], vec, 1, 0, NULL), -1, ENOTSOCK);
	check("sendmmsg vlen 0", sendmmsg_(sv[0], vec, 0, 0), 0, 0);
	check("recvmmsg vlen 0", recvmmsg_(sv[1], vec, 0, 0, NULL), 0, 0);
	check("sendmmsg bad vector", sendmmsg_(sv[0], (struct mmsghdr *)16, 1, 0), -1, EFAULT);

	// the second message's data is at a bad address: one sent
	setup(2);
	iovs[1].iov_base = (void *)16;
	check("sendmmsg second fails: one", sendmmsg_(sv[0], vec, 2, 0), 1, 0);
	// the vector's second entry lies in an unmapped page
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + pg, pg);
	struct mmsghdr *edge = (struct mmsghdr *)(m + pg) - 1;
	setup(2);
	*edge = vec[0];
	check("sendmmsg vector runs off: one", sendmmsg_(sv[0], edge, 2, 0), 1, 0);
	check("sendmmsg vector runs off msg_len", edge->msg_len, 2, 0);
	setup(64);
	check("both sent ones arrived", recvmmsg_(sv[1], vec, N, MSG_DONTWAIT, NULL), 2, 0);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void stream_checks(void)
{
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	setup(3);
	memcpy(bufs[0], "abc", 3);
	memcpy(bufs[1], "def", 3);
	check("sendmmsg stream", sendmmsg_(sv[0], vec, 2, 0), 2, 0);
	char got[8] = { 0 };
	check("stream bytes in order", recv(sv[1], got, sizeof got, 0), 6, 0);
	check("stream data", memcmp(got, "abcdef", 6), 0, 0);
	close(sv[0]);
	close(sv[1]);
}

static int udp_bound(struct sockaddr_in *a)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	*a = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof *a;
	bind(s, (struct sockaddr *)a, sizeof *a);
	getsockname(s, (struct sockaddr *)a, &len);
	return s;
}

static void udp_checks(void)
{
	struct sockaddr_in a, b, from[N];
	int sa = udp_bound(&a), sb = udp_bound(&b);
	setup(2);
	for (int i = 0; i < 3; i++) {
		bufs[i][0] = 'u';
		bufs[i][1] = (char)('0' + i);
		vec[i].msg_hdr.msg_name = &b;
		vec[i].msg_hdr.msg_namelen = sizeof b;
	}
	check("udp sendmmsg", sendmmsg_(sa, vec, 3, 0), 3, 0);
	setup(64);
	for (int i = 0; i < N; i++) {
		vec[i].msg_hdr.msg_name = &from[i];
		vec[i].msg_hdr.msg_namelen = sizeof from[i];
	}
	struct timespec ten = { 10, 0 };
	check("udp recvmmsg", recvmmsg_(sb, vec, 3, 0, &ten), 3, 0);
	check("udp data in order", bufs[0][1] == '0' && bufs[2][1] == '2' && vec[2].msg_len == 2, 1, 0);
	check("udp senders", vec[1].msg_hdr.msg_namelen == sizeof a && from[1].sin_port == a.sin_port, 1, 0);
	close(sa);
	close(sb);
}

int main(void)
{
	unix_dgram_checks();
	error_checks();
	stream_checks();
	udp_checks();
	return checks_done("mmsg");
}
