// SPDX-License-Identifier: MIT
// inotify against Linux's behaviour: the events names, writes, closes,
// renames and removals make, in order, on directory and file watches, and
// the calls' errors errno by errno.  Works in its current directory (pass
// another as argv[1]: an ext2 mount under lx).  Prints "ok NAME" or "FAIL
// NAME: detail" per check, then "inotify done, N failed"; the same program
// passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define BAD_PTR ((void *)8)

static const struct { unsigned bit; const char *name; } names[] = {
	{IN_ACCESS, "ACCESS"}, {IN_MODIFY, "MODIFY"}, {IN_ATTRIB, "ATTRIB"},
	{IN_CLOSE_WRITE, "CLOSE_WRITE"}, {IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"}, {IN_OPEN, "OPEN"},
	{IN_MOVED_FROM, "MOVED_FROM"}, {IN_MOVED_TO, "MOVED_TO"}, {IN_CREATE, "CREATE"},
	{IN_DELETE, "DELETE"}, {IN_DELETE_SELF, "DELETE_SELF"}, {IN_MOVE_SELF, "MOVE_SELF"},
	{IN_IGNORED, "IGNORED"}, {IN_ISDIR, "ISDIR"}, {IN_Q_OVERFLOW, "OVERFLOW"},
};

static unsigned last_cookie[8];

/* The events waiting on fd as "MASK name,MASK,..." (wd > 1 shown as "@wd"); cookies saved. */
static const char *events(int fd)
{
	static char out[1024];
	char buf[4096];
	int k = 0;
	out[0] = 0;
	long n = read(fd, buf, sizeof(buf));
	for (long at = 0; n > 0 && at < n;) {
		struct inotify_event *e = (struct inotify_event *)(buf + at);
		size_t o = strlen(out);
		if (o)
			strcat(out, ",");
		for (unsigned i = 0, first = 1; i < sizeof(names) / sizeof(names[0]); i++)
			if (e->mask & names[i].bit) {
				strcat(out, first ? "" : "|");
				strcat(out, names[i].name);
				first = 0;
			}
		if (e->len)
			strcat(out, " "), strcat(out, e->name);
		if (e->wd > 1)
			sprintf(out + strlen(out), " @%d", e->wd);
		if (k < 8)
			last_cookie[k++] = e->cookie;
		at += sizeof(*e) + e->len;
	}
	return out;
}

static void expect(const char *name, int fd, const char *want)
{
	const char *got = events(fd);
	if (strcmp(got, want))
		printf("# %s: got \"%s\", want \"%s\"\n", name, got, want);
	check(name, strcmp(got, want) == 0, 1, 0);
}

static void errors(void)
{
	check("init1_bad_flags", inotify_init1(0x1), -1, EINVAL);
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	check("init1_cloexec", fcntl(in, F_GETFD), FD_CLOEXEC, 0);
	char b[64];
	check("read_empty", read(in, b, sizeof(b)), -1, EAGAIN);
	check("watch_no_events", inotify_add_watch(in, ".", 0), -1, EINVAL);
	check("watch_add_and_create", inotify_add_watch(in, ".", IN_CREATE | IN_MASK_ADD |
						       IN_MASK_CREATE), -1, EINVAL);
	check("watch_bad_fd", inotify_add_watch(200, ".", IN_CREATE), -1, EBADF);
	int p[2];
	pipe(p);
	check("watch_not_inotify", inotify_add_watch(p[0], ".", IN_CREATE), -1, EINVAL);
	check("rm_not_inotify", inotify_rm_watch(p[0], 1), -1, EINVAL);
	close(p[0]);
	close(p[1]);
	check("watch_bad_path", inotify_add_watch(in, BAD_PTR, IN_CREATE), -1, EFAULT);
	check("watch_missing", inotify_add_watch(in, "no_such_file", IN_CREATE), -1, ENOENT);
	close(open("ino_file", O_CREAT | O_WRONLY, 0600));
	check("watch_onlydir_file", inotify_add_watch(in, "ino_file", IN_CREATE | IN_ONLYDIR), -1,
	      ENOTDIR);
	int wd = inotify_add_watch(in, ".", IN_CREATE);
	check("watch_first_wd", wd, 1, 0);
	check("watch_same_wd", inotify_add_watch(in, ".", IN_DELETE), wd, 0);
	check("watch_mask_create_exists", inotify_add_watch(in, ".", IN_DELETE | IN_MASK_CREATE), -1,
	      EEXIST);
	close(open("ino_file2", O_CREAT | O_WRONLY, 0600));
	expect("mask_replaced", in, "");                   /* IN_DELETE replaced IN_CREATE */
	check("watch_mask_add", inotify_add_watch(in, ".", IN_CREATE | IN_MASK_ADD), wd, 0);
	unlink("ino_file2");
	close(open("ino_file2", O_CREAT | O_WRONLY, 0600));
	expect("mask_added", in, "DELETE ino_file2,CREATE ino_file2");
	unlink("ino_file2");
	events(in);
	check("rm_bad_wd", inotify_rm_watch(in, 99), -1, EINVAL);
	check("rm_bad_fd", inotify_rm_watch(200, wd), -1, EBADF);
	check("rm_watch", inotify_rm_watch(in, wd), 0, 0);
	expect("rm_gives_ignored", in, "IGNORED");
	check("rm_twice", inotify_rm_watch(in, wd), -1, EINVAL);
	unlink("ino_file");
	close(in);
}

static void directory_events(void)
{
	mkdir("ino_d", 0755);
	int in = inotify_init1(IN_NONBLOCK);
	unsigned m = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY |
		     IN_CLOSE_WRITE | IN_OPEN | IN_ATTRIB;
	inotify_add_watch(in, "ino_d", m);
	int fd = open("ino_d/f", O_CREAT | O_WRONLY, 0600);
	expect("create_open", in, "CREATE f,OPEN f");
	write(fd, "abc", 3);
	write(fd, "def", 3);
	expect("modify_merged", in, "MODIFY f");
	close(fd);
	expect("close_write", in, "CLOSE_WRITE f");
	mkdir("ino_d/sub", 0755);
	expect("mkdir", in, "CREATE|ISDIR sub");
	rename("ino_d/f", "ino_d/g");
	expect("rename", in, "MOVED_FROM f,MOVED_TO g");
	check("rename_cookie", last_cookie[0] != 0 && last_cookie[0] == last_cookie[1], 1, 0);
	chmod("ino_d/g", 0644);
	expect("chmod_child", in, "ATTRIB g");
	truncate("ino_d/g", 1);
	expect("truncate_child", in, "MODIFY g");
	link("ino_d/g", "ino_d/h");
	expect("link", in, "CREATE h");
	unlink("ino_d/h");
	expect("unlink_link", in, "DELETE h");
	unlink("ino_d/g");
	expect("unlink", in, "DELETE g");
	symlink("target", "ino_d/s");
	expect("symlink", in, "CREATE s");
	unlink("ino_d/s");
	rmdir("ino_d/sub");
	expect("rmdir", in, "DELETE s,DELETE|ISDIR sub");
	char small[8];
	close(open("ino_d/x", O_CREAT | O_WRONLY, 0600));
	check("read_short_buffer", read(in, small, sizeof(small)), -1, EINVAL);
	int avail = 0;
	check("fionread", ioctl(in, FIONREAD, &avail) == 0 && avail > 0 && avail % 16 == 0, 1, 0);
	struct pollfd pf = {in, POLLIN, 0};
	check("poll_ready", poll(&pf, 1, 0), 1, 0);
	events(in);
	check("poll_drained", poll(&pf, 1, 0), 0, 0);
	unlink("ino_d/x");
	events(in);
	/* a move between directories: each watch hears its half, with one cookie */
	mkdir("ino_e", 0755);
	int wd2 = inotify_add_watch(in, "ino_e", IN_MOVED_TO);
	check("second_wd", wd2, 2, 0);
	close(open("ino_d/y", O_CREAT | O_WRONLY, 0600));
	events(in);
	rename("ino_d/y", "ino_e/z");
	expect("move_across", in, "MOVED_FROM y,MOVED_TO z @2");
	check("move_across_cookie", last_cookie[0] != 0 && last_cookie[0] == last_cookie[1], 1, 0);
	unlink("ino_e/z");
	rmdir("ino_e");
	expect("watched_dir_removed", in, "IGNORED @2");
	close(in);
}

static void file_events(void)
{
	close(open("ino_d/w", O_CREAT | O_WRONLY, 0600));
	int in = inotify_init1(IN_NONBLOCK);
	int wd = inotify_add_watch(in, "ino_d/w", IN_ALL_EVENTS);
	int fd = open("ino_d/w", O_RDONLY);
	char c;
	read(fd, &c, 1);                /* empty file: no data, no access */
	close(fd);
	expect("open_close_nowrite", in, "OPEN,CLOSE_NOWRITE");
	fd = open("ino_d/w", O_RDWR);
	write(fd, "q", 1);
	pread(fd, &c, 1, 0);
	close(fd);
	expect("file_rw", in, "OPEN,MODIFY,ACCESS,CLOSE_WRITE");
	rename("ino_d/w", "ino_d/v");
	expect("move_self", in, "MOVE_SELF");
	unlink("ino_d/v");
	expect("delete_self", in, "ATTRIB,DELETE_SELF,IGNORED");
	check("deleted_watch_gone", inotify_rm_watch(in, wd), -1, EINVAL);
	close(open("ino_d/o", O_CREAT | O_WRONLY, 0600));
	int one = inotify_add_watch(in, "ino_d/o", IN_ATTRIB | IN_ONESHOT);
	chmod("ino_d/o", 0600);
	chmod("ino_d/o", 0644);
	char want[32];
	sprintf(want, "ATTRIB @%d,IGNORED @%d", one, one);
	expect("oneshot", in, want);
	unlink("ino_d/o");
	close(in);
	/* the watched directory itself removed */
	mkdir("ino_d/gone", 0755);
	in = inotify_init1(IN_NONBLOCK);
	inotify_add_watch(in, "ino_d/gone", IN_DELETE_SELF);
	rmdir("ino_d/gone");
	expect("dir_delete_self", in, "DELETE_SELF,IGNORED");
	close(in);
	/* unlinked while open: the inode lives on, IN_DELETE_SELF comes with the last close */
	int keep = open("ino_d/open", O_CREAT | O_RDWR, 0600), again = open("ino_d/open", O_RDONLY);
	in = inotify_init1(IN_NONBLOCK);
	inotify_add_watch(in, "ino_d/open", IN_ATTRIB | IN_DELETE_SELF | IN_CLOSE);
	unlink("ino_d/open");
	expect("unlinked_open_no_delete_self", in, "ATTRIB");
	close(again);
	expect("first_close_not_last", in, "CLOSE_NOWRITE");
	close(keep);
	expect("last_close_delete_self", in, "CLOSE_WRITE,DELETE_SELF,IGNORED");
	close(in);
}

static void waiting(void)
{
	int in = inotify_init();
	inotify_add_watch(in, "ino_d", IN_CREATE);
	int ep = epoll_create1(0);
	struct epoll_event ev = {EPOLLIN, {0}}, out[1];
	epoll_ctl(ep, EPOLL_CTL_ADD, in, &ev);
	check("epoll_idle", epoll_wait(ep, out, 1, 0), 0, 0);
	pid_t c = fork();
	if (!c) {
		usleep(50000);
		close(open("ino_d/late", O_CREAT | O_WRONLY, 0600));
		_exit(0);
	}
	check("epoll_woken", epoll_wait(ep, out, 1, 5000), 1, 0);
	expect("blocking_read", in, "CREATE late");
	waitpid(c, NULL, 0);
	c = fork();
	if (!c) {
		usleep(50000);
		unlink("ino_d/late");
		mkdir("ino_d/late2", 0700);
		_exit(0);
	}
	expect("blocking_read_waits", in, "CREATE|ISDIR late2");
	waitpid(c, NULL, 0);
	rmdir("ino_d/late2");
	close(ep);
	close(in);
	rmdir("ino_d");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && chdir(argv[1]) < 0) {
		perror(argv[1]);
		return 1;
	}
	errors();
	directory_events();
	file_events();
	waiting();
	return checks_done("inotify");
}
