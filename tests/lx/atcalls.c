// SPDX-License-Identifier: MIT
// The *at() calls and their flags errno by errno, as public suites probe
// them: AT_EMPTY_PATH and AT_SYMLINK_NOFOLLOW across fstatat, statx,
// utimensat, fchownat, linkat, readlinkat; openat's O_PATH and O_TMPFILE;
// unlinkat, renameat2, faccessat2, fchmodat2; dirfd rules (EBADF, ENOTDIR,
// absolute paths); dup2/dup3 and pipe2 flags; readv/writev/preadv2/pwritev2
// edges; getdents64's buffer and d_type.  Runs in its working directory, as
// root, natively and under lx.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "check.h"

#define RWF_APPEND_K 0x10
#define RENAME_NOREPLACE_K 1
#define RENAME_EXCHANGE_K 2
#define STATX_TYPE_K 0x1
#define STATX_BASIC_K 0x7ff

/* The head of Linux's struct statx (256 bytes in all); musl may lack it. */
struct statx_k {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, pad;
	char rest[232];
};

static long raw_statx(int dfd, const char *path, int flags, unsigned mask, struct statx_k *sx)
{
	return syscall(SYS_statx, dfd, path, flags, mask, sx);
}

static long renameat2_k(const char *from, const char *to, unsigned flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

/* preadv2/pwritev2: the offset as its two halves, as the system call takes it */
static long preadv2_k(int fd, const struct iovec *v, int n, long off, int flags)
{
	return syscall(SYS_preadv2, fd, v, n, off, off < 0 ? -1L : 0L, flags);
}

static long pwritev2_k(int fd, const struct iovec *v, int n, long off, int flags)
{
	return syscall(SYS_pwritev2, fd, v, n, off, off < 0 ? -1L : 0L, flags);
}

static void dirfds(void)
{
	int f = open("at_file", O_CREAT | O_RDWR, 0644);
	struct stat st;
	check("relative path from a file as dirfd: ENOTDIR", fstatat(f, "x", &st, 0), -1, ENOTDIR);
	check("relative path from a bad dirfd: EBADF", fstatat(9999, "x", &st, 0), -1, EBADF);
	check("absolute path ignores a bad dirfd", fstatat(9999, "/", &st, 0), 0, 0);
	check("empty path without AT_EMPTY_PATH: ENOENT", fstatat(f, "", &st, 0), -1, ENOENT);
	check("fstatat AT_EMPTY_PATH: the descriptor's file", fstatat(f, "", &st, AT_EMPTY_PATH) == 0 &&
	      S_ISREG(st.st_mode), 1, 0);
	check("fstatat with an unknown flag: EINVAL", fstatat(AT_FDCWD, "at_file", &st, 0x1), -1, EINVAL);
	check("fstatat of a NULL path: EFAULT", syscall(SYS_newfstatat, AT_FDCWD, NULL, &st, 0), -1,
	      EFAULT);
	close(f);
}

static void links(void)
{
	symlink("at_file", "at_link");
	struct stat st;
	check("AT_SYMLINK_NOFOLLOW: the link", fstatat(AT_FDCWD, "at_link", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	      S_ISLNK(st.st_mode), 1, 0);
	int l = open("at_link", O_PATH | O_NOFOLLOW);
	check("O_PATH|O_NOFOLLOW opens the link itself", fstat(l, &st) == 0 && S_ISLNK(st.st_mode), 1, 0);
	char buf[64] = "";
	check("readlinkat(fd, \"\") of an O_PATH link", readlinkat(l, "", buf, sizeof(buf)), 7, 0);
	check("read through O_PATH: EBADF", read(l, buf, 1), -1, EBADF);
	close(l);
	check("readlinkat of a file: EINVAL", readlinkat(AT_FDCWD, "at_file", buf, sizeof(buf)), -1,
	      EINVAL);
	check("readlinkat with size 0: EINVAL", syscall(SYS_readlinkat, AT_FDCWD, "at_link", buf, 0), -1, EINVAL);
	check("linkat with an unknown flag: EINVAL", linkat(AT_FDCWD, "at_file", AT_FDCWD, "at_h", 0x1),
	      -1, EINVAL);
	check("linkat of a link, not followed: a link", linkat(AT_FDCWD, "at_link", AT_FDCWD, "at_h1", 0) ==
	      0 && lstat("at_h1", &st) == 0 && S_ISLNK(st.st_mode), 1, 0);
	check("linkat AT_SYMLINK_FOLLOW: the file", linkat(AT_FDCWD, "at_link", AT_FDCWD, "at_h2",
	      AT_SYMLINK_FOLLOW) == 0 && lstat("at_h2", &st) == 0 && S_ISREG(st.st_mode), 1, 0);
	int f = open("at_file", O_RDONLY);
	check("linkat AT_EMPTY_PATH from a descriptor", linkat(f, "", AT_FDCWD, "at_h3", AT_EMPTY_PATH), 0,
	      0);
	check("fchownat AT_EMPTY_PATH", fchownat(f, "", 7, 8, AT_EMPTY_PATH) == 0 &&
	      stat("at_file", &st) == 0 && st.st_uid == 7 && st.st_gid == 8, 1, 0);
	close(f);
	check("fchownat with an unknown flag: EINVAL", fchownat(AT_FDCWD, "at_file", 0, 0, 0x1), -1,
	      EINVAL);
	check("fchmodat2 AT_SYMLINK_NOFOLLOW of a link: EOPNOTSUPP",
	      syscall(452, AT_FDCWD, "at_link", 0644, AT_SYMLINK_NOFOLLOW), -1, EOPNOTSUPP);
	check("fchmodat2 with an unknown flag: EINVAL", syscall(452, AT_FDCWD, "at_file", 0644, 0x1), -1,
	      EINVAL);
	check("faccessat2 with an unknown flag: EINVAL", syscall(SYS_faccessat2, AT_FDCWD, "at_file",
	      R_OK, 0x1), -1, EINVAL);
	check("faccessat2 AT_EACCESS", syscall(SYS_faccessat2, AT_FDCWD, "at_file", R_OK, AT_EACCESS),
	      0, 0);
	check("faccessat with bad mode bits: EINVAL", faccessat(AT_FDCWD, "at_file", 0x10, 0), -1,
	      EINVAL);
}

static void statxs(void)
{
	struct statx_k sx;
	int f = open("at_file", O_RDONLY);
	memset(&sx, 0, sizeof(sx));
	check("statx AT_EMPTY_PATH", raw_statx(f, "", AT_EMPTY_PATH, STATX_BASIC_K, &sx), 0, 0);
	check("statx: the basic mask", (sx.mask & STATX_BASIC_K) == STATX_BASIC_K, 1, 0);
	check("statx: a regular file", S_ISREG(sx.mode), 1, 0);
	check("statx AT_SYMLINK_NOFOLLOW: the link", raw_statx(AT_FDCWD, "at_link", AT_SYMLINK_NOFOLLOW,
	      STATX_TYPE_K, &sx) == 0 && S_ISLNK(sx.mode), 1, 0);
	check("statx with a reserved mask bit: EINVAL", raw_statx(AT_FDCWD, "at_file", 0, 0x80000000u,
	      &sx), -1, EINVAL);
	check("statx with both sync types: EINVAL", raw_statx(AT_FDCWD, "at_file", 0x6000,
	      STATX_BASIC_K, &sx), -1, EINVAL);
	check("statx with an unknown flag: EINVAL", raw_statx(AT_FDCWD, "at_file", 0x1, STATX_BASIC_K,
	      &sx), -1, EINVAL);
	check("statx to NULL: EFAULT", raw_statx(AT_FDCWD, "at_file", 0, STATX_BASIC_K, NULL), -1,
	      EFAULT);
	check("statx of an empty path: ENOENT", raw_statx(f, "", 0, STATX_BASIC_K, &sx), -1, ENOENT);
	close(f);
}

static void times(void)
{
	struct timespec ts[2] = { { 1000, 0 }, { 2000, 0 } }, omit[2] = { { 0, UTIME_OMIT },
									  { 0, UTIME_OMIT } };
	struct stat st;
	check("utimensat", utimensat(AT_FDCWD, "at_file", ts, 0), 0, 0);
	stat("at_file", &st);
	check("its times", st.st_atime == 1000 && st.st_mtime == 2000, 1, 0);
	check("UTIME_OMIT both: nothing changes", utimensat(AT_FDCWD, "at_file", omit, 0) == 0 &&
	      stat("at_file", &st) == 0 && st.st_mtime == 2000, 1, 0);
	struct timespec bad[2] = { { 0, 1000000000 }, { 0, 0 } };
	check("a bad tv_nsec: EINVAL", utimensat(AT_FDCWD, "at_file", bad, 0), -1, EINVAL);
	check("an unknown flag: EINVAL", utimensat(AT_FDCWD, "at_file", ts, 0x1), -1, EINVAL);
	int f = open("at_file", O_RDWR);
	struct timespec t3[2] = { { 3000, 0 }, { 3000, 0 } };
	check("a NULL path with a descriptor: its file", syscall(SYS_utimensat, f, NULL, t3, 0) == 0 &&
	      stat("at_file", &st) == 0 && st.st_mtime == 3000, 1, 0);
	check("a NULL path at AT_FDCWD: EFAULT", syscall(SYS_utimensat, AT_FDCWD, NULL, t3, 0), -1, EFAULT);
	struct timespec t4[2] = { { 4000, 0 }, { 4000, 0 } };
	check("AT_EMPTY_PATH with a descriptor", utimensat(f, "", t4, AT_EMPTY_PATH) == 0 &&
	      stat("at_file", &st) == 0 && st.st_mtime == 4000, 1, 0);
	close(f);
	struct timespec t5[2] = { { 5000, 0 }, { 5000, 0 } };
	check("AT_SYMLINK_NOFOLLOW: the link's times", utimensat(AT_FDCWD, "at_link", t5,
	      AT_SYMLINK_NOFOLLOW) == 0 && lstat("at_link", &st) == 0 && st.st_mtime == 5000 &&
	      stat("at_file", &st) == 0 && st.st_mtime == 4000, 1, 0);
}

static void names(void)
{
	mkdir("at_dir", 0755);
	close(open("at_x", O_CREAT | O_WRONLY, 0644));
	close(open("at_y", O_CREAT | O_WRONLY, 0600));
	check("unlinkat AT_REMOVEDIR of a file: ENOTDIR", unlinkat(AT_FDCWD, "at_x", AT_REMOVEDIR), -1,
	      ENOTDIR);
	check("unlinkat of a directory: EISDIR", unlinkat(AT_FDCWD, "at_dir", 0), -1, EISDIR);
	check("unlinkat with an unknown flag: EINVAL", unlinkat(AT_FDCWD, "at_x", 0x1), -1, EINVAL);
	check("renameat2 NOREPLACE onto a name: EEXIST", renameat2_k("at_x", "at_y", RENAME_NOREPLACE_K), -1, EEXIST);
	check("renameat2 NOREPLACE|EXCHANGE: EINVAL", renameat2_k("at_x", "at_y", RENAME_NOREPLACE_K | RENAME_EXCHANGE_K), -1, EINVAL);
	struct stat x, y;
	stat("at_x", &x);
	stat("at_y", &y);
	check("renameat2 EXCHANGE swaps", renameat2_k("at_x", "at_y", RENAME_EXCHANGE_K),
	      0, 0);
	struct stat x2;
	stat("at_x", &x2);
	check("the names swapped", x2.st_ino == y.st_ino && (x2.st_mode & 0777) == 0600, 1, 0);
	check("renameat2 EXCHANGE with a missing name: ENOENT", renameat2_k("at_x", "at_none", RENAME_EXCHANGE_K), -1, ENOENT);
	check("renameat2 with an unknown flag: EINVAL", renameat2_k("at_x", "at_z", 0x8),
	      -1, EINVAL);
	check("mkdirat of an existing name: EEXIST", mkdirat(AT_FDCWD, "at_dir", 0755), -1, EEXIST);
}

static void tmpfiles(void)
{
	int t = openat(AT_FDCWD, ".", O_TMPFILE | O_RDWR, 0600);
	check("O_TMPFILE in a directory", t >= 0, 1, 0);
	struct stat st;
	check("it has no name: no links", fstat(t, &st) == 0 && st.st_nlink == 0 && S_ISREG(st.st_mode),
	      1, 0);
	check("written", write(t, "tmp", 3), 3, 0);
	check("linked in with AT_EMPTY_PATH", linkat(t, "", AT_FDCWD, "at_tmp", AT_EMPTY_PATH), 0, 0);
	check("now named", stat("at_tmp", &st) == 0 && st.st_size == 3 && st.st_nlink == 1, 1, 0);
	close(t);
	check("O_TMPFILE read-only: EINVAL", openat(AT_FDCWD, ".", O_TMPFILE | O_RDONLY, 0600), -1,
	      EINVAL);
	check("O_TMPFILE on a file: ENOTDIR", openat(AT_FDCWD, "at_file", O_TMPFILE | O_RDWR, 0600), -1,
	      ENOTDIR);
	t = openat(AT_FDCWD, ".", O_TMPFILE | O_RDWR | O_EXCL, 0600);
	check("O_TMPFILE|O_EXCL: never linkable: ENOENT", linkat(t, "", AT_FDCWD, "at_tmp2",
	      AT_EMPTY_PATH), -1, ENOENT);
	close(t);
	int p = open("at_file", O_PATH);
	check("fchmod through O_PATH: EBADF", syscall(SYS_fchmod, p, 0600), -1, EBADF);
	check("fstatat(O_PATH fd, \"\", AT_EMPTY_PATH)", fstatat(p, "", &st, AT_EMPTY_PATH), 0, 0);
	check("O_PATH keeps O_PATH in F_GETFL", (fcntl(p, F_GETFL) & O_PATH) != 0, 1, 0);
	close(p);
}

static void descriptors(void)
{
	int f = open("at_file", O_RDONLY);
	check("dup3 onto itself: EINVAL", syscall(SYS_dup3, f, f, 0), -1, EINVAL);
	check("dup3 with an unknown flag: EINVAL", syscall(SYS_dup3, f, 50, 0x1), -1, EINVAL);
	check("dup3 of a bad descriptor: EBADF", syscall(SYS_dup3, 9999, 50, 0), -1, EBADF);
	check("dup3 O_CLOEXEC", syscall(SYS_dup3, f, 50, O_CLOEXEC) == 50 && fcntl(50, F_GETFD) == FD_CLOEXEC, 1, 0);
	check("dup2 onto itself: the descriptor", syscall(SYS_dup2, f, f), f, 0);
	check("dup2 of a bad descriptor onto itself: EBADF", syscall(SYS_dup2, 9999, 9999), -1, EBADF);
	check("dup2 to -1: EBADF", syscall(SYS_dup2, f, -1), -1, EBADF);
	close(50);
	close(f);
	int p[2];
	check("pipe2 with an unknown flag: EINVAL", syscall(SYS_pipe2, p, 0x1), -1, EINVAL);
	check("pipe2 O_NONBLOCK|O_CLOEXEC", pipe2(p, O_NONBLOCK | O_CLOEXEC), 0, 0);
	check("both ends non-blocking", (fcntl(p[0], F_GETFL) & O_NONBLOCK) && (fcntl(p[1], F_GETFL) &
	      O_NONBLOCK), 1, 0);
	check("both ends close-on-exec", fcntl(p[0], F_GETFD) == FD_CLOEXEC &&
	      fcntl(p[1], F_GETFD) == FD_CLOEXEC, 1, 0);
	close(p[0]);
	close(p[1]);
	check("pipe2 O_DIRECT (packet mode)", pipe2(p, O_DIRECT), 0, 0);
	close(p[0]);
	close(p[1]);
}

static void vectors(void)
{
	int f = open("at_vec", O_CREAT | O_RDWR | O_TRUNC, 0644);
	char a[4] = "abcd", b[4] = "efgh", r[8];
	struct iovec w[2] = { { a, 4 }, { b, 4 } }, rv[1] = { { r, 8 } };
	check("writev of two", writev(f, w, 2), 8, 0);
	check("readv with a negative count: EINVAL", readv(f, rv, -1), -1, EINVAL);
	check("readv with more than IOV_MAX: EINVAL", readv(f, rv, IOV_MAX + 1), -1, EINVAL);
	check("readv of none: 0", readv(f, rv, 0), 0, 0);
	struct iovec huge[2] = { { r, 1 }, { r, SIZE_MAX } };
	check("writev with a negative length: EINVAL", writev(f, huge, 2), -1, EINVAL);
	check("readv from a wild vector: EFAULT", readv(f, (struct iovec *)8, 1), -1, EFAULT);
	check("preadv2 at 2", preadv2_k(f, rv, 1, 2, 0), 6, 0);
	check("its bytes", memcmp(r, "cdefgh", 6), 0, 0);
	lseek(f, 1, SEEK_SET);
	check("preadv2 at -1: the file position", preadv2_k(f, rv, 1, -1, 0) == 7 && r[0] == 'b' &&
	      lseek(f, 0, SEEK_CUR) == 8, 1, 0);
	check("preadv2 with an unknown flag: EOPNOTSUPP", preadv2_k(f, rv, 1, 0, 0x10000000), -1,
	      EOPNOTSUPP);
	check("preadv at a negative offset: EINVAL", preadv(f, rv, 1, -5), -1, EINVAL);
	struct iovec z[1] = { { "Z", 1 } };
	check("pwritev2 RWF_APPEND writes at the end", pwritev2_k(f, z, 1, 0, RWF_APPEND_K), 1, 0);
	struct stat st;
	fstat(f, &st);
	pread(f, r, 1, 8);
	check("the file grew by it", st.st_size == 9 && r[0] == 'Z', 1, 0);
	int p[2];
	pipe(p);
	check("preadv on a pipe: ESPIPE", preadv(p[0], rv, 1, 0), -1, ESPIPE);
	check("preadv2 at -1 on a pipe: a read", write(p[1], "q", 1) == 1 && preadv2_k(p[0], rv, 1, -1, 0) ==
	      1, 1, 0);
	close(p[0]);
	close(p[1]);
	close(f);
}

struct dirent64_k {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static void listing(void)
{
	mkdir("at_ls", 0755);
	close(open("at_ls/file", O_CREAT | O_WRONLY, 0644));
	mkdir("at_ls/sub", 0755);
	symlink("file", "at_ls/link");
	int d = open("at_ls", O_RDONLY | O_DIRECTORY);
	char buf[4096];
	check("getdents64 into 1 byte: EINVAL", syscall(SYS_getdents64, d, buf, 1), -1, EINVAL);
	int f = open("at_file", O_RDONLY);
	check("getdents64 of a file: ENOTDIR", syscall(SYS_getdents64, f, buf, sizeof(buf)), -1, ENOTDIR);
	close(f);
	check("getdents64 of a bad descriptor: EBADF", syscall(SYS_getdents64, 9999, buf, sizeof(buf)),
	      -1, EBADF);
	long n = syscall(SYS_getdents64, d, buf, sizeof(buf));
	int seen = 0;
	for (long at = 0; at < n;) {
		struct dirent64_k *e = (struct dirent64_k *)(buf + at);
		seen |= !strcmp(e->name, ".") && e->type == DT_DIR ? 1 : 0;
		seen |= !strcmp(e->name, "..") && e->type == DT_DIR ? 2 : 0;
		seen |= !strcmp(e->name, "file") && e->type == DT_REG ? 4 : 0;
		seen |= !strcmp(e->name, "sub") && e->type == DT_DIR ? 8 : 0;
		seen |= !strcmp(e->name, "link") && e->type == DT_LNK ? 16 : 0;
		at += e->reclen;
	}
	check("every entry with its d_type", seen, 31, 0);
	check("then the end: 0", syscall(SYS_getdents64, d, buf, sizeof(buf)), 0, 0);
	check("rewound by lseek to 0", lseek(d, 0, SEEK_SET) == 0 &&
	      syscall(SYS_getdents64, d, buf, sizeof(buf)) == n, 1, 0);
	close(d);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	dirfds();
	links();
	statxs();
	times();
	names();
	tmpfiles();
	descriptors();
	vectors();
	listing();
	return checks_done("atcalls");
}
