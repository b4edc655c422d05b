// SPDX-License-Identifier: MIT
// A file's pages as every process sees them (lx maps a RAM file system's
// pages into private mappings instead of copying them): a write() by one
// process is seen by another's private mapping made before it and by its
// read(); a store into a private mapping reaches neither the file nor other
// mappings, and the copy it made no longer follows the file; a shared
// mapping's stores reach the file, a read-only one's fault; a program run
// from a copy of this one, twice, leaves that copy as it was (lx rewrites
// system-call sites in text pages: never in the file's).  The same between
// processes through shared mappings (lx's ext2 page cache); pages past the
// file's end give SIGBUS, also after a truncation.  In the directory argv[1]
// (default "."); the same program passes on Linux.
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

/* A child reads n bytes at off with read() and finds s: its exit status. */
static int child_reads(const char *path, off_t off, const char *s)
{
	pid_t c = fork();
	if (!c) {
		char b[64] = { 0 };
		int fd = open(path, O_RDONLY);
		size_t n = strlen(s);
		_exit(fd >= 0 && pread(fd, b, n, off) == (ssize_t)n && !memcmp(b, s, n) ? 0 : 1);
	}
	int st;
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Between processes: a write() is seen by another's shared mapping, a store
 * into a shared mapping by another's read() and by a private mapping's
 * page not yet written, before any msync. */
static void between(void)
{
	int fd = fill("pc_between", 'a', 3);
	char *s = mmap(0, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(0, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("shared and private mappings", s != MAP_FAILED && p != MAP_FAILED, 1, 0);
	check("both show the file", s[0] == 'a' && p[2 * PG] == 'a', 1, 0);
	check("a child writes XYZ into page 1", child_writes("pc_between", PG + 100, "XYZ"), 0, 0);
	check("the shared mapping sees the child's write", !memcmp(s + PG + 100, "XYZ", 3), 1, 0);
	check("the private mapping's untouched page sees it", !memcmp(p + PG + 100, "XYZ", 3), 1, 0);
	memcpy(s + 2 * PG + 7, "QRS", 3);
	check("another process's read() sees a store to the shared mapping",
	      child_reads("pc_between", 2 * PG + 7, "QRS"), 0, 0);
	check("so does the private mapping's untouched page", !memcmp(p + 2 * PG + 7, "QRS", 3), 1,
	      0);
	p[2 * PG + 300] = 'p';          /* the private page's first store: its own copy */
	check("a child writes LMN into page 2", child_writes("pc_between", 2 * PG + 20, "LMN"), 0, 0);
	check("the shared mapping sees it", !memcmp(s + 2 * PG + 20, "LMN", 3), 1, 0);
	check("the private page written before does not", p[2 * PG + 20] == 'a' &&
	      p[2 * PG + 300] == 'p', 1, 0);
	check("the file has no private store", child_reads("pc_between", 2 * PG + 300, "a"), 0, 0);
	check("msync", msync(s, 3 * PG, MS_SYNC), 0, 0);
	check("the stores are still there", !memcmp(s + 2 * PG + 7, "QRS", 3), 1, 0);
	munmap(s, 3 * PG);
	munmap(p, 3 * PG);
	close(fd);
	check("the stores outlive the mapping and the descriptor",
	      child_reads("pc_between", 2 * PG + 7, "QRS"), 0, 0);
	unlink("pc_between");
}

/* A child touches byte off of m: 0 if it read it, else the signal that killed it. */
static int child_touches(volatile char *m, size_t off)
{
	pid_t c = fork();
	if (!c) {
		char x = m[off];
		(void)x;
		_exit(0);
	}
	int st;
	if (waitpid(c, &st, 0) != c)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/* Pages wholly past the file's end give SIGBUS (mmap(2)), in shared and
 * private mappings, also pages a mapping had before a truncation; the rest
 * of the page holding the end reads as zeros. */
static void past_end(void)
{
	int fd = fill("pc_trunc", 'a', 3);
	char *s = mmap(0, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(0, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	check("mappings a page longer than the file", s != MAP_FAILED && p != MAP_FAILED, 1, 0);
	check("shared: page 3, past the end: SIGBUS", child_touches(s, 3 * PG), SIGBUS, 0);
	check("private: page 3: SIGBUS", child_touches(p, 3 * PG + 5), SIGBUS, 0);
	check("pages 1 and 2 present", s[PG] == 'a' && s[2 * PG] == 'a' && p[2 * PG] == 'a', 1, 0);
	p[2 * PG + 1] = 'w';            /* a private copy of page 2 */
	check("ftruncate to 100 bytes", ftruncate(fd, 100), 0, 0);
	check("shared: page 1, present before: SIGBUS", child_touches(s, PG), SIGBUS, 0);
	check("private: page 2, copied before: SIGBUS", child_touches(p, 2 * PG), SIGBUS, 0);
	check("private: page 1: SIGBUS", child_touches(p, PG + 9), SIGBUS, 0);
	check("page 0 past byte 100 reads zeros", s[99] == 'a' && s[100] == 0 && s[PG - 1] == 0 &&
	      p[100] == 0, 1, 0);
	check("ftruncate to 2 pages", ftruncate(fd, 2 * PG), 0, 0);
	check("page 1 is back, zeros", child_touches(s, PG), 0, 0);
	check("and reads zeros in both", s[PG + 5] == 0 && p[PG + 5] == 0, 1, 0);
	munmap(s, 4 * PG);
	munmap(p, 4 * PG);
	close(fd);
	unlink("pc_trunc");
}

/* `pagecache msync FILE`: FILE (new, two pages, a hole) gets a pattern through a
 * shared mapping and msync; prints "msynced" and waits, mapping held, to be
 * killed (tests/system/test_lx_ext2.py then reads the disk). */
static int msync_and_wait(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 2 * PG))
		return 1;
	char *s = mmap(0, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		return 1;
	for (int i = 0; i < 2 * PG; i++)
		s[i] = (char)('A' + i % 26);
	if (msync(s, 2 * PG, MS_SYNC))
		return 1;
	printf("msynced\n");
	fflush(stdout);
	for (;;)
		pause();
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
	if (argc > 2 && !strcmp(argv[1], "msync"))
		return msync_and_wait(argv[2]);
	if (chdir(argc > 1 ? argv[1] : ".")) {
		perror("chdir");
		return 2;
	}
	coherence();
	shared();
	between();
	past_end();
	text();
	return checks_done("pagecache");
}
