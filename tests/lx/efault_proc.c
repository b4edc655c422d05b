// SPDX-License-Identifier: MIT
// Wild pointers into lx's process and identity calls: each must fail with EFAULT (or the
// documented error) and leave the process, and lx, running.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int failures;

static void check(const char *what, long r, int want)
{
	int ok = r == -1 && errno == want;
	printf("%s: %s (r=%ld errno=%d)\n", what, ok ? "ok" : "FAIL", r, r == -1 ? errno : 0);
	failures += !ok;
}

int main(void)
{
	char *wild = (char *)0x13370000, *kernel = (char *)0xffffffff80000000UL;
	int fd = open("/tmp/efault", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "data", 4);
	lseek(fd, 0, SEEK_SET);
	check("read into unmapped", syscall(SYS_read, fd, wild, 4), EFAULT);
	check("read into kernel", syscall(SYS_read, fd, kernel, 4), EFAULT);
	check("write from unmapped", syscall(SYS_write, 1, wild, 4), EFAULT);
	check("write from kernel", syscall(SYS_write, 1, kernel, 4), EFAULT);
	check("stat path unmapped", syscall(SYS_stat, wild, wild), EFAULT);
	check("stat buf unmapped", syscall(SYS_stat, "/tmp", wild), EFAULT);
	check("open path in kernel", syscall(SYS_open, kernel, O_RDONLY), EFAULT);
	check("execve path unmapped", syscall(SYS_execve, wild, 0, 0), EFAULT);
	char *argv[] = { "/bin/true", wild, NULL };
	check("execve argv unmapped", syscall(SYS_execve, "/bin/true", argv, 0), EFAULT);
	check("pipe unmapped", syscall(SYS_pipe, wild), EFAULT);
	check("uname unmapped", syscall(SYS_uname, wild), EFAULT);
	check("read bad fd", syscall(SYS_read, 999, wild, 4), EBADF);
	printf("efault_proc: %s\n", failures ? "FAILED" : "all ok");
	return failures != 0;
}
