// SPDX-License-Identifier: MIT
// mount(2) and umount2(2) for root: new mounts of tmpfs, ramfs, proc, sysfs,
// devtmpfs and the disk's ext2, and umount2 with Linux's errors, checked in
// Linux's order (the target's lookup, then privilege, then the rest).  The
// mount table and the busy check are the VFS's (vfs/namei.c).  Departures
// (docs/lx.md): no bind or move mounts and no read-only mounts (EINVAL); the
// disk is mounted at one place at a time (EBUSY); MNT_DETACH takes the mount
// out of the tree at once and frees it with the last reference to anything in it.
#include "../lx.h"
#include "syscall.h"
#include "../../../lib/c/string.h"

#define LX_ENOTBLK 15

#define MS_RDONLY      0x1
#define MS_NOSUID      LX_MS_NOSUID
#define MS_NODEV       0x4
#define MS_NOEXEC      LX_MS_NOEXEC
#define MS_SYNCHRONOUS 0x10
#define MS_REMOUNT     0x20
#define MS_MANDLOCK    0x40
#define MS_DIRSYNC     0x80
#define MS_NOSYMFOLLOW 0x100
#define MS_NOATIME     0x400
#define MS_NODIRATIME  0x800
#define MS_BIND        0x1000
#define MS_MOVE        0x2000
#define MS_REC         0x4000
#define MS_SILENT      0x8000
#define MS_UNBINDABLE  (1UL << 17)
#define MS_PRIVATE     (1UL << 18)
#define MS_SLAVE       (1UL << 19)
#define MS_SHARED      (1UL << 20)
#define MS_RELATIME    (1UL << 21)
#define MS_STRICTATIME (1UL << 24)
#define MS_LAZYTIME    (1UL << 25)
#define MS_NOUSER      (1UL << 31)
#define MS_MGC_VAL     0xc0ed0000UL
#define MS_MGC_MSK     0xffff0000UL
#define MS_PROPAGATION (MS_UNBINDABLE | MS_PRIVATE | MS_SLAVE | MS_SHARED)
/* recorded and shown in /proc/mounts; nosuid and noexec are obeyed by execve */
#define MS_KEPT (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SYNCHRONOUS | MS_DIRSYNC | MS_NOATIME | \
		 MS_NODIRATIME | MS_NOSYMFOLLOW)

#define MNT_FORCE       1
#define MNT_DETACH      2
#define MNT_EXPIRE      4
#define UMOUNT_NOFOLLOW 8

#define DISK_RDEV LX_MKDEV(8, 0)        /* /dev/sda: the disk lx's ext2 driver reads */

/* Strings of mount(2), each at most a page as Linux copies them. */
struct margs {
	char *target, *type, *source, *data;
};

/* A string argument (NULL stays NULL): the type and source up to PATH_MAX (EINVAL past
 * it, as strndup_user), the data cut at a page (copy_mount_options). */
static long copy_opt(struct proc *p, u64 uaddr, char **out, bool cut)
{
	*out = NULL;
	if (!uaddr)
		return 0;
	if (!(*out = page_alloc()))
		return -LX_ENOMEM;
	long r = copyin_str(p, *out, uaddr, cut ? LX_PAGE_SIZE : LX_PATH_MAX);
	if (r == -LX_ENAMETOOLONG)
		return cut ? ((*out)[LX_PAGE_SIZE - 1] = 0) : -LX_EINVAL;
	return r < 0 ? r : 0;
}

static const char *find_char(const char *s, size_t n, char c)
{
	for (size_t i = 0; i < n && s[i]; i++)
		if (s[i] == c)
			return s + i;
	return NULL;
}

static void margs_free(struct margs *m)
{
	char *s[] = { m->target, m->type, m->source, m->data };
	for (unsigned i = 0; i < 4; i++)
		if (s[i])
			page_free(s[i]);
}

/* --- tmpfs options (mode=, uid=, gid=, size= ...): -EINVAL for any other --- */

static bool opt_number(const char *v, size_t n, int base, u64 *out)
{
	u64 x = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = v[i] >= '0' && v[i] <= '9' ? v[i] - '0' : -1;
		if (d < 0 || d >= base) {
			bool suffix = i == n - 1 && i && base == 10 && find_char("kKmMgG%", 7, v[i]);
			return suffix ? (*out = x, true) : false;
		}
		x = x * (u64)base + (u64)d;
	}
	*out = x;
	return true;
}

static int tmpfs_option(struct inode *root, const char *o, size_t n)
{
	const char *eq = find_char(o, n, '=');
	size_t kl = eq ? (size_t)(eq - o) : n, vl = eq ? n - kl - 1 : 0;
	u64 v;
	if (!eq || !opt_number(eq + 1, vl, kl == 4 && !memcmp(o, "mode", 4) ? 8 : 10, &v))
		return -LX_EINVAL;
	if (kl == 4 && !memcmp(o, "mode", 4))
		root->mode = LX_S_IFDIR | (u32)(v & 07777);
	else if (kl == 3 && !memcmp(o, "uid", 3))
		root->uid = (u32)v;
	else if (kl == 3 && !memcmp(o, "gid", 3))
		root->gid = (u32)v;
	else if (!((kl == 4 && !memcmp(o, "size", 4)) || (kl == 9 && !memcmp(o, "nr_blocks", 9)) ||
		   (kl == 9 && !memcmp(o, "nr_inodes", 9))))
		return -LX_EINVAL;  /* sizes are accepted and not enforced (docs/lx.md) */
	return 0;
}

/* The comma-separated options of data for sb: tmpfs knows some, the others none. */
static int apply_options(struct super *sb, const char *data)
{
	bool tmpfs = !strcmp(sb->type, "tmpfs");
	for (const char *o = data; o && *o;) {
		const char *end = find_char(o, strlen(o), ',');
		size_t n = end ? (size_t)(end - o) : strlen(o);
		int r = !n ? 0 : tmpfs ? tmpfs_option(sb->root, o, n) : -LX_EINVAL;
		if (r < 0)
			return r;
		o = end ? end + 1 : o + n;
	}
	return 0;
}

/* --- new mounts --- */

/* The disk's ext2 for a source that names it: ENOENT, ENOTBLK, ENXIO as Linux's lookup_bdev. */
static struct super *disk_super(struct thread *t, const char *source, int *err)
{
	struct inode *ip;
	*err = !source || !source[0] ? -LX_ENOENT : fs_lookup(t->proc->cwd, source, FS_FOLLOW, &ip);
	if (*err < 0)
		return NULL;
	*err = (ip->mode & LX_S_IFMT) != LX_S_IFBLK ? -LX_ENOTBLK : ip->rdev != DISK_RDEV ? -LX_ENXIO : 0;
	fs_put(ip);
	return *err ? NULL : ext2_mount_disk(err);
}

static struct super *proc_super(void) { return procfs_new(); }
static struct super *ramfs_super(void) { return ramfs_new("ramfs"); }

/* A new file system of type (-ENODEV: lx has no such type). */
static struct super *make_super(struct thread *t, const struct margs *m, int *err)
{
	static const struct { const char *name; struct super *(*make)(void); } types[] = {
		{ "tmpfs", tmpfs_new }, { "ramfs", ramfs_super }, { "proc", proc_super },
		{ "sysfs", sysfs_new }, { "devtmpfs", devfs_new },
	};
	*err = -LX_ENOMEM;
	if (!strcmp(m->type, "ext2"))
		return disk_super(t, m->source, err);
	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(m->type, types[i].name))
			return types[i].make();
	*err = -LX_ENODEV;
	return NULL;
}

/* The source /proc/mounts shows: the string mount was given, as Linux keeps it. */
static void set_source(struct super *sb, const char *source)
{
	const char *s = source && source[0] ? source : "none";
	size_t n = strlen(s) < sizeof(sb->source) - 1 ? strlen(s) : sizeof(sb->source) - 1;
	memcpy(sb->source, s, n);
	sb->source[n] = 0;
}

static long new_mount(struct thread *t, struct inode *dir, const struct margs *m, u64 flags)
{
	if (!m->type)
		return -LX_EINVAL;
	if (flags & MS_RDONLY)
		return -LX_EINVAL;      /* lx has no read-only mounts (docs/lx.md) */
	int err;
	struct super *sb = make_super(t, m, &err);
	if (!sb)
		return err;
	if (!LX_S_ISDIR(dir->mode))
		err = -LX_ENOTDIR;
	else
		err = apply_options(sb, m->data);
	if (err == 0) {
		set_source(sb, m->source);
		sb->mflags = flags & MS_KEPT;
		fs_get(dir);
		if ((err = vfs_mount_at(dir, sb)) == 0)
			return 0;
	}
	if (sb->ops->kill)
		sb->ops->kill(sb);
	lx_free(sb);
	return err;
}

/* MS_REMOUNT and propagation changes act on a mount's root (EINVAL elsewhere). */
static long change_mount(struct inode *ip, u64 flags)
{
	struct super *sb = ip->sb;
	if (ip != sb->root || vfs_mount_index(sb) < 0)
		return -LX_EINVAL;
	if (flags & MS_REMOUNT) {
		if (flags & MS_RDONLY)
			return -LX_EINVAL;
		sb->mflags = flags & MS_KEPT;
		return 0;
	}
	u64 kind = flags & MS_PROPAGATION;
	return kind & (kind - 1) ? -LX_EINVAL : 0;      /* one kind; lx has one namespace */
}

long sys_mount(struct thread *t, u64 usource, u64 utarget, u64 utype, u64 flags, u64 udata, u64 a5)
{
	(void)a5;
	struct margs m = { 0 };
	struct proc *p = t->proc;
	long r = copy_opt(p, utype, &m.type, false);
	if (r == 0)
		r = copy_opt(p, usource, &m.source, false);
	if (r == 0)
		r = copy_opt(p, udata, &m.data, true);
	if (r == 0 && !(m.target = page_alloc()))
		r = -LX_ENOMEM;
	if (r == 0)
		r = copyin_str(p, m.target, utarget, LX_PATH_MAX);
	struct inode *ip = NULL;
	if (r >= 0)
		r = m.target[0] ? fs_lookup(p->cwd, m.target, FS_FOLLOW, &ip) : -LX_ENOENT;
	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if (r >= 0)
		r = (flags & MS_NOUSER) ? -LX_EINVAL : !lx_privileged(p) ? -LX_EPERM : 0;
	if (r == 0) {
		if (flags & (MS_BIND | MS_MOVE))
			r = -LX_EINVAL;         /* no bind or move mounts (docs/lx.md) */
		else if (flags & (MS_REMOUNT | MS_PROPAGATION))
			r = change_mount(ip, flags);
		else
			r = new_mount(t, ip, &m, flags);
	}
	fs_put(ip);
	margs_free(&m);
	return r;
}

/* MNT_EXPIRE: the first call marks an idle mount (EAGAIN), a second one unmounts it. */
long sys_umount2(struct thread *t, u64 upath, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	if ((flags & ~(u64)(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW)) ||
	    ((flags & MNT_EXPIRE) && (flags & (MNT_FORCE | MNT_DETACH))))
		return -LX_EINVAL;
	char *path = page_alloc();
	if (!path)
		return -LX_ENOMEM;
	long r = copyin_str(t->proc, path, upath, LX_PATH_MAX);
	struct inode *ip = NULL;
	if (r >= 0)
		r = path[0] ? fs_lookup(t->proc->cwd, path, flags & UMOUNT_NOFOLLOW ? 0 : FS_FOLLOW, &ip)
			    : -LX_ENOENT;
	page_free(path);
	if (r < 0)
		return r;
	struct super *sb = ip->sb;
	r = lx_privileged(t->proc) ? vfs_umount_check(ip, flags & MNT_DETACH, inotify_sb_refs(sb))
				   : -LX_EPERM;
	fs_put(ip);
	if (r == 0 && (flags & MNT_EXPIRE) && !sb->expiring) {
		sb->expiring = true;
		return -LX_EAGAIN;
	}
	if (r == 0) {
		inotify_unmount(sb);
		vfs_umount(sb);
	}
	return r;
}
