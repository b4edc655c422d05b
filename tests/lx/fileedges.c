// SPDX-License-Identifier: MIT
// Edges of the everyday file calls as public suites probe them, errno by
// errno: open's flag combinations, fcntl's F_GETFL/F_SETFL/F_DUPFD*/
// F_SETOWN, lseek's SEEK_DATA/SEEK_HOLE, truncate, rmdir of "." and "..",
// links to directories, empty symlink targets, access modes, getcwd sizes.
// Raw system calls where libc would answer for the kernel.  Runs in its
// working directory, natively and under lx.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "check.h"

#define O_LARGEFILE_K 0100000

static void opens(void)
{
	close(open("fe_file", O_CREAT | O_WRONLY | O_TRUNC, 0644));
	mkdir("fe_dir", 0755);
	check("O_DIRECTORY on a file: ENOTDIR", open("fe_file", O_RDONLY | O_DIRECTORY), -1, ENOTDIR);
	check("O_CREAT|O_DIRECTORY: EINVAL", syscall(SYS_open, "fe_new", O_CREAT | O_DIRECTORY | O_RDWR,
	      0644), -1, EINVAL);
	check("a directory for writing: EISDIR", open("fe_dir", O_WRONLY), -1, EISDIR);
	check("O_CREAT of an existing directory: EISDIR", open("fe_dir", O_CREAT | O_RDONLY, 0644), -1,
	      EISDIR);
	check("O_EXCL of an existing file: EEXIST", open("fe_file", O_CREAT | O_EXCL | O_RDWR, 0644), -1,
	      EEXIST);
	check("a trailing slash on a file: ENOTDIR", open("fe_file/", O_RDONLY), -1, ENOTDIR);
	check("O_CREAT with a trailing slash: EISDIR", open("fe_none/", O_CREAT | O_RDWR, 0644), -1,
	      EISDIR);
	symlink("fe_file", "fe_link");
	check("O_NOFOLLOW on a link: ELOOP", open("fe_link", O_RDONLY | O_NOFOLLOW), -1, ELOOP);
	int fd = syscall(SYS_open, "fe_file", O_RDWR);
	check("F_GETFL: O_RDWR with O_LARGEFILE, as x86-64 opens", fcntl(fd, F_GETFL),
	      O_RDWR | O_LARGEFILE_K, 0);
	fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK | O_WRONLY | O_CREAT | O_TRUNC);
	check("F_SETFL changes only O_APPEND, O_NONBLOCK...", fcntl(fd, F_GETFL),
	      O_RDWR | O_LARGEFILE_K | O_APPEND | O_NONBLOCK, 0);
	check("F_DUPFD at 100", fcntl(fd, F_DUPFD, 100), 100, 0);
	check("F_DUPFD_CLOEXEC at 100: the next free", fcntl(fd, F_DUPFD_CLOEXEC, 100), 101, 0);
	check("... close-on-exec", fcntl(101, F_GETFD), FD_CLOEXEC, 0);
	check("F_DUPFD at a negative number: EINVAL", fcntl(fd, F_DUPFD, -1), -1, EINVAL);
	check("F_SETOWN then F_GETOWN", fcntl(fd, F_SETOWN, getpid()) == 0 &&
	      fcntl(fd, F_GETOWN) == getpid(), 1, 0);
	check("an unknown command: EINVAL", fcntl(fd, 9999), -1, EINVAL);
	close(100);
	close(101);
	close(fd);
}

static void seeks(void)
{
	int fd = open("fe_data", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "0123456789", 10);
	check("SEEK_DATA at 3: 3", lseek(fd, 3, SEEK_DATA), 3, 0);
	check("SEEK_HOLE at 3: the end", lseek(fd, 3, SEEK_HOLE), 10, 0);
	check("SEEK_DATA at the end: ENXIO", lseek(fd, 10, SEEK_DATA), -1, ENXIO);
	check("SEEK_HOLE past the end: ENXIO", lseek(fd, 11, SEEK_HOLE), -1, ENXIO);
	check("a negative result: EINVAL", lseek(fd, -11, SEEK_END), -1, EINVAL);
	check("an unknown whence: EINVAL", lseek(fd, 0, 17), -1, EINVAL);
	check("ftruncate to a negative size: EINVAL", ftruncate(fd, -1), -1, EINVAL);
	close(fd);
	fd = open("fe_data", O_RDONLY);
	check("ftruncate read-only: EINVAL", ftruncate(fd, 0), -1, EINVAL);
	close(fd);
	check("truncate of a directory: EISDIR", truncate("fe_dir", 0), -1, EISDIR);
	int p[2];
	pipe(p);
	check("lseek on a pipe: ESPIPE", lseek(p[0], 0, SEEK_CUR), -1, ESPIPE);
	check("ftruncate of a pipe: EINVAL", ftruncate(p[1], 0), -1, EINVAL);
	close(p[0]);
	close(p[1]);
}

static void names(void)
{
	mkdir("fe_dir/sub", 0755);
	check("rmdir of \".\": EINVAL", rmdir("fe_dir/sub/."), -1, EINVAL);
	check("rmdir of \"..\": ENOTEMPTY", rmdir("fe_dir/sub/.."), -1, ENOTEMPTY);
	check("rmdir of a file: ENOTDIR", rmdir("fe_file"), -1, ENOTDIR);
	check("a hard link to a directory: EPERM", link("fe_dir", "fe_dirlink"), -1, EPERM);
	check("a symlink to \"\": ENOENT", symlink("", "fe_empty"), -1, ENOENT);
	check("mkdir with a trailing slash", mkdir("fe_slash/", 0755), 0, 0);
	check("unlink of a directory: EISDIR", unlink("fe_slash"), -1, EISDIR);
	check("rename of a directory onto a file: ENOTDIR", rename("fe_slash", "fe_file"), -1, ENOTDIR);
	check("rename of a file onto a directory: EISDIR", rename("fe_file", "fe_slash"), -1, EISDIR);
	check("rename of a directory into itself: EINVAL", rename("fe_dir", "fe_dir/sub/in"), -1, EINVAL);
	check("rename onto a non-empty directory: ENOTEMPTY", rename("fe_slash", "fe_dir"), -1,
	      ENOTEMPTY);
	check("access with bad mode bits: EINVAL", access("fe_file", 0100), -1, EINVAL);
	check("chdir to a file: ENOTDIR", chdir("fe_file"), -1, ENOTDIR);
	char buf[4096];
	check("getcwd of size 0: ERANGE (the kernel; libc says EINVAL)", syscall(SYS_getcwd, buf, 0), -1,
	      ERANGE);
	check("getcwd of size 1: ERANGE", syscall(SYS_getcwd, buf, 1), -1, ERANGE);
	long n = syscall(SYS_getcwd, buf, sizeof(buf));
	check("getcwd: the length with its NUL", n == (long)strlen(buf) + 1, 1, 0);
	check("mknod of a regular file", mknod("fe_node", S_IFREG | 0600, 0), 0, 0);
	check("mknod of a bad type: EINVAL", mknod("fe_bad", 0170000 | 0600, 0), -1, EINVAL);
	check("mkfifo over a name: EEXIST", mkfifo("fe_file", 0600), -1, EEXIST);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	opens();
	seeks();
	names();
	return checks_done("fileedges");
}
