// SPDX-License-Identifier: MIT
// openat2(2) against Linux: struct open_how's size rules (EINVAL below
// version 0, E2BIG for nonzero bytes past what the kernel knows), the flags
// and mode open(2) would ignore but openat2 refuses, and the RESOLVE_* walks:
// no symbolic links, no magic links, no mount crossing, beneath a directory,
// in a directory as the root; RESOLVE_CACHED's EAGAIN for creating opens.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define RESOLVE_NO_XDEV 0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#define RESOLVE_IN_ROOT 0x10
#define RESOLVE_CACHED 0x20
#define O_TMPFILE_BIT 020000000
#define PAGE 4096

struct how {
	uint64_t flags, mode, resolve;
};

static char dir[64];
static int d;

static long openat2(int dirfd, const char *path, const void *how, size_t size)
{
	return syscall(SYS_openat2, dirfd, path, how, size);
}

/* openat2 with flags and resolve (mode 0): the descriptor, or -1 with errno. */
static long open_r(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct how h = { flags, 0, resolve };
	return openat2(dirfd, path, &h, sizeof(h));
}

/* Did openat2 open the file that openat opens (same device and inode)? 1, or -1 with errno. */
static long same_as(long fd, int dirfd, const char *path)
{
	if (fd < 0)
		return -1;
	struct stat a, b;
	int other = openat(dirfd, path, O_PATH);
	int same = fstat((int)fd, &a) == 0 && fstat(other, &b) == 0 && a.st_ino == b.st_ino &&
		   a.st_dev == b.st_dev;
	close(other);
	close((int)fd);
	return same;
}

static long opened(long fd)
{
	if (fd >= 0)
		close((int)fd);
	return fd >= 0 ? 0 : -1;
}

static void setup(void)
{
	strcpy(dir, "/tmp/openat2.XXXXXX");
	mkdtemp(dir);
	d = open(dir, O_RDONLY | O_DIRECTORY);
	close(openat(d, "f", O_CREAT | O_WRONLY, 0644));
	mkdirat(d, "sub", 0755);
	close(openat(d, "sub/g", O_CREAT | O_WRONLY, 0644));
	symlinkat("f", d, "lnk");
	symlinkat("sub", d, "sublnk");
	symlinkat("../f", d, "sub/upf");
	symlinkat("..", d, "esc");
	symlinkat("/f", d, "rootf");
	char abs[128];
	snprintf(abs, sizeof abs, "%s/f", dir);
	symlinkat(abs, d, "abs");
}

static void size_checks(void)
{
	static char big[PAGE + 8];
	struct how *h = (struct how *)big;
	h->flags = O_RDONLY;
	check("size 0: EINVAL", openat2(d, "f", h, 0), -1, EINVAL);
	check("size 23: EINVAL", openat2(d, "f", h, 23), -1, EINVAL);
	check("size 24 (version 0)", opened(openat2(d, "f", h, 24)), 0, 0);
	check("larger, zeros past the end", opened(openat2(d, "f", h, 32)), 0, 0);
	check("a page, zeros past the end", opened(openat2(d, "f", h, PAGE)), 0, 0);
	check("past a page: E2BIG", openat2(d, "f", h, PAGE + 1), -1, E2BIG);
	big[31] = 1;
	check("nonzero past the end: E2BIG", openat2(d, "f", h, 32), -1, E2BIG);
	check("the nonzero byte beyond size is not read", opened(openat2(d, "f", h, 31)), 0, 0);
	big[31] = 0;
	check("how NULL: EFAULT", openat2(d, "f", NULL, 24), -1, EFAULT);
	char *pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(pages + PAGE, PAGE);
	struct how *edge = (struct how *)(pages + PAGE) - 1;
	memset(edge, 0, sizeof(*edge));
	check("at a mapping's end", opened(openat2(d, "f", edge, 24)), 0, 0);
	check("extra bytes unmapped: EFAULT", openat2(d, "f", edge, 32), -1, EFAULT);
	munmap(pages, PAGE);
	check("path NULL: EFAULT", openat2(d, NULL, h, 24), -1, EFAULT);
	check("empty path: ENOENT", openat2(d, "", h, 24), -1, ENOENT);
}

static void flag_checks(void)
{
	struct how h = { O_RDONLY, 0644, 0 };
	check("a mode without O_CREAT: EINVAL", openat2(d, "f", &h, sizeof h), -1, EINVAL);
	h = (struct how){ O_RDWR | O_CREAT, 010644, 0 };
	check("a mode past 07777: EINVAL", openat2(d, "new", &h, sizeof h), -1, EINVAL);
	check("unknown open flag 04: EINVAL", open_r(d, "f", 04, 0), -1, EINVAL);
	check("open flag bit 40: EINVAL", open_r(d, "f", 1ULL << 40, 0), -1, EINVAL);
	check("O_CREAT|O_DIRECTORY: EINVAL", open_r(d, "f", O_CREAT | O_DIRECTORY, 0), -1, EINVAL);
	check("O_TMPFILE read-only: EINVAL", open_r(d, ".", O_TMPFILE_BIT | O_DIRECTORY, 0), -1, EINVAL);
	check("__O_TMPFILE without O_DIRECTORY: EINVAL", open_r(d, ".", O_TMPFILE_BIT | O_RDWR, 0), -1,
	      EINVAL);
	check("O_PATH with O_RDWR: EINVAL", open_r(d, "f", O_PATH | O_RDWR, 0), -1, EINVAL);
	check("O_PATH with O_APPEND: EINVAL", open_r(d, "f", O_PATH | O_APPEND, 0), -1, EINVAL);
	check("O_PATH with O_NOFOLLOW and O_CLOEXEC", opened(open_r(d, "f", O_PATH | O_NOFOLLOW | O_CLOEXEC, 0)),
	      0, 0);
	check("unknown resolve bit: EINVAL", open_r(d, "f", O_RDONLY, 0x40), -1, EINVAL);
	check("BENEATH with IN_ROOT: EINVAL", open_r(d, "f", O_RDONLY, RESOLVE_BENEATH | RESOLVE_IN_ROOT), -1,
	      EINVAL);
	check("RESOLVE_CACHED with O_CREAT: EAGAIN", open_r(d, "f", O_RDWR | O_CREAT, RESOLVE_CACHED), -1,
	      EAGAIN);
	check("RESOLVE_CACHED with O_TRUNC: EAGAIN", open_r(d, "f", O_RDWR | O_TRUNC, RESOLVE_CACHED), -1,
	      EAGAIN);
	umask(022);
	h = (struct how){ O_RDWR | O_CREAT | O_CLOEXEC, 0664, 0 };
	long fd = openat2(d, "made", &h, sizeof h);
	struct stat st;
	check("O_CREAT makes the file, mode less umask", fd >= 0 && fstat((int)fd, &st) == 0 &&
	      (st.st_mode & 07777) == 0644, 1, 0);
	check("O_CLOEXEC", fcntl((int)fd, F_GETFD), FD_CLOEXEC, 0);
	close((int)fd);
	check("an O_TMPFILE file", opened(open_r(d, ".", O_TMPFILE_BIT | O_DIRECTORY | O_RDWR, 0)), 0, 0);
}

static void symlink_checks(void)
{
	check("ordinary open follows a link", same_as(open_r(d, "lnk", O_RDONLY, 0), d, "f"), 1, 0);
	check("NO_SYMLINKS: a last link: ELOOP", open_r(d, "lnk", O_RDONLY, RESOLVE_NO_SYMLINKS), -1, ELOOP);
	check("NO_SYMLINKS: a link in the path: ELOOP", open_r(d, "sublnk/g", O_RDONLY, RESOLVE_NO_SYMLINKS),
	      -1, ELOOP);
	check("NO_SYMLINKS: O_PATH|O_NOFOLLOW opens the link itself",
	      opened(open_r(d, "lnk", O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS)), 0, 0);
	check("NO_SYMLINKS: no link, no error", same_as(open_r(d, "sub/g", O_RDONLY, RESOLVE_NO_SYMLINKS), d,
	      "sub/g"), 1, 0);
	check("NO_SYMLINKS: a magic link: ELOOP", open_r(AT_FDCWD, "/proc/self/exe", O_RDONLY,
	      RESOLVE_NO_SYMLINKS), -1, ELOOP);
	check("NO_MAGICLINKS: /proc/self/exe: ELOOP", open_r(AT_FDCWD, "/proc/self/exe", O_RDONLY,
	      RESOLVE_NO_MAGICLINKS), -1, ELOOP);
	char fdpath[64];
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", d);
	check("NO_MAGICLINKS: /proc/self/fd/N: ELOOP", open_r(AT_FDCWD, fdpath, O_RDONLY | O_DIRECTORY,
	      RESOLVE_NO_MAGICLINKS), -1, ELOOP);
	check("NO_MAGICLINKS: ordinary links still followed", same_as(open_r(d, "lnk", O_RDONLY,
	      RESOLVE_NO_MAGICLINKS), d, "f"), 1, 0);
	check("NO_MAGICLINKS: /proc/self is an ordinary link", opened(open_r(AT_FDCWD, "/proc/self/status",
	      O_RDONLY, RESOLVE_NO_MAGICLINKS)), 0, 0);
}

static void xdev_checks(void)
{
	int proc = open("/proc", O_RDONLY | O_DIRECTORY);
	check("NO_XDEV: into /proc from /: EXDEV", open_r(AT_FDCWD, "/proc/version", O_RDONLY,
	      RESOLVE_NO_XDEV), -1, EXDEV);
	check("NO_XDEV: within /proc", opened(open_r(proc, "version", O_RDONLY, RESOLVE_NO_XDEV)), 0, 0);
	check("NO_XDEV: .. out of /proc: EXDEV", open_r(proc, "..", O_RDONLY, RESOLVE_NO_XDEV), -1, EXDEV);
	char fdpath[64];
	snprintf(fdpath, sizeof fdpath, "self/fd/%d", d);
	check("NO_XDEV: a magic link to another mount: EXDEV", open_r(proc, fdpath, O_RDONLY,
	      RESOLVE_NO_XDEV), -1, EXDEV);
	check("NO_XDEV: within the directory", same_as(open_r(d, "sub/../lnk", O_RDONLY, RESOLVE_NO_XDEV), d,
	      "f"), 1, 0);
	close(proc);
}

static void beneath_checks(void)
{
	int r = RESOLVE_BENEATH, fd = openat(d, "f", O_RDONLY);
	check("BENEATH: a name", same_as(open_r(d, "f", O_RDONLY, r), d, "f"), 1, 0);
	check("BENEATH: .. inside", same_as(open_r(d, "sub/../f", O_RDONLY, r), d, "f"), 1, 0);
	check("BENEATH: a relative link inside", same_as(open_r(d, "sub/upf", O_RDONLY, r), d, "f"), 1, 0);
	check("BENEATH: ..: EXDEV", open_r(d, "..", O_RDONLY, r), -1, EXDEV);
	check("BENEATH: sub/../..: EXDEV", open_r(d, "sub/../../x", O_RDONLY, r), -1, EXDEV);
	check("BENEATH: an absolute path: EXDEV", open_r(d, dir, O_RDONLY, r), -1, EXDEV);
	check("BENEATH: an absolute link: EXDEV", open_r(d, "abs", O_RDONLY, r), -1, EXDEV);
	check("BENEATH: a link out: EXDEV", open_r(d, "esc/x", O_RDONLY, r), -1, EXDEV);
	check("BENEATH: O_CREAT outside: EXDEV", open_r(d, "../openat2.out", O_RDWR | O_CREAT, r), -1, EXDEV);
	check("BENEATH: O_CREAT inside", opened(open_r(d, "sub/made", O_RDWR | O_CREAT, r)), 0, 0);
	check("BENEATH: a bad dirfd: EBADF", open_r(999, "f", O_RDONLY, r), -1, EBADF);
	check("BENEATH: dirfd a file: ENOTDIR", open_r(fd, "f", O_RDONLY, r), -1, ENOTDIR);
	int proc = open("/proc", O_RDONLY | O_DIRECTORY);
	check("BENEATH: a magic link: EXDEV", open_r(proc, "self/exe", O_RDONLY, r), -1, EXDEV);
	close(proc);
	chdir(dir);
	check("BENEATH: AT_FDCWD is the working directory", same_as(open_r(AT_FDCWD, "sub/g", O_RDONLY, r), d,
	      "sub/g"), 1, 0);
	check("BENEATH: AT_FDCWD's ..: EXDEV", open_r(AT_FDCWD, "..", O_RDONLY, r), -1, EXDEV);
	chdir("/");
	close(fd);
}

static void in_root_checks(void)
{
	int r = RESOLVE_IN_ROOT;
	check("IN_ROOT: /f is the directory's f", same_as(open_r(d, "/f", O_RDONLY, r), d, "f"), 1, 0);
	check("IN_ROOT: .. stops at the directory", same_as(open_r(d, "..", O_RDONLY, r), d, "."), 1, 0);
	check("IN_ROOT: ../../f", same_as(open_r(d, "../../f", O_RDONLY, r), d, "f"), 1, 0);
	check("IN_ROOT: an absolute link from the directory", same_as(open_r(d, "rootf", O_RDONLY, r), d, "f"),
	      1, 0);
	check("IN_ROOT: the real root's path is not there", open_r(d, dir, O_RDONLY, r), -1, ENOENT);
	check("IN_ROOT: /proc is not there", open_r(d, "/proc/version", O_RDONLY, r), -1, ENOENT);
	check("IN_ROOT: an absolute path still needs dirfd: EBADF", open_r(999, "/f", O_RDONLY, r), -1, EBADF);
	int proc = open("/proc", O_RDONLY | O_DIRECTORY);
	check("IN_ROOT: a magic link: EXDEV", open_r(proc, "self/exe", O_RDONLY, r), -1, EXDEV);
	close(proc);
}

static void cleanup(void)
{
	const char *names[] = { "sub/upf", "sub/g", "sub/made", "f", "made", "lnk", "sublnk", "esc",
				"rootf", "abs" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(d, names[i], 0);
	unlinkat(d, "sub", AT_REMOVEDIR);
	close(d);
	rmdir(dir);
}

int main(void)
{
	setup();
	size_checks();
	flag_checks();
	symlink_checks();
	xdev_checks();
	beneath_checks();
	in_root_checks();
	cleanup();
	return checks_done("openat2");
}
