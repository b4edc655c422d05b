// SPDX-License-Identifier: MIT
// lx's file layer against Linux's behaviour: descriptors, pipes, FIFOs,
// polling, names and attributes.  Prints "ok NAME" or "FAIL NAME: detail"
// per check, then "files done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void descriptors(void)
{
	int fd = open("/tmp/f1", O_CREAT | O_RDWR | O_TRUNC, 0600);
	check("dup2_same", dup2(fd, fd), fd, 0);
	check("dup2_to_9", dup2(fd, 9), 9, 0);
	check("dup_lowest", dup(fd), 4, 0);
	close(4);
	check("dup3_same", dup3(fd, fd, 0), -1, EINVAL);
	check("dup3_cloexec", dup3(fd, 10, O_CLOEXEC), 10, 0);
	check("getfd_cloexec", fcntl(10, F_GETFD), FD_CLOEXEC, 0);
	/* descriptors are unsigned int: a 64-bit argument's upper half does not count */
	check("getfd_high_bits", syscall(SYS_fcntl, (1UL << 40) | 10, F_GETFD), FD_CLOEXEC, 0);
	check("fioclex_high_bits", syscall(SYS_ioctl, (1UL << 40) | fd, FIOCLEX), 0, 0);
	check("setfd_clear", fcntl(fd, F_SETFD, 0), 0, 0);
	check("dup2_high_bits", syscall(SYS_dup2, (1UL << 40) | fd, (1UL << 40) | 11), 11, 0);
	close(11);
	check("dupfd_min", fcntl(fd, F_DUPFD, 20), 20, 0);
	check("close_bad", close(200), -1, EBADF);
	check("close_ok", close(20), 0, 0);
	check("read_closed", read(20, &fd, 1), -1, EBADF);
	check("setfl_append", fcntl(fd, F_SETFL, O_APPEND), 0, 0);
	check("getfl_append", fcntl(fd, F_GETFL) & (O_APPEND | O_ACCMODE), O_APPEND | O_RDWR, 0);
	write(fd, "abc", 3);
	lseek(fd, 0, SEEK_SET);
	write(fd, "def", 3);
	check("append_at_end", lseek(fd, 0, SEEK_CUR), 6, 0);
	check("shared_offset", lseek(9, 0, SEEK_CUR), 6, 0);
	check("seek_negative", lseek(fd, -1, SEEK_SET), -1, EINVAL);
	check("seek_end", lseek(fd, -2, SEEK_END), 4, 0);
	char b[8] = {0};
	check("pread", pread(fd, b, 3, 1), 3, 0);
	check("pread_data", strcmp(b, "bcd"), 0, 0);
	check("pread_pos_kept", lseek(fd, 0, SEEK_CUR), 4, 0);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	check("setlk", fcntl(fd, F_SETLK, &fl), 0, 0);
	check("getlk_unlocked", fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type == F_UNLCK, 1, 0);
	int ro = open("/tmp/f1", O_RDONLY);
	check("write_rdonly", write(ro, "x", 1), -1, EBADF);
	check("ftruncate_rdonly", ftruncate(ro, 0), -1, EINVAL);
	int wo = open("/tmp/f1", O_WRONLY);
	check("read_wronly", read(wo, b, 1), -1, EBADF);
	close(ro), close(wo), close(9), close(10), close(fd);
}

static void pipes(void)
{
	int p[2];
	char b[70000];
	check("pipe2_nonblock", pipe2(p, O_NONBLOCK | O_CLOEXEC), 0, 0);
	check("pipe_cloexec", fcntl(p[0], F_GETFD), FD_CLOEXEC, 0);
	check("pipe_empty_eagain", read(p[0], b, 1), -1, EAGAIN);
	check("pipe_seek", lseek(p[0], 0, SEEK_SET), -1, ESPIPE);
	check("pipe_pread", pread(p[0], b, 1, 0), -1, ESPIPE);
	memset(b, 'p', sizeof(b));
	long n = write(p[1], b, sizeof(b));
	check("pipe_capacity_64k", n, 65536, 0);
	check("pipe_full_eagain", write(p[1], b, 1), -1, EAGAIN);
	int avail = 0;
	ioctl(p[0], FIONREAD, &avail);
	check("fionread", avail, 65536, 0);
	check("pipe_read_some", read(p[0], b, 100), 100, 0);
	check("pipe_buf_atomic", write(p[1], b, 4096), -1, EAGAIN);
	check("pipe_read_page", read(p[0], b, 3996), 3996, 0);
	check("pipe_page_fits", write(p[1], b, 4096), 4096, 0);
	struct stat st;
	check("fstat_fifo", fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode), 1, 0);
	close(p[1]);
	while (read(p[0], b, sizeof(b)) > 0)
		;
	check("pipe_eof", read(p[0], b, 1), 0, 0);
	close(p[0]);

	signal(SIGPIPE, SIG_IGN);
	pipe(p);
	close(p[0]);
	check("pipe_epipe", write(p[1], "x", 1), -1, EPIPE);
	close(p[1]);

	/* a blocking read waits for the writer (a child) */
	pipe(p);
	pid_t c = fork();
	if (!c) {
		usleep(100000);
		write(p[1], "late", 4);
		_exit(0);
	}
	close(p[1]);
	memset(b, 0, 8);
	check("pipe_blocking_read", read(p[0], b, 8), 4, 0);
	check("pipe_eof_after_child", read(p[0], b, 8), 0, 0);
	waitpid(c, NULL, 0);
	close(p[0]);

	/* SIGPIPE by default kills the writer.  The read end is closed before the
	 * fork: closed after it, the child could write while the parent still
	 * held it open, and the write would succeed (on Linux too). */
	pipe(p);
	close(p[0]);
	c = fork();
	if (!c) {
		signal(SIGPIPE, SIG_DFL);
		write(p[1], "x", 1);
		_exit(0);
	}
	close(p[1]);
	int status = 0;
	waitpid(c, &status, 0);
	check("sigpipe_kills", WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE, 1, 0);
}

static void polling(void)
{
	int p[2];
	pipe(p);
	struct pollfd pf[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};
	check("poll_out_ready", poll(pf, 2, -1), 1, 0);
	check("poll_revents", pf[0].revents == 0 && pf[1].revents == POLLOUT, 1, 0);
	long t0 = now_ms();
	check("poll_timeout", poll(pf, 1, 200), 0, 0);
	long dt = now_ms() - t0;
	check("poll_waited", dt >= 200, 1, 0);           /* at least the timeout (poll(2)) */
	struct pollfd bad = {123, POLLIN, 0};
	check("poll_nval", poll(&bad, 1, 0) == 1 && bad.revents == POLLNVAL, 1, 0);
	fd_set r;
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	struct timeval tv = {0, 150000};
	t0 = now_ms();
	check("select_timeout", select(p[0] + 1, &r, NULL, NULL, &tv), 0, 0);
	dt = now_ms() - t0;
	check("select_waited", dt >= 150, 1, 0);
	pid_t c = fork();
	if (!c) {
		usleep(100000);
		write(p[1], "w", 1);
		_exit(0);
	}
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	check("select_wakes", select(p[0] + 1, &r, NULL, NULL, NULL), 1, 0);
	check("select_set", FD_ISSET(p[0], &r) != 0, 1, 0);
	waitpid(c, NULL, 0);
	close(p[1]);
	pf[0].revents = 0;
	char b[4];
	read(p[0], b, 1);
	check("poll_hup", poll(pf, 1, 0) == 1 && (pf[0].revents & POLLHUP), 1, 0);
	close(p[0]);
}

static void fifo(void)
{
	unlink("/tmp/fifo");
	check("mkfifo", mkfifo("/tmp/fifo", 0600), 0, 0);
	struct stat st;
	check("fifo_mode", stat("/tmp/fifo", &st) == 0 && S_ISFIFO(st.st_mode), 1, 0);
	check("fifo_nonblock_writer", open("/tmp/fifo", O_WRONLY | O_NONBLOCK), -1, ENXIO);
	pid_t c = fork();
	if (!c) {
		int w = open("/tmp/fifo", O_WRONLY);  /* waits for the reader */
		write(w, "fifo!", 5);
		_exit(0);
	}
	int r = open("/tmp/fifo", O_RDONLY);
	char b[8] = {0};
	long n = 0, k;
	while ((k = read(r, b + n, sizeof(b) - 1 - n)) > 0)
		n += k;
	check("fifo_data", n == 5 && !strcmp(b, "fifo!"), 1, 0);
	waitpid(c, NULL, 0);
	close(r);
	unlink("/tmp/fifo");
}

static void names(void)
{
	check("mkdir", mkdir("/tmp/dd", 0755), 0, 0);
	check("mkdir_exists", mkdir("/tmp/dd", 0755), -1, EEXIST);
	int fd = open("/tmp/dd/x", O_CREAT | O_EXCL | O_WRONLY, 0644);
	check("creat_excl", fd >= 0, 1, 0);
	check("excl_exists", open("/tmp/dd/x", O_CREAT | O_EXCL | O_WRONLY, 0644), -1, EEXIST);
	check("open_missing", open("/tmp/dd/none", O_RDONLY), -1, ENOENT);
	check("open_notdir", open("/tmp/dd/x/y", O_RDONLY), -1, ENOTDIR);
	check("o_directory_file", open("/tmp/dd/x", O_RDONLY | O_DIRECTORY), -1, ENOTDIR);
	check("open_dir_write", open("/tmp/dd", O_WRONLY), -1, EISDIR);
	int d = open("/tmp/dd", O_RDONLY | O_DIRECTORY);
	char b[16];
	check("read_dir", read(d, b, 1), -1, EISDIR);
	check("rmdir_notempty", rmdir("/tmp/dd"), -1, ENOTEMPTY);
	check("unlink_dir", unlink("/tmp/dd"), -1, EISDIR);
	check("rmdir_file", rmdir("/tmp/dd/x"), -1, ENOTDIR);
	write(fd, "kept", 4);
	check("unlink_open", unlink("/tmp/dd/x"), 0, 0);
	check("pread_unlinked", pread(fd, b, 4, 0), -1, EBADF);   /* write-only */
	close(fd);
	umask(022);
	fd = openat(d, "y", O_CREAT | O_RDWR, 0777);
	struct stat st;
	check("umask_applied", fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0755, 1, 0);
	write(fd, "hello", 5);
	check("unlinkat_file", unlinkat(d, "y", 0), 0, 0);
	check("read_after_unlink", pread(fd, b, 5, 0), 5, 0);
	close(fd);
	symlinkat("target", d, "ln");
	char t[16] = {0};
	check("readlinkat", readlinkat(d, "ln", t, sizeof(t)), 6, 0);
	check("readlink_notlink", readlink("/tmp/dd", t, sizeof(t)), -1, EINVAL);
	check("stat_dangling", stat("/tmp/dd/ln", &st), -1, ENOENT);
	check("lstat_link", lstat("/tmp/dd/ln", &st) == 0 && S_ISLNK(st.st_mode), 1, 0);
	check("nofollow_eloop", open("/tmp/dd/ln", O_RDONLY | O_NOFOLLOW), -1, ELOOP);
	fd = open("/tmp/dd/a", O_CREAT | O_WRONLY, 0644);
	write(fd, "A", 1);
	close(fd);
	fd = open("/tmp/dd/b", O_CREAT | O_WRONLY, 0644);
	write(fd, "BB", 2);
	close(fd);
	check("rename_over", rename("/tmp/dd/a", "/tmp/dd/b"), 0, 0);
	check("renamed_size", stat("/tmp/dd/b", &st) == 0 && st.st_size == 1, 1, 0);
	check("renameat2_noreplace", syscall(SYS_renameat2, AT_FDCWD, "/tmp/dd/ln", AT_FDCWD,
					      "/tmp/dd/b", 1 /* RENAME_NOREPLACE */), -1, EEXIST);
	check("renameat2_bad_flags", syscall(SYS_renameat2, AT_FDCWD, "/tmp/dd/b", AT_FDCWD,
					      "/tmp/dd/c", 8), -1, EINVAL);
	check("link", link("/tmp/dd/b", "/tmp/dd/h"), 0, 0);
	check("link_count", stat("/tmp/dd/b", &st) == 0 && st.st_nlink == 2, 1, 0);
	check("truncate", truncate("/tmp/dd/h", 10000), 0, 0);
	check("truncated_size", stat("/tmp/dd/b", &st) == 0 && st.st_size == 10000, 1, 0);
	check("chmod", chmod("/tmp/dd/b", 0600), 0, 0);
	check("chmod_seen", stat("/tmp/dd/h", &st) == 0 && (st.st_mode & 07777) == 0600, 1, 0);
	check("access_x_denied", access("/tmp/dd/b", X_OK), -1, EACCES);
	check("access_x_ok", access("/bin/busybox", X_OK), 0, 0);
	check("access_missing", access("/tmp/dd/zz", F_OK), -1, ENOENT);
	struct timespec ts[2] = {{1000, 0}, {2000, 0}};
	check("utimensat", utimensat(AT_FDCWD, "/tmp/dd/b", ts, 0), 0, 0);
	check("mtime_set", stat("/tmp/dd/b", &st) == 0 && st.st_mtime == 2000 &&
	      st.st_atime == 1000, 1, 0);
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_nsec = UTIME_NOW;
	utimensat(AT_FDCWD, "/tmp/dd/b", ts, 0);
	check("utime_omit_now", stat("/tmp/dd/b", &st) == 0 && st.st_atime == 1000 &&
	      st.st_mtime > 2000, 1, 0);

	/* every name getdents gives, exactly once */
	lseek(d, 0, SEEK_SET);
	DIR *dir = fdopendir(d);
	int seen = 0, dots = 0;
	struct dirent *e;
	while ((e = readdir(dir)))
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			dots++;
		else if (!strcmp(e->d_name, "b") || !strcmp(e->d_name, "h") || !strcmp(e->d_name, "ln"))
			seen++;
		else
			seen += 100;
	check("getdents_names", seen == 3 && dots == 2, 1, 0);
	closedir(dir);

	char cwd[64];
	chdir("/tmp/dd");
	check("getcwd", getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, "/tmp/dd"), 1, 0);
	check("getcwd_erange", syscall(SYS_getcwd, cwd, 4), -1, ERANGE);
	check("chdir_file", chdir("/tmp/dd/b"), -1, ENOTDIR);
	chdir("/");
	unlink("/tmp/dd/b"), unlink("/tmp/dd/h"), unlink("/tmp/dd/ln");
	check("rmdir_empty", rmdir("/tmp/dd"), 0, 0);
}

static void devices(void)
{
	char b[16];
	int fd = open("/dev/null", O_RDWR);
	check("null_read", read(fd, b, sizeof(b)), 0, 0);
	check("null_write", write(fd, b, sizeof(b)), 16, 0);
	close(fd);
	fd = open("/dev/zero", O_RDONLY);
	memset(b, 1, sizeof(b));
	check("zero_read", read(fd, b, sizeof(b)) == 16 && b[0] == 0 && b[15] == 0, 1, 0);
	static char z[4099];
	memset(z, 1, sizeof(z));
	long zeros = read(fd, z, sizeof(z)) == sizeof(z);
	for (size_t i = 0; i < sizeof(z); i++)
		zeros &= z[i] == 0;
	check("zero_read_long", zeros, 1, 0);
	close(fd);
	fd = open("/dev/full", O_WRONLY);
	check("full_write", write(fd, b, 1), -1, ENOSPC);
	close(fd);
	fd = open("/dev/urandom", O_RDONLY);
	check("urandom_read", read(fd, b, sizeof(b)), 16, 0);
	close(fd);

	/* sendfile copies a file into a pipe */
	int src = open("/tmp/sf", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(src, "sendfile data", 13);
	int p[2];
	pipe(p);
	off_t off = 4;
	check("sendfile", sendfile(p[1], src, &off, 100), 9, 0);
	check("sendfile_off", off, 13, 0);
	memset(b, 0, sizeof(b));
	read(p[0], b, sizeof(b));
	check("sendfile_data", strcmp(b, "file data"), 0, 0);
	close(p[0]), close(p[1]), close(src);
	unlink("/tmp/sf");
}

/* Reads into memory shared copy-on-write after fork: each side sees only its own. */
static char cowbuf[3 * 4096];

static void cow(void)
{
	static char data[sizeof(cowbuf)];
	memset(cowbuf, 'P', sizeof(cowbuf));
	memset(data, 'F', sizeof(data));
	int fd = open("/tmp/cow", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, data, sizeof(data));
	int p[2];
	pipe(p);
	pid_t c = fork();
	if (!c) {
		char x;
		read(p[0], &x, 1);      /* after the parent's read */
		int ok = cowbuf[0] == 'P' && cowbuf[sizeof(cowbuf) - 1] == 'P';
		pread(fd, cowbuf + 1, sizeof(cowbuf) - 2, 0);
		ok = ok && cowbuf[0] == 'P' && cowbuf[1] == 'F' && cowbuf[sizeof(cowbuf) - 2] == 'F';
		_exit(ok ? 0 : 1);
	}
	check("cow_parent_read", pread(fd, cowbuf, sizeof(cowbuf), 0), sizeof(cowbuf), 0);
	check("cow_parent_sees", cowbuf[0] == 'F' && cowbuf[sizeof(cowbuf) - 1] == 'F', 1, 0);
	write(p[1], "g", 1);
	int st = 0;
	waitpid(c, &st, 0);
	check("cow_child_own_copy", WIFEXITED(st) && WEXITSTATUS(st) == 0, 1, 0);
	close(p[0]), close(p[1]), close(fd);
	unlink("/tmp/cow");
}

int main(void)
{
	descriptors();
	pipes();
	polling();
	fifo();
	names();
	cow();
	devices();
	return checks_done("files");
}
