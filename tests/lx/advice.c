// SPDX-License-Identifier: MIT
// posix_fadvise and mincore, the advice calls Debian's coreutils (cat, wc,
// sort) and libsigsegv (diff, gawk) make: results and errno as on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

// the raw call: posix_fadvise returns the error instead of setting errno
static long fadvise(int fd, long off, long len, int advice)
{
	return syscall(SYS_fadvise64, fd, off, len, advice);
}

static void fadvise_checks(void)
{
	int fd = open("/tmp/advice.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "data", 4);
	int p[2];
	pipe(p);
	check("fadvise sequential", fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL), 0, 0);
	check("fadvise dontneed past the end", fadvise(fd, 1 << 20, 4096, POSIX_FADV_DONTNEED), 0, 0);
	check("fadvise noreuse", fadvise(fd, 0, 4, POSIX_FADV_NOREUSE), 0, 0);
	check("fadvise bad advice", fadvise(fd, 0, 0, 6), -1, EINVAL);
	check("fadvise negative length", fadvise(fd, 0, -1, POSIX_FADV_NORMAL), -1, EINVAL);
	check("fadvise pipe", fadvise(p[0], 0, 0, POSIX_FADV_NORMAL), -1, ESPIPE);
	check("fadvise bad fd", fadvise(99, 0, 0, POSIX_FADV_NORMAL), -1, EBADF);
	check("fadvise closed fd", (close(fd), fadvise(fd, 0, 0, POSIX_FADV_NORMAL)), -1, EBADF);
	int opath = open("/tmp/advice.dat", O_PATH);
	check("fadvise O_PATH", fadvise(opath, 0, 0, POSIX_FADV_NORMAL), -1, EBADF);
	check("posix_fadvise returns the error", posix_fadvise(p[1], 0, 0, POSIX_FADV_NORMAL),
	      ESPIPE, 0);
	unlink("/tmp/advice.dat");
}

static void mincore_checks(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char vec[4] = { 9, 9, 9, 9 };
	m[0] = 1;
	m[2 * pg] = 1;
	check("mincore", mincore(m, 4 * pg, vec), 0, 0);
	check("mincore touched pages resident", (vec[0] & 1) && (vec[2] & 1), 1, 0);
	check("mincore untouched pages not", (vec[1] & 1) || (vec[3] & 1), 0, 0);
	check("mincore partial page rounds up", mincore(m, pg + 1, vec), 0, 0);
	check("mincore unaligned", mincore(m + 1, pg, vec), -1, EINVAL);
	munmap(m + 3 * pg, pg);
	check("mincore reaching unmapped", mincore(m, 4 * pg, vec), -1, ENOMEM);
	check("mincore bad vector", mincore(m, pg, (unsigned char *)0x10), -1, EFAULT);
	check("mincore length 0", mincore(m, 0, vec), 0, 0);
	// the stack is mapped (libsigsegv's probe)
	long here = (long)&pg & ~(pg - 1);
	check("mincore stack", mincore((void *)here, pg, vec), 0, 0);
}

int main(void)
{
	fadvise_checks();
	mincore_checks();
	return checks_done("advice");
}
