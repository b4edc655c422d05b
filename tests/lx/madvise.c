// SPDX-License-Identifier: MIT
// madvise(2) as Linux acts on it: MADV_DONTNEED's zero pages in private
// anonymous memory (glibc's arena trimming and calloc rely on them), the file
// again in a private file mapping, the data kept in shared memory; MADV_FREE,
// MADV_REMOVE's hole, MADV_DONTFORK and MADV_WIPEONFORK in a fork child, locked
// areas, and the errors, errno by errno.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

static long pg;

static char *anon(int pages, int flags)
{
	return mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
}

// a file of two pages of 'A'
static int file_of_a(void)
{
	int fd = (int)syscall(SYS_memfd_create, "madv", 0);
	char buf[8192];
	memset(buf, 'A', sizeof buf);
	write(fd, buf, 2 * pg);
	return fd;
}

static void dontneed_checks(void)
{
	char *m = anon(2, MAP_PRIVATE);
	memset(m, 'x', 2 * pg);
	check("dontneed private anon", madvise(m, 2 * pg, MADV_DONTNEED), 0, 0);
	check("dontneed private anon reads zero", m[0] == 0 && m[2 * pg - 1] == 0, 1, 0);
	m[5] = 'y';
	check("dontneed page writable again", m[5], 'y', 0);

	int fd = file_of_a();
	char *f = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	f[1] = 'B';
	f[pg + 1] = 'B';
	check("dontneed private file", madvise(f, pg, MADV_DONTNEED), 0, 0);
	check("dontneed private file reads the file", f[1], 'A', 0);
	check("dontneed private file other page kept", f[pg + 1], 'B', 0);

	char *s = anon(1, MAP_SHARED);
	s[0] = 's';
	check("dontneed shared anon", madvise(s, pg, MADV_DONTNEED), 0, 0);
	check("dontneed shared anon keeps data", s[0], 's', 0);

	char *sf = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	sf[2] = 'S';
	check("dontneed shared file", madvise(sf, pg, MADV_DONTNEED), 0, 0);
	check("dontneed shared file keeps data", sf[2], 'S', 0);
	char c = 0;
	pread(fd, &c, 1, 2);
	check("dontneed shared file data in the file", c, 'S', 0);
	close(fd);
}

static void free_checks(void)
{
	char *m = anon(1, MAP_PRIVATE);
	m[0] = 'x';
	check("free private anon", madvise(m, pg, MADV_FREE), 0, 0);
	check("free leaves old data or zero", m[0] == 'x' || m[0] == 0, 1, 0);
	char *s = anon(1, MAP_SHARED);
	check("free shared anon", madvise(s, pg, MADV_FREE), -1, EINVAL);
	int fd = file_of_a();
	char *f = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("free private file", madvise(f, pg, MADV_FREE), -1, EINVAL);
	close(fd);
}

static void remove_checks(void)
{
	int fd = file_of_a();
	char *a = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *b = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, 0);
	check("remove mapped before", b[0], 'A', 0);
	check("remove shared file", madvise(a, pg, MADV_REMOVE), 0, 0);
	check("remove reads zero", a[0], 0, 0);
	check("remove other mapping reads zero", b[0], 0, 0);
	check("remove past the hole kept", b[pg], 'A', 0);
	char c = 1;
	pread(fd, &c, 1, 0);
	check("remove hole in the file", c, 0, 0);
	check("remove keeps the size", lseek(fd, 0, SEEK_END), 2 * pg, 0);
	char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("remove private file", madvise(p, pg, MADV_REMOVE), -1, EACCES);
	// (a read-only mapping of a writable descriptor: Linux 6.1 says EACCES, later ones punch)
	int ro = open("/tmp/madvise.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(ro, "data", 4);
	close(ro);
	ro = open("/tmp/madvise.dat", O_RDONLY);
	char *r = mmap(NULL, pg, PROT_READ, MAP_SHARED, ro, 0);
	check("remove shared file opened read-only", madvise(r, pg, MADV_REMOVE), -1, EACCES);
	close(ro);
	unlink("/tmp/madvise.dat");
	check("remove private anon", madvise(anon(1, MAP_PRIVATE), pg, MADV_REMOVE), -1, EINVAL);
	char *s = anon(1, MAP_SHARED);
	s[0] = 'z';
	check("remove shared anon", madvise(s, pg, MADV_REMOVE), 0, 0);
	check("remove shared anon reads zero", s[0], 0, 0);
	close(fd);
}

// the child's view of m[off]: its byte, or 255 when the address is not mapped
static int in_child(char *m, long off)
{
	pid_t pid = fork();
	if (pid == 0) {
		unsigned char v;
		if (mincore((void *)((long)(m + off) & ~(pg - 1)), pg, &v) && errno == ENOMEM)
			_exit(255);
		_exit(m[off]);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void fork_checks(void)
{
	char *m = anon(3, MAP_PRIVATE);
	memset(m, 'x', 3 * pg);
	check("dontfork middle page", madvise(m + pg, pg, MADV_DONTFORK), 0, 0);
	check("dontfork child lacks the page", in_child(m, pg), 255, 0);
	check("dontfork child has the page before", in_child(m, 0), 'x', 0);
	check("dontfork child has the page after", in_child(m, 2 * pg), 'x', 0);
	check("dontfork parent keeps it", m[pg], 'x', 0);
	check("dofork", madvise(m, 3 * pg, MADV_DOFORK), 0, 0);
	check("dofork child has the page", in_child(m, pg), 'x', 0);

	check("wipeonfork", madvise(m, pg, MADV_WIPEONFORK), 0, 0);
	check("wipeonfork child reads zero", in_child(m, 5), 0, 0);
	check("wipeonfork parent keeps data", m[5], 'x', 0);
	check("wipeonfork other page inherited", in_child(m, pg + 5), 'x', 0);
	check("keeponfork", madvise(m, pg, MADV_KEEPONFORK), 0, 0);
	check("keeponfork child has data", in_child(m, 5), 'x', 0);
	check("wipeonfork shared", madvise(anon(1, MAP_SHARED), pg, MADV_WIPEONFORK), -1, EINVAL);
	int fd = file_of_a();
	char *f = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("wipeonfork file", madvise(f, pg, MADV_WIPEONFORK), -1, EINVAL);
	close(fd);
}

static void locked_checks(void)
{
	char *m = anon(2, MAP_PRIVATE);
	memset(m, 'x', 2 * pg);
	check("mlock", mlock(m, pg), 0, 0);
	check("dontneed locked", madvise(m, 2 * pg, MADV_DONTNEED), -1, EINVAL);
	check("dontneed locked keeps data", m[0], 'x', 0);
	check("free locked", madvise(m, pg, MADV_FREE), -1, EINVAL);
	check("dontneed unlocked part", madvise(m + pg, pg, MADV_DONTNEED), 0, 0);
	check("dontneed unlocked part zero", m[pg], 0, 0);
	check("dontneed_locked", madvise(m, pg, MADV_DONTNEED_LOCKED), 0, 0);
	check("dontneed_locked zero", m[0], 0, 0);
	m[0] = 'x';
	check("munlock", munlock(m, pg), 0, 0);
	check("dontneed after munlock", madvise(m, pg, MADV_DONTNEED), 0, 0);
	check("dontneed after munlock zero", m[0], 0, 0);
}

static void error_checks(void)
{
	char *m = anon(3, MAP_PRIVATE);
	memset(m, 'x', 3 * pg);
	check("unaligned start", madvise(m + 1, pg, MADV_DONTNEED), -1, EINVAL);
	check("bad advice 5", madvise(m, pg, 5), -1, EINVAL);
	check("bad advice 999", madvise(m, pg, 999), -1, EINVAL);
	check("length wraps", madvise(m, -1UL, MADV_NORMAL), -1, EINVAL);
	check("length 0 unmapped", madvise((void *)pg, 0, MADV_DONTNEED), 0, 0);
	munmap(m + pg, pg);
	check("hole in the range", madvise(m, 3 * pg, MADV_DONTNEED), -1, ENOMEM);
	check("hole: page before advised", m[0], 0, 0);
	check("hole: page after advised", m[2 * pg], 0, 0);
	check("unmapped", madvise(m + pg, pg, MADV_NORMAL), -1, ENOMEM);
	m[0] = 'h';
	check("willneed", madvise(m, pg, MADV_WILLNEED), 0, 0);
	check("sequential", madvise(m, pg, MADV_SEQUENTIAL), 0, 0);
	check("random", madvise(m, pg, MADV_RANDOM), 0, 0);
	check("normal", madvise(m, pg, MADV_NORMAL), 0, 0);
	check("hints keep data", m[0], 'h', 0);
	check("populate read", madvise(m, pg, MADV_POPULATE_READ), 0, 0);
	check("populate write", madvise(m + 2 * pg, pg, MADV_POPULATE_WRITE), 0, 0);
	char *ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check("populate write read-only", madvise(ro, pg, MADV_POPULATE_WRITE), -1, EINVAL);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	dontneed_checks();
	free_checks();
	remove_checks();
	fork_checks();
	locked_checks();
	error_checks();
	return checks_done("madvise");
}
