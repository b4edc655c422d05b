/* SPDX-License-Identifier: MIT */
/*
 * lx's in-memory file system: inodes with page-sized data blocks, filled at
 * boot from a cpio (newc) archive.  Pure data structures, no L4: the host
 * tests (tests/host/test_lxfs.c) run it against the host's heap.
 *
 * Every call that can fail returns a negative Linux errno (linux.h).
 * Inodes are reference counted: lookups return a reference the caller drops
 * with fs_put; an inode is freed when it has neither links nor references
 * (an unlinked file stays readable through open descriptors).
 */
#ifndef LX_FS_H
#define LX_FS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "../linux.h"

struct inode;
struct dentry;

/* Hooks for synthetic nodes (/proc, devices): set by lx on inodes it creates. */
struct inode_ops {
	/* a directory: called before every lookup in it and every getdents of it */
	void (*refresh)(struct inode *dir);
};

struct inode {
	uint64_t ino;
	uint32_t mode;                  /* LX_S_IF* | permissions */
	uint32_t nlink;
	uint32_t uid, gid;
	uint64_t rdev;                  /* device number of LX_S_IFCHR nodes */
	uint64_t size;
	struct lx_timespec atime, mtime, ctime;
	uint32_t refs;
	const struct inode_ops *ops;    /* NULL for ordinary nodes */
	void *priv;                     /* lx's: a pipe, a socket, a /proc generator */
	/* the rest belongs to fs/ramfs.c */
	struct inode *parent;           /* directories: ".." */
	struct dentry *entries;         /* directories */
	uint64_t nentries;
	void **blocks;                  /* regular files: data pages, NULL = hole */
	uint8_t *block_ro;              /* 1: the page lies in the archive, copy before writing */
	uint64_t nblocks;
	char *target;                   /* symbolic links */
};

/* Lookup flags */
#define FS_FOLLOW    1      /* follow a symbolic link in the last component */
#define FS_DIRECTORY 2      /* the result must be a directory (a trailing '/' implies it) */

/* The clock fs stamps times with (lx sets it; the host tests leave 0). */
extern void (*fs_now)(struct lx_timespec *ts);

void fs_init(void);                         /* the empty root directory */
/* Frees the whole tree; no reference may be used afterwards (host tests' leak checks). */
void fs_destroy(void);
struct inode *fs_root(void);                /* no reference taken */
int fs_load_cpio(const void *archive, size_t len);

/* A regular file with no name (System V shared memory): freed with its last reference. */
struct inode *fs_new_unnamed(uint32_t mode);

void fs_get(struct inode *ip);
void fs_put(struct inode *ip);

/* Resolve path (absolute, or relative to cwd); *out gets a reference. */
int fs_lookup(struct inode *cwd, const char *path, int flags, struct inode **out);
/*
 * Resolve all but the last component: *dir gets a reference and `last`
 * the final name (empty for "/"; "." and ".." are returned as they are).
 */
int fs_lookup_parent(struct inode *cwd, const char *path, struct inode **dir,
		     char last[LX_NAME_MAX + 1]);

/* Directory operations on a parent and a name (one component). */
int fs_create(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
	      struct inode **out);          /* mode has the type bits; EEXIST if the name exists */
int fs_dir_lookup(struct inode *dir, const char *name, struct inode **out);
int fs_link(struct inode *dir, const char *name, struct inode *target);
int fs_symlink(struct inode *dir, const char *name, const char *target);
int fs_unlink(struct inode *dir, const char *name);      /* not directories: EISDIR */
int fs_rmdir(struct inode *dir, const char *name);       /* ENOTEMPTY unless empty */
int fs_rename(struct inode *odir, const char *oname, struct inode *ndir, const char *nname);
long fs_readlink(struct inode *ip, char *buf, size_t n); /* not NUL-terminated, as Linux */

/* Regular file data. */
long fs_read(struct inode *ip, uint64_t off, void *buf, size_t n);
long fs_write(struct inode *ip, uint64_t off, const void *buf, size_t n);
int fs_truncate(struct inode *ip, uint64_t size);
/* The page holding byte off, allocated (zeroed) if `alloc`; NULL past EOF or without memory. */
void *fs_page(struct inode *ip, uint64_t off, bool alloc);

/* Directory listing: fills buf with lx_dirent64 records from *pos on; returns bytes or -errno. */
long fs_getdents(struct inode *dir, uint64_t *pos, void *buf, size_t n);

void fs_stat(const struct inode *ip, struct lx_stat *st);
/*
 * The path of a directory from the root ("/" for the root), for getcwd:
 * its length without the NUL, -ERANGE if buf is too small, -ENOENT once removed.
 */
long fs_path(struct inode *dir, char *buf, size_t n);

#endif
