// SPDX-License-Identifier: MIT
/*
 * lx's in-memory file system (fs/fs.h).  Directories keep their entries in an
 * array ordered by a global sequence number, which never repeats: a
 * getdents cursor is "the next sequence number to list" and stays valid
 * whatever is added or removed between calls.  Regular files keep their
 * data in pages (NULL = a hole, read as zeros).  Every change allocates
 * what it needs before it modifies anything, so ENOMEM leaves the tree as
 * it was.
 */
#include "fs.h"
#include "../mm/mm.h"
#include "../../../lib/c/string.h"

struct dentry {
	char *name;
	struct inode *ip;
	uint64_t seq;           /* the getdents position is seq + 2 (after "." and "..") */
};

/* Largest file: keeps offsets and the block array's size far from overflow. */
#define FS_MAX_SIZE (1ULL << 40)

static uint64_t next_ino = 1;
static uint64_t next_seq;

static void stamp(struct lx_timespec *ts)
{
	if (fs_now)
		fs_now(ts);
}

static void touch(struct inode *ip)     /* content changed: mtime and ctime */
{
	stamp(&ip->mtime);
	ip->ctime = ip->mtime;
}

static bool is_dot(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

static bool name_eq(const char *a, const char *b, size_t blen)
{
	for (size_t i = 0; i < blen; i++)
		if (a[i] != b[i])       /* stops at a's NUL too: b has none */
			return false;
	return a[blen] == 0;
}

/* --- inodes --- */

static struct inode *inode_new(struct super *sb, uint32_t mode)
{
	struct inode *ip = lx_zalloc(sizeof(*ip));
	if (!ip)
		return NULL;
	ip->sb = sb;
	ip->ino = next_ino++;
	ip->mode = mode;
	stamp(&ip->mtime);
	ip->atime = ip->ctime = ip->mtime;
	return ip;
}

static void free_pages_from(struct inode *ip, uint64_t first)
{
	for (uint64_t i = first; i < ip->nblocks; i++) {
		if (ip->blocks[i]) {
			page_free(ip->blocks[i]);
			mem_uncharge_file_page();
		}
		ip->blocks[i] = NULL;
	}
}

static void inode_free(struct inode *ip)
{
	free_pages_from(ip, 0);
	lx_free(ip->blocks);
	lx_free(ip->block_ro);
	for (uint64_t i = 0; i < ip->nentries; i++)
		lx_free(ip->entries[i].name);
	lx_free(ip->entries);
	lx_free(ip->target);
	lx_free(ip);
}

/* Frees ip once nothing names it and nobody holds it. */
static void maybe_free(struct inode *ip)
{
	if (ip->nlink == 0 && ip->refs == 0 && ip != ip->sb->root)
		inode_free(ip);
}

static const struct fs_ops ramfs_ops;
/* Unnamed files' file system: never mounted, nothing in it has a name. */
static struct super anon_sb = { .ops = &ramfs_ops, .type = "anon" };

struct inode *fs_new_unnamed(uint32_t mode)
{
	struct inode *ip = inode_new(&anon_sb, LX_S_IFREG | (mode & 07777));
	if (ip)
		fs_get(ip);
	return ip;
}


/* --- directory entries --- */

/* Room for one more entry in dir's array; the array's capacity is implied
 * by nentries (4, then powers of two), so nothing else records it. */
static int dir_reserve(struct inode *dir)
{
	uint64_t n = dir->nentries, cap = 4;
	while (cap < n)
		cap *= 2;
	if (dir->entries && n < cap)
		return 0;
	if (dir->entries)
		cap *= 2;
	struct dentry *e = lx_realloc(dir->entries, cap * sizeof(*e));
	if (!e)
		return -LX_ENOMEM;
	dir->entries = e;
	return 0;
}

static struct dentry *dir_find(struct inode *dir, const char *name, size_t len)
{
	for (uint64_t i = 0; i < dir->nentries; i++)
		if (name_eq(dir->entries[i].name, name, len))
			return &dir->entries[i];
	return NULL;
}

/* Appends an entry; the caller reserved room and allocated the name. */
static void dir_add(struct inode *dir, char *name, struct inode *ip)
{
	struct dentry *e = &dir->entries[dir->nentries++];
	e->name = name;
	e->ip = ip;
	e->seq = next_seq++;
	touch(dir);
}

/* Removes an entry, keeping the rest in sequence order; links unchanged. */
static void dir_remove(struct inode *dir, struct dentry *e)
{
	lx_free(e->name);
	uint64_t i = (uint64_t)(e - dir->entries);
	memmove(e, e + 1, (dir->nentries - i - 1) * sizeof(*e));
	dir->nentries--;
	touch(dir);
}

static char *name_dup(const char *name, size_t len)
{
	char *s = lx_malloc(len + 1);
	if (s) {
		memcpy(s, name, len);
		s[len] = 0;
	}
	return s;
}

/* One component in dir, "." and ".." included; a reference in *out. */
static int dir_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	if (len > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	if (dir->nlink == 0)
		return -LX_ENOENT;      /* removed: not even "." resolves, as in Linux */
	struct inode *ip;
	if (len == 1 && name[0] == '.') {
		ip = dir;
	} else if (len == 2 && name[0] == '.' && name[1] == '.') {
		ip = dir->parent ? dir->parent : dir;
	} else {
		struct dentry *e = dir_find(dir, name, len);
		if (!e)
			return -LX_ENOENT;
		ip = e->ip;
	}
	fs_get(ip);
	*out = ip;
	return 0;
}

static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

/* --- directory operations --- */

/* The checks every new name in dir passes: fs_new_name_ok's, and not taken. */
static int check_new_name(struct inode *dir, const char *name, size_t len)
{
	int r = fs_new_name_ok(dir, name, len);
	if (r < 0)
		return r;
	if (dir_find(dir, name, len))
		return -LX_EEXIST;
	return 0;
}

/* Enters ip under name in dir, as a new link; nothing changes on failure. */
static int dir_link(struct inode *dir, const char *name, struct inode *ip)
{
	char *n = name_dup(name, strlen(name));
	if (!n || dir_reserve(dir) < 0) {
		lx_free(n);
		return -LX_ENOMEM;
	}
	dir_add(dir, n, ip);
	ip->nlink++;
	stamp(&ip->ctime);
	if (LX_S_ISDIR(ip->mode)) {
		ip->nlink++;    /* its own "." */
		ip->parent = dir;
		dir->nlink++;   /* the new ".." */
	}
	return 0;
}

static int ram_create(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
	      struct inode **out)
{
	int r = check_new_name(dir, name, strlen(name));
	if (r < 0)
		return r;
	if ((mode & LX_S_IFMT) == 0 || LX_S_ISLNK(mode))
		return -LX_EINVAL;      /* symbolic links come from fs_symlink */
	struct inode *ip = inode_new(dir->sb, mode);
	if (!ip)
		return -LX_ENOMEM;
	fs_init_owner(ip, dir);
	ip->rdev = rdev;
	if (dir_link(dir, name, ip) < 0) {
		inode_free(ip);
		return -LX_ENOMEM;
	}
	if (out) {
		fs_get(ip);
		*out = ip;
	}
	return 0;
}

/* fs_link checked the target: not a directory, still linked. */
static int ram_link(struct inode *dir, const char *name, struct inode *target)
{
	int r = check_new_name(dir, name, strlen(name));
	return r < 0 ? r : dir_link(dir, name, target);
}

/* A symbolic link to target[0..tlen); *out (if not NULL) gets a reference. */
static int symlink_len(struct inode *dir, const char *name, const char *target, size_t tlen,
		       struct inode **out)
{
	if (tlen == 0)
		return -LX_ENOENT;
	if (tlen >= LX_PATH_MAX)
		return -LX_ENAMETOOLONG;
	int r = check_new_name(dir, name, strlen(name));
	if (r < 0)
		return r;
	struct inode *ip = inode_new(dir->sb, LX_S_IFLNK | 0777);
	if (!ip || !(ip->target = name_dup(target, tlen)) || dir_link(dir, name, ip) < 0) {
		if (ip)
			inode_free(ip);
		return -LX_ENOMEM;
	}
	fs_init_owner(ip, dir);
	ip->size = tlen;
	if (out) {
		fs_get(ip);
		*out = ip;
	}
	return 0;
}

static int ram_symlink(struct inode *dir, const char *name, const char *target)
{
	return symlink_len(dir, name, target, bounded_len(target, LX_PATH_MAX), NULL);
}

/* The entry called name in dir (not "." or ".."), or an error. */
static int find_entry(struct inode *dir, const char *name, struct dentry **out)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	size_t len = strlen(name);
	if (len > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	struct dentry *e = dir_find(dir, name, len);
	if (!e)
		return -LX_ENOENT;
	*out = e;
	return 0;
}

/* Drops one name of a non-directory. */
static void unlinked(struct inode *ip)
{
	ip->nlink--;
	stamp(&ip->ctime);
	maybe_free(ip);
}

/* A directory lost its only name: dead from now on. */
static void dir_unlinked(struct inode *dir, struct inode *parent)
{
	dir->nlink = 0;
	dir->parent = NULL;
	parent->nlink--;
	maybe_free(dir);
}

static int ram_unlink(struct inode *dir, const char *name)
{
	struct dentry *e;
	if (is_dot(name, strlen(name)))
		return LX_S_ISDIR(dir->mode) ? -LX_EISDIR : -LX_ENOTDIR;
	int r = find_entry(dir, name, &e);
	if (r < 0)
		return r;
	struct inode *ip = e->ip;
	if (LX_S_ISDIR(ip->mode))
		return -LX_EISDIR;
	dir_remove(dir, e);
	unlinked(ip);
	return 0;
}

static int ram_rmdir(struct inode *dir, const char *name)
{
	size_t len = strlen(name);
	if (len == 0)
		return -LX_EBUSY;       /* the root */
	if (len == 1 && name[0] == '.')
		return -LX_EINVAL;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return -LX_ENOTEMPTY;
	struct dentry *e;
	int r = find_entry(dir, name, &e);
	if (r < 0)
		return r;
	struct inode *ip = e->ip;
	if (!LX_S_ISDIR(ip->mode))
		return -LX_ENOTDIR;
	if (ip->nentries)
		return -LX_ENOTEMPTY;
	dir_remove(dir, e);
	dir_unlinked(ip, dir);
	return 0;
}

/* Whether d is a or lies below a. */
static bool below(struct inode *d, struct inode *a)
{
	for (; d; d = d->parent)
		if (d == a)
			return true;
	return false;
}

/* The checks of a rename of src over dst (NULL if the new name is free). */
static int rename_check(struct inode *src, struct inode *dst, struct inode *ndir)
{
	bool sdir = LX_S_ISDIR(src->mode);
	if (sdir && below(ndir, src))
		return -LX_EINVAL;
	if (!dst)
		return 0;
	if (sdir && !LX_S_ISDIR(dst->mode))
		return -LX_ENOTDIR;
	if (!sdir && LX_S_ISDIR(dst->mode))
		return -LX_EISDIR;
	if (sdir) {
		if (dst->nentries)
			return -LX_ENOTEMPTY;
	}
	return 0;
}

static int ram_rename(struct inode *odir, const char *oname, struct inode *ndir, const char *nname)
{
	size_t olen = strlen(oname), nlen = strlen(nname);
	if (!LX_S_ISDIR(ndir->mode))
		return -LX_ENOTDIR;
	if (olen == 0 || nlen == 0 || is_dot(oname, olen) || is_dot(nname, nlen))
		return olen && nlen ? -LX_EBUSY : -LX_ENOENT;
	if (nlen > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	if (ndir->nlink == 0)
		return -LX_ENOENT;
	struct dentry *se, *de = NULL;
	int r = find_entry(odir, oname, &se);
	if (r < 0)
		return r;
	de = dir_find(ndir, nname, nlen);
	struct inode *src = se->ip, *dst = de ? de->ip : NULL;
	if (src == dst)
		return 0;       /* the same file under both names: nothing to do */
	if ((r = rename_check(src, dst, ndir)) < 0)
		return r;
	if (!dst) {             /* allocate first: from here on nothing fails */
		char *n = name_dup(nname, nlen);
		if (!n || dir_reserve(ndir) < 0) {
			lx_free(n);
			return -LX_ENOMEM;
		}
		dir_add(ndir, n, src);
	} else {
		de->ip = src;   /* the new name points to src at once: atomic */
		touch(ndir);
	}
	dir_remove(odir, dir_find(odir, oname, olen));  /* ndir's array may have moved */
	stamp(&src->ctime);
	if (LX_S_ISDIR(src->mode) && odir != ndir) {
		odir->nlink--;
		ndir->nlink++;
		src->parent = ndir;
	}
	if (dst && LX_S_ISDIR(dst->mode))
		dir_unlinked(dst, ndir);
	else if (dst)
		unlinked(dst);
	return 0;
}

static long ram_readlink(struct inode *ip, char *buf, size_t n)
{
	if (!LX_S_ISLNK(ip->mode))
		return -LX_EINVAL;
	size_t len = strlen(ip->target);
	if (n > len)
		n = len;
	memcpy(buf, ip->target, n);
	return (long)n;
}

/* --- regular file data --- */

static int check_reg(struct inode *ip)
{
	if (LX_S_ISDIR(ip->mode))
		return -LX_EISDIR;
	return LX_S_ISREG(ip->mode) ? 0 : -LX_EINVAL;
}

/* Makes the block array cover page index idx (holes for the new slots). */
static int blocks_reserve(struct inode *ip, uint64_t idx)
{
	if (idx < ip->nblocks)
		return 0;
	uint64_t n = ip->nblocks ? ip->nblocks : 4;
	while (n <= idx)
		n *= 2;
	void **b = lx_realloc(ip->blocks, n * sizeof(*b));
	if (!b)
		return -LX_ENOMEM;
	memset(b + ip->nblocks, 0, (n - ip->nblocks) * sizeof(*b));
	ip->blocks = b;
	ip->nblocks = n;
	return 0;
}

/*
 * The page of index idx in *page, allocated (and charged) if missing: 0,
 * -ENOSPC when the commit limit leaves no page for files (tmpfs is full),
 * -ENOMEM when lx itself has no memory.
 */
static int block_get(struct inode *ip, uint64_t idx, char **page)
{
	if (blocks_reserve(ip, idx) < 0)
		return -LX_ENOMEM;
	if (!ip->blocks[idx]) {
		if (!mem_charge_file_page())
			return -LX_ENOSPC;
		if (!(ip->blocks[idx] = page_alloc())) {
			mem_uncharge_file_page();
			return -LX_ENOMEM;
		}
	}
	*page = ip->blocks[idx];
	return 0;
}

static long ram_read(struct inode *ip, uint64_t off, void *buf, size_t n)
{
	int r = check_reg(ip);
	if (r < 0)
		return r;
	if (off >= ip->size)
		return 0;
	if (n > ip->size - off)
		n = ip->size - off;
	for (size_t done = 0; done < n;) {
		uint64_t idx = (off + done) / LX_PAGE_SIZE, in = (off + done) % LX_PAGE_SIZE;
		size_t chunk = LX_PAGE_SIZE - in;
		if (chunk > n - done)
			chunk = n - done;
		void *page = idx < ip->nblocks ? ip->blocks[idx] : NULL;
		if (page)
			memcpy((char *)buf + done, (char *)page + in, chunk);
		else
			memset((char *)buf + done, 0, chunk);
		done += chunk;
	}
	return (long)n;
}

/* Writes what memory allows: a short count, or ENOSPC if not one byte fit (tmpfs full). */
static long ram_write(struct inode *ip, uint64_t off, const void *buf, size_t n)
{
	int r = check_reg(ip);
	if (r < 0)
		return r;
	if (off > FS_MAX_SIZE || n > FS_MAX_SIZE - off)
		return -LX_EFBIG;
	size_t done = 0;
	int err = 0;
	while (done < n) {
		uint64_t idx = (off + done) / LX_PAGE_SIZE, in = (off + done) % LX_PAGE_SIZE;
		size_t chunk = LX_PAGE_SIZE - in;
		if (chunk > n - done)
			chunk = n - done;
		char *page;
		if ((err = block_get(ip, idx, &page)))
			break;
		memcpy(page + in, (const char *)buf + done, chunk);
		done += chunk;
	}
	if (done == 0 && n > 0)
		return err;
	if (off + done > ip->size)
		ip->size = off + done;
	touch(ip);
	return (long)done;
}

/* Zeroes the tail of the page holding byte `size`, so a later growth reads zeros. */
static void zero_tail(struct inode *ip, uint64_t size)
{
	uint64_t idx = size / LX_PAGE_SIZE, in = size % LX_PAGE_SIZE;
	if (in && idx < ip->nblocks && ip->blocks[idx])
		memset((char *)ip->blocks[idx] + in, 0, LX_PAGE_SIZE - in);
}

static int ram_truncate(struct inode *ip, uint64_t size)
{
	int r = check_reg(ip);
	if (r < 0)
		return r;
	if (size > FS_MAX_SIZE)
		return -LX_EFBIG;
	zero_tail(ip, size < ip->size ? size : ip->size);
	free_pages_from(ip, (size + LX_PAGE_SIZE - 1) / LX_PAGE_SIZE);
	ip->size = size;
	touch(ip);
	return 0;
}

/* Frees the whole pages of [off, end) and zeroes the parts of pages at its ends. */
static void punch(struct inode *ip, uint64_t off, uint64_t end)
{
	while (off < end) {
		uint64_t idx = off / LX_PAGE_SIZE, in = off % LX_PAGE_SIZE;
		uint64_t chunk = LX_PAGE_SIZE - in < end - off ? LX_PAGE_SIZE - in : end - off;
		void *page = idx < ip->nblocks ? ip->blocks[idx] : NULL;
		if (page && chunk == LX_PAGE_SIZE) {
			page_free(page);
			mem_uncharge_file_page();
			ip->blocks[idx] = NULL;
		} else if (page) {
			memset((char *)page + in, 0, chunk);
		}
		off += chunk;
	}
}

/* fallocate: pages for [off, off + len) (ENOSPC when tmpfs is full), or a hole there. */
static int ram_allocate(struct inode *ip, int mode, uint64_t off, uint64_t len)
{
	int r = check_reg(ip);
	if (r < 0)
		return r;
	if (off > FS_MAX_SIZE || len > FS_MAX_SIZE - off)
		return -LX_EFBIG;
	uint64_t end = off + len;
	if (mode & LX_FALLOC_PUNCH_HOLE) {
		punch(ip, off, end < ip->size ? end : ip->size);
	} else {
		char *page;
		for (uint64_t idx = off / LX_PAGE_SIZE; idx * LX_PAGE_SIZE < end; idx++)
			if ((r = block_get(ip, idx, &page)) < 0)
				return r;
		if (!(mode & LX_FALLOC_KEEP_SIZE) && end > ip->size)
			ip->size = end;
	}
	touch(ip);
	return 0;
}

void *ram_page(struct inode *ip, uint64_t off, bool alloc)
{
	if (!LX_S_ISREG(ip->mode) || off >= ip->size)
		return NULL;
	uint64_t idx = off / LX_PAGE_SIZE;
	char *page;
	if (alloc)
		return block_get(ip, idx, &page) ? NULL : page;
	return idx < ip->nblocks ? ip->blocks[idx] : NULL;
}

/* --- listing, status, paths --- */

static uint8_t dtype(uint32_t mode)
{
	switch (mode & LX_S_IFMT) {
	case LX_S_IFIFO: return LX_DT_FIFO;
	case LX_S_IFCHR: return LX_DT_CHR;
	case LX_S_IFDIR: return LX_DT_DIR;
	case LX_S_IFBLK: return LX_DT_BLK;
	case LX_S_IFREG: return LX_DT_REG;
	case LX_S_IFLNK: return LX_DT_LNK;
	case LX_S_IFSOCK: return LX_DT_SOCK;
	}
	return LX_DT_UNKNOWN;
}

/* Puts one record at buf+at if it fits; returns its length or 0. */
static size_t put_dirent(void *buf, size_t at, size_t n, const struct inode *ip,
			 const char *name, int64_t next)
{
	size_t len = strlen(name);
	size_t rec = (offsetof(struct lx_dirent64, d_name) + len + 1 + 7) & ~7UL;
	if (at + rec > n)
		return 0;
	struct lx_dirent64 *d = (struct lx_dirent64 *)((char *)buf + at);
	memset(d, 0, rec);
	d->d_ino = ip->ino;
	d->d_off = next;
	d->d_reclen = (uint16_t)rec;
	d->d_type = dtype(ip->mode);
	memcpy(d->d_name, name, len);
	return rec;
}

/* The index of the first entry whose sequence number is at least seq. */
static uint64_t first_from(struct inode *dir, uint64_t seq)
{
	uint64_t lo = 0, hi = dir->nentries;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (dir->entries[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Positions: 0 is ".", 1 "..", seq + 2 the entry of that sequence number. */
static long ram_getdents(struct inode *dir, uint64_t *pos, void *buf, size_t n)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	if (dir->nlink == 0)
		return -LX_ENOENT;
	size_t at = 0, rec;
	if (*pos == 0) {
		if (!(rec = put_dirent(buf, at, n, dir, ".", 1)))
			return -LX_EINVAL;
		at += rec;
		*pos = 1;
	}
	if (*pos == 1) {
		struct inode *up = dir->parent ? dir->parent : dir;
		if (!(rec = put_dirent(buf, at, n, up, "..", 2)))
			return at ? (long)at : -LX_EINVAL;
		at += rec;
		*pos = 2;
	}
	for (uint64_t i = first_from(dir, *pos - 2); i < dir->nentries; i++) {
		struct dentry *e = &dir->entries[i];
		if (!(rec = put_dirent(buf, at, n, e->ip, e->name, (int64_t)e->seq + 3)))
			return at ? (long)at : -LX_EINVAL;
		at += rec;
		*pos = e->seq + 3;
	}
	return (long)at;
}

static uint64_t pages_held(const struct inode *ip)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < ip->nblocks; i++)
		n += ip->blocks[i] != NULL;
	return n;
}

static uint64_t ram_blocks(const struct inode *ip)
{
	return pages_held(ip) * (LX_PAGE_SIZE / 512);
}

/* One component of dir for the VFS's walk. */
static int ram_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	return dir_lookup(dir, name, len, out);
}

static void ram_evict(struct inode *ip)
{
	maybe_free(ip);
}

/* --- the tree --- */

static void destroy(struct inode *ip)
{
	for (uint64_t i = 0; i < ip->nentries; i++) {
		struct inode *c = ip->entries[i].ip;
		if (LX_S_ISDIR(c->mode))
			destroy(c);
		else if (--c->nlink == 0)
			inode_free(c);
	}
	inode_free(ip);
}

static void ram_kill(struct super *sb)
{
	if (sb->root)
		destroy(sb->root);
	sb->root = NULL;
}

static const struct fs_ops ramfs_ops = {
	.lookup = ram_lookup, .create = ram_create, .link = ram_link, .symlink = ram_symlink,
	.unlink = ram_unlink, .rmdir = ram_rmdir, .rename = ram_rename, .readlink = ram_readlink,
	.read = ram_read, .write = ram_write, .truncate = ram_truncate, .page = ram_page,
	.getdents = ram_getdents, .blocks = ram_blocks, .evict = ram_evict, .kill = ram_kill,
	.allocate = ram_allocate,
};

struct super *ramfs_new(const char *type)
{
	struct super *sb = vfs_super_new(&ramfs_ops, type);
	if (!sb)
		return NULL;
	sb->root = inode_new(sb, LX_S_IFDIR | 0755);
	if (!sb->root) {
		lx_free(sb);
		return NULL;
	}
	sb->root->nlink = 2;
	fs_get(sb->root);       /* the mount's */
	return sb;
}

struct super *tmpfs_new(void)
{
	struct super *sb = ramfs_new("tmpfs");
	if (sb)
		sb->root->mode = LX_S_IFDIR | 01777;
	return sb;
}

void fs_init(void)
{
	struct super *sb = ramfs_new("ramfs");
	if (sb)
		vfs_mount_root(sb);
}

void fs_destroy(void)
{
	vfs_destroy();
}

/* --- the cpio (newc) archive --- */

struct cpio_hdr {
	uint64_t ino, mode, uid, gid, nlink, mtime, filesize;
	uint64_t devmajor, devminor, rdevmajor, rdevminor, namesize;
};

#define CPIO_HDR_LEN 110

/* The regular files with more than one link, by archive inode, until all are in. */
struct cpio_links {
	struct { uint64_t ino, dev; struct inode *ip; } *v;
	size_t n;
};

static int hex8(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -LX_EINVAL;
		v = v * 16 + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int parse_hdr(const char *p, struct cpio_hdr *h)
{
	if (memcmp(p, "07070", 5) != 0 || (p[5] != '1' && p[5] != '2'))
		return -LX_EINVAL;
	uint64_t *f[] = {&h->ino, &h->mode, &h->uid, &h->gid, &h->nlink, &h->mtime,
			 &h->filesize, &h->devmajor, &h->devminor, &h->rdevmajor,
			 &h->rdevminor, &h->namesize};
	for (unsigned i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (hex8(p + 6 + 8 * i, f[i]) < 0)
			return -LX_EINVAL;
	return 0;
}

/* Linux's encoding of a device number (new_encode_dev). */
static uint64_t encode_dev(uint64_t major, uint64_t minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffULL) << 12);
}

/* The next component of *path (advanced past it and its slashes); 0 at the end. */
static size_t next_component(const char **path)
{
	const char *p = *path;
	while (*p == '/')
		p++;
	size_t len = 0;
	while (p[len] && p[len] != '/')
		len++;
	*path = p;
	return len;
}

/* The directory holding name's last component, made as needed; *last gets that component. */
static int cpio_parent(const char *name, struct inode **dir, const char **last)
{
	struct inode *d = fs_root();
	fs_get(d);
	const char *p = name;
	for (size_t len = next_component(&p);; len = next_component(&p)) {
		const char *rest = p + len;
		while (*rest == '/')
			rest++;
		if (*rest == 0) {
			*dir = d;
			*last = p;
			return 0;
		}
		struct inode *sub;
		int r = dir_lookup(d, p, len, &sub);
		if (r == -LX_ENOENT) {
			char *n = name_dup(p, len);
			r = n ? ram_create(d, n, LX_S_IFDIR | 0755, 0, &sub) : -LX_ENOMEM;
			lx_free(n);
		}
		fs_put(d);
		if (r < 0)
			return r;
		if (!LX_S_ISDIR(sub->mode)) {
			fs_put(sub);
			return -LX_EINVAL;
		}
		d = sub;
		p = rest;
	}
}

static void set_attrs(struct inode *ip, const struct cpio_hdr *h)
{
	ip->mode = (ip->mode & LX_S_IFMT) | (uint32_t)(h->mode & ~LX_S_IFMT & 07777);
	ip->uid = (uint32_t)h->uid;
	ip->gid = (uint32_t)h->gid;
	ip->mtime.tv_sec = (int64_t)h->mtime;
	ip->mtime.tv_nsec = 0;
	ip->atime = ip->ctime = ip->mtime;
}

/*
 * Removes what an archive entry replaces (a later entry wins, as cpio -i
 * does); returns 1 when the entry is a directory that already exists, which
 * keeps what is in it and only takes the entry's attributes.
 */
static int cpio_clear(struct inode *dir, const char *name, const struct cpio_hdr *h)
{
	struct inode *old;
	if (dir_lookup(dir, name, strlen(name), &old) < 0)
		return 0;
	bool old_dir = LX_S_ISDIR(old->mode);
	if (old_dir && LX_S_ISDIR(h->mode))
		set_attrs(old, h);
	fs_put(old);
	if (old_dir && LX_S_ISDIR(h->mode))
		return 1;
	return old_dir ? ram_rmdir(dir, name) : ram_unlink(dir, name);
}

static struct inode **link_slot(struct cpio_links *lk, const struct cpio_hdr *h)
{
	uint64_t dev = encode_dev(h->devmajor, h->devminor);
	for (size_t i = 0; i < lk->n; i++)
		if (lk->v[i].ino == h->ino && lk->v[i].dev == dev)
			return &lk->v[i].ip;
	void *v = lx_realloc(lk->v, (lk->n + 1) * sizeof(*lk->v));
	if (!v)
		return NULL;
	lk->v = v;
	lk->v[lk->n].ino = h->ino;
	lk->v[lk->n].dev = dev;
	lk->v[lk->n].ip = NULL;
	return &lk->v[lk->n++].ip;
}

/* A regular file: a new inode, or another name of one seen before. */
static int cpio_file(struct inode *dir, const char *name, const struct cpio_hdr *h,
		     const char *data, struct cpio_links *lk)
{
	struct inode **slot = NULL, *ip;
	int r;
	if (h->nlink > 1 && !(slot = link_slot(lk, h)))
		return -LX_ENOMEM;
	if (slot && *slot) {
		ip = *slot;
		fs_get(ip);
		if ((r = ram_link(dir, name, ip)) < 0)
			fs_put(ip);
	} else {
		r = ram_create(dir, name, LX_S_IFREG, 0, &ip);
	}
	if (r < 0)
		return r;
	if (slot && !*slot) {
		*slot = ip;
		fs_get(ip);
	}
	if (h->filesize) {
		ram_truncate(ip, 0);
		long w = ram_write(ip, 0, data, h->filesize);
		r = w == (long)h->filesize ? 0 : -LX_ENOMEM;
	}
	set_attrs(ip, h);
	fs_put(ip);
	return r;
}

/* A new node for an archive entry (the name is free). */
static int cpio_node(struct inode *dir, const char *name, const struct cpio_hdr *h,
		     const char *data, struct cpio_links *lk)
{
	uint32_t mode = (uint32_t)h->mode;
	struct inode *ip;
	int r;
	if (LX_S_ISREG(mode))
		return cpio_file(dir, name, h, data, lk);
	if (LX_S_ISLNK(mode))
		r = symlink_len(dir, name, data, h->filesize, &ip);
	else if (mode & LX_S_IFMT)
		r = ram_create(dir, name, mode & LX_S_IFMT, encode_dev(h->rdevmajor, h->rdevminor), &ip);
	else
		return -LX_EINVAL;      /* no file type */
	if (r == 0) {
		set_attrs(ip, h);
		fs_put(ip);
	}
	return r;
}

static int cpio_entry(const char *name, const struct cpio_hdr *h, const char *data,
		      struct cpio_links *lk)
{
	uint32_t mode = (uint32_t)h->mode;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	while (name[0] == '/')
		name++;
	if (name[0] == 0 || (name[0] == '.' && name[1] == 0)) {
		if (LX_S_ISDIR(mode))
			set_attrs(fs_root(), h);
		return 0;
	}
	struct inode *dir;
	const char *last;
	int r = cpio_parent(name, &dir, &last);
	if (r < 0)
		return r;
	char *n = name_dup(last, next_component(&last));
	if (!n)
		r = -LX_ENOMEM;
	else if (is_dot(n, strlen(n)))
		r = 0;          /* "a/." or "a/..": nothing to create */
	else if ((r = cpio_clear(dir, n, h)) == 0)
		r = cpio_node(dir, n, h, data, lk);
	lx_free(n);
	fs_put(dir);
	return r < 0 ? r : 0;
}

static size_t align4(size_t x)
{
	return (x + 3) & ~3UL;
}

int fs_load_cpio(const void *archive, size_t len)
{
	const char *a = archive;
	struct cpio_links lk = {NULL, 0};
	size_t at = 0;
	int r = -LX_EINVAL;     /* an archive without a trailer was cut short */
	while (len - at >= CPIO_HDR_LEN) {
		struct cpio_hdr h;
		if (parse_hdr(a + at, &h) < 0)
			break;
		size_t name = at + CPIO_HDR_LEN, data = align4(name + h.namesize);
		if (h.namesize == 0 || h.namesize > len - name || a[name + h.namesize - 1] != 0)
			break;
		if (strcmp(a + name, "TRAILER!!!") == 0) {
			r = 0;          /* the padding after it may be missing */
			break;
		}
		if (data > len || h.filesize > len - data)
			break;
		if (h.namesize > LX_PATH_MAX || (LX_S_ISLNK(h.mode) && h.filesize >= LX_PATH_MAX)) {
			r = -LX_ENAMETOOLONG;
			break;
		}
		if ((r = cpio_entry(a + name, &h, a + data, &lk)) < 0)
			break;
		r = -LX_EINVAL;
		at = align4(data + h.filesize);
		if (at > len)
			break;
	}
	for (size_t i = 0; i < lk.n; i++)
		fs_put(lk.v[i].ip);
	lx_free(lk.v);
	return r;
}
