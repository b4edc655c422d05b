// SPDX-License-Identifier: MIT
// The workloads tools/lxprof.py traces and counts: `lxprof OP [N]` (or a
// copy named lxprof_OP, for the Linux guest's /init, which passes no
// arguments) runs OP once, then prints PROF START, runs it N times, prints
// PROF END and the guest instructions per operation (rdtsc under icount).
// Built static with musl.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long caught;
static int fd_null, fd_zero, fd_file, p1[2], p2[2], ack[2];
static pid_t spinner;

static void handler(int sig) { (void)sig; caught++; }
static void acker(int sig) { (void)sig; write(ack[1], "a", 1); }

/* A child that spins in user code; SIGUSR1 makes it write a byte to ack. */
static void start_spinner(void)
{
	if (pipe(ack))
		exit(1);
	spinner = fork();
	if (!spinner) {
		struct sigaction sa = { .sa_handler = acker, .sa_flags = SA_RESTART };
		sigaction(SIGUSR1, &sa, 0);
		write(ack[1], "r", 1);
		for (;;)
			__asm__ volatile("");
	}
	char c;
	read(ack[0], &c, 1);
}

static uint64_t now(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static void op(const char *name)
{
	if (!strcmp(name, "getpid")) {
		getpid();
	} else if (!strcmp(name, "write")) {
		write(fd_null, "x", 1);
	} else if (!strcmp(name, "read")) {
		char c;
		read(fd_zero, &c, 1);
	} else if (!strcmp(name, "stat")) {
		struct stat st;
		stat("/tmp/lxprof", &st);
	} else if (!strcmp(name, "open")) {
		close(open("/tmp/lxprof", O_RDONLY));
	} else if (!strcmp(name, "sigaction")) {
		struct sigaction sa = { .sa_handler = handler };
		sigaction(SIGUSR1, &sa, 0);
	} else if (!strcmp(name, "sigprocmask")) {
		sigset_t none, old;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, &old);
	} else if (!strcmp(name, "kill")) {
		kill(getpid(), SIGUSR1);
	} else if (!strcmp(name, "fork")) {
		pid_t p = fork();
		if (!p)
			_exit(0);
		waitpid(p, 0, 0);
	} else if (!strcmp(name, "exec")) {
		pid_t p = fork();
		if (!p) {
			execl("/bench/hello", "hello", (char *)0);
			_exit(1);
		}
		waitpid(p, 0, 0);
	} else if (!strcmp(name, "pipe")) {
		char c = 'x';
		write(p1[1], &c, 1);
		read(p2[0], &c, 1);
	} else if (!strcmp(name, "tcp") || !strcmp(name, "udp")) {   /* a round trip over 127.0.0.1 */
		char c = 'x';
		write(p1[1], &c, 1);
		read(p1[1], &c, 1);
	} else if (!strcmp(name, "udpself") || !strcmp(name, "udpselftw")) {   /* Re-aim's udp_test */
		static char b[8192];
		static unsigned long rng = 12345;     /* bench/posix/reaim.c's lengths, 1-4096 */
		rng = rng * 6364136223846793005UL + 1442695040888963407UL;
		long len = (long)((rng >> 33) % 4096) + 1;
		if (write(p1[1], b, len) != len || read(p1[1], b, sizeof b) != len)
			exit(1);
	} else if (!strcmp(name, "tcpbw")) {          /* 64 KiB from a child that writes them */
		static char b[65536];
		for (long got = 0, r; got < (long)sizeof b; got += r)
			if ((r = read(p1[1], b, sizeof b - got)) <= 0)
				exit(1);
	} else if (!strcmp(name, "sigrun")) {         /* a signal to a running process */
		char c;
		kill(spinner, SIGUSR1);
		read(ack[0], &c, 1);
	} else if (!strcmp(name, "faults")) {         /* 64 first-touch faults in one area */
		char *m = mmap(0, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		for (int i = 0; i < 64; i++)
			m[i * 4096] = 1;
		munmap(m, 64 * 4096);
	} else if (!strcmp(name, "filefaults")) {     /* 64 read faults in a shared file mapping */
		char *m = mmap(0, 64 * 4096, PROT_READ, MAP_SHARED, fd_file, 0);
		for (int i = 0; i < 64; i++)
			(void)((volatile char *)m)[i * 4096];
		munmap(m, 64 * 4096);
	} else if (!strcmp(name, "fault")) {
		char *m = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		m[0] = 1;
		munmap(m, 4096);
	} else {
		fprintf(stderr, "lxprof: no operation %s\n", name);
		exit(2);
	}
}

/* p1[1]: a TCP connection (TCP_NODELAY) or a connected UDP socket over 127.0.0.1 to a
 * child that echoes (bulk: that writes 64 KiB blocks for ever) */
static void start_inet_echo(int type, int bulk)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) }, b = a;
	socklen_t len = sizeof a;
	int one = 1, l = socket(AF_INET, type, 0), c = socket(AF_INET, type, 0);
	if (bind(l, (struct sockaddr *)&a, sizeof a) || getsockname(l, (struct sockaddr *)&a, &len) ||
	    (type == SOCK_STREAM && listen(l, 1)) || (type == SOCK_DGRAM && bind(c, (struct sockaddr *)&b, sizeof b)))
		exit(1);
	len = sizeof b;
	if (connect(c, (struct sockaddr *)&a, sizeof a) || getsockname(c, (struct sockaddr *)&b, &len))
		exit(1);
	int s = l;
	if (type == SOCK_STREAM) {
		s = accept(l, 0, 0);
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	} else if (connect(l, (struct sockaddr *)&b, sizeof b)) {
		exit(1);
	}
	if (!(spinner = fork())) {         /* killed at the end, as the spinner */
		static char b[65536];
		if (bulk)
			while (write(s, b, sizeof b) > 0)
				;
		while (read(s, b, 1) == 1)
			write(s, b, 1);
		_exit(0);
	}
	p1[1] = c;
}

/* A UDP socket on 127.0.0.1 connected to itself (bench/posix/reaim.c's udp_test). */
static int udp_self(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) || connect(fd, (struct sockaddr *)&a, sizeof a))
		exit(1);
	return fd;
}

/*
 * Three loopback TCP connections, opened and closed, as bench/posix/lat_inet.c's
 * leave them before Re-aim runs in the full suite (udpselftw: their TIME-WAIT
 * connections are still in the network server when udp_test runs).
 */
static void tcp_closed(void)
{
	for (int i = 0; i < 3; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof a;
		int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;
		char b = 'x';
		if (bind(l, (struct sockaddr *)&a, sizeof a) || getsockname(l, (struct sockaddr *)&a, &len) ||
		    listen(l, 1) || connect(c, (struct sockaddr *)&a, sizeof a) || (s = accept(l, 0, 0)) < 0 ||
		    write(c, &b, 1) != 1 || read(s, &b, 1) != 1)
			exit(1);
		close(l);
		close(c);
		read(s, &b, 1);                     /* the FIN */
		close(s);
	}
	usleep(50000);          /* in the suite, Re-aim's earlier tasks run in between */
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *name = argc > 1 ? argv[1] : !strncmp(base, "lxprof_", 7) ? base + 7 : "getpid";
	long n = argc > 2 ? atol(argv[2]) : 200;
	fd_null = open("/dev/null", O_WRONLY);
	fd_zero = open("/dev/zero", O_RDONLY);
	if (!strcmp(name, "filefaults")) {          /* 64 pages of a RAM file */
		static char page[4096];
		fd_file = open("/tmp/lxprof.map", O_RDWR | O_CREAT | O_TRUNC, 0644);
		for (int i = 0; i < 64; i++)
			write(fd_file, page, sizeof(page));
	}
	close(open("/tmp/lxprof", O_RDWR | O_CREAT, 0644));
	struct sigaction sa = { .sa_handler = handler };
	sigaction(SIGUSR1, &sa, 0);
	if (!strcmp(name, "sigrun"))
		start_spinner();
	if (!strcmp(name, "tcp") || !strcmp(name, "udp") || !strcmp(name, "tcpbw"))
		start_inet_echo(name[0] == 't' ? SOCK_STREAM : SOCK_DGRAM, !strcmp(name, "tcpbw"));
	if (!strcmp(name, "udpselftw"))
		tcp_closed();
	if (!strcmp(name, "udpself") || !strcmp(name, "udpselftw"))
		p1[1] = udp_self();
	if (!strcmp(name, "pipe")) {
		if (pipe(p1) || pipe(p2))
			return 1;
		if (!fork()) {
			char c;
			while (read(p1[0], &c, 1) == 1)
				write(p2[1], &c, 1);
			_exit(0);
		}
	}
	op(name);
	printf("PROF START\n");
	fflush(stdout);
	uint64_t t0 = now();
	for (long i = 0; i < n; i++)
		op(name);
	uint64_t t1 = now();
	printf("PROF END\nlxprof: %s: %.1f instructions per operation\n", name,
	       (double)(t1 - t0) / (double)n);
	if (spinner) {
		kill(spinner, SIGKILL);
		waitpid(spinner, 0, 0);
	}
	return 0;
}
