// SPDX-License-Identifier: MIT
// mremap against Linux's behaviour: growing in place or by moving, private
// contents kept, shared anonymous and shared file mappings that go on
// sharing after a move (with a child, and with the file), MREMAP_FIXED
// replacing what was at the target, MREMAP_DONTUNMAP, duplicating a shared
// area, and the argument errors.
// Prints "ok NAME" or "FAIL NAME: detail" per check, then
// "mremap done, N failed"; the same program passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define P 4096L
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static long addr(void *m) { return m == MAP_FAILED ? -1 : 0; }

/* Is the page at a mapped?  (mprotect says ENOMEM for a hole.) */
static int mapped(char *a) { return mprotect(a, P, PROT_READ | PROT_WRITE) == 0; }

/* A free range of n pages: reserved, then given back. */
static char *hole(long n)
{
	char *r = mmap(NULL, n * P, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(r, n * P);
	return r;
}

static void private_areas(void)
{
	char *a = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(a, 'a', 2 * P);
	char *b = mremap(a, 2 * P, 8 * P, MREMAP_MAYMOVE);
	check("grow_maymove", addr(b), 0, 0);
	check("grow_keeps_contents", b[0] == 'a' && b[2 * P - 1] == 'a' && b[2 * P] == 0 &&
	      b[8 * P - 1] == 0, 1, 0);
	check("shrink_in_place", (long)mremap(b, 8 * P, 2 * P, 0) == (long)b, 1, 0);
	check("shrunk_tail_unmapped", mapped(b + 2 * P), 0, 0);
	check("grow_in_place_into_free_room", (long)mremap(b, 2 * P, 4 * P, 0) == (long)b, 1, 0);
	check("grown_in_place_zero", b[3 * P] == 0 && b[P] == 'a', 1, 0);
	check("grow_not_at_area_end_enomem", (long)mremap(b, 2 * P, 3 * P, 0), -1, ENOMEM);
	check("grow_unmapped_efault", (long)mremap(hole(2), P, 2 * P, MREMAP_MAYMOVE), -1, EFAULT);
	check("grow_past_area_efault", (long)mremap(b, 5 * P, 6 * P, MREMAP_MAYMOVE), -1, EFAULT);

	char *t = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t[0] = 't';
	check("fixed_replaces_target", (long)mremap(b, 4 * P, 4 * P, MREMAP_MAYMOVE | MREMAP_FIXED, t),
	      (long)t, 0);
	check("fixed_target_has_contents", t[0] == 'a' && t[P] == 'a' && t[3 * P] == 0, 1, 0);
	check("fixed_old_unmapped", mapped(b), 0, 0);
	char *d = mremap(t, P, P, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
	check("dontunmap_moves", addr(d) == 0 && d != t && d[0] == 'a', 1, 0);
	check("dontunmap_old_still_mapped_empty", mapped(t) && t[0] == 0, 1, 0);
	check("private_duplicate_einval", (long)mremap(d, 0, P, MREMAP_MAYMOVE), -1, EINVAL);
}

static void argument_errors(void)
{
	char *a = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *h = hole(4);
	check("fixed_without_maymove_einval", (long)mremap(a, P, P, MREMAP_FIXED, h), -1, EINVAL);
	check("fixed_unaligned_einval", (long)mremap(a, P, P, MREMAP_MAYMOVE | MREMAP_FIXED, h + 1), -1,
	      EINVAL);
	check("fixed_overlap_einval", (long)mremap(a, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED, a + P),
	      -1, EINVAL);
	check("unknown_flag_einval", (long)mremap(a, P, P, 8), -1, EINVAL);
	check("dontunmap_resize_einval", (long)mremap(a, P, 2 * P, MREMAP_MAYMOVE | MREMAP_DONTUNMAP),
	      -1, EINVAL);
	check("dontunmap_without_maymove_einval", (long)mremap(a, P, P, MREMAP_DONTUNMAP), -1, EINVAL);
	check("zero_new_len_einval", (long)mremap(a, P, 0, MREMAP_MAYMOVE), -1, EINVAL);
	check("unaligned_old_einval", (long)mremap(a + 1, P, 2 * P, MREMAP_MAYMOVE), -1, EINVAL);
	munmap(a, 2 * P);
}

static sigjmp_buf jb;
static void on_bus(int sig) { (void)sig; siglongjmp(jb, 1); }

/* A shared anonymous page, first touched after the fork, moved by the parent: still shared. */
static void shared_anon_moves(void)
{
	char *a = mmap(NULL, P, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2], back[2];
	pipe(go);
	pipe(back);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		read(go[0], &c, 1);                     /* the parent moved it */
		int seen = strcmp(a, "moved") == 0;
		strcpy(a + 100, "from child");
		write(back[1], "x", 1);
		_exit(seen ? 0 : 1);
	}
	char *b = mremap(a, P, P, MREMAP_MAYMOVE | MREMAP_FIXED, hole(1));
	check("shared_anon_moved", addr(b) == 0 && b != a, 1, 0);
	strcpy(b, "moved");
	write(go[1], "x", 1);
	char c;
	read(back[0], &c, 1);
	check("child_sees_store_at_moved_page", waitpid(pid, NULL, 0) == pid, 1, 0);
	check("parent_sees_child_store_after_move", strcmp(b + 100, "from child"), 0, 0);
	char *g = mremap(b, P, 2 * P, MREMAP_MAYMOVE);
	check("shared_anon_grows", addr(g) == 0 && strcmp(g, "moved") == 0, 1, 0);
	/* the shared object keeps the size it was made with: past it, SIGBUS, as Linux */
	signal(SIGBUS, on_bus);
	volatile int bus = 0;
	if (!sigsetjmp(jb, 1))
		(void)*(volatile char *)(g + P);
	else
		bus = 1;
	check("shared_anon_grown_past_object_sigbus", bus, 1, 0);
	char *dup = mremap(g, 0, P, MREMAP_MAYMOVE);
	check("shared_duplicate", addr(dup) == 0 && dup != g && strcmp(dup, "moved") == 0, 1, 0);
	dup[0] = 'M';
	check("duplicate_shares_pages", g[0], 'M', 0);
}

/* /dev/zero mapped shared: a page the child touches first, after the fork, is the parent's too. */
static void devzero_shared(void)
{
	int fd = open("/dev/zero", O_RDWR);
	char *z = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	pid_t pid = fork();
	if (pid == 0) {
		strcpy(z + P, "child first");
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	check("devzero_page_first_touched_after_fork_shared", strcmp(z + P, "child first"), 0, 0);
	char *m = mremap(z, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED, hole(2));
	check("devzero_moved_keeps_page", addr(m) == 0 && strcmp(m + P, "child first") == 0, 1, 0);
}

static void shared_file_moves(void)
{
	int fd = open("/tmp/mremap.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ftruncate(fd, 3 * P);
	char *m = mmap(NULL, 2 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	strcpy(m + P, "before");
	char *n = mremap(m, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED, hole(2));
	check("file_mapping_moved", addr(n) == 0 && n != m && strcmp(n + P, "before") == 0, 1, 0);
	strcpy(n + 10, "after move");
	char buf[16] = { 0 };
	pread(fd, buf, 10, 10);
	check("moved_store_reaches_file", strcmp(buf, "after move"), 0, 0);
	pwrite(fd, "third", 5, 2 * P);
	char *g = mremap(n, 2 * P, 3 * P, MREMAP_MAYMOVE);
	check("file_mapping_grows", addr(g), 0, 0);
	check("grown_page_is_file", memcmp(g + 2 * P, "third", 5), 0, 0);
	g[2 * P] = 'T';
	pread(fd, buf, 1, 2 * P);
	check("grown_page_store_reaches_file", buf[0], 'T', 0);
	// each move keeps the descriptor's open file alive: after both, and the
	// mapping gone, a newly opened file is not what fd reads
	munmap(g, 3 * P);
	int other = open("/tmp/mremap.other", O_RDWR | O_CREAT | O_TRUNC, 0600);
	write(other, "other", 5);
	memset(buf, 0, sizeof buf);
	check("fd_survives_moved_mappings", pread(fd, buf, 5, 2 * P), 5, 0);
	check("fd_reads_its_own_file", memcmp(buf, "Third", 5), 0, 0);
	close(other);
	unlink("/tmp/mremap.other");
	close(fd);
	unlink("/tmp/mremap.file");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	private_areas();
	argument_errors();
	shared_anon_moves();
	devzero_shared();
	shared_file_moves();
	return checks_done("mremap");
}
