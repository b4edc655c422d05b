// SPDX-License-Identifier: MIT
// A file's pages as every process sees them (lx maps a RAM file system's
// pages into private mappings instead of copying them): a write() by one
// process is seen by another's private mapping made before it and by its
// read(); a store into a private mapping reaches neither the file nor other
// mappings, and the copy it made no longer follows the file; a shared
// mapping's stores reach the file, a read-only one's fault; a program run
// from a copy of this one, twice, leaves that copy as it was (lx rewrites
// system-call sites in text pages: never in the file's).  In the directory
// argv[1] (default "."); the same program passes on Linux.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define PG 4096

static int fill(const char *path, char c, int pages)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	char b[PG];
	memset(b, c, sizeof(b));
	for (int i = 0; i < pages; i++)
		if (write(fd, b, PG) != PG)
			return -1;
	return fd;
}

/* A child writes s at off through its own descriptor; its exit status. */
static int child_writes(const char *path, off_t off, const char *s)
{
	pid_t c = fork();
	if (!c) {
		int fd = open(path, O_WRONLY);
		_exit(fd >= 0 && pwrite(fd, s, strlen(s), off) == (ssize_t)strlen(s) ? 0 : 1);
	}
	int st;
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A child maps the file privately and finds s at off; its exit status. */
static int child_sees(const char *path, off_t off, const char *s)
{
	pid_t c = fork();
	if (!c) {
		int fd = open(path, O_RDONLY);
		char *m = mmap(0, 2 * PG, PROT_READ, MAP_PRIVATE, fd, 0);
		_exit(m != MAP_FAILED && !memcmp(m + off, s, strlen(s)) ? 0 : 1);
	}
	int st;
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void coherence(void)
{
	int fd = fill("pc_file", 'a', 2);
	check("pc_file written", fd >= 0, 1, 0);
	char *m = mmap(0, 2 * PG, PROT_READ, MAP_PRIVATE, fd, 0);
	check("private read-only mapping", m != MAP_FAILED, 1, 0);
	check("mapping shows the file", m[0] == 'a' && m[PG + 7] == 'a', 1, 0);
	check("a child writes BBB", child_writes("pc_file", 10, "BBB"), 0, 0);
	check("the mapping sees the child's write", !memcmp(m + 10, "BBB", 3), 1, 0);
	char r[4] = { 0 };
	check("pread sees it", pread(fd, r, 3, 10) == 3 && !memcmp(r, "BBB", 3), 1, 0);
	check("another process's mapping sees it", child_sees("pc_file", 10, "BBB"), 0, 0);
	char *w = mmap(0, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("private writable mapping", w != MAP_FAILED, 1, 0);
	check("it shows the file", !memcmp(w + 10, "BBB", 3), 1, 0);
	memcpy(w + 10, "ccc", 3);
	check("the store is in that mapping", !memcmp(w + 10, "ccc", 3), 1, 0);
	check("not in the other mapping", !memcmp(m + 10, "BBB", 3), 1, 0);
	check("not in the file", pread(fd, r, 3, 10) == 3 && !memcmp(r, "BBB", 3), 1, 0);
	check("a child writes DDD", child_writes("pc_file", 10, "DDD"), 0, 0);
	check("the copied page keeps its store", !memcmp(w + 10, "ccc", 3), 1, 0);
	check("the unwritten page follows the file", child_writes("pc_file", PG + 1, "EE") == 0 &&
	      w[PG + 1] == 'E' && m[PG + 1] == 'E', 1, 0);
	check("read-only mapping follows the file", !memcmp(m + 10, "DDD", 3), 1, 0);
	w[PG + 100] = 'z';              /* the second page's first store */
	check("a store to the second page stays there", w[PG + 100] == 'z' && m[PG + 100] == 'a' &&
	      pread(fd, r, 1, PG + 100) == 1 && r[0] == 'a', 1, 0);
	munmap(m, 2 * PG);
	munmap(w, 2 * PG);
	close(fd);
	unlink("pc_file");
}

/* A child reads page 0 of a read-only shared mapping, then stores to page 1: its status. */
static int child_stores_read_only(const char *path)
{
	pid_t c = fork();
	if (!c) {
		int fd = open(path, O_RDONLY);
		volatile char *m = mmap(0, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED || m[0] != 'a')
			_exit(1);
		m[PG + 5] = 'q';
		_exit(2);
	}
	int st;
	return waitpid(c, &st, 0) == c ? st : -1;
}

/* Shared mappings: stores reach the file, a read-only one refuses them on every page. */
static void shared(void)
{
	int fd = fill("pc_shared", 'a', 2);
	char *s = mmap(0, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check("shared mapping", s != MAP_FAILED, 1, 0);
	char r[2] = { 0 };
	check("page 0 read", s[0] == 'a', 1, 0);
	s[PG + 5] = 's';
	check("a store to page 1 reaches the file", pread(fd, r, 1, PG + 5) == 1 && r[0] == 's', 1,
	      0);
	int st = child_stores_read_only("pc_shared");
	check("a store to page 1 of a read-only shared mapping: SIGSEGV",
	      WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, 1, 0);
	check("and the file keeps its byte", pread(fd, r, 1, PG + 5) == 1 && r[0] == 's', 1, 0);
	munmap(s, 2 * PG);
	close(fd);
	unlink("pc_shared");
}

static long copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	char b[PG];
	long n, total = 0;
	while (in >= 0 && out >= 0 && (n = read(in, b, sizeof(b))) > 0)
		total += write(out, b, (size_t)n) == n ? n : -1000000;
	close(in);
	close(out);
	return in < 0 || out < 0 ? -1 : total;
}

static int same_content(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	char x[PG], y[PG];
	long n, m;
	int same = fa >= 0 && fb >= 0;
	while (same && (n = read(fa, x, sizeof(x))) > 0)
		same = (m = read(fb, y, sizeof(y))) == n && !memcmp(x, y, (size_t)n);
	close(fa);
	close(fb);
	return same;
}

static int run_copy(void)
{
	pid_t c = fork();
	if (!c) {
		execl("./pc_copy", "pc_copy", "child", (char *)0);
		_exit(127);
	}
	int st;
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void text(void)
{
	check("copy of this program", copy_file("/proc/self/exe", "pc_copy") > 0, 1, 0);
	check("the copy runs", run_copy(), 0, 0);
	check("and runs again", run_copy(), 0, 0);
	check("the copy's file is unchanged", same_content("/proc/self/exe", "pc_copy"), 1, 0);
	unlink("pc_copy");
}

/* The copy's part: system calls through the sites lx may rewrite. */
static int child(void)
{
	int p[2];
	char c = 0;
	for (int i = 0; i < 20; i++)
		if (getpid() <= 0 || pipe(p) || write(p[1], "x", 1) != 1 || read(p[0], &c, 1) != 1 ||
		    c != 'x' || close(p[0]) || close(p[1]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	if (chdir(argc > 1 ? argv[1] : ".")) {
		perror("chdir");
		return 2;
	}
	coherence();
	shared();
	text();
	return checks_done("pagecache");
}
