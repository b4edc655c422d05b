// SPDX-License-Identifier: MIT
// mmap, munmap, mprotect, madvise, msync, mlock and brk at their edges, errno
// by errno as their man pages' ERRORS sections (and LTP's mmap/mprotect tests)
// have it: unaligned and zero lengths, overflow, bad flags, MAP_FIXED_NOREPLACE,
// partial mprotect, and the si_code of faults on PROT_NONE and unmapped pages.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static long pg;
static sigjmp_buf jb;
static volatile int sig_code;
static void *volatile sig_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	sig_code = si->si_code;
	sig_addr = si->si_addr;
	siglongjmp(jb, 1);
}

// touches p (a write when write is set); returns the fault's si_code, or 0
static int fault_code(char *p, int write)
{
	sig_code = 0;
	sig_addr = NULL;
	if (sigsetjmp(jb, 1) == 0) {
		if (write)
			*(volatile char *)p = 1;
		else
			(void)*(volatile char *)p;
		return 0;
	}
	return sig_addr == p ? sig_code : -1;
}

static char *anon(long len, int prot)
{
	return mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static long mmap_err(void *p)
{
	return p == MAP_FAILED ? -1 : 0;
}

static void mmap_checks(void)
{
	check("mmap length 0: EINVAL", mmap_err(anon(0, PROT_READ)), -1, EINVAL);
	check("mmap no MAP_PRIVATE or MAP_SHARED: EINVAL",
	      mmap_err(mmap(NULL, pg, PROT_READ, MAP_ANONYMOUS, -1, 0)), -1, EINVAL);
	check("mmap both PRIVATE and SHARED: EINVAL",
	      mmap_err(mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_SHARED | MAP_ANONYMOUS, -1, 0)),
	      -1, EINVAL);
	check("mmap file unaligned offset: EINVAL",
	      mmap_err(mmap(NULL, pg, PROT_READ, MAP_PRIVATE, 0, 1)), -1, EINVAL);
	check("mmap bad fd: EBADF", mmap_err(mmap(NULL, pg, PROT_READ, MAP_PRIVATE, 99, 0)), -1,
	      EBADF);
	check("mmap huge length: ENOMEM", mmap_err(anon(-pg, PROT_READ)), -1, ENOMEM);
	check("mmap MAP_FIXED unaligned: EINVAL",
	      mmap_err(mmap((void *)(0x10000000 + 1), pg, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)),
	      -1, EINVAL);
	int p[2];
	pipe(p);
	check("mmap a pipe: ENODEV", mmap_err(mmap(NULL, pg, PROT_READ, MAP_PRIVATE, p[0], 0)), -1,
	      ENODEV);
	int fd = open("/tmp/mmedge.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
	ftruncate(fd, pg);
	int wo = open("/tmp/mmedge.dat", O_WRONLY);
	check("mmap write-only fd: EACCES", mmap_err(mmap(NULL, pg, PROT_READ, MAP_PRIVATE, wo, 0)),
	      -1, EACCES);
	int ro = open("/tmp/mmedge.dat", O_RDONLY);
	check("MAP_SHARED PROT_WRITE on read-only fd: EACCES",
	      mmap_err(mmap(NULL, pg, PROT_WRITE, MAP_SHARED, ro, 0)), -1, EACCES);
	check("MAP_PRIVATE PROT_WRITE on read-only fd",
	      mmap_err(mmap(NULL, pg, PROT_WRITE, MAP_PRIVATE, ro, 0)), 0, 0);
	char *m = mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, 0);
	check("mapping past the end of the file", mmap_err(m), 0, 0);
	check("read within the file", fault_code(m, 0), 0, 0);
	check("read past the file's end: SIGBUS", (fault_code(m + pg, 0), sig_code), BUS_ADRERR, 0);
	close(fd), close(wo), close(ro), close(p[0]), close(p[1]);
	unlink("/tmp/mmedge.dat");
}

static void fixed_checks(void)
{
	char *m = anon(3 * pg, PROT_READ | PROT_WRITE);
	m[pg] = 7;
	check("MAP_FIXED_NOREPLACE over a mapping: EEXIST",
	      mmap_err(mmap(m + pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0)),
	      -1, EEXIST);
	check("the mapping is untouched", m[pg], 7, 0);
	munmap(m + pg, pg);
	char *f = mmap(m + pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
		       0);
	check("MAP_FIXED_NOREPLACE into the hole", f == m + pg, 1, 0);
	check("a fresh page reads zero", f[0], 0, 0);
	char *g = mmap(m, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		       -1, 0);
	check("MAP_FIXED replaces", g == m && m[pg] == 0, 1, 0);
	munmap(m, 3 * pg);
}

static void growsdown_checks(void)
{
	char *g = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
	check("MAP_GROWSDOWN", mmap_err(g), 0, 0);
	check("its pages are usable", fault_code(g + 3 * pg, 1) || fault_code(g, 1), 0, 0);
	munmap(g, 4 * pg);
	char *m = anon(2 * pg, PROT_READ | PROT_WRITE);
	check("mlockall MCL_CURRENT|MCL_FUTURE", mlockall(MCL_CURRENT | MCL_FUTURE), 0, 0);
	check("munlockall", munlockall(), 0, 0);
	unsigned char vec[2];
	mprotect(m, 2 * pg, PROT_NONE);
	check("mincore of PROT_NONE pages", mincore(m, 2 * pg, vec), 0, 0);
	munmap(m, 2 * pg);
}

static void munmap_checks(void)
{
	char *m = anon(4 * pg, PROT_READ | PROT_WRITE);
	check("munmap unaligned: EINVAL", munmap(m + 1, pg), -1, EINVAL);
	check("munmap length 0: EINVAL", munmap(m, 0), -1, EINVAL);
	check("munmap a hole is fine", munmap(m + pg, pg), 0, 0);
	check("munmap over the hole again", munmap(m, 2 * pg), 0, 0);
	check("munmap unaligned length rounds up", munmap(m + 2 * pg, pg + 1), 0, 0);
	check("whole range gone", fault_code(m + 3 * pg, 0), SEGV_MAPERR, 0);
	check("munmap past the address space: EINVAL", munmap((void *)-pg, 2 * pg), -1, EINVAL);
}

static void mprotect_checks(void)
{
	char *m = anon(3 * pg, PROT_READ | PROT_WRITE);
	// musl's mprotect() rounds the address down; the system call does not
	check("mprotect unaligned: EINVAL", syscall(SYS_mprotect, m + 1, pg, PROT_READ), -1, EINVAL);
	check("mprotect bad prot: EINVAL", mprotect(m, pg, 0x100), -1, EINVAL);
	check("mprotect length 0", mprotect(m, 0, PROT_NONE), 0, 0);
	check("mprotect middle page PROT_NONE", mprotect(m + pg, pg, PROT_NONE), 0, 0);
	check("read PROT_NONE: SEGV_ACCERR", fault_code(m + pg, 0), SEGV_ACCERR, 0);
	check("write before it still works", fault_code(m, 1), 0, 0);
	check("write after it still works", fault_code(m + 2 * pg, 1), 0, 0);
	check("mprotect read-only", mprotect(m, 3 * pg, PROT_READ), 0, 0);
	check("write read-only: SEGV_ACCERR", fault_code(m + 2 * pg, 1), SEGV_ACCERR, 0);
	check("read read-only", fault_code(m + pg, 0), 0, 0);
	munmap(m + pg, pg);
	check("mprotect over a hole: ENOMEM", mprotect(m, 3 * pg, PROT_READ), -1, ENOMEM);
	check("touch unmapped: SEGV_MAPERR", fault_code(m + pg, 0), SEGV_MAPERR, 0);
	munmap(m, 3 * pg);
	check("mprotect unmapped: ENOMEM", mprotect(m, pg, PROT_READ), -1, ENOMEM);
}

static void madvise_checks(void)
{
	char *m = anon(2 * pg, PROT_READ | PROT_WRITE);
	m[0] = 5;
	check("madvise unaligned: EINVAL", madvise(m + 1, pg, MADV_NORMAL), -1, EINVAL);
	check("madvise bad advice: EINVAL", madvise(m, pg, 12345), -1, EINVAL);
	check("madvise length 0", madvise(m, 0, MADV_NORMAL), 0, 0);
	check("MADV_DONTNEED", madvise(m, pg, MADV_DONTNEED), 0, 0);
	check("private anonymous page zero after DONTNEED", m[0], 0, 0);
	munmap(m + pg, pg);
	check("madvise over a hole: ENOMEM", madvise(m, 2 * pg, MADV_NORMAL), -1, ENOMEM);
	munmap(m, pg);
	char *sh = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sh[0] = 6;
	madvise(sh, pg, MADV_DONTNEED);
	check("shared anonymous page keeps its data after DONTNEED", sh[0], 6, 0);
	munmap(sh, pg);
	int fd = open("/tmp/mmedge.adv", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "f", 1);
	ftruncate(fd, pg);
	char *pf = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	pf[0] = 'x';
	madvise(pf, pg, MADV_DONTNEED);
	check("private file page reads the file again after DONTNEED", pf[0], 'f', 0);
	munmap(pf, pg);
	close(fd);
	unlink("/tmp/mmedge.adv");
}

static void msync_checks(void)
{
	char *m = anon(2 * pg, PROT_READ | PROT_WRITE);
	check("msync", msync(m, pg, MS_SYNC), 0, 0);
	check("msync unaligned: EINVAL", msync(m + 1, pg, MS_SYNC), -1, EINVAL);
	check("msync SYNC|ASYNC: EINVAL", msync(m, pg, MS_SYNC | MS_ASYNC), -1, EINVAL);
	check("msync bad flag: EINVAL", msync(m, pg, 0x100), -1, EINVAL);
	munmap(m + pg, pg);
	check("msync over a hole: ENOMEM", msync(m, 2 * pg, MS_SYNC), -1, ENOMEM);
	munmap(m, pg);
}

static void mlock_checks(void)
{
	char *m = anon(2 * pg, PROT_READ | PROT_WRITE);
	check("mlock unaligned start rounds down", mlock(m + 1, pg), 0, 0);
	check("munlock", munlock(m, 2 * pg), 0, 0);
	check("mlock length 0", mlock(m, 0), 0, 0);
	munmap(m + pg, pg);
	check("munlock over a hole: ENOMEM", munlock(m, 2 * pg), -1, ENOMEM);
	check("mlockall bad flag: EINVAL", mlockall(0x100), -1, EINVAL);
	check("mlockall MCL_ONFAULT alone: EINVAL", mlockall(4), -1, EINVAL);
	munmap(m, pg);
}

static void brk_checks(void)
{
	char *cur = (char *)syscall(SYS_brk, 0);
	check("brk(0) is the break", cur != NULL, 1, 0);
	char *up = (char *)syscall(SYS_brk, cur + 3 * pg);
	check("brk grows", up == cur + 3 * pg, 1, 0);
	check("grown break is writable", fault_code(cur + 2 * pg, 1), 0, 0);
	check("brk below the start is refused", syscall(SYS_brk, 4096) == (long)up, 1, 0);
	check("brk shrinks", syscall(SYS_brk, cur) == (long)cur, 1, 0);
	char *far = (char *)syscall(SYS_brk, (char *)0x7ffffffff000);
	check("brk into the stack is refused", far == cur, 1, 0);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	mmap_checks();
	fixed_checks();
	growsdown_checks();
	munmap_checks();
	mprotect_checks();
	madvise_checks();
	msync_checks();
	mlock_checks();
	brk_checks();
	return checks_done("mmedge");
}
