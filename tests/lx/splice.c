// SPDX-License-Identifier: MIT
// Data between descriptors: splice, tee, vmsplice and copy_file_range,
// between the pairs of files Linux allows and with its errors for the rest.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then "splice done, N
// failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int memfd_with(const char *s)
{
	int m = (int)syscall(SYS_memfd_create, "sp", 0);
	write(m, s, strlen(s));
	lseek(m, 0, SEEK_SET);
	return m;
}

static int got(int fd, const char *want)
{
	char b[64] = {0};
	long n = read(fd, b, sizeof(b) - 1);
	return n == (long)strlen(want) && !memcmp(b, want, (size_t)n);
}

static void splicing(void)
{
	int p[2], q[2];
	pipe(p);
	pipe(q);
	int m = memfd_with("hello world");
	loff_t off = 6;
	check("splice_file_to_pipe", splice(m, &off, p[1], NULL, 5, 0), 5, 0);
	check("splice_in_offset", off, 11, 0);
	check("splice_file_pos_kept", lseek(m, 0, SEEK_CUR), 0, 0);
	check("splice_pipe_data", got(p[0], "world"), 1, 0);
	check("splice_file_pos", splice(m, NULL, p[1], NULL, 5, 0), 5, 0);
	check("splice_file_pos_moved", lseek(m, 0, SEEK_CUR), 5, 0);
	int out = (int)syscall(SYS_memfd_create, "out", 0);
	check("splice_pipe_to_file", splice(p[0], NULL, out, NULL, 100, 0), 5, 0);
	char b[8] = {0};
	check("splice_file_data", pread(out, b, 8, 0) == 5 && !memcmp(b, "hello", 5), 1, 0);
	write(p[1], "pp", 2);
	check("splice_pipe_to_pipe", splice(p[0], NULL, q[1], NULL, 10, 0), 2, 0);
	check("splice_pipe_pipe_data", got(q[0], "pp"), 1, 0);
	check("splice_no_pipe", splice(m, NULL, out, NULL, 5, 0), -1, EINVAL);
	check("splice_same_pipe", splice(p[0], NULL, p[1], NULL, 5, 0), -1, EINVAL);
	off = 0;
	check("splice_pipe_offset", splice(p[0], &off, out, NULL, 5, 0), -1, ESPIPE);
	check("splice_bad_flags", splice(m, NULL, p[1], NULL, 5, 0x100), -1, EINVAL);
	check("splice_zero_len", splice(m, NULL, p[1], NULL, 0, 0), 0, 0);
	check("splice_bad_fd", splice(200, NULL, p[1], NULL, 5, 0), -1, EBADF);
	check("splice_wrong_end", splice(p[1], NULL, out, NULL, 5, 0), -1, EBADF);
	check("splice_bad_offset_ptr", splice(m, (loff_t *)8, p[1], NULL, 5, 0), -1, EFAULT);
	check("splice_empty_nonblock", splice(p[0], NULL, out, NULL, 5, SPLICE_F_NONBLOCK), -1,
	      EAGAIN);
	int app = open("splice_app", O_CREAT | O_WRONLY | O_APPEND | O_TRUNC, 0600);
	write(p[1], "a", 1);
	check("splice_to_append", splice(p[0], NULL, app, NULL, 1, 0), -1, EINVAL);
	close(app);
	unlink("splice_app");
	pid_t c = fork();
	if (!c) {
		usleep(50000);
		write(p[1], "late", 4);
		_exit(0);
	}
	char one;
	read(p[0], &one, 1);                     /* the "a" left over */
	check("splice_waits_for_data", splice(p[0], NULL, out, NULL, 10, 0), 4, 0);
	waitpid(c, NULL, 0);
	close(p[1]);
	check("splice_eof", splice(p[0], NULL, out, NULL, 10, 0), 0, 0);
	close(p[0]);
	close(q[0]);
	close(q[1]);
	close(m);
	close(out);
}

static void teeing(void)
{
	int p[2], q[2];
	pipe(p);
	pipe(q);
	write(p[1], "tee!", 4);
	check("tee_copies", tee(p[0], q[1], 100, 0), 4, 0);
	check("tee_target_data", got(q[0], "tee!"), 1, 0);
	check("tee_source_kept", got(p[0], "tee!"), 1, 0);
	int m = memfd_with("x");
	check("tee_not_pipe", tee(m, q[1], 1, 0), -1, EINVAL);
	check("tee_same_pipe", tee(p[0], p[1], 1, 0), -1, EINVAL);
	check("tee_bad_flags", tee(p[0], q[1], 1, 0x100), -1, EINVAL);
	check("tee_empty_nonblock", tee(p[0], q[1], 1, SPLICE_F_NONBLOCK), -1, EAGAIN);
	close(p[1]);
	check("tee_eof", tee(p[0], q[1], 1, 0), 0, 0);
	close(m);
	close(p[0]);
	close(q[0]);
	close(q[1]);
}

static void vmsplicing(void)
{
	int p[2];
	pipe(p);
	struct iovec iov[2] = {{"ab", 2}, {"cd", 2}};
	check("vmsplice_in", vmsplice(p[1], iov, 2, 0), 4, 0);
	char b[4] = {0};
	struct iovec back = {b, 3};
	check("vmsplice_out", vmsplice(p[0], &back, 1, 0), 3, 0);
	check("vmsplice_out_data", !memcmp(b, "abc", 3), 1, 0);
	int m = memfd_with("x");
	check("vmsplice_not_pipe", vmsplice(m, iov, 2, 0), -1, EBADF);
	check("vmsplice_bad_flags", vmsplice(p[1], iov, 2, 0x100), -1, EINVAL);
	read(p[0], b, 1);
	check("vmsplice_empty_nonblock", vmsplice(p[0], &back, 1, SPLICE_F_NONBLOCK), -1, EAGAIN);
	close(m);
	close(p[0]);
	close(p[1]);
}

static void copying(void)
{
	int a = memfd_with("0123456789"), b = (int)syscall(SYS_memfd_create, "b", 0);
	loff_t oa = 2;
	check("cfr_copies", copy_file_range(a, &oa, b, NULL, 5, 0), 5, 0);
	check("cfr_in_offset", oa, 7, 0);
	check("cfr_in_pos_kept", lseek(a, 0, SEEK_CUR), 0, 0);
	check("cfr_out_pos", lseek(b, 0, SEEK_CUR), 5, 0);
	char buf[16] = {0};
	check("cfr_data", pread(b, buf, 16, 0) == 5 && !memcmp(buf, "23456", 5), 1, 0);
	check("cfr_file_pos", copy_file_range(a, NULL, b, NULL, 3, 0), 3, 0);
	check("cfr_file_pos_moved", lseek(a, 0, SEEK_CUR), 3, 0);
	oa = 10;
	check("cfr_at_eof", copy_file_range(a, &oa, b, NULL, 5, 0), 0, 0);
	check("cfr_bad_flags", copy_file_range(a, NULL, b, NULL, 5, 1), -1, EINVAL);
	loff_t x = 0, y = 2;
	check("cfr_overlap", copy_file_range(a, &x, a, &y, 5, 0), -1, EINVAL);
	y = 5;
	check("cfr_same_file_apart", copy_file_range(a, &x, a, &y, 5, 0), 5, 0);
	check("cfr_bad_offset_ptr", copy_file_range(a, (loff_t *)8, b, NULL, 5, 0), -1, EFAULT);
	int p[2];
	pipe(p);
	check("cfr_pipe", copy_file_range(p[0], NULL, b, NULL, 5, 0), -1, EINVAL);
	check("cfr_bad_fd", copy_file_range(200, NULL, b, NULL, 5, 0), -1, EBADF);
	int ro = open("cfr_ro", O_CREAT | O_RDONLY, 0600), app = open("cfr_app", O_CREAT | O_WRONLY |
								     O_APPEND, 0600);
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	check("cfr_out_read_only", copy_file_range(a, NULL, ro, NULL, 5, 0), -1, EBADF);
	check("cfr_out_append", copy_file_range(a, NULL, app, NULL, 5, 0), -1, EBADF);
	check("cfr_directory", copy_file_range(dir, NULL, b, NULL, 5, 0), -1, EISDIR);
	close(ro);
	close(app);
	close(dir);
	unlink("cfr_ro");
	unlink("cfr_app");
	close(p[0]);
	close(p[1]);
	close(a);
	close(b);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	splicing();
	teeing();
	vmsplicing();
	copying();
	return checks_done("splice");
}
