// SPDX-License-Identifier: MIT
// A TCP stream over the loopback, checked byte by byte: a child writes a
// known sequence (byte i is a function of i) in writes of many sizes, from
// one byte to 128 KiB, and the parent reads it with reads of other sizes
// (1 byte to 192 KiB, none matching the writer's) until the end of stream.
// Every byte must arrive in order, the end of stream only after the last,
// and every write must succeed (the child's exit status is the errno of a
// failed write).  Run twice: the reader keeping up, and the reader starting
// late so that both ends' buffers fill first.
//
//     tcpstream [KIB]    (default 8192 per run)
//
// Prints "ok NAME" or "FAIL NAME: detail" per check, then "tcpstream done,
// N failed"; the same program passes on Linux.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const long write_sizes[] = { 65536, 1, 1460, 65535, 4096, 16385, 131072, 100, 32768, 99999 };
static const long read_sizes[] = { 1, 7, 1448, 65537, 4095, 196608, 16384, 300, 65536, 50000 };
#define N_WRITES (long)(sizeof write_sizes / sizeof write_sizes[0])
#define N_READS (long)(sizeof read_sizes / sizeof read_sizes[0])

static unsigned char byte_at(uint64_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13 ^ i >> 16);
}

/* Two ends of a TCP connection over 127.0.0.1: fd[0] connected, fd[1] accepted. */
static int tcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		return -1;
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fd[0] < 0 || connect(fd[0], (struct sockaddr *)&a, sizeof a))
		return -1;
	fd[1] = accept(l, NULL, NULL);
	close(l);
	return fd[1] < 0 ? -1 : 0;
}

/* The child: total bytes into fd in writes of write_sizes; exits 0, or the errno of a failed write. */
static void writer(int fd, long total)
{
	static unsigned char b[131072];
	long pos = 0;
	for (long k = 0; pos < total; k++) {
		long n = write_sizes[k % N_WRITES];
		if (n > total - pos)
			n = total - pos;
		for (long i = 0; i < n; i++)
			b[i] = byte_at((uint64_t)(pos + i));
		for (long off = 0; off < n;) {
			long w = write(fd, b + off, (size_t)(n - off));
			if (w <= 0)
				_exit(w < 0 ? errno : 255);
			off += w;
		}
		pos += n;
	}
	close(fd);
	_exit(0);
}

/*
 * Read fd to its end in reads of read_sizes: the bytes read in order before
 * the end of stream, a wrong byte (*bad its offset) or a failed read (*err).
 */
static long reader(int fd, long *bad, int *err)
{
	static unsigned char b[196608];
	long pos = 0;
	*bad = -1;
	*err = 0;
	for (long k = 0;; k++) {
		long r = read(fd, b, (size_t)read_sizes[k % N_READS]);
		if (r <= 0) {
			*err = r < 0 ? errno : 0;
			return pos;
		}
		for (long i = 0; i < r; i++)
			if (b[i] != byte_at((uint64_t)(pos + i))) {
				*bad = pos + i;
				return pos + i;
			}
		pos += r;
	}
}

static void stream(const char *name, long total, int late)
{
	int fd[2] = { -1, -1 };
	char what[64];
	snprintf(what, sizeof what, "%s_connect", name);
	int r = tcp_pair(fd);
	check(what, r, 0, 0);
	if (r)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[1]);
		writer(fd[0], total);
	}
	close(fd[0]);
	if (late) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		nanosleep(&ts, NULL);   /* the writer fills both ends' buffers first */
	}
	long bad;
	int err;
	long got = reader(fd[1], &bad, &err);
	if (got != total)
		printf("%s: the reader stopped at %ld of %ld: %s\n", name, got, total,
		       bad >= 0 ? "a wrong byte" : err ? strerror(err) : "end of stream");
	snprintf(what, sizeof what, "%s_bytes_in_order_to_the_end", name);
	check(what, got, total, 0);
	int st = 0;
	waitpid(pid, &st, 0);
	snprintf(what, sizeof what, "%s_every_write_succeeded", name);
	check(what, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0, 0);
	close(fd[1]);
}

int main(int argc, char **argv)
{
	long kib = argc > 1 ? atol(argv[1]) : 8192;
	setvbuf(stdout, NULL, _IOLBF, 0);
	stream("keeping_up", kib * 1024, 0);
	stream("late_reader", kib * 1024, 1);
	return checks_done("tcpstream");
}
