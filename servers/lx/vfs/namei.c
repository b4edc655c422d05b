// SPDX-License-Identifier: MIT
/*
 * The VFS (vfs/vfs.h): the mount table, the one path walk (symbolic links,
 * "..", mount points in both directions), and every fs_* call checked for
 * what all file systems share (permissions included: vfs/perm.c), then
 * dispatched through the inode's file-system operations.  Pure C: the host tests build it with fs/ramfs.c.
 */
#include "vfs.h"
#include "../mm/mm.h"
#include "../../../lib/c/string.h"

#define VFS_MAX_MOUNTS 64

void (*fs_now)(struct lx_timespec *ts);

static struct super *mounts[VFS_MAX_MOUNTS];   /* in mount order; [0] is "/" */
static int nmounts;
static uint64_t next_dev = 1;

/* --- the mount table --- */

struct super *vfs_super_new(const struct fs_ops *ops, const char *type)
{
	struct super *sb = lx_zalloc(sizeof(*sb));
	if (sb) {
		sb->ops = ops;
		sb->type = type;
		sb->dev = next_dev++;
	}
	return sb;
}

struct inode *fs_root(void)
{
	return nmounts ? mounts[0]->root : NULL;
}

void vfs_mount_root(struct super *sb)
{
	mounts[0] = sb;
	if (nmounts == 0)
		nmounts = 1;
}

int vfs_mount(const char *path, struct super *sb)
{
	struct inode *dir;
	int r = fs_lookup(fs_root(), path, FS_FOLLOW | FS_DIRECTORY, &dir);
	return r < 0 ? r : vfs_mount_at(dir, sb);
}

int vfs_mount_at(struct inode *dir, struct super *sb)
{
	if (nmounts == VFS_MAX_MOUNTS) {
		fs_put(dir);
		return -LX_ENOSPC;      /* Linux's answer past fs.mount-max */
	}
	dir->mounted = sb;              /* the walk ended below any earlier mount here */
	sb->covered = dir;              /* keeps the lookup's reference */
	mounts[nmounts++] = sb;
	return 0;
}

/* A file system out of the tree with nothing open in it: written back and freed. */
static void super_end(struct super *sb)
{
	if (sb->ops->sync)
		sb->ops->sync(sb);
	if (sb->ops->kill)
		sb->ops->kill(sb);
	lx_free(sb);
}

/* The references on sb's inodes beyond its root's mount reference and `pinned`. */
static bool super_busy(const struct super *sb, u32 pinned)
{
	return sb->irefs > 1 + pinned;
}

int vfs_umount_check(struct inode *ip, bool detach, u32 pinned)
{
	struct super *sb = ip->sb;
	if (ip != sb->root || vfs_mount_index(sb) < 0)
		return -LX_EINVAL;      /* not a mount point */
	if (!sb->covered)
		return -LX_EBUSY;       /* "/" */
	return !detach && super_busy(sb, pinned + 1) ? -LX_EBUSY : 0;     /* + the caller's */
}

/* sb leaves the tree: the directory it covered is free again. */
static void detach_one(struct super *sb)
{
	int i = vfs_mount_index(sb);
	memmove(&mounts[i], &mounts[i + 1], (size_t)(nmounts - i - 1) * sizeof(mounts[0]));
	nmounts--;
	struct inode *dir = sb->covered;
	dir->mounted = NULL;
	sb->covered = NULL;
	sb->detached = true;
	fs_put(dir);
}

/* sb and every mount below it leave the tree, children first. */
static void detach_tree(struct super *sb)
{
	for (int i = nmounts - 1; i > 0; i--)
		if (mounts[i]->covered && mounts[i]->covered->sb == sb) {
			detach_tree(mounts[i]);
			i = nmounts;    /* the table moved */
		}
	detach_one(sb);
	if (!super_busy(sb, 0))
		super_end(sb);
}

void vfs_umount(struct super *sb)
{
	detach_tree(sb);
}

struct super *vfs_mount_nth(int i)
{
	return i >= 0 && i < nmounts ? mounts[i] : NULL;
}

int vfs_mount_index(const struct super *sb)
{
	for (int i = 0; i < nmounts; i++)
		if (mounts[i] == sb)
			return i;
	return -1;
}

void vfs_destroy(void)
{
	while (nmounts > 0) {
		struct super *sb = mounts[--nmounts];
		if (sb->ops->kill)
			sb->ops->kill(sb);
		lx_free(sb);
	}
	next_dev = 1;
}

int vfs_sync(void)
{
	int err = 0;
	for (int i = 0; i < nmounts; i++)
		if (mounts[i]->ops->sync) {
			int r = mounts[i]->ops->sync(mounts[i]);
			err = err ? err : r;
		}
	return err;
}

/* --- references --- */

void fs_get(struct inode *ip)
{
	ip->refs++;
	ip->sb->irefs++;
}

/* The last reference to a detached file system's inodes other than its root's ends it. */
void fs_put(struct inode *ip)
{
	if (!ip)
		return;
	struct super *sb = ip->sb;
	sb->irefs--;
	if (--ip->refs == 0 && sb->ops->evict)
		sb->ops->evict(ip);
	if (__builtin_expect(sb->detached, 0) && !super_busy(sb, 0))
		super_end(sb);
}

/* --- the path walk --- */

static size_t bounded_len(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

struct inode *vfs_walk_root;
int vfs_walk_resolve;
struct inode *vfs_walk_scope;

/* Where "/" is for the walk: RESOLVE_IN_ROOT's directory, the calling process's root
 * (chroot), else the file system's. */
static struct inode *walk_root(void)
{
	if (vfs_walk_resolve & LX_RESOLVE_IN_ROOT)
		return vfs_walk_scope;
	return vfs_walk_root ? vfs_walk_root : fs_root();
}

/* The directory a mounted root stands for in its parent file system (none for "/"). */
static struct inode *mounted_on(struct inode *d)
{
	while (d == d->sb->root && d->sb->covered)
		d = d->sb->covered;
	return d;
}

/* ip (a reference) replaced by the root of what is mounted on it, if anything. */
static struct inode *cross_down(struct inode *ip)
{
	while (ip->mounted) {
		struct inode *r = ip->mounted->root;
		fs_get(r);
		fs_put(ip);
		ip = r;
	}
	return ip;
}

/* One component of dir, "." and ".." included; a reference in *out. */
static int step(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	int r = fs_permission(dir, FS_MAY_EXEC);        /* search permission */
	if (r < 0)
		return r;
	if (len > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	if (dir->nlink == 0)
		return -LX_ENOENT;      /* removed: not even "." resolves, as in Linux */
	if (len == 2 && name[0] == '.' && name[1] == '.') {
		if (dir == walk_root()) {       /* the process's root: its ".." is itself */
			fs_get(dir);
			*out = dir;
			return 0;
		}
		dir = mounted_on(dir);
		if (dir == dir->sb->root) {     /* "/": its ".." is itself */
			fs_get(dir);
			*out = dir;
			return 0;
		}
	}
	r = dir->sb->ops->lookup(dir, name, len, out);
	if (r == 0 && !(len <= 2 && name[0] == '.' && (len == 1 || name[1] == '.')))
		*out = cross_down(*out);
	return r;
}

static int resolve(struct inode *cwd, const char *path, size_t len, int flags,
		   int *links, struct inode **out, struct fs_name *where);

void fs_name_drop(struct fs_name *w)
{
	if (w && w->dir) {
		fs_put(w->dir);
		w->dir = NULL;
	}
}

/* The walk reached name in dir as its last component (so far); a name too
 * long is not kept (the step to it fails with ENAMETOOLONG). */
static void record(struct fs_name *w, struct inode *dir, const char *name, size_t len)
{
	if (!w || len > LX_NAME_MAX)
		return;
	fs_name_drop(w);
	fs_get(dir);
	w->dir = dir;
	memcpy(w->name, name, len);
	w->name[len] = 0;
}

/* The final name the walk just recorded is missing (FS_CREATE). */
static void mark_missing(struct fs_name *w)
{
	if (w && w->dir)
		w->missing = true;
}

/*
 * FS_CREATE's final "name/" (of the path or a final link's target): Linux's
 * open(O_CREAT) refuses it with EISDIR once it may search dir, before the
 * name is looked up or a link followed.
 */
static int create_slash(struct inode *dir)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	int r = fs_permission(dir, FS_MAY_EXEC);
	return r < 0 ? r : -LX_EISDIR;
}

/*
 * openat2's restrictions (vfs_walk_resolve), as Linux's walk applies them:
 * RESOLVE_BENEATH refuses "/" (a path's or a link's) and ".." out of its
 * directory; RESOLVE_NO_XDEV any change of mount but a path's leading "/";
 * magic links (procfs's jump) give ELOOP under RESOLVE_NO_MAGICLINKS and
 * EXDEV to the scoped walks (BENEATH, IN_ROOT), as Linux's nd_jump_link.
 */
static int may_jump_root(const struct inode *from, int links)
{
	if (vfs_walk_resolve & LX_RESOLVE_BENEATH)
		return -LX_EXDEV;
	if ((vfs_walk_resolve & LX_RESOLVE_NO_XDEV) && links && from->sb != walk_root()->sb)
		return -LX_EXDEV;
	return 0;
}

static int may_go_up(struct inode *cur, const char *name, size_t len)
{
	bool dotdot = len == 2 && name[0] == '.' && name[1] == '.';
	if (dotdot && (vfs_walk_resolve & LX_RESOLVE_BENEATH) &&
	    mounted_on(cur) == mounted_on(vfs_walk_scope))
		return -LX_EXDEV;
	return 0;
}

static int may_cross(const struct inode *from, const struct inode *to)
{
	return (vfs_walk_resolve & LX_RESOLVE_NO_XDEV) && from->sb != to->sb ? -LX_EXDEV : 0;
}

static int may_jump_magic(const struct inode *dir, const struct inode *to)
{
	if (vfs_walk_resolve & LX_RESOLVE_NO_MAGICLINKS)
		return -LX_ELOOP;
	int r = may_cross(dir, to);
	return r ? r : vfs_walk_resolve & (LX_RESOLVE_BENEATH | LX_RESOLVE_IN_ROOT) ? -LX_EXDEV : 0;
}

/* A magic link's object (the file system's jump), or -LX_ENOSYS for a path. */
static int jump(struct inode *dir, struct inode **ip, struct fs_name *where)
{
	const struct fs_ops *o = (*ip)->sb->ops;
	struct inode *to;
	int r = o->jump ? o->jump(*ip, &to, where) : -LX_ENOSYS;
	if (r < 0)
		return r;
	fs_put(*ip);
	*ip = to;
	return may_jump_magic(dir, to);
}

/* Replaces *ip, a symbolic link found in dir, by what it points to. */
static int follow(struct inode *dir, struct inode **ip, int flags, int *links,
		  struct fs_name *where)
{
	if (vfs_walk_resolve & LX_RESOLVE_NO_SYMLINKS)
		return -LX_ELOOP;
	if (++*links > LX_SYMLOOP_MAX)
		return -LX_ELOOP;
	int r = jump(dir, ip, where);
	if (r != -LX_ENOSYS)
		return r;
	char *target = page_alloc();    /* LX_PATH_MAX: a page (not lx_malloc's page runs) */
	if (!target)
		return -LX_ENOMEM;
	long n = fs_readlink(*ip, target, LX_PATH_MAX - 1);
	struct inode *to;
	r = n < 0 ? (int)n : resolve(dir, target, (size_t)n, flags, links, &to, where);
	page_free(target);
	if (r < 0)
		return r;
	fs_put(*ip);
	*ip = to;
	return 0;
}

/* Resolves path[0..len) from cwd (or the root); *links counts the links followed. */
static int resolve(struct inode *cwd, const char *path, size_t len, int flags,
		   int *links, struct inode **out, struct fs_name *where)
{
	if (len == 0)
		return -LX_ENOENT;
	int r = path[0] == '/' ? may_jump_root(cwd, *links) : 0;
	if (r < 0)
		return r;
	struct inode *cur = path[0] == '/' ? walk_root() : cwd;
	bool want_dir = flags & FS_DIRECTORY;
	size_t i = 0;
	fs_get(cur);
	for (;;) {
		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && path[i] != '/')
			i++;
		size_t j = i;
		while (j < len && path[j] == '/')
			j++;
		bool last = j == len, slash = i < len;
		struct inode *next;
		if (last)
			record(where, cur, path + start, i - start);
		r = may_go_up(cur, path + start, i - start);
		if (r == 0 && last && slash && (flags & FS_CREATE))
			r = create_slash(cur);
		else if (r == 0 && (r = step(cur, path + start, i - start, &next)) == 0 &&
			 (r = may_cross(cur, next)) < 0)
			fs_put(next);
		if (r == -LX_ENOENT && last && (flags & FS_CREATE))
			mark_missing(where);
		if (r == 0 && LX_S_ISLNK(next->mode) && (!last || slash || (flags & FS_FOLLOW))) {
			/* a final link's target is the final name: O_CREAT may make it */
			r = follow(cur, &next, FS_FOLLOW | (last ? flags & FS_CREATE : 0), links, where);
			if (r < 0)
				fs_put(next);
		}
		fs_put(cur);
		if (r < 0)
			return r;
		cur = next;
		if (last && slash)
			want_dir = true;        /* "name/" must be a directory */
	}
	if (want_dir && !LX_S_ISDIR(cur->mode)) {
		fs_put(cur);
		return -LX_ENOTDIR;
	}
	*out = cur;
	return 0;
}

int fs_lookup(struct inode *cwd, const char *path, int flags, struct inode **out)
{
	size_t len = bounded_len(path, LX_PATH_MAX);
	if (len >= LX_PATH_MAX)
		return -LX_ENAMETOOLONG;
	int links = 0;
	return resolve(cwd, path, len, flags, &links, out, NULL);
}

int fs_lookup_named(struct inode *cwd, const char *path, int flags, struct inode **out,
		    struct fs_name *where)
{
	size_t len = bounded_len(path, LX_PATH_MAX);
	int links = 0;
	where->dir = NULL;
	where->missing = false;
	int r = len >= LX_PATH_MAX ? -LX_ENAMETOOLONG :
		resolve(cwd, path, len, flags, &links, out, where);
	if (r == -LX_ENOENT && where->missing)
		return r;               /* FS_CREATE's: where is the name to make */
	if (r < 0 || LX_S_ISDIR((*out)->mode))
		fs_name_drop(where);
	return r;
}

int fs_lookup_parent(struct inode *cwd, const char *path, struct inode **dir,
		     char last[LX_NAME_MAX + 1])
{
	size_t len = bounded_len(path, LX_PATH_MAX);
	if (len >= LX_PATH_MAX)
		return -LX_ENAMETOOLONG;
	if (len == 0)
		return -LX_ENOENT;
	size_t end = len;
	while (end > 0 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (end - start > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	struct inode *d;
	if (start == 0) {
		d = end == 0 ? walk_root() : cwd;    /* "/" (only slashes) or a name alone */
		if (!LX_S_ISDIR(d->mode))
			return -LX_ENOTDIR;
		fs_get(d);
	} else {
		int links = 0;
		int r = resolve(cwd, path, start, FS_FOLLOW | FS_DIRECTORY, &links, &d, NULL);
		if (r < 0)
			return r;
	}
	if (end > 0 && fs_permission(d, FS_MAY_EXEC) < 0) {    /* the last name is looked up in d */
		fs_put(d);
		return -LX_EACCES;
	}
	memcpy(last, path + start, end - start);
	last[end - start] = 0;
	*dir = d;
	return 0;
}

int fs_dir_lookup(struct inode *dir, const char *name, struct inode **out)
{
	return step(dir, name, strlen(name), out);
}

/* --- names: shared checks, then the file system --- */

/* Is name in dir a mount point (or the root of the file system dir is)? */
static bool busy(struct inode *dir, const char *name)
{
	struct inode *ip;
	size_t len = strlen(name);
	if (len == 0 || len > LX_NAME_MAX || !LX_S_ISDIR(dir->mode) ||
	    (len <= 2 && name[0] == '.' && (len == 1 || name[1] == '.')) ||
	    dir->sb->ops->lookup(dir, name, len, &ip) < 0)
		return false;
	bool b = ip->mounted != NULL;
	fs_put(ip);
	return b;
}

/*
 * What every new name in dir must be, whatever the file system: dir a live
 * directory, the name neither empty, too long, "." nor "..".  The types'
 * create, link and symlink call it before they look whether it is taken.
 */
int fs_new_name_ok(const struct inode *dir, const char *name, size_t len)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	if (dir->nlink == 0)
		return -LX_ENOENT;
	if (len > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	if (len == 0)
		return -LX_ENOENT;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return -LX_EEXIST;
	return 0;
}

/* Is name in dir taken?  Errors answer no: the operation itself reports them. */
static bool name_taken(struct inode *dir, const char *name)
{
	struct inode *ip;
	size_t len = strlen(name);
	if (fs_new_name_ok(dir, name, len) < 0)
		return false;
	if (dir->sb->ops->lookup(dir, name, len, &ip) < 0)
		return false;
	fs_put(ip);
	return true;
}

/*
 * A new name in dir needs write and search permission on dir.  Linux tells
 * what is wrong with the name (EEXIST, a removed directory's ENOENT) before
 * what the caller may do; denial is rare, so only then is the name looked at.
 */
static int may_create(struct inode *dir, const char *name)
{
	int r = fs_permission(dir, FS_MAY_WRITE | FS_MAY_EXEC);
	if (r == 0)
		return 0;
	if (LX_S_ISDIR(dir->mode) && dir->nlink == 0)
		return -LX_ENOENT;
	return name_taken(dir, name) ? -LX_EEXIST : r;
}

/* The sticky bit: only the file's owner, the directory's or root removes or renames it. */
static bool sticky_denies(const struct inode *dir, const struct inode *ip)
{
	return (dir->mode & LX_S_ISVTX) && !fs_is_root() && fs_cred->fsuid != ip->uid &&
	       fs_cred->fsuid != dir->uid;
}

/* Removing victim from dir: EACCES, then the sticky bit's EPERM. */
static int may_remove(struct inode *dir, const struct inode *victim)
{
	int r = fs_permission(dir, FS_MAY_WRITE | FS_MAY_EXEC);
	return r == 0 && sticky_denies(dir, victim) ? -LX_EPERM : r;
}

/* Removing name from dir: ENOENT, then may_remove's answer. */
static int may_delete(struct inode *dir, const char *name)
{
	struct inode *victim;
	int r = step(dir, name, strlen(name), &victim);
	if (r < 0)
		return r;
	r = may_remove(dir, victim);
	fs_put(victim);
	return r;
}

/* --- change notification (inotify): the events each change makes, in Linux's order --- */

void (*fs_notify)(struct inode *ip, const char *name, uint32_t mask, uint32_t cookie);
uint32_t fs_watches;

void fs_event(struct inode *ip, const char *name, uint32_t mask, uint32_t cookie)
{
	if (fs_watches && fs_notify)
		fs_notify(ip, name, mask, cookie);
}

/* The inode name stands for in dir (a reference), if anyone watches; else NULL. */
static struct inode *watched_entry(struct inode *dir, const char *name)
{
	struct inode *ip;
	if (!fs_watches || !fs_notify || !dir->sb->ops->lookup ||
	    dir->sb->ops->lookup(dir, name, strlen(name), &ip) < 0)
		return NULL;
	return ip;
}

static uint32_t isdir(const struct inode *ip)
{
	return ip && LX_S_ISDIR(ip->mode) ? LX_IN_ISDIR : 0;
}

/* ip lost a name: its link count changed (not for directories); at none, it is deleted. */
static void lost_name(struct inode *ip)
{
	if (!LX_S_ISDIR(ip->mode))
		fs_event(ip, NULL, LX_IN_ATTRIB | LX_IN_SELF_ONLY, 0);
	if (ip->nlink == 0 || LX_S_ISDIR(ip->mode))
		fs_event(ip, NULL, LX_IN_DELETE_SELF, 0);
}

/* --- names: the file system's, then their events --- */

int fs_create(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
	      struct inode **out)
{
	const struct fs_ops *o = dir->sb->ops;
	int r = may_create(dir, name);
	if (r < 0)
		return r;
	u32 type = mode & LX_S_IFMT;
	if ((type == LX_S_IFCHR || type == LX_S_IFBLK) && !fs_is_root())
		return -LX_EPERM;         /* devices are made by root only (CAP_MKNOD) */
	r = o->create ? o->create(dir, name, mode, rdev, out) : -LX_EPERM;
	if (r == 0)
		fs_event(dir, name, LX_IN_CREATE | (LX_S_ISDIR(mode) ? LX_IN_ISDIR : 0), 0);
	return r;
}

/*
 * O_TMPFILE: a regular file in dir's file system with no name, made by the
 * type's create and unlink under a name nobody can see (lx runs one call at
 * a time) and without events; `linkable` lets linkat give it a name.
 */
int fs_tmpfile(struct inode *dir, uint32_t mode, bool linkable, struct inode **out)
{
	const struct fs_ops *o = dir->sb->ops;
	static uint64_t seq;
	char name[32] = ".lx-tmpfile-";
	int r = may_create(dir, ".");
	if (r < 0)
		return r;
	if (!o->create || !o->unlink)
		return -LX_EOPNOTSUPP;
	do {
		uint64_t n = ++seq;
		size_t at = 12;
		for (; n; n /= 10)
			name[at++] = (char)('0' + n % 10);
		name[at] = 0;
		r = o->create(dir, name, LX_S_IFREG | (mode & 07777), 0, out);
	} while (r == -LX_EEXIST);
	if (r == 0 && (r = o->unlink(dir, name)) < 0)
		fs_put(*out);
	if (r == 0)
		(*out)->linkable = linkable;
	return r;
}

/*
 * fs.protected_hardlinks (1 on the distributions lx follows): who does not
 * own a file links to it only if it is a regular file he may read and
 * write that would not raise privileges when run.
 */
static bool may_link_to(const struct inode *ip)
{
	if (fs_owner_or_root(ip))
		return true;
	u32 sx = LX_S_ISGID | 0010;
	return LX_S_ISREG(ip->mode) && !(ip->mode & LX_S_ISUID) && (ip->mode & sx) != sx &&
	       fs_permission(ip, FS_MAY_READ | FS_MAY_WRITE) == 0;
}

int fs_link(struct inode *dir, const char *name, struct inode *target)
{
	const struct fs_ops *o = dir->sb->ops;
	int r = 0;
	if (LX_S_ISDIR(dir->mode) && target->sb != dir->sb)
		r = -LX_EXDEV;
	else if (!may_link_to(target))
		r = -LX_EPERM;
	if (r < 0)
		return name_taken(dir, name) ? -LX_EEXIST : r;
	if ((r = may_create(dir, name)) < 0)
		return r;
	if (LX_S_ISDIR(target->mode))
		return -LX_EPERM;       /* link(2): no hard links to directories */
	if (target->nlink == 0 && !target->linkable)
		return -LX_ENOENT;      /* an unlinked file cannot come back, but O_TMPFILE's */
	r = o->link ? o->link(dir, name, target) : -LX_EPERM;
	if (r == 0) {
		target->linkable = false;
		fs_event(target, NULL, LX_IN_ATTRIB | LX_IN_SELF_ONLY, 0);
		fs_event(dir, name, LX_IN_CREATE, 0);
	}
	return r;
}

int fs_symlink(struct inode *dir, const char *name, const char *target)
{
	const struct fs_ops *o = dir->sb->ops;
	int r = may_create(dir, name);
	if (r < 0)
		return r;
	r = o->symlink ? o->symlink(dir, name, target) : -LX_EPERM;
	if (r == 0)
		fs_event(dir, name, LX_IN_CREATE, 0);
	return r;
}

/* unlink and rmdir: the file system's, then the victim's events and its directory's. */
static int remove_name(struct inode *dir, const char *name,
		       int (*op)(struct inode *, const char *))
{
	struct inode *victim = watched_entry(dir, name);
	int r = op ? op(dir, name) : -LX_EPERM;
	if (r == 0 && victim) {
		lost_name(victim);
		fs_event(dir, name, LX_IN_DELETE | isdir(victim), 0);
	}
	fs_put(victim);
	return r;
}

int fs_unlink(struct inode *dir, const char *name)
{
	int r = may_delete(dir, name);
	if (r < 0)
		return r;
	if (busy(dir, name))
		return -LX_EISDIR;      /* a mount point is a directory */
	return remove_name(dir, name, dir->sb->ops->unlink);
}

int fs_rmdir(struct inode *dir, const char *name)
{
	int r = may_delete(dir, name);
	if (r < 0)
		return r;
	if (busy(dir, name))
		return -LX_EBUSY;
	return remove_name(dir, name, dir->sb->ops->rmdir);
}

static void moved(struct inode *odir, const char *oname, struct inode *ndir, const char *nname,
		  struct inode *ip, struct inode *replaced)
{
	static uint32_t cookies;
	uint32_t cookie = ++cookies ? cookies : ++cookies;
	fs_event(odir, oname, LX_IN_MOVED_FROM | isdir(ip), cookie);
	fs_event(ndir, nname, LX_IN_MOVED_TO | isdir(ip), cookie);
	if (replaced && replaced != ip)
		lost_name(replaced);
	fs_event(ip, NULL, LX_IN_MOVE_SELF, 0);
}

/*
 * Linux's vfs_rename: renaming a file onto itself does nothing (*same);
 * otherwise the old name is removed, the new one created or replaced, and
 * a directory that changes parent needs write permission to update "..".
 */
static int may_rename(struct inode *odir, const char *oname, struct inode *ndir,
		      const char *nname, bool *same)
{
	struct inode *src, *dst;
	int r = step(odir, oname, strlen(oname), &src);
	if (r < 0)
		return r;
	if (step(ndir, nname, strlen(nname), &dst) < 0)
		dst = NULL;
	*same = dst == src;
	if (!*same)
		r = may_remove(odir, src);
	if (r == 0 && !*same)
		r = dst ? may_remove(ndir, dst) : may_create(ndir, nname);
	if (r == 0 && !*same && LX_S_ISDIR(src->mode) && odir != ndir)
		r = fs_permission(src, FS_MAY_WRITE);
	fs_put(dst);
	fs_put(src);
	return r;
}

int fs_rename(struct inode *odir, const char *oname, struct inode *ndir, const char *nname)
{
	const struct fs_ops *o = odir->sb->ops;
	if (LX_S_ISDIR(ndir->mode) && ndir->sb != odir->sb)
		return -LX_EXDEV;
	bool same;
	int r = may_rename(odir, oname, ndir, nname, &same);
	if (r < 0 || same)
		return r;
	if (busy(odir, oname) || busy(ndir, nname))
		return -LX_EBUSY;
	struct inode *ip = watched_entry(odir, oname), *replaced = ip ? watched_entry(ndir, nname) : NULL;
	r = o->rename ? o->rename(odir, oname, ndir, nname) : -LX_EPERM;
	if (r == 0 && ip && ip != replaced)
		moved(odir, oname, ndir, nname, ip, replaced);
	fs_put(replaced);
	fs_put(ip);
	return r;
}

/* Three renames through a name nobody sees (lx runs one call at a time); undone on failure. */
static int swap_names(struct inode *odir, const char *oname, struct inode *ndir, const char *nname)
{
	int (*mv)(struct inode *, const char *, struct inode *, const char *) = odir->sb->ops->rename;
	static const char tmp[] = ".lx-exchange";
	if (!mv)
		return -LX_EPERM;
	int r = mv(odir, oname, odir, tmp);
	if (r < 0)
		return r;
	if ((r = mv(ndir, nname, odir, oname)) < 0) {
		mv(odir, tmp, odir, oname);
		return r;
	}
	if ((r = mv(odir, tmp, ndir, nname)) < 0) {
		mv(odir, oname, ndir, nname);
		mv(odir, tmp, odir, oname);
	}
	return r;
}

int fs_exchange(struct inode *odir, const char *oname, struct inode *ndir, const char *nname)
{
	if (ndir->sb != odir->sb)
		return -LX_EXDEV;
	struct inode *a, *b;
	int r = fs_dir_lookup(odir, oname, &a);
	if (r < 0)
		return r;
	if ((r = fs_dir_lookup(ndir, nname, &b)) < 0) {
		fs_put(a);
		return r;
	}
	bool same;
	if (a != b && (r = may_rename(odir, oname, ndir, nname, &same)) == 0)
		r = may_rename(ndir, nname, odir, oname, &same);
	if (r == 0 && a != b && (busy(odir, oname) || busy(ndir, nname)))
		r = -LX_EBUSY;
	if (r == 0 && a != b && (r = swap_names(odir, oname, ndir, nname)) == 0) {
		moved(odir, oname, ndir, nname, a, NULL);
		moved(ndir, nname, odir, oname, b, NULL);
	}
	fs_put(a);
	fs_put(b);
	return r;
}

long fs_readlink(struct inode *ip, char *buf, size_t n)
{
	const struct fs_ops *o = ip->sb->ops;
	if (!LX_S_ISLNK(ip->mode) || !o->readlink)
		return -LX_EINVAL;
	return o->readlink(ip, buf, n);
}

/* --- data --- */

long fs_read(struct inode *ip, uint64_t off, void *buf, size_t n)
{
	const struct fs_ops *o = ip->sb->ops;
	return o->read ? o->read(ip, off, buf, n) : -LX_EINVAL;
}

/*
 * A regular file changed by someone other than root loses its set-user-ID
 * bit and (fs_drop_sgid) its set-group-ID bit, as Linux's file_remove_privs:
 * nobody plants code in a program that runs with another's rights.
 */
static int remove_privs(struct inode *ip)
{
	u32 m = ip->mode & ~(u32)(LX_S_ISUID | (fs_drop_sgid(ip) ? LX_S_ISGID : 0));
	if (!LX_S_ISREG(ip->mode) || fs_is_root() || m == ip->mode)
		return 0;
	ip->mode = m;
	return fs_setattr(ip);
}

long fs_write(struct inode *ip, uint64_t off, const void *buf, size_t n)
{
	const struct fs_ops *o = ip->sb->ops;
	int r = o->write && n ? remove_privs(ip) : 0;
	if (r < 0)
		return r;
	return o->write ? o->write(ip, off, buf, n) : -LX_EINVAL;
}

int fs_seals_allow_write(const struct inode *ip, uint64_t off, size_t n)
{
	if ((ip->seals & (LX_F_SEAL_WRITE | LX_F_SEAL_FUTURE_WRITE)) ||
	    ((ip->seals & LX_F_SEAL_GROW) && off + n > ip->size))
		return -LX_EPERM;
	return 0;
}

int fs_allocate(struct inode *ip, int mode, uint64_t off, uint64_t len)
{
	const struct fs_ops *o = ip->sb->ops;
	return o->allocate ? o->allocate(ip, mode, off, len) : -LX_EOPNOTSUPP;
}

int fs_truncate(struct inode *ip, uint64_t size)
{
	const struct fs_ops *o = ip->sb->ops;
	if (((ip->seals & LX_F_SEAL_SHRINK) && size < ip->size) ||
	    ((ip->seals & LX_F_SEAL_GROW) && size > ip->size))
		return -LX_EPERM;
	int r = o->truncate ? remove_privs(ip) : 0;
	if (r < 0)
		return r;
	uint64_t old = ip->size;
	r = o->truncate ? o->truncate(ip, size) : -LX_EINVAL;
	if (r == 0 && size < old)
		vm_file_shrunk(ip, size);       /* mappings lose the pages past the end: SIGBUS */
	if (r == 0)
		fs_event(ip, NULL, LX_IN_MODIFY, 0);
	return r;
}

void *fs_page(struct inode *ip, uint64_t off, bool alloc)
{
	const struct fs_ops *o = ip->sb->ops;
	return o->page ? o->page(ip, off, alloc) : NULL;
}

void fs_page_dirty(struct inode *ip, uint64_t off)
{
	const struct fs_ops *o = ip->sb->ops;
	if (o->page_dirty)
		o->page_dirty(ip, off);
}

bool fs_can_share(const struct inode *ip)
{
	return ip->sb->ops->page != NULL;
}

long fs_getdents(struct inode *dir, uint64_t *pos, void *buf, size_t n)
{
	const struct fs_ops *o = dir->sb->ops;
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	return o->getdents ? o->getdents(dir, pos, buf, n) : -LX_EINVAL;
}

int fs_setattr(struct inode *ip)
{
	const struct fs_ops *o = ip->sb->ops;
	int r = o->setattr ? o->setattr(ip) : 0;
	if (r == 0)
		fs_event(ip, NULL, LX_IN_ATTRIB, 0);
	return r;
}

int fs_fsync(struct inode *ip)
{
	const struct fs_ops *o = ip->sb->ops;
	return o->fsync ? o->fsync(ip) : 0;
}

void fs_stat(const struct inode *ip, struct lx_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = ip->sb->dev;
	st->st_ino = ip->ino;
	st->st_nlink = ip->nlink;
	st->st_mode = ip->mode;
	st->st_uid = ip->uid;
	st->st_gid = ip->gid;
	st->st_rdev = ip->rdev;
	st->st_size = (int64_t)ip->size;
	st->st_blksize = LX_PAGE_SIZE;
	st->st_blocks = ip->sb->ops->blocks ? (int64_t)ip->sb->ops->blocks(ip) : 0;
	st->st_atim = ip->atime;
	st->st_mtim = ip->mtime;
	st->st_ctim = ip->ctime;
}

/* --- getcwd --- */

/* Finds the name of d (not a root) in its parent: *up gets the parent (a reference). */
static int name_of(struct inode *d, struct inode **up, char name[LX_NAME_MAX + 1])
{
	int r = d->sb->ops->lookup(d, "..", 2, up);
	if (r < 0)
		return r;
	char buf[512];
	uint64_t pos = 0;
	long n;
	while ((n = fs_getdents(*up, &pos, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n;) {
			struct lx_dirent64 *e = (struct lx_dirent64 *)(buf + at);
			at += e->d_reclen;
			if (e->d_ino == d->ino && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				memcpy(name, e->d_name, strlen(e->d_name) + 1);
				return 0;
			}
		}
	fs_put(*up);
	return -LX_ENOENT;
}

/* Puts "/name" before buf[*at]; ERANGE if it does not fit. */
static int prepend(char *buf, size_t *at, const char *name)
{
	size_t len = strlen(name);
	if (len + 1 > *at)
		return -LX_ERANGE;
	*at -= len;
	memcpy(buf + *at, name, len);
	buf[--*at] = '/';
	return 0;
}

/* Built from the end of buf backwards, then moved to its start. */
long fs_path(struct inode *dir, char *buf, size_t n)
{
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	if (dir->nlink == 0)
		return -LX_ENOENT;
	if (n < 2)
		return -LX_ERANGE;
	size_t at = n - 1;
	buf[at] = 0;
	char name[LX_NAME_MAX + 1];
	struct inode *d = mounted_on(dir), *up;
	fs_get(d);
	int r = 0;
	struct inode *top = mounted_on(walk_root());
	while (r == 0 && d != d->sb->root && d != top) {
		r = name_of(d, &up, name);
		fs_put(d);
		if (r < 0)
			return r;
		d = mounted_on(up);
		fs_get(d);
		fs_put(up);
		r = prepend(buf, &at, name);
	}
	fs_put(d);
	if (r < 0)
		return r;
	if (at == n - 1)
		buf[--at] = '/';
	size_t len = n - 1 - at;
	memmove(buf, buf + at, len + 1);
	return (long)len;
}
