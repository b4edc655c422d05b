// SPDX-License-Identifier: MIT
// Random arguments to the event and data-moving calls (epoll, eventfd,
// timerfd, signalfd, memfd, fallocate, splice, tee, vmsplice,
// copy_file_range, inotify, pidfd_open): real descriptors of every kind,
// small numbers, wild and kernel-half pointers, all-ones.  lx must answer
// each with a result or an errno and go on; "evfuzz survived" at the end.
// Usage: evfuzz [SEED [CALLS]].  Not a check.h program: random calls are
// not run on the host's own kernel.  Nothing here waits: timeouts are zero
// and splice-like calls non-blocking.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static unsigned long wide(void)
{
	return ((unsigned long)random() << 33) ^ ((unsigned long)random() << 11) ^ random();
}

/* An argument: one of the descriptors, a pointer into buf, a small or wild number. */
static unsigned long arg(const int *fds, int nf)
{
	switch (random() % 9) {
	case 0:
	case 1: return (unsigned long)fds[random() % nf];
	case 2: return (unsigned long)buf + random() % 1000;
	case 3: return 3 + random() % 13;       /* never stdin/stdout/stderr */
	case 4: return wide();
	case 5: return 0;
	case 6: return ~0UL;
	case 7: return 0x7ffff000UL + random();
	default: return 3 + random() % 100000;
	}
}

int main(int argc, char **argv)
{
	static const int nr[] = {213, 291, 233, 232, 281, 441, 284, 290, 283, 286, 287, 282, 289,
				 319, 285, 275, 276, 278, 326, 253, 294, 254, 255, 434};
	static struct timespec zero;
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	srandom(argc > 1 ? (unsigned)atoi(argv[1]) : 1);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	int fds[16], nf = 0, p[2];
	pipe2(p, O_NONBLOCK);
	fds[nf++] = p[0];
	fds[nf++] = p[1];
	fds[nf++] = epoll_create1(0);
	fds[nf++] = eventfd(1, EFD_NONBLOCK);
	fds[nf++] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	fds[nf++] = signalfd(-1, &all, SFD_NONBLOCK);
	fds[nf++] = inotify_init1(IN_NONBLOCK);
	fds[nf++] = (int)syscall(SYS_memfd_create, "f", 2);
	fds[nf++] = open("/tmp", O_RDONLY);
	fds[nf++] = (int)syscall(SYS_pidfd_open, getpid(), O_NONBLOCK);
	fds[nf++] = epoll_create1(0);
	for (long i = 0; i < calls; i++) {
		int n = nr[random() % (sizeof(nr) / sizeof(nr[0]))];
		unsigned long a[6];
		for (int j = 0; j < 6; j++)
			a[j] = arg(fds, nf);
		if (n == SYS_epoll_wait || n == SYS_epoll_pwait)
			a[3] = 0;
		if (n == 441)                   /* epoll_pwait2 */
			a[3] = (unsigned long)&zero;
		if (n == SYS_splice)
			a[5] |= SPLICE_F_NONBLOCK;
		if (n == SYS_tee || n == SYS_vmsplice)
			a[3] |= SPLICE_F_NONBLOCK;
		if (n == SYS_fallocate && (a[2] > 1000000 || a[3] > 1000000))
			a[3] = 4096;            /* no file as big as memory */
		long r = syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (r >= 16 && r < 1024)
			close((int)r);          /* keep the descriptor table small */
	}
	printf("evfuzz survived\n");
	return 0;
}
