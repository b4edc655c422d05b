// SPDX-License-Identifier: MIT
// Bad pointers to lx's file calls: each must fail with EFAULT (or move only
// the bytes before the bad page), and lx and this process must go on.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then "efault done".
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define WILD ((void *)0x10)                     /* never mapped */
#define KERNEL ((void *)0xffff800000001000UL)   /* not user memory at all */

/* Two pages whose second one is unmapped: a buffer that turns bad mid-way. */
static char *half_buffer(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(p + 4096, 4096);
	memset(p, 'x', 4096);
	return p;
}

int main(void)
{
	int fd = open("/tmp/efault.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
	static char data[8192];
	memset(data, 'd', sizeof(data));
	write(fd, data, sizeof(data));
	lseek(fd, 0, SEEK_SET);

	check("read_wild", read(fd, WILD, 16), -1, EFAULT);
	check("read_kernel", read(fd, KERNEL, 16), -1, EFAULT);
	check("read_pos_kept", lseek(fd, 0, SEEK_CUR), 0, 0);
	check("write_wild", write(fd, WILD, 16), -1, EFAULT);
	check("write_kernel", syscall(SYS_write, 1, KERNEL, 16), -1, EFAULT);
	/* /dev/null and /dev/zero never read a write's buffer: only its range is checked */
	int dn = open("/dev/null", O_WRONLY), dz = open("/dev/zero", O_WRONLY);
	check("devnull_write_wild", write(dn, WILD, 16), 16, 0);
	check("devnull_write_kernel", syscall(SYS_write, dn, KERNEL, 16), -1, EFAULT);
	check("devnull_write_wrap", syscall(SYS_write, dn, (void *)0x7ffffffff000UL - 8, 16), -1,
	      EFAULT);
	check("devzero_write_wild", write(dz, WILD, 16), 16, 0);
	close(dn);
	close(dz);
	struct stat st;
	check("stat_wild_path", syscall(SYS_stat, WILD, &st), -1, EFAULT);
	check("stat_wild_buf", syscall(SYS_stat, "/tmp/efault.dat", WILD), -1, EFAULT);
	check("fstat_wild_buf", syscall(SYS_fstat, fd, KERNEL), -1, EFAULT);
	check("open_wild", syscall(SYS_open, WILD, O_RDONLY), -1, EFAULT);
	check("open_kernel", syscall(SYS_openat, AT_FDCWD, KERNEL, O_RDONLY), -1, EFAULT);
	check("nanosleep_wild", syscall(SYS_nanosleep, WILD, NULL), -1, EFAULT);
	check("clock_nanosleep_wild", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, WILD, NULL), -1,
	      EFAULT);
	check("pipe_wild", syscall(SYS_pipe, WILD), -1, EFAULT);
	check("poll_wild", syscall(SYS_poll, WILD, 1, 0), -1, EFAULT);
	struct iovec iov = {WILD, 16};
	check("readv_wild", readv(fd, &iov, 1), -1, EFAULT);
	check("readv_wild_vec", syscall(SYS_readv, fd, WILD, 1), -1, EFAULT);
	check("getdents_wild", syscall(SYS_getdents64, open("/", O_RDONLY | O_DIRECTORY), WILD,
					 4096), -1, EFAULT);
	check("getcwd_wild", syscall(SYS_getcwd, WILD, 4096), -1, EFAULT);
	check("readlink_wild", syscall(SYS_readlink, "/bin/sh", WILD, 64), -1, EFAULT);

	/* a buffer whose second page is bad: the first page's bytes move */
	char *half = half_buffer();
	lseek(fd, 0, SEEK_SET);
	check("read_partial", read(fd, half, 8192), 4096, 0);
	check("read_partial_pos", lseek(fd, 0, SEEK_CUR), 4096, 0);
	check("write_partial", write(fd, half, 8192), 4096, 0);

	/* a pipe keeps what could not be delivered */
	int p[2];
	pipe(p);
	write(p[1], "abc", 3);
	check("pipe_read_wild", read(p[0], WILD, 3), -1, EFAULT);
	char buf[8] = {0};
	check("pipe_data_kept", read(p[0], buf, sizeof(buf)), 3, 0);
	check("pipe_data_same", strcmp(buf, "abc"), 0, 0);

	return checks_done("efault");
}
