// SPDX-License-Identifier: MIT
// Pipe reads and writes copied straight between the ring and the caller's
// memory: bytes intact across the ring's wrap at odd lengths and offsets; a
// buffer that runs into an unmapped page moves the bytes before it (a read
// leaves the rest in the pipe), one that starts there gets EFAULT and moves
// nothing; a non-blocking write larger than the pipe takes what fits.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define PAGE 4096

static unsigned char src[70000], dst[70000];

static int queued(int fd)
{
	int n = -1;
	ioctl(fd, FIONREAD, &n);
	return n;
}

/* Random lengths at random offsets through one pipe, 300 times: what comes out is what went in. */
static void round_trips(void)
{
	int p[2], ok = 1;
	if (pipe(p))
		return check("pipe", -1, 0, 0);
	srand(5);
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (unsigned char)rand();
	for (int i = 0; i < 300 && ok; i++) {
		size_t n = 1 + (size_t)rand() % 6000, so = (size_t)rand() % 3000, d = (size_t)rand() % 3000;
		memset(dst, 0, sizeof dst);
		ok = write(p[1], src + so, n) == (ssize_t)n && read(p[0], dst + d, n + 10) == (ssize_t)n &&
		     !memcmp(src + so, dst + d, n);
	}
	check("300 round trips at odd lengths and offsets, bytes intact", ok, 1, 0);
	close(p[0]);
	close(p[1]);
}

/* Two pages of which the second is unmapped: the first page's address. */
static unsigned char *half_mapped(void)
{
	unsigned char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + PAGE, PAGE))
		return NULL;
	return m;
}

static void fault_edges(void)
{
	int p[2];
	unsigned char *m = half_mapped();
	if (!m || pipe(p))
		return check("half-mapped buffer and pipe", -1, 0, 0);
	memset(m, 0x5a, PAGE);
	check("write running into an unmapped page: the mapped part", write(p[1], m, 2 * PAGE), PAGE, 0);
	check("write from an unmapped page: EFAULT", write(p[1], m + PAGE, 16), -1, EFAULT);
	check("after both, the pipe holds the mapped part", queued(p[0]), PAGE, 0);
	check("read into an unmapped page: EFAULT", read(p[0], m + PAGE, 16), -1, EFAULT);
	check("the failed read left the bytes", queued(p[0]), PAGE, 0);
	for (int i = 0; i < 2 * PAGE; i++)
		src[i] = (unsigned char)(i * 7);
	read(p[0], dst, PAGE);
	check("write of two pages", write(p[1], src, 2 * PAGE), 2 * PAGE, 0);
	check("read running into an unmapped page: the mapped part", read(p[0], m, 2 * PAGE), PAGE, 0);
	check("the bytes read are the first page's", !memcmp(m, src, PAGE), 1, 0);
	check("the rest stays in the pipe, in order",
	      read(p[0], dst, 2 * PAGE) == PAGE && !memcmp(dst, src + PAGE, PAGE), 1, 0);
	munmap(m, PAGE);
	close(p[0]);
	close(p[1]);
}

static void nonblocking_full(void)
{
	int p[2];
	if (pipe2(p, O_NONBLOCK))
		return check("pipe2", -1, 0, 0);
	long size = fcntl(p[1], F_GETPIPE_SZ);
	check("non-blocking write larger than the pipe takes what fits",
	      write(p[1], src, sizeof src), size, 0);
	check("then a full pipe: EAGAIN", write(p[1], src, 1), -1, EAGAIN);
	check("what fits reads back intact",
	      read(p[0], dst, sizeof dst) == size && !memcmp(src, dst, (size_t)size), 1, 0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	round_trips();
	fault_edges();
	nonblocking_full();
	return checks_done("pipecopy");
}
