// SPDX-License-Identifier: MIT
// Host tests of lx's in-memory file system (servers/lx/fs/ramfs.c) and allocator (servers/lx/mm/malloc.c).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../../servers/lx/fs/fs.h"
#include "../../servers/lx/mm/mm.h"
#include "../../lib/test/test.h"

/* --- lx's page source, from the host heap: counted, and made to fail on demand --- */

static long pages_out;          /* pages handed out and not yet freed */
static long page_limit = -1;    /* pages_out may not exceed this (-1: no limit) */
static long fail_in = -1;       /* > 0: the request after this many more fails (once) */

static bool page_room(size_t n)
{
	if (fail_in > 0 && --fail_in == 0)
		return false;
	return page_limit < 0 || pages_out + (long)n <= page_limit;
}

void *pages_alloc(size_t n)
{
	if (!page_room(n))
		return NULL;
	void *p = aligned_alloc(LX_PAGE_SIZE, n * LX_PAGE_SIZE);
	if (p) {
		memset(p, 0, n * LX_PAGE_SIZE);
		pages_out += (long)n;
	}
	return p;
}

void pages_free(void *p, size_t n)
{
	pages_out -= (long)n;
	free(p);
}

void *page_alloc(void)
{
	return pages_alloc(1);
}

void page_free(void *page)
{
	pages_free(page, 1);
}

/* The commit limit's share for file pages (vm.c): -1 unlimited. */
static long file_quota = -1, file_pages;

bool mem_charge_file_page(void)
{
	if (file_quota >= 0 && file_pages >= file_quota)
		return false;
	file_pages++;
	return true;
}

void mem_uncharge_file_page(void)
{
	file_pages--;
}

/* No processes here: nothing maps a file whose end moves (vm.c). */
void vm_file_shrunk(struct inode *file, u64 size)
{
	(void)file;
	(void)size;
}

size_t page_free_count(void)
{
	return page_limit < 0 ? 1UL << 20 : (size_t)(page_limit - pages_out);
}

/* --- helpers --- */

/* A fresh, empty tree. */
static void fresh(void)
{
	page_limit = fail_in = file_quota = -1;
	fs_destroy();
	fs_init();
}

/* Frees the tree; true if every page came back (nothing leaked). */
static bool all_freed(void)
{
	page_limit = -1;
	fs_destroy();
	return pages_out == 0;
}

#define R fs_root()

/* The error of looking path up (0 on success); *ino gets the inode number. */
static int lookup_err(struct inode *cwd, const char *path, int flags, uint64_t *ino)
{
	struct inode *ip;
	int r = fs_lookup(cwd, path, flags, &ip);
	if (r == 0) {
		if (ino)
			*ino = ip->ino;
		fs_put(ip);
	}
	return r;
}

static uint64_t ino_of(const char *path, int flags)
{
	uint64_t ino = 0;
	return lookup_err(R, path, flags, &ino) == 0 ? ino : 0;
}

/* Creates path (its parent must exist) with mode; 0 or -errno. */
static int make(const char *path, uint32_t mode)
{
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	int r = fs_lookup_parent(R, path, &dir, last);
	if (r < 0)
		return r;
	r = fs_create(dir, last, mode, 0, NULL);
	fs_put(dir);
	return r;
}

static int make_file(const char *path, const char *text)
{
	int r = make(path, LX_S_IFREG | 0644);
	if (r < 0)
		return r;
	struct inode *ip;
	if ((r = fs_lookup(R, path, 0, &ip)) < 0)
		return r;
	long w = fs_write(ip, 0, text, strlen(text));
	fs_put(ip);
	return w == (long)strlen(text) ? 0 : (int)w;
}

static int make_link(const char *path, const char *target)
{
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	int r = fs_lookup_parent(R, path, &dir, last);
	if (r < 0)
		return r;
	r = fs_symlink(dir, last, target);
	fs_put(dir);
	return r;
}

/* Splits a path into parent and name and applies op (unlink or rmdir). */
static int remove_path(const char *path, int (*op)(struct inode *, const char *))
{
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	int r = fs_lookup_parent(R, path, &dir, last);
	if (r < 0)
		return r;
	r = op(dir, last);
	fs_put(dir);
	return r;
}

static int rename_path(const char *from, const char *to)
{
	struct inode *od, *nd;
	char ol[LX_NAME_MAX + 1], nl[LX_NAME_MAX + 1];
	int r = fs_lookup_parent(R, from, &od, ol);
	if (r < 0)
		return r;
	if ((r = fs_lookup_parent(R, to, &nd, nl)) == 0) {
		r = fs_rename(od, ol, nd, nl);
		fs_put(nd);
	}
	fs_put(od);
	return r;
}

static struct lx_stat stat_of(const char *path)
{
	struct lx_stat st;
	struct inode *ip;
	memset(&st, 0, sizeof(st));
	if (fs_lookup(R, path, 0, &ip) == 0) {
		fs_stat(ip, &st);
		fs_put(ip);
	}
	return st;
}

/* The whole content of a regular file, NUL-terminated, in buf. */
static long read_all(const char *path, char *buf, size_t n)
{
	struct inode *ip;
	int r = fs_lookup(R, path, FS_FOLLOW, &ip);
	if (r < 0)
		return r;
	long got = fs_read(ip, 0, buf, n - 1);
	fs_put(ip);
	if (got >= 0)
		buf[got] = 0;
	return got;
}

/* --- the allocator --- */

TEST_CASE("lxfs.malloc_sizes", "lx_malloc gives aligned writable blocks of every size and returns every page") {
	static void *p[600];
	fs_destroy();
	for (int i = 0; i < 600; i++) {
		size_t n = (size_t)i * 37 % 9000 + 1;
		p[i] = lx_malloc(n);
		EXPECT(p[i] && ((uintptr_t)p[i] & 15) == 0, "block %d (%zu bytes): %p", i, n, p[i]);
		memset(p[i], i & 0xff, n);
	}
	for (int i = 0; i < 600; i++) {
		size_t n = (size_t)i * 37 % 9000 + 1;
		for (size_t k = 0; k < n; k++)
			EXPECT(((unsigned char *)p[i])[k] == (i & 0xff), "block %d overwritten at %zu", i, k);
	}
	for (int i = 0; i < 600; i += 2)
		lx_free(p[i]);
	for (int i = 1; i < 600; i += 2)
		lx_free(p[i]);
	EXPECT(pages_out == 0, "%ld pages still out after freeing all", pages_out);
	lx_free(NULL);
}

TEST_CASE("lxfs.malloc_realloc", "lx_realloc keeps the content when growing and shrinking; lx_zalloc zeroes; lx_strdup copies") {
	fs_destroy();
	char *p = lx_malloc(10);
	memcpy(p, "012345678", 10);
	for (size_t n = 20; n < 20000; n = n * 3) {
		p = lx_realloc(p, n);
		EXPECT(p && strcmp(p, "012345678") == 0, "grown to %zu", n);
		memset(p + 10, 'x', n - 10);
	}
	p = lx_realloc(p, 12);
	EXPECT(p && memcmp(p, "012345678\0xx", 12) == 0, "shrunk to 12");
	lx_free(p);
	unsigned char *z = lx_malloc(3000);
	memset(z, 0xee, 3000);
	lx_free(z);
	z = lx_zalloc(3000);
	for (int i = 0; i < 3000; i++)
		EXPECT(z[i] == 0, "zalloc byte %d", i);
	lx_free(z);
	char *s = lx_strdup("lx");
	EXPECT(s && strcmp(s, "lx") == 0, "strdup");
	lx_free(s);
	p = lx_realloc(NULL, 5);
	EXPECT(p != NULL, "realloc(NULL) allocates");
	EXPECT(pages_out == 1, "one block of 5 bytes is one page: %ld", pages_out);
	lx_free(p);
	EXPECT(pages_out == 0, "%ld pages still out", pages_out);
}

TEST_CASE("lxfs.malloc_nomem", "without pages lx_malloc returns NULL and lx_realloc keeps the old block") {
	fs_destroy();
	page_limit = pages_out;
	EXPECT(!lx_malloc(100), "small block without pages");
	EXPECT(!lx_malloc(100000), "large block without pages");
	page_limit = pages_out + 1;
	char *a = lx_malloc(100);
	EXPECT(a, "one page allowed");
	strcpy(a, "kept");
	page_limit = pages_out;
	char *b = lx_realloc(a, 50000);
	EXPECT(!b && strcmp(a, "kept") == 0, "failed realloc keeps the block");
	lx_free(a);
	page_limit = -1;
	EXPECT(pages_out == 0, "%ld pages still out", pages_out);
}

/* --- path resolution --- */

static void tree(void)
{
	fresh();
	make("/a", LX_S_IFDIR | 0755);
	make("/a/b", LX_S_IFDIR | 0755);
	make_file("/a/b/f", "hello");
	make_file("/top", "top");
}

TEST_CASE("lxfs.path_basic", "absolute, relative, repeated slashes, dot and dot-dot, dot-dot at the root") {
	tree();
	uint64_t f = ino_of("/a/b/f", 0), b = ino_of("/a/b", 0), a = ino_of("/a", 0);
	EXPECT(f && b && a, "tree made");
	EXPECT(ino_of("//a///b//f", 0) == f, "repeated slashes");
	EXPECT(ino_of("/a/./b/../b/f", 0) == f, "dot and dot-dot");
	EXPECT(ino_of("/../../a", 0) == a, "dot-dot at the root stays there");
	EXPECT(ino_of("/a/b/..", 0) == a, "trailing dot-dot");
	EXPECT(ino_of("/", 0) == R->ino && ino_of("///", 0) == R->ino, "the root");
	struct inode *ad;
	EXPECT(fs_lookup(R, "a", 0, &ad) == 0, "relative from the root");
	EXPECT(lookup_err(ad, "b/f", 0, NULL) == 0 && ino_of("a/b/f", 0) == f, "relative");
	uint64_t got = 0;
	EXPECT(lookup_err(ad, "../top", 0, &got) == 0 && got == ino_of("/top", 0), "relative dot-dot");
	EXPECT(lookup_err(ad, ".", 0, &got) == 0 && got == a, "dot alone");
	EXPECT(lookup_err(ad, "/a/b", 0, &got) == 0 && got == b, "absolute ignores cwd");
	fs_put(ad);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* A tmpfs on /mnt of a fresh tree; NULL if that failed. */
static struct super *mount_tmp(void)
{
	fresh();
	struct super *sb = make("/mnt", LX_S_IFDIR | 0755) == 0 ? ramfs_new("tmpfs") : NULL;
	return sb && vfs_mount("/mnt", sb) == 0 ? sb : NULL;
}

TEST_CASE("lxfs.umount_busy", "umount2's checks: EINVAL off a mount root, EBUSY for / and while anything in it is referenced, then the mount point is a plain directory again") {
	struct super *sb = mount_tmp();
	EXPECT(sb, "tmpfs mounted on /mnt");
	EXPECT(make("/mnt/f", LX_S_IFREG | 0644) == 0 && make("/d", LX_S_IFDIR | 0755) == 0, "files");
	struct inode *root, *f, *d, *top;
	EXPECT(fs_lookup(R, "/mnt", 0, &root) == 0 && root == sb->root, "the walk crosses the mount");
	EXPECT(fs_lookup(R, "/d", 0, &d) == 0 && vfs_umount_check(d, false, 0) == -LX_EINVAL,
	       "not a mount point: EINVAL");
	EXPECT(fs_lookup(R, "/", 0, &top) == 0 && vfs_umount_check(top, false, 0) == -LX_EBUSY,
	       "the root: EBUSY");
	EXPECT(fs_lookup(R, "/mnt/f", 0, &f) == 0 && vfs_umount_check(root, false, 0) == -LX_EBUSY,
	       "a file in it referenced: EBUSY");
	EXPECT(vfs_umount_check(root, false, 1) == 0, "the same reference pinned (a watch): idle");
	fs_put(f);
	EXPECT(vfs_umount_check(root, false, 0) == 0, "idle: may go");
	fs_put(root);
	vfs_umount(sb);
	EXPECT(lookup_err(R, "/mnt/f", 0, NULL) == -LX_ENOENT, "its files are gone from the tree");
	EXPECT(vfs_umount_check(d, false, 0) == -LX_EINVAL, "still EINVAL");
	fs_put(d);
	fs_put(top);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.umount_detach", "MNT_DETACH takes a busy mount out of the tree at once; it is freed with the last reference to anything in it") {
	struct super *sb = mount_tmp();
	EXPECT(sb, "tmpfs mounted on /mnt");
	EXPECT(make("/mnt/f", LX_S_IFREG | 0644) == 0, "file");
	struct inode *root, *f;
	EXPECT(fs_lookup(R, "/mnt/f", 0, &f) == 0 && fs_write(f, 0, "data", 4) == 4, "written");
	EXPECT(fs_lookup(R, "/mnt", 0, &root) == 0 && vfs_umount_check(root, true, 0) == 0,
	       "busy, but detach may go");
	fs_put(root);
	vfs_umount(sb);
	EXPECT(lookup_err(R, "/mnt/f", 0, NULL) == -LX_ENOENT, "out of the tree");
	char buf[4];
	EXPECT(fs_read(f, 0, buf, 4) == 4 && !memcmp(buf, "data", 4), "the open file still reads");
	long before = pages_out;
	fs_put(f);
	EXPECT(pages_out < before, "its last reference freed the file system");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.path_errors", "ENOENT, ENOTDIR, trailing slash, ENAMETOOLONG for names and paths") {
	tree();
	EXPECT(lookup_err(R, "", 0, NULL) == -LX_ENOENT, "empty path");
	EXPECT(lookup_err(R, "/nope", 0, NULL) == -LX_ENOENT, "missing");
	EXPECT(lookup_err(R, "/nope/x", 0, NULL) == -LX_ENOENT, "missing in the middle");
	EXPECT(lookup_err(R, "/top/x", 0, NULL) == -LX_ENOTDIR, "file in the middle");
	EXPECT(lookup_err(R, "/top/", 0, NULL) == -LX_ENOTDIR, "trailing slash on a file");
	EXPECT(lookup_err(R, "/top/.", 0, NULL) == -LX_ENOTDIR, "dot after a file");
	EXPECT(lookup_err(R, "/top", FS_DIRECTORY, NULL) == -LX_ENOTDIR, "FS_DIRECTORY on a file");
	EXPECT(lookup_err(R, "/a/b/", 0, NULL) == 0 && lookup_err(R, "/a/b//", FS_DIRECTORY, NULL) == 0,
	       "trailing slash on a directory");
	static char p[LX_PATH_MAX + 10];
	memset(p, 'n', LX_NAME_MAX + 2);
	p[0] = '/';
	p[LX_NAME_MAX + 2] = 0;
	EXPECT(lookup_err(R, p, 0, NULL) == -LX_ENAMETOOLONG, "name of 256");
	p[LX_NAME_MAX + 1] = 0;
	EXPECT(lookup_err(R, p, 0, NULL) == -LX_ENOENT, "name of 255 is fine (and missing)");
	for (int i = 0; i < LX_PATH_MAX; i += 2)
		memcpy(p + i, "./", 2);
	p[LX_PATH_MAX - 1] = 0;
	EXPECT(lookup_err(R, p, 0, NULL) == 0, "path of 4095 bytes");
	p[LX_PATH_MAX - 1] = '.';
	p[LX_PATH_MAX] = 0;
	EXPECT(lookup_err(R, p, 0, NULL) == -LX_ENAMETOOLONG, "path of 4096 bytes");
	struct inode *d;
	char last[LX_NAME_MAX + 1];
	EXPECT(fs_lookup_parent(R, p, &d, last) == -LX_ENAMETOOLONG, "lookup_parent too");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.path_parent", "fs_lookup_parent splits the last name off") {
	tree();
	struct inode *d;
	char last[LX_NAME_MAX + 1];
	EXPECT(fs_lookup_parent(R, "/a/b/new", &d, last) == 0 && d->ino == ino_of("/a/b", 0) &&
	       strcmp(last, "new") == 0, "plain");
	fs_put(d);
	EXPECT(fs_lookup_parent(R, "a//b//", &d, last) == 0 && d->ino == ino_of("/a", 0) &&
	       strcmp(last, "b") == 0, "trailing slashes");
	fs_put(d);
	EXPECT(fs_lookup_parent(R, "/", &d, last) == 0 && d == R && last[0] == 0, "the root");
	fs_put(d);
	EXPECT(fs_lookup_parent(R, "name", &d, last) == 0 && d == R && strcmp(last, "name") == 0, "one name");
	fs_put(d);
	EXPECT(fs_lookup_parent(R, "/a/..", &d, last) == 0 && strcmp(last, "..") == 0, "dot-dot kept");
	fs_put(d);
	EXPECT(fs_lookup_parent(R, "/top/x", &d, last) == -LX_ENOTDIR, "file as the parent");
	EXPECT(fs_lookup_parent(R, "/no/x", &d, last) == -LX_ENOENT, "missing parent");
	EXPECT(fs_lookup_parent(R, "", &d, last) == -LX_ENOENT, "empty");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.symlinks", "links followed in the middle always, at the end with FS_FOLLOW, relative to their directory") {
	tree();
	uint64_t f = ino_of("/a/b/f", 0), b = ino_of("/a/b", 0);
	EXPECT(make_link("/a/lb", "b") == 0, "relative link");
	EXPECT(make_link("/abs", "/a/b/f") == 0, "absolute link");
	EXPECT(make_link("/a/b/up", "../../top") == 0, "link going up");
	EXPECT(make_link("/dangling", "/nope") == 0, "dangling link");
	EXPECT(ino_of("/a/lb/f", 0) == f, "middle component");
	EXPECT(ino_of("/a/lb", FS_FOLLOW) == b, "last, followed");
	uint64_t l = ino_of("/a/lb", 0);
	EXPECT(l && l != b && LX_S_ISLNK(stat_of("/a/lb").st_mode), "last, not followed");
	EXPECT(ino_of("/a/lb/", 0) == b, "trailing slash follows");
	EXPECT(ino_of("/abs", FS_FOLLOW) == f, "absolute target");
	EXPECT(ino_of("/a/lb/up", FS_FOLLOW) == ino_of("/top", 0), "relative target from the link's directory");
	EXPECT(lookup_err(R, "/dangling", FS_FOLLOW, NULL) == -LX_ENOENT, "dangling");
	EXPECT(lookup_err(R, "/dangling", 0, NULL) == 0, "dangling, not followed");
	EXPECT(lookup_err(R, "/abs/", 0, NULL) == -LX_ENOTDIR, "link to a file with a slash");
	char buf[64];
	struct inode *ip;
	EXPECT(fs_lookup(R, "/a/b/up", 0, &ip) == 0, "lookup up");
	EXPECT(fs_readlink(ip, buf, sizeof(buf)) == 9 && memcmp(buf, "../../top", 9) == 0, "readlink");
	EXPECT(fs_readlink(ip, buf, 3) == 3 && memcmp(buf, "../", 3) == 0, "readlink short");
	EXPECT(stat_of("/a/b/up").st_size == 9, "size is the target's length");
	fs_put(ip);
	EXPECT(fs_readlink(R, buf, 8) == -LX_EINVAL, "readlink of a directory");
	EXPECT(fs_symlink(R, "empty", "") == -LX_ENOENT, "empty target");
	EXPECT(fs_symlink(R, "abs", "x") == -LX_EEXIST, "existing name");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* fs_lookup_named's error and where it left where: 1 if at dir/name (missing), 0 if not kept. */
static int named_err(const char *path, int flags, struct inode *dir, const char *name, int *err)
{
	struct inode *ip;
	struct fs_name w;
	*err = fs_lookup_named(R, path, flags, &ip, &w);
	if (*err == 0)
		fs_put(ip);
	int at = w.dir == dir && w.missing && strcmp(w.name, name) == 0;
	int kept = w.dir != NULL;
	fs_name_drop(&w);
	return *err < 0 ? (kept ? at : 0) : -1;
}

TEST_CASE("lxfs.create_target", "FS_CREATE: an ENOENT on the final name, through links, reports where it is missing") {
	tree();
	struct inode *b, *a;
	EXPECT(fs_lookup(R, "/a/b", FS_FOLLOW, &b) == 0 && fs_lookup(R, "/a", 0, &a) == 0, "dirs");
	make_link("/d1", "/a/b/new");
	make_link("/a/d2", "b/new2");
	make_link("/d3", "/a/d2");
	make_link("/d4", "/nodir/x");
	make_link("/d5", "/a/b/f/x");
	int e;
	EXPECT(named_err("/a/new", FS_FOLLOW | FS_CREATE, a, "new", &e) == 1 && e == -LX_ENOENT, "plain");
	EXPECT(named_err("/d1", FS_FOLLOW | FS_CREATE, b, "new", &e) == 1 && e == -LX_ENOENT, "absolute link");
	EXPECT(named_err("/d3", FS_FOLLOW | FS_CREATE, b, "new2", &e) == 1 && e == -LX_ENOENT, "relative, chained");
	EXPECT(named_err("/d1", FS_FOLLOW, b, "new", &e) == 0 && e == -LX_ENOENT, "without FS_CREATE: nothing kept");
	EXPECT(named_err("/d4", FS_FOLLOW | FS_CREATE, b, "x", &e) == 0 && e == -LX_ENOENT, "missing directory");
	EXPECT(named_err("/d5", FS_FOLLOW | FS_CREATE, b, "x", &e) == 0 && e == -LX_ENOTDIR, "under a file");
	EXPECT(named_err("/nodir/x", FS_FOLLOW | FS_CREATE, a, "x", &e) == 0 && e == -LX_ENOENT, "middle missing");
	EXPECT(named_err("/d1/x", FS_FOLLOW | FS_CREATE, b, "x", &e) == 0 && e == -LX_ENOENT, "a dangling middle link");
	EXPECT(named_err("/d1", FS_CREATE, b, "new", &e) == -1 && e == 0, "not followed: the link itself");
	EXPECT(named_err("/d1/", FS_FOLLOW | FS_CREATE, b, "new", &e) == 0 && e == -LX_EISDIR, "\"link/\": EISDIR");
	EXPECT(named_err("/a/b/f/", FS_FOLLOW | FS_CREATE, b, "f", &e) == 0 && e == -LX_EISDIR, "\"file/\": EISDIR");
	fs_put(a);
	fs_put(b);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.symloop", "40 links are followed, the 41st is ELOOP; loops end in ELOOP") {
	tree();
	char name[32], target[32];
	for (int i = 0; i < 41; i++) {
		snprintf(name, sizeof(name), "/l%d", i);
		snprintf(target, sizeof(target), i == 40 ? "/top" : "l%d", i + 1);
		EXPECT(make_link(name, target) == 0, "link %d", i);
	}
	EXPECT(ino_of("/l1", FS_FOLLOW) == ino_of("/top", 0), "a chain of 40");
	EXPECT(lookup_err(R, "/l0", FS_FOLLOW, NULL) == -LX_ELOOP, "a chain of 41");
	EXPECT(lookup_err(R, "/l0", 0, NULL) == 0, "not followed");
	make_link("/self", "self");
	make_link("/p", "q/x");
	make_link("/q", "p/y");
	EXPECT(lookup_err(R, "/self", FS_FOLLOW, NULL) == -LX_ELOOP, "self loop");
	EXPECT(lookup_err(R, "/self/x", 0, NULL) == -LX_ELOOP, "self loop in the middle");
	EXPECT(lookup_err(R, "/p", FS_FOLLOW, NULL) == -LX_ELOOP, "two links through each other");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- names and links --- */

TEST_CASE("lxfs.create_link", "create, EEXIST, hard links count names, directories count subdirectories") {
	tree();
	EXPECT(make("/a", LX_S_IFDIR | 0755) == -LX_EEXIST, "existing directory");
	EXPECT(make("/top", LX_S_IFREG | 0644) == -LX_EEXIST, "existing file");
	EXPECT(make("/top/x", LX_S_IFREG | 0644) == -LX_ENOTDIR, "in a file");
	EXPECT(fs_create(R, ".", LX_S_IFREG, 0, NULL) == -LX_EEXIST, "dot");
	EXPECT(stat_of("/").st_nlink == 3 && stat_of("/a").st_nlink == 3 && stat_of("/a/b").st_nlink == 2,
	       "directory link counts %lu %lu %lu", stat_of("/").st_nlink, stat_of("/a").st_nlink,
	       stat_of("/a/b").st_nlink);
	struct inode *f, *dir;
	EXPECT(fs_lookup(R, "/a/b/f", 0, &f) == 0, "f");
	EXPECT(fs_link(R, "f2", f) == 0 && fs_link(R, "f3", f) == 0, "two more names");
	EXPECT(f->nlink == 3 && stat_of("/f2").st_ino == f->ino, "three names");
	EXPECT(fs_link(R, "f2", f) == -LX_EEXIST, "link over a name");
	EXPECT(fs_lookup(R, "/a", 0, &dir) == 0, "a");
	EXPECT(fs_link(R, "a2", dir) == -LX_EPERM, "link of a directory");
	fs_put(dir);
	EXPECT(fs_unlink(R, "f2") == 0 && f->nlink == 2, "unlink one");
	EXPECT(fs_unlink(R, "a") == -LX_EISDIR, "unlink of a directory");
	EXPECT(fs_unlink(R, "nope") == -LX_ENOENT, "unlink of nothing");
	fs_put(f);
	struct inode *c;
	EXPECT(fs_create(R, "dev", LX_S_IFCHR | 0666, 0x105, &c) == 0, "char device");
	EXPECT(stat_of("/dev").st_rdev == 0x105 && LX_S_ISCHR(stat_of("/dev").st_mode), "rdev and mode");
	fs_put(c);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.unlink_open", "an unlinked file stays readable through a reference and goes when it is dropped") {
	tree();
	struct inode *ip;
	static char big[3 * 4096];
	memset(big, 'z', sizeof(big));
	EXPECT(make("/big", LX_S_IFREG | 0600) == 0 && fs_lookup(R, "/big", 0, &ip) == 0, "made");
	EXPECT(fs_write(ip, 0, big, sizeof(big)) == (long)sizeof(big), "written");
	long before = pages_out;
	EXPECT(fs_unlink(R, "big") == 0, "unlinked");
	EXPECT(lookup_err(R, "/big", 0, NULL) == -LX_ENOENT, "name gone");
	EXPECT(pages_out == before && ip->nlink == 0, "data kept while referenced");
	char buf[10];
	EXPECT(fs_read(ip, 4096 * 2 + 5, buf, 10) == 10 && buf[9] == 'z', "still readable");
	EXPECT(fs_link(R, "again", ip) == -LX_ENOENT, "no new name for an unlinked file");
	fs_put(ip);
	EXPECT(pages_out <= before - 3, "pages freed on the last put: %ld -> %ld", before, pages_out);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.unnamed", "an unnamed file holds data, has no name, and goes with its last reference") {
	tree();
	long before = pages_out;
	struct inode *ip = fs_new_unnamed(0600);
	EXPECT(ip && LX_S_ISREG(ip->mode) && ip->nlink == 0 && ip->refs == 1, "a regular file, no links");
	EXPECT(fs_truncate(ip, 2 * 4096) == 0 && fs_page(ip, 4096, true) != NULL, "sized, a page");
	EXPECT(fs_write(ip, 0, "shm", 3) == 3, "written");
	fs_get(ip);
	fs_put(ip);
	EXPECT(pages_out > before, "kept while referenced");
	fs_put(ip);
	EXPECT(pages_out <= before, "pages freed with the last reference: %ld -> %ld", before, pages_out);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.rmdir", "rmdir removes only empty directories; a removed directory is dead") {
	tree();
	struct inode *b;
	EXPECT(fs_lookup(R, "/a/b", 0, &b) == 0, "b");
	EXPECT(remove_path("/a/b", fs_rmdir) == -LX_ENOTEMPTY, "not empty");
	EXPECT(remove_path("/a/b/f", fs_rmdir) == -LX_ENOTDIR, "a file");
	EXPECT(fs_rmdir(b, ".") == -LX_EINVAL, "dot");
	EXPECT(remove_path("/a/b/f", fs_unlink) == 0, "emptied");
	EXPECT(stat_of("/a").st_nlink == 3, "a has b");
	EXPECT(remove_path("/a/b", fs_rmdir) == 0, "removed");
	EXPECT(stat_of("/a").st_nlink == 2, "a lost b's dot-dot");
	EXPECT(b->nlink == 0, "b has no links");
	char path[64];
	EXPECT(fs_path(b, path, sizeof(path)) == -LX_ENOENT, "no path for a removed directory");
	EXPECT(lookup_err(b, ".", 0, NULL) == -LX_ENOENT, "dot in a removed directory");
	EXPECT(lookup_err(b, "..", 0, NULL) == -LX_ENOENT, "dot-dot in a removed directory");
	EXPECT(fs_create(b, "x", LX_S_IFREG, 0, NULL) == -LX_ENOENT, "create in a removed directory");
	uint64_t pos = 0;
	EXPECT(fs_getdents(b, &pos, path, sizeof(path)) == -LX_ENOENT, "listing a removed directory");
	fs_put(b);
	EXPECT(remove_path("/a/b", fs_rmdir) == -LX_ENOENT, "gone");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- rename --- */

TEST_CASE("lxfs.rename_files", "rename moves a name, replaces a file, and is a no-op onto itself") {
	tree();
	uint64_t f = ino_of("/a/b/f", 0);
	EXPECT(rename_path("/a/b/f", "/g") == 0, "move");
	EXPECT(ino_of("/g", 0) == f && lookup_err(R, "/a/b/f", 0, NULL) == -LX_ENOENT, "moved");
	struct inode *top;
	EXPECT(fs_lookup(R, "/top", 0, &top) == 0, "top");
	EXPECT(rename_path("/g", "/top") == 0, "over a file");
	EXPECT(ino_of("/top", 0) == f && lookup_err(R, "/g", 0, NULL) == -LX_ENOENT, "replaced");
	char buf[8];
	EXPECT(top->nlink == 0 && fs_read(top, 0, buf, 8) == 3, "the old file lives while referenced");
	fs_put(top);
	EXPECT(rename_path("/top", "/top") == 0 && ino_of("/top", 0) == f, "onto itself");
	struct inode *ip;
	EXPECT(fs_lookup(R, "/top", 0, &ip) == 0 && fs_link(R, "hard", ip) == 0, "hard link");
	EXPECT(rename_path("/top", "/hard") == 0 && ino_of("/top", 0) == f && ip->nlink == 2,
	       "onto another name of itself: nothing happens");
	fs_put(ip);
	EXPECT(rename_path("/top", "/a") == -LX_EISDIR, "file over directory");
	EXPECT(rename_path("/nope", "/x") == -LX_ENOENT, "missing source");
	EXPECT(rename_path("/top", "/nope/x") == -LX_ENOENT, "missing target directory");
	EXPECT(rename_path("/top", "/a/b/..") == -LX_EBUSY, "dot-dot as the new name");
	EXPECT(read_all("/hard", buf, sizeof(buf)) == 5 && strcmp(buf, "hello") == 0, "content");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.rename_dirs", "directory renames: over empty, not over full, not into itself, links and paths follow") {
	tree();
	make("/e", LX_S_IFDIR | 0755);
	make("/full", LX_S_IFDIR | 0755);
	make_file("/full/x", "x");
	uint64_t b = ino_of("/a/b", 0);
	EXPECT(rename_path("/a/b", "/full") == -LX_ENOTEMPTY, "over non-empty");
	EXPECT(rename_path("/a/b", "/top") == -LX_ENOTDIR, "over a file");
	EXPECT(rename_path("/a", "/a/b/c") == -LX_EINVAL, "into its own subtree");
	EXPECT(rename_path("/a", "/a/c") == -LX_EINVAL, "into itself");
	EXPECT(stat_of("/").st_nlink == 5, "root has a, e, full");
	EXPECT(rename_path("/a/b", "/e") == 0, "over an empty directory");
	EXPECT(ino_of("/e", 0) == b && ino_of("/e/f", 0) != 0, "moved with its content");
	EXPECT(stat_of("/").st_nlink == 5 && stat_of("/a").st_nlink == 2, "link counts %lu %lu",
	       stat_of("/").st_nlink, stat_of("/a").st_nlink);
	EXPECT(ino_of("/e/..", 0) == R->ino, "dot-dot follows");
	EXPECT(rename_path("/e", "/full/sub") == 0, "into another directory");
	struct inode *d;
	char path[64];
	EXPECT(fs_lookup(R, "/full/sub", 0, &d) == 0, "found");
	EXPECT(fs_path(d, path, sizeof(path)) == 9 && strcmp(path, "/full/sub") == 0, "path %s", path);
	EXPECT(ino_of("/full/sub/../x", 0) != 0 && stat_of("/full").st_nlink == 3, "new parent");
	fs_put(d);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.fs_path", "fs_path gives the root, nested paths, ERANGE and ENOTDIR") {
	tree();
	char buf[64];
	EXPECT(fs_path(R, buf, sizeof(buf)) == 1 && strcmp(buf, "/") == 0, "root");
	struct inode *b;
	EXPECT(fs_lookup(R, "/a/b", 0, &b) == 0, "b");
	EXPECT(fs_path(b, buf, sizeof(buf)) == 4 && strcmp(buf, "/a/b") == 0, "nested: %s", buf);
	EXPECT(fs_path(b, buf, 5) == 4 && strcmp(buf, "/a/b") == 0, "exact fit");
	EXPECT(fs_path(b, buf, 4) == -LX_ERANGE, "one short");
	fs_put(b);
	EXPECT(fs_lookup(R, "/top", 0, &b) == 0 && fs_path(b, buf, sizeof(buf)) == -LX_ENOTDIR, "a file");
	fs_put(b);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- file data --- */

TEST_CASE("lxfs.file_data", "writes at offsets, holes read as zeros, size and blocks") {
	fresh();
	struct inode *ip;
	EXPECT(fs_create(R, "f", LX_S_IFREG | 0644, 0, &ip) == 0, "made");
	EXPECT(fs_write(ip, 3 * 4096 - 2, "abcd", 4) == 4, "across a page boundary, after a hole");
	EXPECT(ip->size == 3 * 4096 + 2, "size %lu", ip->size);
	struct lx_stat st;
	fs_stat(ip, &st);
	EXPECT(st.st_blocks == 16 && st.st_blksize == 4096 && st.st_dev == 1, "two pages: %ld blocks",
	       st.st_blocks);
	static char buf[4 * 4096];
	memset(buf, 0x55, sizeof(buf));
	EXPECT(fs_read(ip, 0, buf, sizeof(buf)) == 3 * 4096 + 2, "read stops at the end");
	for (int i = 0; i < 3 * 4096 - 2; i++)
		EXPECT(buf[i] == 0, "hole byte %d", i);
	EXPECT(memcmp(buf + 3 * 4096 - 2, "abcd", 4) == 0, "data");
	EXPECT(fs_read(ip, 3 * 4096 + 2, buf, 10) == 0 && fs_read(ip, 1UL << 50, buf, 10) == 0, "at and past the end");
	EXPECT(fs_read(ip, 3 * 4096, buf, 100) == 2 && memcmp(buf, "cd", 2) == 0, "offset read");
	EXPECT(fs_write(ip, 1, "XY", 2) == 2 && fs_read(ip, 0, buf, 4) == 4 && memcmp(buf, "\0XY\0", 4) == 0,
	       "write into a hole");
	EXPECT(fs_write(ip, 1ULL << 62, "x", 1) == -LX_EFBIG, "too far");
	EXPECT(fs_read(R, 0, buf, 1) == -LX_EISDIR && fs_write(R, 0, "x", 1) == -LX_EISDIR, "directory");
	EXPECT(fs_truncate(R, 0) == -LX_EISDIR, "truncate a directory");
	fs_put(ip);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.truncate", "truncate shrinks (freeing pages, zeroing the cut tail) and grows with a hole") {
	fresh();
	struct inode *ip;
	static char buf[5 * 4096];
	memset(buf, 'q', sizeof(buf));
	EXPECT(fs_create(R, "f", LX_S_IFREG | 0644, 0, &ip) == 0, "made");
	EXPECT(fs_write(ip, 0, buf, sizeof(buf)) == (long)sizeof(buf), "five pages");
	long full = pages_out;
	EXPECT(fs_truncate(ip, 4096 + 10) == 0 && ip->size == 4096 + 10, "shrunk");
	EXPECT(pages_out == full - 3, "three pages freed: %ld -> %ld", full, pages_out);
	EXPECT(fs_truncate(ip, 3 * 4096) == 0 && ip->size == 3 * 4096, "grown");
	EXPECT(pages_out == full - 3, "growing allocates nothing");
	memset(buf, 1, sizeof(buf));
	EXPECT(fs_read(ip, 0, buf, sizeof(buf)) == 3 * 4096, "read");
	for (int i = 0; i < 3 * 4096; i++)
		EXPECT(buf[i] == (i < 4096 + 10 ? 'q' : 0), "byte %d is %d", i, buf[i]);
	EXPECT(fs_truncate(ip, 0) == 0 && ip->size == 0, "emptied");
	struct lx_stat st;
	fs_stat(ip, &st);
	EXPECT(st.st_blocks == 0, "no blocks");
	fs_put(ip);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.fs_page", "fs_page finds, allocates, and refuses past the end") {
	fresh();
	struct inode *ip;
	EXPECT(fs_create(R, "f", LX_S_IFREG | 0644, 0, &ip) == 0, "made");
	EXPECT(fs_truncate(ip, 2 * 4096 + 1) == 0, "sized");
	EXPECT(fs_page(ip, 4096, false) == NULL, "a hole, not allocated");
	char *p = fs_page(ip, 4096 + 7, true);
	EXPECT(p && p[0] == 0 && ((uintptr_t)p & 4095) == 0, "allocated, zeroed, a whole page");
	p[5] = 'm';
	char c;
	EXPECT(fs_read(ip, 4096 + 5, &c, 1) == 1 && c == 'm', "a write through the page is file data");
	EXPECT(fs_page(ip, 4096, false) == p, "found again");
	EXPECT(fs_page(ip, 2 * 4096, true) != NULL, "the last partial page");
	EXPECT(fs_page(ip, 2 * 4096 + 1, true) == NULL, "past the end");
	EXPECT(fs_page(R, 0, true) == NULL, "a directory");
	fs_put(ip);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- listing --- */

/* Lists dir from *pos with a buffer of n bytes, adding names to seen (comma separated). */
static long list(struct inode *dir, uint64_t *pos, size_t n, char *seen, int *bad)
{
	static char buf[8192];
	long got = fs_getdents(dir, pos, buf, n);
	for (long at = 0; at < got;) {
		struct lx_dirent64 *d = (struct lx_dirent64 *)(buf + at);
		if (d->d_reclen % 8 || d->d_reclen < 20 || at + d->d_reclen > got)
			(*bad)++;
		strcat(seen, d->d_name);
		strcat(seen, ",");
		at += d->d_reclen;
	}
	return got;
}

TEST_CASE("lxfs.getdents", "getdents lists dot, dot-dot, then entries, in records of any buffer size") {
	tree();
	make("/a/c", LX_S_IFDIR | 0755);
	make_link("/a/l", "b");
	char seen[512] = "";
	int bad = 0;
	struct inode *a;
	EXPECT(fs_lookup(R, "/a", 0, &a) == 0, "a");
	uint64_t pos = 0;
	EXPECT(list(a, &pos, 8192, seen, &bad) > 0 && list(a, &pos, 8192, seen, &bad) == 0, "all at once, then the end");
	EXPECT(strcmp(seen, ".,..,b,c,l,") == 0 && !bad, "listed %s", seen);
	seen[0] = 0;
	pos = 0;
	for (int i = 0; i < 10 && list(a, &pos, 24, seen, &bad) > 0; i++)
		;
	EXPECT(strcmp(seen, ".,..,b,c,l,") == 0 && !bad, "one record at a time: %s", seen);
	pos = 0;
	EXPECT(fs_getdents(a, &pos, seen, 16) == -LX_EINVAL, "buffer too small for one record");
	static char buf[256];
	pos = 0;
	long got = fs_getdents(a, &pos, buf, sizeof(buf));
	struct lx_dirent64 *d = (struct lx_dirent64 *)buf;
	EXPECT(got > 0 && d->d_ino == a->ino && d->d_type == LX_DT_DIR, "dot is a");
	d = (struct lx_dirent64 *)(buf + d->d_reclen);
	EXPECT(d->d_ino == R->ino && strcmp(d->d_name, "..") == 0, "dot-dot is the root");
	uint8_t types[3];
	for (int i = 0; i < 3; i++) {
		d = (struct lx_dirent64 *)((char *)d + d->d_reclen);
		types[i] = d->d_type;
	}
	EXPECT(types[0] == LX_DT_DIR && types[2] == LX_DT_LNK, "types %d %d %d", types[0], types[1], types[2]);
	pos = 0;
	got = fs_getdents(a, &pos, buf, 48);    /* "." and ".." */
	uint64_t resume = ((struct lx_dirent64 *)(buf + 24))->d_off;
	EXPECT(got == 48 && resume == pos, "d_off of the last record is the cursor");
	seen[0] = 0;
	pos = ((struct lx_dirent64 *)buf)->d_off;
	list(a, &pos, 8192, seen, &bad);
	EXPECT(strcmp(seen, "..,b,c,l,") == 0, "resuming at the first record's d_off: %s", seen);
	struct inode *f;
	EXPECT(fs_lookup(R, "/top", 0, &f) == 0 && fs_getdents(f, &pos, buf, 256) == -LX_ENOTDIR, "a file");
	fs_put(f);
	fs_put(a);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.getdents_changes", "the cursor survives additions and removals: no entry twice, none that stayed missed") {
	fresh();
	char name[16], seen[4096] = "";
	bool gone_unseen[20] = {false};
	int bad = 0;
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "/n%02d", i);
		EXPECT(make(name, LX_S_IFREG | 0644) == 0, "made %s", name);
	}
	uint64_t pos = 0;
	for (int round = 0; list(R, &pos, 100, seen, &bad) > 0; round++) {
		if (round >= 8)
			continue;
		/* between two calls: remove a name ahead of the cursor and one behind, add one */
		for (int k = 0; k < 2; k++) {
			int i = k ? round : 19 - round;
			snprintf(name, sizeof(name), "n%02d,", i);
			gone_unseen[i] = !strstr(seen, name);
			snprintf(name, sizeof(name), "/n%02d", i);
			EXPECT(remove_path(name, fs_unlink) == 0, "removed %s", name);
		}
		snprintf(name, sizeof(name), "/m%02d", round);
		EXPECT(make(name, LX_S_IFREG | 0644) == 0, "added %s", name);
	}
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), ",n%02d,", i);
		char *at = strstr(seen, name);
		EXPECT(!at || !strstr(at + 1, name), "%s listed twice", name);
		EXPECT(at || gone_unseen[i], "%s was not listed", name);
		EXPECT(!at || !gone_unseen[i], "%s listed after its removal", name);
	}
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), ",m%02d,", i);
		char *at = strstr(seen, name);
		EXPECT(at && !strstr(at + 1, name), "%s added during the listing, listed %s", name,
		       at ? "twice" : "never");
	}
	EXPECT(!bad, "bad records");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- permissions (vfs/perm.c through the walk and the fs_* calls) --- */

static struct cred nobody_cred = {65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, NULL};
static struct cred u1000_cred = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, NULL};

/* make() as cred: 0 or -errno */
static int make_as(struct cred *c, const char *path, uint32_t mode)
{
	fs_cred = c;
	int r = make(path, mode);
	fs_cred = NULL;
	return r;
}

static int unlink_as(struct cred *c, const char *dir, const char *name)
{
	struct inode *d;
	int r = fs_lookup(R, dir, FS_FOLLOW, &d);
	if (r == 0) {
		fs_cred = c;
		r = fs_unlink(d, name);
		fs_cred = NULL;
		fs_put(d);
	}
	return r;
}

TEST_CASE("lxfs.perm_walk", "search permission on every directory walked, write and search to create") {
	fresh();
	EXPECT(make_as(&u1000_cred, "/d", LX_S_IFDIR | 0700) == -LX_EACCES, "/ is root's 0755");
	struct inode *d;
	EXPECT(fs_create(R, "d", LX_S_IFDIR | 0700, 0, &d) == 0, "/d");
	d->uid = 1000;          /* as chown would */
	fs_put(d);
	EXPECT(make("/d/f", LX_S_IFREG | 0644) == 0, "root makes /d/f inside");
	EXPECT(make("/w", LX_S_IFDIR | 0777) == 0 && make("/r", LX_S_IFDIR | 0755) == 0, "dirs");
	fs_cred = &nobody_cred;
	EXPECT(lookup_err(R, "/d/f", 0, NULL) == -LX_EACCES, "walk through 0700 of another");
	EXPECT(lookup_err(R, "/d", 0, NULL) == 0, "the directory itself is visible");
	fs_cred = &u1000_cred;
	EXPECT(lookup_err(R, "/d/f", 0, NULL) == 0, "its owner walks through");
	fs_cred = NULL;
	EXPECT(make_as(&nobody_cred, "/r/x", LX_S_IFREG | 0644) == -LX_EACCES, "no write: EACCES");
	EXPECT(make("/r/x", LX_S_IFREG | 0644) == 0, "root makes it");
	EXPECT(make_as(&nobody_cred, "/r/x", LX_S_IFREG | 0644) == -LX_EEXIST, "taken: EEXIST first");
	EXPECT(make_as(&nobody_cred, "/w/c", LX_S_IFCHR | 0644) == -LX_EPERM, "devices: root's");
	EXPECT(make_as(&nobody_cred, "/w/x", LX_S_IFREG | 0644) == 0, "0777: anybody creates");
	struct inode *ip;
	EXPECT(fs_lookup(R, "/w/x", 0, &ip) == 0 && ip->uid == 65534 && ip->gid == 65534,
	       "the creator owns it");
	fs_put(ip);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

TEST_CASE("lxfs.perm_sticky_setgid", "the sticky bit guards others' files; a setgid directory gives its group") {
	fresh();
	EXPECT(make("/t", LX_S_IFDIR | 01777) == 0 && make("/t/root", LX_S_IFREG | 0666) == 0, "/t");
	EXPECT(make_as(&u1000_cred, "/t/mine", LX_S_IFREG | 0644) == 0, "u1000's file");
	EXPECT(unlink_as(&nobody_cred, "/t", "root") == -LX_EPERM, "another's: EPERM");
	EXPECT(unlink_as(&nobody_cred, "/t", "mine") == -LX_EPERM, "u1000's, by nobody: EPERM");
	EXPECT(unlink_as(&u1000_cred, "/t", "mine") == 0, "its owner removes it");
	EXPECT(unlink_as(&nobody_cred, "/t", "none") == -LX_ENOENT, "missing: ENOENT");
	struct inode *g;
	EXPECT(fs_create(R, "g", LX_S_IFDIR | 02777, 0, &g) == 0, "/g");
	g->gid = 1001;
	fs_put(g);
	EXPECT(make_as(&u1000_cred, "/g/sub", LX_S_IFDIR | 0755) == 0, "sub");
	struct inode *ip;
	EXPECT(fs_lookup(R, "/g/sub", 0, &ip) == 0 && ip->gid == 1001 && (ip->mode & LX_S_ISGID) &&
	       ip->uid == 1000, "group and S_ISGID inherited: %o", ip->mode);
	fs_put(ip);
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- cpio archives --- */

static char tmpdir[64];

static void host_file(const char *name, const char *data, size_t n, mode_t mode)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
	chmod(path, mode);
}

/* Makes a directory tree on the host and archives it with cpio -o -H newc. */
static char *host_archive(size_t *len)
{
	static char big[20000];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 4096);
	strcpy(tmpdir, "/tmp/lxfs.XXXXXX");
	if (!mkdtemp(tmpdir))
		return NULL;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p d/e/f && ln -s ../small d/lnk && "
		 "ln -s /abs/target absl && mkfifo pipe && chmod 0711 d/e", tmpdir);
	if (system(cmd) != 0)
		return NULL;
	host_file("small", "small file\n", 11, 0640);
	host_file("empty", "", 0, 0600);
	host_file("big", big, sizeof(big), 0755);
	host_file("d/e/f/deep", "deep", 4, 0444);
	host_file("d/hard1", "linked", 6, 0644);
	snprintf(cmd, sizeof(cmd), "cd %s && ln d/hard1 hard2 && find . | sort | cpio -o -H newc --quiet > ../%s.cpio",
		 tmpdir, tmpdir + 5);
	if (system(cmd) != 0)
		return NULL;
	snprintf(cmd, sizeof(cmd), "%s.cpio", tmpdir);
	FILE *f = fopen(cmd, "rb");
	if (!f)
		return NULL;
	static char a[1 << 20];
	*len = fread(a, 1, sizeof(a), f);
	fclose(f);
	return a;
}

static void host_cleanup(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.cpio", tmpdir, tmpdir);
	if (system(cmd) != 0)
		printf("cleanup of %s failed\n", tmpdir);
}

/* Compares one archived path with the host's original: type, mode, owner, mtime, content. */
static int same_as_host(const char *name)
{
	char path[256];
	static char want[32768], got[32768];
	struct stat hs;
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if (lstat(path, &hs) < 0)
		return -1;
	snprintf(path, sizeof(path), "/%s", name);
	struct lx_stat st = stat_of(path);
	if (st.st_mode != hs.st_mode || st.st_uid != hs.st_uid || st.st_gid != hs.st_gid ||
	    st.st_mtim.tv_sec != hs.st_mtime)
		return -2;
	if (S_ISDIR(hs.st_mode) || S_ISFIFO(hs.st_mode))
		return 0;
	if ((long)st.st_size != hs.st_size)
		return -3;
	struct inode *ip;
	fs_lookup(R, path, 0, &ip);
	long n = S_ISLNK(hs.st_mode) ? fs_readlink(ip, got, sizeof(got)) : fs_read(ip, 0, got, sizeof(got));
	fs_put(ip);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	long w;
	if (S_ISLNK(hs.st_mode)) {
		w = readlink(path, want, sizeof(want));
	} else {
		FILE *f = fopen(path, "rb");
		w = f ? (long)fread(want, 1, sizeof(want), f) : -1;
		if (f)
			fclose(f);
	}
	return n == w && memcmp(got, want, (size_t)n) == 0 ? 0 : -4;
}

TEST_CASE("lxfs.cpio_host", "an archive from the host's cpio -H newc loads with every file's content, mode and links") {
	fresh();
	size_t len = 0;
	char *a = host_archive(&len);
	EXPECT(a && len > 0, "host archive (is cpio installed?)");
	int r = fs_load_cpio(a, len);
	EXPECT(r == 0, "load: %d", r);
	static const char *names[] = {"small", "empty", "big", "d", "d/e", "d/e/f", "d/e/f/deep",
				      "d/lnk", "absl", "pipe", "d/hard1", "hard2"};
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		EXPECT((r = same_as_host(names[i])) == 0, "%s differs (%d)", names[i], r);
	struct stat hs;
	stat(tmpdir, &hs);
	EXPECT(stat_of("/").st_mode == hs.st_mode, "the root takes \".\"'s mode");
	EXPECT(ino_of("/d/hard1", 0) == ino_of("/hard2", 0) && stat_of("/hard2").st_nlink == 2, "hard link");
	EXPECT(ino_of("/d/lnk", FS_FOLLOW) == ino_of("/small", 0), "symlink works");
	EXPECT(stat_of("/d").st_nlink == 3, "d has e");
	char *trailer = memmem(a, len, "TRAILER!!!", 11);
	EXPECT(trailer, "a trailer");
	size_t whole = (size_t)(trailer - a) + 11;     /* cpio pads the rest to 512-byte blocks */
	for (size_t cut = 0; cut < whole; cut += cut < 300 || cut + 300 > whole ? 1 : 97) {
		fresh();
		EXPECT(fs_load_cpio(a, cut) == -LX_EINVAL, "cut at %zu of %zu", cut, whole);
	}
	fresh();
	EXPECT(fs_load_cpio(a, whole) == 0, "no padding after the trailer");
	a[0] = 'X';
	fresh();
	EXPECT(fs_load_cpio(a, len) == -LX_EINVAL, "bad magic");
	host_cleanup();
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* Appends one newc entry to buf at *at. */
static void newc(char *buf, size_t *at, const char *magic, const char *name, uint32_t mode,
		 uint32_t ino, uint32_t nlink, uint32_t rmaj, uint32_t rmin, const char *data)
{
	size_t dlen = strlen(data), nlen = strlen(name) + 1;
	*at += (size_t)sprintf(buf + *at, "%s%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
			       magic, ino, mode, 7, 8, nlink, 1234, dlen, 0, 0, rmaj, rmin, nlen, 0);
	memcpy(buf + *at, name, nlen);
	*at = (*at + nlen + 3) & ~3UL;
	memcpy(buf + *at, data, dlen);
	*at = (*at + dlen + 3) & ~3UL;
}

TEST_CASE("lxfs.cpio_hand", "hand-made newc: 070702, ./ names, implied directories, devices, links with data last, replacement") {
	static char a[4096];
	size_t at = 0;
	memset(a, 0, sizeof(a));
	fresh();
	newc(a, &at, "070702", ".", LX_S_IFDIR | 0700, 1, 2, 0, 0, "");
	newc(a, &at, "070701", "./x/y/tty", LX_S_IFCHR | 0620, 2, 1, 4, 300, "");
	newc(a, &at, "070701", "h1", LX_S_IFREG | 0644, 9, 2, 0, 0, "");
	newc(a, &at, "070701", "x/h2", LX_S_IFREG | 0644, 9, 2, 0, 0, "shared");
	newc(a, &at, "070701", "x/y/tty", LX_S_IFREG | 0600, 3, 1, 0, 0, "now a file");
	newc(a, &at, "070701", "x/", LX_S_IFDIR | 0750, 4, 2, 0, 0, "");
	newc(a, &at, "070701", "TRAILER!!!", 0, 0, 1, 0, 0, "");
	EXPECT(fs_load_cpio(a, at) == 0, "loaded");
	EXPECT((stat_of("/").st_mode & 07777) == 0700, "root mode");
	EXPECT(stat_of("/x").st_mode == (LX_S_IFDIR | 0750) && stat_of("/x/y").st_mode == (LX_S_IFDIR | 0755),
	       "explicit and implied directories");
	char buf[32];
	EXPECT(read_all("/h1", buf, sizeof(buf)) == 6 && strcmp(buf, "shared") == 0, "data on the last link");
	EXPECT(ino_of("/h1", 0) == ino_of("/x/h2", 0) && stat_of("/h1").st_nlink == 2, "one inode");
	EXPECT(read_all("/x/y/tty", buf, sizeof(buf)) == 10, "a later entry replaces an earlier one");
	struct lx_stat st = stat_of("/x/h2");
	EXPECT(st.st_uid == 7 && st.st_gid == 8 && st.st_mtim.tv_sec == 1234, "owner and time");
	fresh();
	at = 0;
	newc(a, &at, "070701", "dev/tty1", LX_S_IFCHR | 0620, 2, 1, 4, 300, "");
	newc(a, &at, "070701", "dev/fifo", LX_S_IFIFO | 0600, 3, 1, 0, 0, "");
	newc(a, &at, "070701", "TRAILER!!!", 0, 0, 1, 0, 0, "");
	EXPECT(fs_load_cpio(a, at) == 0, "devices loaded");
	st = stat_of("/dev/tty1");
	EXPECT(LX_S_ISCHR(st.st_mode) && st.st_rdev == ((300 & 0xff) | (4 << 8) | ((300 & ~0xff) << 12)),
	       "rdev %lx", st.st_rdev);
	EXPECT(LX_S_ISFIFO(stat_of("/dev/fifo").st_mode), "fifo");
	fresh();
	at = 0;
	newc(a, &at, "070701", "f", 0644, 2, 1, 0, 0, "");
	EXPECT(fs_load_cpio(a, at) == -LX_EINVAL, "no file type");
	fresh();
	at = 0;
	newc(a, &at, "070701", "f", LX_S_IFREG | 0644, 2, 1, 0, 0, "data");
	a[6] = 'g';
	EXPECT(fs_load_cpio(a, at) == -LX_EINVAL, "not hex");
	fresh();
	at = 0;
	newc(a, &at, "070701", "f", LX_S_IFREG | 0644, 2, 1, 0, 0, "data");
	memcpy(a + 6 + 8 * 11, "FFFFFFFF", 8);
	EXPECT(fs_load_cpio(a, at) == -LX_EINVAL, "name size past the end");
	EXPECT(all_freed(), "leak: %ld pages", pages_out);
}

/* --- memory exhaustion --- */

/* Builds a tree and loads an archive; every step succeeds or says ENOMEM. */
static int exhaust_step(const char *archive, size_t len)
{
	static char big[3 * 4096 + 100];
	memset(big, 'b', sizeof(big));
	int r;
	if ((r = make("/d", LX_S_IFDIR | 0755)) < 0 || (r = make("/d/f", LX_S_IFREG | 0644)) < 0)
		return r;
	struct inode *f;
	if ((r = fs_lookup(R, "/d/f", 0, &f)) < 0)
		return r;
	long w = fs_write(f, 0, big, sizeof(big));
	bool consistent = w == -LX_ENOMEM ? f->size == 0 : (uint64_t)w == f->size && w > 0;
	static char back[sizeof(big)];
	if (w > 0 && (fs_read(f, 0, back, sizeof(back)) != w || memcmp(back, big, (size_t)w)))
		consistent = false;
	fs_put(f);
	if (!consistent)
		return -1000;
	if (w != (long)sizeof(big))
		return w < 0 ? (int)w : -LX_ENOMEM;
	for (int i = 0; i < 30; i++) {
		char name[16];
		snprintf(name, sizeof(name), "/d/n%d", i);
		if ((r = make_link(name, "f")) < 0)
			return r;
	}
	if ((r = rename_path("/d", "/e")) < 0)
		return r;
	return fs_load_cpio(archive, len);
}

TEST_CASE("lxfs.enospc", "with the commit limit's room for file pages used up a write stores what fits, then fails with ENOSPC; unlinking gives every charged page back") {
	fresh();
	file_quota = 3;
	EXPECT(make("/full", LX_S_IFREG | 0644) == 0, "create");
	struct inode *ip;
	EXPECT(fs_lookup(R, "/full", 0, &ip) == 0, "lookup");
	static char buf[5 * LX_PAGE_SIZE];
	memset(buf, 'x', sizeof(buf));
	long w = fs_write(ip, 0, buf, sizeof(buf));
	EXPECT(w == 3 * LX_PAGE_SIZE && ip->size == 3 * LX_PAGE_SIZE, "short write: %ld", w);
	EXPECT(fs_write(ip, ip->size, buf, 1) == -LX_ENOSPC, "then ENOSPC");
	EXPECT(fs_write(ip, 0, buf, LX_PAGE_SIZE) == LX_PAGE_SIZE, "pages it has take writes");
	fs_put(ip);
	EXPECT(fs_unlink(R, "full") == 0 && file_pages == 0, "unlink: %ld pages still charged", file_pages);
	EXPECT(make_file("/again", "after") == 0, "room again");
}

TEST_CASE("lxfs.enomem", "with too few pages every step fails with ENOMEM, files stay consistent, nothing leaks") {
	size_t len = 0;
	char *a = host_archive(&len);
	EXPECT(a, "host archive");
	host_cleanup();
	int oom = 0, ok = 0;
	for (long limit = 0; limit < 200 && !ok; limit++) {
		fresh();
		page_limit = pages_out + limit;
		int r = exhaust_step(a, len);
		if (r == -LX_ENOMEM)
			oom++;
		else if (r == 0)
			ok = 1;
		else
			test_fail("limit %ld: %d", limit, r);
		page_limit = -1;
		if (r != 0 && r != -LX_ENOMEM)
			break;
		EXPECT(all_freed(), "limit %ld: leak of %ld pages", limit, pages_out);
	}
	EXPECT(ok && oom > 10, "succeeded at last (%d) after %d failures", ok, oom);
}

TEST_CASE("lxfs.enomem_once", "one failed page request anywhere gives ENOMEM, and nothing leaks") {
	size_t len = 0;
	char *a = host_archive(&len);
	EXPECT(a, "host archive");
	host_cleanup();
	int oom = 0;
	for (long n = 1; n < 400; n++) {
		fresh();
		fail_in = n;
		int r = exhaust_step(a, len);
		bool hit = fail_in == 0;
		fail_in = -1;
		EXPECT(hit ? r == -LX_ENOMEM : r == 0, "request %ld (%s): %d", n,
		       hit ? "failed" : "past the last", r);
		oom += r != 0;
		EXPECT(all_freed(), "request %ld: leak of %ld pages", n, pages_out);
		if (!hit)
			break;          /* past the scenario's last request */
	}
	EXPECT(oom > 10, "only %d failures", oom);
}

int main(void)
{
	int failed = test_run_all();
	fs_destroy();
	return failed ? 1 : 0;
}
