// SPDX-License-Identifier: MIT
// lmbench lat_tcp, lat_udp, lat_rpc and bw_tcp over the loopback (127.0.0.1).
// tcp_lat / udp_lat: one byte to a child and back over a TCP connection / a
// pair of connected UDP sockets, one figure per round trip.  rpc_udp_lat /
// rpc_tcp_lat: lmbench's lat_rpc calls a Sun RPC procedure that takes and
// returns a char; here the same messages go over the same sockets (a 44-byte
// call, a 28-byte accepted reply, XDR-encoded by hand, TCP's with a record
// mark) to a child that checks and answers them, with no RPC library or
// portmapper (musl has neither), one figure per call.  tcp_bw: a child
// writes 64 KiB chunks into a TCP connection, the parent reads them; MB
// (10^6 bytes) per second of guest time (10^9 guest instructions under
// icount), as bw_pipe.  The Linux guest brings its loopback up first
// (bench/linux/init).
#include "bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

static char rbuf[CHUNK];       /* the reader's (bench_read_exactly) */

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A connected TCP pair over the loopback: fd[0] the client, fd[1] the accepted end. */
static void tcp_pair(int fd[2])
{
	struct sockaddr_in a = loopback(0);
	socklen_t len = sizeof a;
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		bench_die("listen");
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fd[0] < 0 || connect(fd[0], (struct sockaddr *)&a, sizeof a))
		bench_die("connect");
	if ((fd[1] = accept(l, NULL, NULL)) < 0)
		bench_die("accept");
	setsockopt(fd[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	close(l);
}

/* Two UDP sockets on the loopback, each connected to the other. */
static void udp_pair(int fd[2])
{
	struct sockaddr_in a[2];
	for (int i = 0; i < 2; i++) {
		socklen_t len = sizeof a[i];
		a[i] = loopback(0);
		fd[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd[i] < 0 || bind(fd[i], (struct sockaddr *)&a[i], sizeof a[i]) ||
		    getsockname(fd[i], (struct sockaddr *)&a[i], &len))
			bench_die("udp bind");
	}
	if (connect(fd[0], (struct sockaddr *)&a[1], sizeof a[1]) ||
	    connect(fd[1], (struct sockaddr *)&a[0], sizeof a[0]))
		bench_die("udp connect");
}

static void do_round_trip(long n, void *a)
{
	int fd = *(int *)a;
	while (n--)
		bench_round_trip(fd, fd);
}

/* The echo child: a stream's ends at end of stream; a datagram one is killed. */
static void end_echo(int pid, int stream)
{
	if (stream) {
		bench_reap(pid);
	} else {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * A round trip's instructions over the pair: a child echoes on fd[1].  TCP's
 * child ends at the end of stream; UDP has none, and its child is killed.
 */
static double latency(int fd[2], long iters, int stream)
{
	int pid = bench_spawn_echo(fd[1], fd[1], fd[0]);
	close(fd[1]);
	double v = bench_measure(do_round_trip, &fd[0], iters);
	close(fd[0]);
	end_echo(pid, stream);
	return v;
}

/* --- Sun RPC's messages (RFC 5531): a call of procedure 1 with a char, its reply --- */

enum { CALL_WORDS = 11, REPLY_WORDS = 7, PROG = 0x20000001 };

struct rpc { int fd, stream; uint32_t xid; };

/* Send n words as one datagram, or as one record (mark first) on a stream. */
static void rpc_send(struct rpc *r, const uint32_t *w, int n)
{
	uint32_t msg[1 + CALL_WORDS];
	int off = r->stream;
	msg[0] = htonl(0x80000000u | (uint32_t)(n * 4));
	memcpy(msg + off, w, (size_t)n * 4);
	size_t len = (size_t)(n + off) * 4;
	if (write(r->fd, msg, len) != (ssize_t)len)
		bench_die("rpc write");
}

/* Receive a message of exactly n words (a record's mark checked and dropped); 0 at the end. */
static int rpc_recv(struct rpc *r, uint32_t *w, int n)
{
	uint32_t msg[1 + CALL_WORDS];
	size_t want = (size_t)(n + r->stream) * 4, got = 0;
	while (got < want) {
		ssize_t k = read(r->fd, (char *)msg + got, want - got);
		if (k == 0 && got == 0)
			return 0;
		if (k <= 0 || (!r->stream && (size_t)k != want))
			bench_die("rpc read");
		got += (size_t)k;
	}
	if (r->stream && msg[0] != htonl(0x80000000u | (uint32_t)(n * 4)))
		bench_die("rpc record mark");
	memcpy(w, msg + r->stream, (size_t)n * 4);
	return 1;
}

/* The server: answers every call with its char, until the stream ends (or it is killed). */
static void rpc_serve(struct rpc *r)
{
	uint32_t c[CALL_WORDS];
	while (rpc_recv(r, c, CALL_WORDS)) {
		if (c[1] != 0 || c[2] != htonl(2) || c[3] != htonl(PROG))
			bench_die("rpc call");
		uint32_t rep[REPLY_WORDS] = { c[0], htonl(1), 0, 0, 0, 0, c[10] };
		rpc_send(r, rep, REPLY_WORDS);
	}
	_exit(0);
}

static void do_rpc(long n, void *a)
{
	struct rpc *r = a;
	uint32_t rep[REPLY_WORDS];
	while (n--) {
		uint32_t xid = htonl(++r->xid);
		uint32_t call[CALL_WORDS] = { xid, 0, htonl(2), htonl(PROG), htonl(1), htonl(1),
		                              0, 0, 0, 0, htonl('x') };
		rpc_send(r, call, CALL_WORDS);
		if (!rpc_recv(r, rep, REPLY_WORDS) || rep[0] != xid || rep[1] != htonl(1) ||
		    rep[5] != 0 || rep[6] != htonl('x'))
			bench_die("rpc reply");
	}
}

/* A call's instructions over the pair: the server is a child on fd[1]. */
static double rpc_latency(int fd[2], long iters, int stream)
{
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		struct rpc srv = { fd[1], stream, 0 };
		rpc_serve(&srv);
	}
	close(fd[1]);
	struct rpc cl = { fd[0], stream, 0 };
	double v = bench_measure(do_rpc, &cl, iters);
	close(fd[0]);
	end_echo(pid, stream);
	return v;
}

static double bandwidth(long chunks)
{
	int fd[2];
	tcp_pair(fd);
	pid_t pid = fork();
	if (pid == 0) {
		static char buf[CHUNK];
		close(fd[1]);
		for (long i = 0; i < chunks + 1; i++)
			for (long off = 0; off < CHUNK;) {
				long w = write(fd[0], buf + off, CHUNK - off);
				if (w <= 0)
					_exit(1);
				off += w;
			}
		_exit(0);
	}
	close(fd[0]);
	bench_read_exactly(fd[1], CHUNK, rbuf, CHUNK, "read tcp");   // warm-up: the child is running
	uint64_t t0 = bench_now();
	bench_read_exactly(fd[1], chunks * (long)CHUNK, rbuf, CHUNK, "read tcp");
	uint64_t t1 = bench_now();
	bench_reap(pid);
	close(fd[1]);
	return (double)chunks * CHUNK / 1e6 / ((double)(t1 - t0) / 1e9);
}

int main(int argc, char **argv)
{
	int fd[2];
	bench_init(argc, argv);
	tcp_pair(fd);
	bench_result("lmbench.tcp_lat", "", latency(fd, bench_iters(2000), 1), "instructions");
	udp_pair(fd);
	bench_result("lmbench.udp_lat", "", latency(fd, bench_iters(2000), 0), "instructions");
	tcp_pair(fd);
	bench_result("lmbench.rpc_tcp_lat", "", rpc_latency(fd, bench_iters(2000), 1), "instructions");
	udp_pair(fd);
	bench_result("lmbench.rpc_udp_lat", "", rpc_latency(fd, bench_iters(2000), 0), "instructions");
	bench_result("lmbench.tcp_bw", "", bandwidth(bench_iters(160)), "MB_per_s");
	return 0;
}
