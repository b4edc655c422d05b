/* SPDX-License-Identifier: MIT */
/*
 * Files over objects, for programs written the UNIX way (docs/mungi.md):
 * open, read, write, lseek, close and unlink on names in a directory
 * object.  An open file is the caller's struct mfile, which holds the
 * current position.  Errors are MUNGI_E* codes (negative from read, write,
 * lseek).  A file is an object of MFS_FILE_PAGES pages, allocated as they
 * are touched; it cannot grow past them (objects have neighbours).
 */
#ifndef MUNGI_FILE_H
#define MUNGI_FILE_H

#include "mungi.h"

#define MFS_NAME        48
#define MFS_FILE_PAGES  256
#define MFS_DIR_MAGIC   0x726944736674754dUL    /* "MutfsDir" */
#define MFS_FILE_MAGIC  0x656c6946736674UL      /* "tfsFile" */

/* open flags and lseek whence, with Linux's values */
#define MFS_O_RDONLY    0
#define MFS_O_WRONLY    1
#define MFS_O_RDWR      2
#define MFS_O_CREAT     0x40
#define MFS_O_TRUNC     0x200
#define MFS_O_APPEND    0x400
#define MFS_SEEK_SET    0
#define MFS_SEEK_CUR    1
#define MFS_SEEK_END    2

struct mfs_dirent {
	char name[MFS_NAME];
	struct mungi_cap cap;
};

struct mfs_dir {
	mw_t magic, count, capacity, reserved[5];
	struct mfs_dirent e[];
};

struct mfile {
	mw_t obj, pos, flags, max;
};

/* A new directory object of pages; its owner capability in *dir (and in our Clist). */
mw_t mfs_mkdir(mw_t pages, struct mungi_cap *dir);
mw_t mfs_open(struct mfile *f, mw_t dir, const char *name, int flags);
long mfs_read(struct mfile *f, void *buf, mw_t n);
long mfs_write(struct mfile *f, const void *buf, mw_t n);
long mfs_lseek(struct mfile *f, long off, int whence);
mw_t mfs_close(struct mfile *f);
mw_t mfs_unlink(mw_t dir, const char *name);

#endif
