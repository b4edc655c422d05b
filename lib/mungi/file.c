// SPDX-License-Identifier: MIT
// The UNIX way over objects (seed 002, "Legacy software"): a file is an
// object (a header, then the data) named in a directory object; open finds
// the name and puts the file's capability into the task's own Clist, and
// read, write and lseek copy straight between the object and the caller's
// buffer, with no buffering in between.
#include "file.h"
#include "../c/string.h"
#include <stdbool.h>

#define HEAD 64                 /* the file's header: magic and size, then the data */

struct file_head { mw_t magic, size; };

static struct mfs_dir *dir_at(mw_t d) { return (struct mfs_dir *)d; }
static struct file_head *head(mw_t obj) { return (struct file_head *)obj; }

mw_t mfs_mkdir(mw_t pages, struct mungi_cap *dir)
{
	mw_t base = mungi_new(pages, dir);
	if (!base)
		return MUNGI_ENOMEM;
	dir_at(base)->magic = MFS_DIR_MAGIC;
	dir_at(base)->count = 0;
	dir_at(base)->capacity = (pages * 4096 - sizeof(struct mfs_dir)) / sizeof(struct mfs_dirent);
	return 0;
}

static bool same(const char *a, const char *b)
{
	for (int i = 0; i < MFS_NAME; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

static struct mfs_dirent *lookup(mw_t dir, const char *name)
{
	struct mfs_dir *d = dir_at(dir);
	for (mw_t i = 0; d->magic == MFS_DIR_MAGIC && i < d->count && i < d->capacity; i++)
		if (same(d->e[i].name, name))
			return &d->e[i];
	return NULL;
}

/* Make the file's capability ours (it names the object; the APD must hold it to touch it). */
static mw_t attach(const struct mungi_cap *cap)
{
	mw_t base, pages, rights;
	if (!mungi_obj_info(cap->base, &base, &pages, &rights))
		return 0;               /* we can reach it already */
	mw_t clist = mungi_own_clist();
	return clist ? mungi_clist_add(clist, cap) : MUNGI_EIPC;
}

static mw_t create(mw_t dir, const char *name, struct mungi_cap *cap)
{
	struct mfs_dir *d = dir_at(dir);
	if (strlen(name) >= MFS_NAME)
		return MUNGI_EINVAL;
	if (d->count >= d->capacity)
		return MUNGI_ENOMEM;
	if (!mungi_new(MFS_FILE_PAGES, cap))
		return MUNGI_ENOMEM;
	head(cap->base)->magic = MFS_FILE_MAGIC;
	head(cap->base)->size = 0;
	struct mfs_dirent *e = &d->e[d->count];
	memset(e->name, 0, MFS_NAME);
	memcpy(e->name, name, strlen(name));
	e->cap = *cap;
	d->count++;
	return 0;
}

mw_t mfs_open(struct mfile *f, mw_t dir, const char *name, int flags)
{
	struct mfs_dirent *e = lookup(dir, name);
	struct mungi_cap cap;
	mw_t err;
	if (e) {
		cap = e->cap;
		if ((err = attach(&cap)))
			return err;
	} else if (flags & MFS_O_CREAT) {
		if ((err = create(dir, name, &cap)))
			return err;
	} else {
		return MUNGI_ENOENT;
	}
	if (head(cap.base)->magic != MFS_FILE_MAGIC)
		return MUNGI_EINVAL;
	if (flags & MFS_O_TRUNC)
		head(cap.base)->size = 0;
	f->obj = cap.base;
	f->flags = (mw_t)flags;
	f->pos = flags & MFS_O_APPEND ? head(cap.base)->size : 0;
	f->max = MFS_FILE_PAGES * 4096 - HEAD;
	return 0;
}

long mfs_read(struct mfile *f, void *buf, mw_t n)
{
	mw_t size = head(f->obj)->size;
	if ((f->flags & 3) == MFS_O_WRONLY)
		return -MUNGI_EPERM;
	if (f->pos >= size)
		return 0;
	if (n > size - f->pos)
		n = size - f->pos;
	memcpy(buf, (const char *)f->obj + HEAD + f->pos, n);
	f->pos += n;
	return (long)n;
}

long mfs_write(struct mfile *f, const void *buf, mw_t n)
{
	if ((f->flags & 3) == MFS_O_RDONLY)
		return -MUNGI_EPERM;
	if (f->flags & MFS_O_APPEND)
		f->pos = head(f->obj)->size;
	if (f->pos >= f->max)
		return -MUNGI_ENOMEM;   /* the object cannot grow past its end */
	if (n > f->max - f->pos)
		n = f->max - f->pos;
	memcpy((char *)f->obj + HEAD + f->pos, buf, n);
	f->pos += n;
	if (f->pos > head(f->obj)->size)
		head(f->obj)->size = f->pos;
	return (long)n;
}

long mfs_lseek(struct mfile *f, long off, int whence)
{
	long base = whence == MFS_SEEK_SET ? 0 : whence == MFS_SEEK_CUR ? (long)f->pos :
		    whence == MFS_SEEK_END ? (long)head(f->obj)->size : -1;
	if (base < 0 || base + off < 0)
		return -MUNGI_EINVAL;
	f->pos = (mw_t)(base + off);
	return (long)f->pos;
}

mw_t mfs_close(struct mfile *f)
{
	f->obj = 0;
	return 0;
}

mw_t mfs_unlink(mw_t dir, const char *name)
{
	struct mfs_dirent *e = lookup(dir, name);
	if (!e)
		return MUNGI_ENOENT;
	mw_t err = mungi_free(e->cap.base);
	if (err)
		return err;
	struct mfs_dir *d = dir_at(dir);
	*e = d->e[--d->count];
	return 0;
}
