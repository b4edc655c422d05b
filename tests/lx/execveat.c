// SPDX-License-Identifier: MIT
// execveat(2) against Linux: a path from a directory descriptor, an absolute
// path (the descriptor unused), AT_EMPTY_PATH on a descriptor of the program
// (what fexecve uses), the name the program gets (AT_EXECFN: /dev/fd/N[/path]),
// AT_SYMLINK_NOFOLLOW, a script by a close-on-exec descriptor, and the errors.
// Each call runs in a child: an exec that wrongly succeeds ends only the child.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

static char self[4096], dir[4096];
static const char *base;

// execveat of `path` from dirfd in a child, which as this program checks that
// AT_EXECFN is `execfn` (NULL: any) and exits 42: 0, the program's other exit
// status, or -1 with the exec's errno
static long run(int dirfd, const char *path, int flags, const char *execfn)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "execveat", "child", (char *)(execfn ? execfn : "-"), NULL };
		char *envp[] = { NULL };
		syscall(SYS_execveat, dirfd, path, argv, envp, flags);
		_exit(100 + errno);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : 255;
	if (code >= 100 && code < 255) {
		errno = code - 100;
		return -1;
	}
	return code == 42 ? 0 : code;
}

static void success_checks(void)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY);
	char want[4200];
	snprintf(want, sizeof want, "/dev/fd/%d/%s", d, base);
	check("dirfd and a name", run(d, base, 0, want), 0, 0);
	check("absolute path, dirfd unused", run(99, self, 0, self), 0, 0);
	check("AT_FDCWD relative", (chdir(dir), run(AT_FDCWD, base, 0, base)), 0, 0);
	int fd = open(self, O_RDONLY);
	snprintf(want, sizeof want, "/dev/fd/%d", fd);
	check("AT_EMPTY_PATH", run(fd, "", AT_EMPTY_PATH, want), 0, 0);
	int opath = open(self, O_PATH);
	check("AT_EMPTY_PATH on O_PATH", run(opath, "", AT_EMPTY_PATH, NULL), 0, 0);
	check("AT_EMPTY_PATH with a name is plain", run(d, base, AT_EMPTY_PATH, NULL), 0, 0);
	unlink("/tmp/execveat.link");
	symlink(self, "/tmp/execveat.link");
	check("symlink followed", run(AT_FDCWD, "/tmp/execveat.link", 0, NULL), 0, 0);
	close(d);
	close(fd);
	close(opath);
}

static void error_checks(void)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY), fd = open(self, O_RDONLY), p[2];
	pipe(p);
	check("empty path without AT_EMPTY_PATH", run(d, "", 0, NULL), -1, ENOENT);
	check("bad flags", run(d, base, 0x1, NULL), -1, EINVAL);
	check("bad dirfd", run(99, base, 0, NULL), -1, EBADF);
	check("dirfd not a directory", run(fd, base, 0, NULL), -1, ENOTDIR);
	check("no such name", run(d, "no-such-program", 0, NULL), -1, ENOENT);
	check("AT_SYMLINK_NOFOLLOW on a symlink", run(AT_FDCWD, "/tmp/execveat.link",
						      AT_SYMLINK_NOFOLLOW, NULL), -1, ELOOP);
	check("AT_SYMLINK_NOFOLLOW on a file", run(d, base, AT_SYMLINK_NOFOLLOW, NULL), 0, 0);
	check("AT_EMPTY_PATH on a directory", run(d, "", AT_EMPTY_PATH, NULL), -1, EACCES);
	check("AT_EMPTY_PATH on a pipe", run(p[0], "", AT_EMPTY_PATH, NULL), -1, EACCES);
	check("AT_EMPTY_PATH bad fd", run(99, "", AT_EMPTY_PATH, NULL), -1, EBADF);
	check("path efault", run(d, (const char *)16, 0, NULL), -1, EFAULT);
	unlink("/tmp/execveat.link");
	close(d);
	close(fd);
}

// a script by descriptor runs as /dev/fd/N unless N is closed at exec (ENOENT)
static void script_checks(void)
{
	int s = open("/tmp/execveat.sh", O_CREAT | O_WRONLY | O_TRUNC, 0755);
	write(s, "#!/bin/sh\nexit 7\n", 17);
	close(s);
	int cx = open("/tmp/execveat.sh", O_RDONLY | O_CLOEXEC);
	check("script by close-on-exec fd", run(cx, "", AT_EMPTY_PATH, NULL), -1, ENOENT);
	int t = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	check("script from close-on-exec dirfd", run(t, "execveat.sh", 0, NULL), -1, ENOENT);
	check("script by path runs", run(AT_FDCWD, "/tmp/execveat.sh", 0, NULL), 7, 0);
	close(cx);
	close(t);
	unlink("/tmp/execveat.sh");
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "child")) {
		const char *fn = (const char *)getauxval(AT_EXECFN);
		return strcmp(argv[2], "-") && (!fn || strcmp(fn, argv[2])) ? 43 : 42;
	}
	if (!realpath(argv[0], self))
		return 1;
	strcpy(dir, self);
	*strrchr(dir, '/') = 0;
	base = strrchr(self, '/') + 1;
	const char *part = argc >= 2 ? argv[1] : "ses";     // (a part alone: s, e or x)
	if (strchr(part, 's'))
		success_checks();
	if (strchr(part, 'e'))
		error_checks();
	if (strchr(part, 's') || strchr(part, 'x'))
		script_checks();
	return checks_done("execveat");
}
