// SPDX-License-Identifier: MIT
// System calls on names: open, stat, directories, links, attributes.
// Paths are copied in whole (copyin_str, LX_PATH_MAX) before anything is
// looked up; a relative path starts at the process's cwd or at dirfd's
// directory.  Permissions are checked by vfs/perm.c's rules with the
// caller's credentials (the walk and fs_* calls check their own); the
// owner and mode rules of chmod, chown and utimensat are here.  Each inode
// reference a lookup returns is dropped before the call returns.
#include "../vfs/vfs.h"
#include "syscall.h"
#include "../../../lib/c/string.h"

static char path1[LX_PATH_MAX], path2[LX_PATH_MAX];

/*
 * Copy a path from the process: 0, or -EFAULT / -ENAMETOOLONG.  It goes in
 * pieces that never cross a page (the page that holds a byte of the string
 * is readable to its end), so a path costs a translation or two rather than
 * one a byte.  The first piece is small: most paths end in it, and the
 * bytes copied past the end are wasted work.
 */
#define PATH_FIRST 40
#define PATH_PIECE 256
static long get_path(struct thread *t, u64 upath, char *buf)
{
	size_t done = 0;
	while (done < LX_PATH_MAX) {
		u64 at = upath + done;
		size_t c = LX_PAGE_SIZE - (at & (LX_PAGE_SIZE - 1));
		size_t piece = done ? PATH_PIECE : PATH_FIRST;
		if (c > piece)
			c = piece;
		if (c > LX_PATH_MAX - done)
			c = LX_PATH_MAX - done;
		if (!copyin(t->proc, buf + done, at, c))
			return -LX_EFAULT;
		for (size_t i = 0; i < c; i++)
			if (!buf[done + i])
				return 0;
		done += c;
	}
	return -LX_ENAMETOOLONG;
}

static bool trailing_slash(const char *path)
{
	size_t n = strlen(path);
	return n && path[n - 1] == '/';
}

/* The directory a path starts from: cwd, or dirfd's; no reference taken. */
static long base_dir(struct proc *p, u64 dirfd, const char *path, struct inode **out)
{
	if (path[0] == '/' || (int)dirfd == LX_AT_FDCWD) {
		*out = p->cwd;
		return 0;
	}
	struct file *f = fd_get(p, (int)dirfd);
	if (!f)
		return -LX_EBADF;
	if (!f->ip || !LX_S_ISDIR(f->ip->mode))
		return -LX_ENOTDIR;
	*out = f->ip;
	return 0;
}

/* Look up a path already copied in: *ip gets a reference. */
static long lookup_at(struct thread *t, u64 dirfd, const char *path, int flags, struct inode **ip)
{
	struct inode *base;
	if (!path[0])
		return -LX_ENOENT;
	long r = base_dir(t->proc, dirfd, path, &base);
	return r < 0 ? r : fs_lookup(base, path, flags, ip);
}

/* lookup_at, and where the walk ended (for the open file's name) */
static long lookup_named(struct thread *t, u64 dirfd, const char *path, int flags,
			 struct inode **ip, struct fs_name *where)
{
	struct inode *base;
	where->dir = NULL;
	if (!path[0])
		return -LX_ENOENT;
	long r = base_dir(t->proc, dirfd, path, &base);
	return r < 0 ? r : fs_lookup_named(base, path, flags, ip, where);
}

/* The parent directory of a path's last component (a reference) and that name. */
static long parent_at(struct thread *t, u64 dirfd, const char *path, struct inode **dir,
		      char last[LX_NAME_MAX + 1])
{
	struct inode *base;
	if (!path[0])
		return -LX_ENOENT;
	long r = base_dir(t->proc, dirfd, path, &base);
	return r < 0 ? r : fs_lookup_parent(base, path, dir, last);
}

/* "" for the root, "." or "..": names a directory operation cannot take */
static bool special_name(const char *last)
{
	return !last[0] || !strcmp(last, ".") || !strcmp(last, "..");
}

static void stamp_ctime(struct inode *ip)
{
	if (fs_now)
		fs_now(&ip->ctime);
}

/* --- open --- */

/*
 * O_CREAT's regular file at where, the missing final name the walk reported
 * (through any symbolic links, as Linux follows a dangling one); where is
 * dropped on failure.
 */
static long create_named(struct thread *t, u32 mode, struct inode **ip, struct fs_name *where)
{
	long r = -LX_EISDIR;    /* "." or ".." of a removed directory */
	mode = LX_S_IFREG | (mode & 07777 & ~t->proc->umask);
	if (!special_name(where->name))
		r = fs_create(where->dir, where->name, mode, 0, ip);
	if (r < 0)
		fs_name_drop(where);
	return r;
}

#define LX_O_TMPFILE_BIT 020000000     /* O_TMPFILE is it with O_DIRECTORY */

/* O_TMPFILE: an unnamed file in the directory path names, opened for writing. */
static long open_tmpfile(struct thread *t, u64 dirfd, u32 fl, u32 mode)
{
	if ((fl & (LX_O_TMPFILE_BIT | LX_O_DIRECTORY | LX_O_CREAT)) !=
	    (LX_O_TMPFILE_BIT | LX_O_DIRECTORY) || (fl & LX_O_ACCMODE) == LX_O_RDONLY)
		return -LX_EINVAL;
	struct inode *dir, *ip;
	struct fs_name where = { .dir = NULL };
	int lf = ((fl & LX_O_NOFOLLOW) ? 0 : FS_FOLLOW) | FS_DIRECTORY;
	long r = lookup_at(t, dirfd, path1, lf, &dir);
	if (r < 0)
		return r;
	r = fs_tmpfile(dir, mode & ~t->proc->umask, !(fl & LX_O_EXCL), &ip);
	struct file *f = NULL;
	if (r == 0) {
		r = file_open_inode(t, ip, fl & ~(u32)(LX_O_TMPFILE_BIT | LX_O_DIRECTORY | LX_O_EXCL), &f);
		fs_put(ip);
	}
	if (r == 0) {
		where.dir = dir;        /* /proc/PID/fd names it "#INO (deleted)", as Linux */
		fs_get(dir);
		char digits[24];
		int n = 0;
		for (u64 v = ip->ino; v || !n; v /= 10)
			digits[n++] = (char)('0' + v % 10);
		where.name[0] = '#';
		for (int i = 0; i < n; i++)
			where.name[1 + i] = digits[n - 1 - i];
		where.name[1 + n] = 0;
		file_set_name(f, &where);
		r = fd_install(t->proc, f, 0, fl & LX_O_CLOEXEC);
		if (r < 0)
			file_put(f);
	}
	fs_put(dir);
	return r;
}

/* Open path1 (copied in) from dirfd with open flags fl. */
static long open_path(struct thread *t, u64 dirfd, u32 fl, u64 mode)
{
	struct proc *p = t->proc;
	long r;
	if (fl & LX_O_TMPFILE_BIT)
		return open_tmpfile(t, dirfd, fl, (u32)mode);
	bool excl = (fl & (LX_O_CREAT | LX_O_EXCL)) == (LX_O_CREAT | LX_O_EXCL);
	int lf = (fl & LX_O_NOFOLLOW) || excl ? 0 : FS_FOLLOW;  /* O_EXCL: a link is "exists" */
	if (fl & LX_O_DIRECTORY)
		lf |= FS_DIRECTORY;
	if (fl & LX_O_CREAT)
		lf |= FS_CREATE;
	struct inode *ip;
	bool created = false;
	struct fs_name where;
	r = lookup_named(t, dirfd, path1, lf, &ip, &where);
	if (r == -LX_ENOENT && where.dir) {
		r = create_named(t, (u32)mode, &ip, &where);
		if (r < 0)
			return r;
		fl &= ~(u32)LX_O_TRUNC;
		created = true;         /* its creator opens it whatever its mode, as Linux */
	} else if (r < 0) {
		return r;
	} else if ((fl & LX_O_CREAT) && ((fl & LX_O_EXCL) || LX_S_ISDIR(ip->mode))) {
		r = (fl & LX_O_EXCL) ? -LX_EEXIST : -LX_EISDIR;
	}
	if (r == 0 && LX_S_ISLNK(ip->mode) && !(fl & LX_O_PATH))
		r = -LX_ELOOP;
	if (r == 0 && !created)
		r = fs_may_open(ip, fl);
	struct file *f;
	if (r == 0)
		r = file_open_inode(t, ip, fl, &f);
	if (r == -LX_EAGAIN) {          /* a FIFO's writer waits for a reader */
		void *w = fifo_open_wchan(ip);
		fs_put(ip);
		fs_name_drop(&where);
		block_on(t, w, 0);
		return SYS_BLOCK;
	}
	fs_put(ip);
	if (r < 0) {
		fs_name_drop(&where);
		return r;
	}
	file_set_name(f, &where);
	int fd = fd_install(p, f, 0, fl & LX_O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

#define O_PATH_FLAGS (LX_O_DIRECTORY | LX_O_NOFOLLOW | LX_O_PATH)

static long do_open(struct thread *t, u64 dirfd, u64 upath, u64 flags, u64 mode)
{
	u32 fl = (u32)flags;
	if (fl & LX_O_PATH)
		fl &= O_PATH_FLAGS | LX_O_CLOEXEC;      /* as Linux's build_open_how: O_CREAT too */
	if ((fl & (LX_O_CREAT | LX_O_DIRECTORY)) == (LX_O_CREAT | LX_O_DIRECTORY))
		return -LX_EINVAL;      /* as Linux 6.4 on: never meant anything */
	long r = get_path(t, upath, path1);
	return r < 0 ? r : open_path(t, dirfd, fl, mode);
}

long sys_open(struct thread *t, u64 path, u64 flags, u64 mode, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return do_open(t, (u64)(int64_t)LX_AT_FDCWD, path, flags, mode);
}

long sys_openat(struct thread *t, u64 dirfd, u64 path, u64 flags, u64 mode, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_open(t, dirfd, path, flags, mode);
}

long sys_creat(struct thread *t, u64 path, u64 mode, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return do_open(t, (u64)(int64_t)LX_AT_FDCWD, path,
		       LX_O_CREAT | LX_O_WRONLY | LX_O_TRUNC, mode);
}

/* --- openat2(2): open with every argument checked, and the walk restricted --- */

struct open_how {
	u64 flags, mode, resolve;
};
#define OPEN_HOW_SIZE_VER0 24
#define OPENAT2_FLAGS 037777703ULL     /* every open flag Linux knows (VALID_OPEN_FLAGS) */
#define OPENAT2_RESOLVE 0x3fULL        /* the RESOLVE_* bits */

/* Linux's copy_struct_from_user: a larger struct's extra bytes must be 0 (E2BIG). */
static long how_copyin(struct thread *t, u64 uhow, u64 size, struct open_how *how)
{
	if (size < OPEN_HOW_SIZE_VER0)
		return -LX_EINVAL;
	if (size > LX_PAGE_SIZE)
		return -LX_E2BIG;
	static char extra[LX_PAGE_SIZE];
	size_t n = size - sizeof(*how);
	if (n && !copyin(t->proc, extra, uhow + sizeof(*how), n))
		return -LX_EFAULT;
	for (size_t i = 0; i < n; i++)
		if (extra[i])
			return -LX_E2BIG;
	return copyin(t->proc, how, uhow, sizeof(*how)) ? 0 : -LX_EFAULT;
}

/* Linux's build_open_flags: what openat2 refuses that open would ignore. */
static long how_check(const struct open_how *how)
{
	u64 fl = how->flags & ~(u64)LX_O_CLOEXEC, res = how->resolve;
	bool creates = fl & (LX_O_CREAT | LX_O_TMPFILE_BIT);
	if ((fl & ~OPENAT2_FLAGS) || (res & ~OPENAT2_RESOLVE) ||
	    (res & LX_RESOLVE_BENEATH && res & LX_RESOLVE_IN_ROOT))
		return -LX_EINVAL;
	if (creates ? (how->mode & ~07777ULL) : how->mode)
		return -LX_EINVAL;
	if ((fl & (LX_O_CREAT | LX_O_DIRECTORY)) == (LX_O_CREAT | LX_O_DIRECTORY))
		return -LX_EINVAL;
	if ((fl & LX_O_TMPFILE_BIT) &&
	    (!(fl & LX_O_DIRECTORY) || (fl & LX_O_ACCMODE) == LX_O_RDONLY))
		return -LX_EINVAL;
	if ((fl & LX_O_PATH) && (fl & ~(u64)O_PATH_FLAGS))
		return -LX_EINVAL;
	/* lx keeps no lookup cache to answer from: a cached-only open always needs the walk */
	return res & LX_RESOLVE_CACHED ? -LX_EAGAIN : 0;
}

long sys_openat2(struct thread *t, u64 dirfd, u64 upath, u64 uhow, u64 size, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct open_how how;
	struct inode *scope = NULL;
	long r = how_copyin(t, uhow, size, &how);
	if (r == 0)
		r = how_check(&how);
	if (r == 0)
		r = get_path(t, upath, path1);
	if (r == 0 && !path1[0])
		r = -LX_ENOENT;
	if (r == 0 && (how.resolve & LX_RESOLVE_BENEATH) && path1[0] == '/')
		r = -LX_EXDEV;
	if (r == 0 && (how.resolve & (LX_RESOLVE_BENEATH | LX_RESOLVE_IN_ROOT)))
		r = base_dir(t->proc, dirfd, ".", &scope);      /* the walk's bound: dirfd or cwd */
	if (r < 0)
		return r;
	vfs_walk_resolve = (int)how.resolve;
	vfs_walk_scope = scope;
	r = open_path(t, dirfd, (u32)how.flags, how.mode);
	vfs_walk_resolve = 0;
	vfs_walk_scope = NULL;
	return r;
}

/* --- stat --- */

#define AT_NO_AUTOMOUNT 0x800
#define AT_STATX_SYNC_TYPE 0x6000
#define STAT_FLAGS (LX_AT_SYMLINK_NOFOLLOW | LX_AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE)

/* stat of dirfd/path; with AT_EMPTY_PATH and "", of dirfd itself (pipes too). */
static long stat_at(struct thread *t, u64 dirfd, u64 upath, u64 flags, struct lx_stat *st)
{
	if (flags & ~(u64)STAT_FLAGS)
		return -LX_EINVAL;
	long r = get_path(t, upath, path1);
	if (r < 0)
		return r;
	if (!path1[0] && (flags & LX_AT_EMPTY_PATH)) {
		if ((int)dirfd == LX_AT_FDCWD) {
			fs_stat(t->proc->cwd, st);
			return 0;
		}
		struct file *f = fd_get(t->proc, (int)dirfd);
		if (!f)
			return -LX_EBADF;
		file_stat(f, st);
		return 0;
	}
	struct inode *ip;
	r = lookup_at(t, dirfd, path1, (flags & LX_AT_SYMLINK_NOFOLLOW) ? 0 : FS_FOLLOW, &ip);
	if (r < 0)
		return r;
	fs_stat(ip, st);
	fs_put(ip);
	return 0;
}

static long put_stat(struct thread *t, long r, const struct lx_stat *st, u64 ubuf)
{
	if (r < 0)
		return r;
	return copyout(t->proc, ubuf, st, sizeof(*st)) ? 0 : -LX_EFAULT;
}

long sys_stat(struct thread *t, u64 path, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct lx_stat st;
	return put_stat(t, stat_at(t, (u64)(int64_t)LX_AT_FDCWD, path, 0, &st), &st, buf);
}

long sys_lstat(struct thread *t, u64 path, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct lx_stat st;
	return put_stat(t, stat_at(t, (u64)(int64_t)LX_AT_FDCWD, path, LX_AT_SYMLINK_NOFOLLOW, &st),
			&st, buf);
}

long sys_newfstatat(struct thread *t, u64 dirfd, u64 path, u64 buf, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct lx_stat st;
	return put_stat(t, stat_at(t, dirfd, path, flags, &st), &st, buf);
}

long sys_fstat(struct thread *t, u64 fd, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	struct lx_stat st;
	file_stat(f, &st);
	return put_stat(t, 0, &st, buf);
}

struct lx_statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct lx_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	struct lx_statx_ts atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t spare3[12];
};
_Static_assert(sizeof(struct lx_statx) == 256, "struct statx is 256 bytes");
#define STATX_BASIC_STATS 0x7ffU

static uint32_t dev_major(uint64_t d) { return (uint32_t)(((d >> 8) & 0xfff) | ((d >> 32) & ~0xfffUL)); }
static uint32_t dev_minor(uint64_t d) { return (uint32_t)((d & 0xff) | ((d >> 12) & ~0xffUL)); }

static struct lx_statx_ts sx_ts(struct lx_timespec ts)
{
	return (struct lx_statx_ts){ts.tv_sec, (uint32_t)ts.tv_nsec, 0};
}

long sys_statx(struct thread *t, u64 dirfd, u64 path, u64 flags, u64 mask, u64 buf, u64 a5)
{
	(void)a5;
	if ((mask & 0x80000000u) || (flags & 0x6000) == 0x6000)
		return -LX_EINVAL;      /* STATX__RESERVED; both AT_STATX_FORCE_SYNC and DONT_SYNC */
	struct lx_stat st;
	long r = stat_at(t, dirfd, path, flags, &st);
	if (r < 0)
		return r;
	static struct lx_statx sx;
	memset(&sx, 0, sizeof(sx));
	sx.mask = STATX_BASIC_STATS;
	sx.blksize = (uint32_t)st.st_blksize;
	sx.nlink = (uint32_t)st.st_nlink;
	sx.uid = st.st_uid;
	sx.gid = st.st_gid;
	sx.mode = (uint16_t)st.st_mode;
	sx.ino = st.st_ino;
	sx.size = (uint64_t)st.st_size;
	sx.blocks = (uint64_t)st.st_blocks;
	sx.atime = sx_ts(st.st_atim);
	sx.btime = sx_ts(st.st_ctim);
	sx.ctime = sx_ts(st.st_ctim);
	sx.mtime = sx_ts(st.st_mtim);
	sx.rdev_major = dev_major(st.st_rdev);
	sx.rdev_minor = dev_minor(st.st_rdev);
	sx.dev_major = dev_major(st.st_dev);
	sx.dev_minor = dev_minor(st.st_dev);
	return copyout(t->proc, buf, &sx, sizeof(sx)) ? 0 : -LX_EFAULT;
}

/* --- access --- */

#define LX_AT_EACCESS 0x200

/* The file dirfd/path names (a reference), for access: "" with AT_EMPTY_PATH is dirfd's
 * (1: an anonymous pipe or socket end, which has no inode). */
static long access_inode(struct thread *t, u64 dirfd, u64 flags, struct inode **ip)
{
	if (!path1[0] && (flags & LX_AT_EMPTY_PATH)) {
		struct file *f = (int)dirfd == LX_AT_FDCWD ? NULL : fd_get(t->proc, (int)dirfd);
		struct inode *i = (int)dirfd == LX_AT_FDCWD ? t->proc->cwd : f ? f->ip : NULL;
		if (!i)
			return f ? 1 : -LX_EBADF;       /* a pipe or socket: its owner's, mode 0600 */
		fs_get(i);
		*ip = i;
		return 0;
	}
	return lookup_at(t, dirfd, path1, (flags & LX_AT_SYMLINK_NOFOLLOW) ? 0 : FS_FOLLOW, ip);
}

/*
 * access(2) asks as the real user and group (the walk too), AT_EACCESS as
 * the effective (file-system) ones; X_OK on a regular file wants an x bit
 * even from root.
 */
static long access_at(struct thread *t, u64 dirfd, u64 upath, u64 mode, u64 flags)
{
	if (mode & ~7UL)
		return -LX_EINVAL;
	if (flags & ~(u64)(LX_AT_EACCESS | LX_AT_SYMLINK_NOFOLLOW | LX_AT_EMPTY_PATH))
		return -LX_EINVAL;
	long r = get_path(t, upath, path1);
	if (r < 0)
		return r;
	struct cred real = t->proc->cred;
	const struct cred *caller = fs_cred;
	real.fsuid = real.uid;
	real.fsgid = real.gid;
	if (!(flags & LX_AT_EACCESS))
		fs_cred = &real;
	struct inode *ip;
	r = access_inode(t, dirfd, flags, &ip);
	if (r == 0) {
		r = fs_permission(ip, (int)mode);
		fs_put(ip);
	} else if (r == 1) {
		r = (mode & FS_MAY_EXEC) ? -LX_EACCES : 0;
	}
	fs_cred = caller;
	return r;
}

long sys_access(struct thread *t, u64 path, u64 mode, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return access_at(t, (u64)(int64_t)LX_AT_FDCWD, path, mode, 0);
}

long sys_faccessat(struct thread *t, u64 dirfd, u64 path, u64 mode, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return access_at(t, dirfd, path, mode, 0);
}

long sys_faccessat2(struct thread *t, u64 dirfd, u64 path, u64 mode, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return access_at(t, dirfd, path, mode, flags);
}

/* --- directories --- */

/* getdents64 records from f's position into file_bounce; the byte count or -errno. */
static long dents(struct thread *t, u64 fd, u64 count, u64 *pos)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f || (f->flags & LX_O_PATH))
		return -LX_EBADF;
	if (!f->ip || !LX_S_ISDIR(f->ip->mode))
		return -LX_ENOTDIR;
	*pos = f->pos;
	return fs_getdents(f->ip, pos, file_bounce, count < BOUNCE_SIZE ? count : BOUNCE_SIZE);
}

/* The records reached the process: the directory's position moves on. */
static long dents_done(struct thread *t, u64 fd, u64 buf, long n, u64 pos)
{
	if (n <= 0)
		return n;
	if (!copyout(t->proc, buf, file_bounce, (size_t)n))
		return -LX_EFAULT;
	fd_get(t->proc, (int)fd)->pos = pos;
	return n;
}

long sys_getdents64(struct thread *t, u64 fd, u64 buf, u64 count, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	u64 pos;
	long n = dents(t, fd, count, &pos);
	return dents_done(t, fd, buf, n, pos);
}

/*
 * The old getdents record: d_ino, d_off, d_reclen, the name, and d_type in
 * the record's last byte.  It is exactly as long as the getdents64 record
 * for the same name (both are 20 bytes plus the name, rounded up to 8), so
 * the records are rewritten in place.
 */
long sys_getdents(struct thread *t, u64 fd, u64 buf, u64 count, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	u64 pos;
	long n = dents(t, fd, count, &pos);
	for (long at = 0; at < n;) {
		struct lx_dirent64 *d = (struct lx_dirent64 *)(file_bounce + at);
		uint16_t reclen = d->d_reclen;
		uint8_t type = d->d_type;
		char *rec = (char *)d;
		memmove(rec + 18, d->d_name, strlen(d->d_name) + 1);
		rec[reclen - 1] = (char)type;
		at += reclen;
	}
	return dents_done(t, fd, buf, n, pos);
}

long sys_getcwd(struct thread *t, u64 buf, u64 size, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	long n = fs_path(t->proc->cwd, path1, size < LX_PATH_MAX ? size : LX_PATH_MAX);
	if (n < 0)
		return n;
	return copyout(t->proc, buf, path1, (size_t)n + 1) ? n + 1 : -LX_EFAULT;
}

/* chdir and fchdir: a directory the caller may search. */
static long set_cwd(struct proc *p, struct inode *ip)
{
	long r = LX_S_ISDIR(ip->mode) ? fs_permission(ip, FS_MAY_EXEC) : -LX_ENOTDIR;
	if (r < 0) {
		fs_put(ip);
		return r;
	}
	fs_put(p->cwd);
	p->cwd = ip;
	return 0;
}

long sys_chdir(struct thread *t, u64 path, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = get_path(t, path, path1);
	if (r < 0 || (r = lookup_at(t, (u64)(int64_t)LX_AT_FDCWD, path1, FS_FOLLOW, &ip)) < 0)
		return r;
	return set_cwd(t->proc, ip);
}

long sys_fchdir(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (!f->ip)
		return -LX_ENOTDIR;
	fs_get(f->ip);
	return set_cwd(t->proc, f->ip);
}

static long mkdir_at(struct thread *t, u64 dirfd, u64 upath, u64 mode)
{
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	long r = get_path(t, upath, path1);
	if (r < 0 || (r = parent_at(t, dirfd, path1, &dir, last)) < 0)
		return r;
	mode = LX_S_IFDIR | (mode & 07777 & ~(u64)t->proc->umask);
	r = special_name(last) ? -LX_EEXIST : fs_create(dir, last, (u32)mode, 0, NULL);
	fs_put(dir);
	return r;
}

long sys_mkdir(struct thread *t, u64 path, u64 mode, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return mkdir_at(t, (u64)(int64_t)LX_AT_FDCWD, path, mode);
}

long sys_mkdirat(struct thread *t, u64 dirfd, u64 path, u64 mode, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return mkdir_at(t, dirfd, path, mode);
}

static long rmdir_at(struct thread *t, u64 dirfd)
{
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	long r = parent_at(t, dirfd, path1, &dir, last);
	if (r < 0)
		return r;
	if (!last[0])
		r = -LX_EBUSY;
	else if (!strcmp(last, "."))
		r = -LX_EINVAL;
	else if (!strcmp(last, ".."))
		r = -LX_ENOTEMPTY;
	else
		r = fs_rmdir(dir, last);
	fs_put(dir);
	return r;
}

static long unlink_at(struct thread *t, u64 dirfd)
{
	struct inode *dir, *ip;
	char last[LX_NAME_MAX + 1];
	if (trailing_slash(path1)) {    /* "name/" names a directory, which unlink refuses */
		long r = lookup_at(t, dirfd, path1, FS_FOLLOW, &ip);
		if (r < 0)
			return r;
		r = LX_S_ISDIR(ip->mode) ? -LX_EISDIR : -LX_ENOTDIR;
		fs_put(ip);
		return r;
	}
	long r = parent_at(t, dirfd, path1, &dir, last);
	if (r < 0)
		return r;
	r = special_name(last) ? -LX_EISDIR : fs_unlink(dir, last);
	fs_put(dir);
	return r;
}

long sys_rmdir(struct thread *t, u64 path, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	long r = get_path(t, path, path1);
	return r < 0 ? r : rmdir_at(t, (u64)(int64_t)LX_AT_FDCWD);
}

long sys_unlink(struct thread *t, u64 path, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	long r = get_path(t, path, path1);
	return r < 0 ? r : unlink_at(t, (u64)(int64_t)LX_AT_FDCWD);
}

long sys_unlinkat(struct thread *t, u64 dirfd, u64 path, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	if (flags & ~(u64)LX_AT_REMOVEDIR)
		return -LX_EINVAL;
	long r = get_path(t, path, path1);
	if (r < 0)
		return r;
	return (flags & LX_AT_REMOVEDIR) ? rmdir_at(t, dirfd) : unlink_at(t, dirfd);
}

/* --- links and renames --- */

#define LX_RENAME_NOREPLACE 1
#define LX_RENAME_EXCHANGE  2

/* rename; renameat2's RENAME_NOREPLACE (EEXIST if the new name exists) and RENAME_EXCHANGE
 * (not both: EINVAL); RENAME_WHITEOUT is EINVAL (lx has no overlay file system). */
static long rename_at(struct thread *t, u64 odirfd, u64 oldp, u64 ndirfd, u64 newp, u64 flags)
{
	if ((flags & ~(u64)(LX_RENAME_NOREPLACE | LX_RENAME_EXCHANGE)) ||
	    flags == (LX_RENAME_NOREPLACE | LX_RENAME_EXCHANGE))
		return -LX_EINVAL;
	struct inode *odir, *ndir;
	char olast[LX_NAME_MAX + 1], nlast[LX_NAME_MAX + 1];
	long r = get_path(t, oldp, path1);
	if (r < 0 || (r = get_path(t, newp, path2)) < 0)
		return r;
	if ((r = parent_at(t, odirfd, path1, &odir, olast)) < 0)
		return r;
	if ((r = parent_at(t, ndirfd, path2, &ndir, nlast)) < 0) {
		fs_put(odir);
		return r;
	}
	struct inode *there;
	if (special_name(olast) || special_name(nlast)) {
		r = -LX_EBUSY;
	} else if ((flags & LX_RENAME_NOREPLACE) && fs_dir_lookup(ndir, nlast, &there) == 0) {
		fs_put(there);
		r = -LX_EEXIST;
	} else if (flags & LX_RENAME_EXCHANGE) {
		r = fs_exchange(odir, olast, ndir, nlast);
	} else {
		r = fs_rename(odir, olast, ndir, nlast);
	}
	fs_put(odir);
	fs_put(ndir);
	return r;
}

long sys_rename(struct thread *t, u64 oldp, u64 newp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return rename_at(t, (u64)(int64_t)LX_AT_FDCWD, oldp, (u64)(int64_t)LX_AT_FDCWD, newp, 0);
}

long sys_renameat(struct thread *t, u64 od, u64 oldp, u64 nd, u64 newp, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return rename_at(t, od, oldp, nd, newp, 0);
}

long sys_renameat2(struct thread *t, u64 od, u64 oldp, u64 nd, u64 newp, u64 flags, u64 a5)
{
	(void)a5;
	return rename_at(t, od, oldp, nd, newp, flags);
}

static long link_at(struct thread *t, u64 odirfd, u64 oldp, u64 ndirfd, u64 newp, u64 flags)
{
	if (flags & ~(u64)(LX_AT_SYMLINK_FOLLOW | LX_AT_EMPTY_PATH))
		return -LX_EINVAL;
	struct inode *ip, *dir;
	char last[LX_NAME_MAX + 1];
	long r = get_path(t, oldp, path1);
	if (r < 0 || (r = get_path(t, newp, path2)) < 0)
		return r;
	if (!path1[0] && (flags & LX_AT_EMPTY_PATH)) {
		struct file *f = fd_get(t->proc, (int)odirfd);
		if (!f || !f->ip)
			return -LX_EBADF;
		ip = f->ip;
		fs_get(ip);
	} else if ((r = lookup_at(t, odirfd, path1,
				  (flags & LX_AT_SYMLINK_FOLLOW) ? FS_FOLLOW : 0, &ip)) < 0) {
		return r;
	}
	if ((r = parent_at(t, ndirfd, path2, &dir, last)) < 0) {
		fs_put(ip);
		return r;
	}
	r = special_name(last) ? -LX_EEXIST : fs_link(dir, last, ip);
	fs_put(dir);
	fs_put(ip);
	return r;
}

long sys_link(struct thread *t, u64 oldp, u64 newp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return link_at(t, (u64)(int64_t)LX_AT_FDCWD, oldp, (u64)(int64_t)LX_AT_FDCWD, newp, 0);
}

long sys_linkat(struct thread *t, u64 od, u64 oldp, u64 nd, u64 newp, u64 flags, u64 a5)
{
	(void)a5;
	return link_at(t, od, oldp, nd, newp, flags);
}

static long symlink_at(struct thread *t, u64 utarget, u64 dirfd, u64 upath)
{
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	long r = get_path(t, utarget, path2);
	if (r < 0 || (r = get_path(t, upath, path1)) < 0)
		return r;
	if (!path2[0])
		return -LX_ENOENT;
	if ((r = parent_at(t, dirfd, path1, &dir, last)) < 0)
		return r;
	r = special_name(last) ? -LX_EEXIST : fs_symlink(dir, last, path2);
	fs_put(dir);
	return r;
}

long sys_symlink(struct thread *t, u64 target, u64 path, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return symlink_at(t, target, (u64)(int64_t)LX_AT_FDCWD, path);
}

long sys_symlinkat(struct thread *t, u64 target, u64 dirfd, u64 path, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return symlink_at(t, target, dirfd, path);
}

/* An empty path reads the link dirfd names (opened O_PATH|O_NOFOLLOW), else ENOENT. */
static long readlink_at(struct thread *t, u64 dirfd, u64 upath, u64 buf, u64 size)
{
	if ((int64_t)size <= 0)
		return -LX_EINVAL;
	struct inode *ip;
	long r = get_path(t, upath, path1);
	if (r == 0 && !path1[0] && (int)dirfd != LX_AT_FDCWD) {
		struct file *f = fd_get(t->proc, (int)dirfd);
		if (!f)
			return -LX_EBADF;
		if (!f->ip || !LX_S_ISLNK(f->ip->mode))
			return -LX_ENOENT;
		fs_get(ip = f->ip);
	} else if (r < 0 || (r = lookup_at(t, dirfd, path1, 0, &ip)) < 0) {
		return r;
	}
	r = fs_readlink(ip, path2, size < LX_PATH_MAX ? size : LX_PATH_MAX);
	fs_put(ip);
	if (r < 0)
		return r;
	return copyout(t->proc, buf, path2, (size_t)r) ? r : -LX_EFAULT;
}

long sys_readlink(struct thread *t, u64 path, u64 buf, u64 size, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return readlink_at(t, (u64)(int64_t)LX_AT_FDCWD, path, buf, size);
}

long sys_readlinkat(struct thread *t, u64 dirfd, u64 path, u64 buf, u64 size, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return readlink_at(t, dirfd, path, buf, size);
}

/* --- attributes --- */

/* The inode a call on dirfd/path changes (a reference); "" with AT_EMPTY_PATH: dirfd's. */
static long inode_at(struct thread *t, u64 dirfd, u64 upath, u64 flags, struct inode **ip)
{
	long r = get_path(t, upath, path1);
	if (r < 0)
		return r;
	if (!path1[0] && (flags & LX_AT_EMPTY_PATH)) {
		struct file *f = fd_get(t->proc, (int)dirfd);
		if (!f || !f->ip)
			return f ? -LX_EINVAL : -LX_EBADF;
		*ip = f->ip;
		fs_get(*ip);
		return 0;
	}
	return lookup_at(t, dirfd, path1, (flags & LX_AT_SYMLINK_NOFOLLOW) ? 0 : FS_FOLLOW, ip);
}

/* fchmod, fchown, futimens: an O_PATH descriptor names the file but may not change it (EBADF). */
static long fd_inode(struct thread *t, u64 fd, struct inode **ip)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f || (f->flags & LX_O_PATH))
		return -LX_EBADF;
	if (!f->ip)
		return -LX_EINVAL;
	*ip = f->ip;
	fs_get(*ip);
	return 0;
}

/* chmod: the owner or root; S_ISGID only stays for a member of the file's group or root. */
static long set_mode(struct inode *ip, u64 mode)
{
	if (!fs_owner_or_root(ip)) {
		fs_put(ip);
		return -LX_EPERM;
	}
	if (!fs_in_group(ip->gid) && !fs_is_root())
		mode &= ~(u64)LX_S_ISGID;
	ip->mode = (ip->mode & LX_S_IFMT) | ((u32)mode & 07777);
	stamp_ctime(ip);
	long r = fs_setattr(ip);
	fs_put(ip);
	return r;
}

long sys_chmod(struct thread *t, u64 path, u64 mode, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, 0, &ip);
	return r < 0 ? r : set_mode(ip, mode);
}

long sys_fchmodat(struct thread *t, u64 dirfd, u64 path, u64 mode, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = inode_at(t, dirfd, path, 0, &ip);
	return r < 0 ? r : set_mode(ip, mode);
}

/* fchmodat2(2): fchmodat with flags; a symbolic link's own mode cannot change (EOPNOTSUPP). */
long sys_fchmodat2(struct thread *t, u64 dirfd, u64 path, u64 mode, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	if (flags & ~(u64)(LX_AT_SYMLINK_NOFOLLOW | LX_AT_EMPTY_PATH))
		return -LX_EINVAL;
	struct inode *ip;
	long r = inode_at(t, dirfd, path, flags, &ip);
	if (r < 0)
		return r;
	if (LX_S_ISLNK(ip->mode)) {
		fs_put(ip);
		return -LX_EOPNOTSUPP;
	}
	return set_mode(ip, mode);
}

long sys_fchmod(struct thread *t, u64 fd, u64 mode, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = fd_inode(t, fd, &ip);
	return r < 0 ? r : set_mode(ip, mode);
}

/*
 * chown's rules (an ID of -1 stays as it is): root changes anything; the
 * owner may "change" the owner to himself and the group to one of his.
 */
static bool may_chown(const struct inode *ip, u32 uid, u32 gid)
{
	if (fs_is_root())
		return true;
	bool owner = fs_cred->fsuid == ip->uid;
	if (uid != ~0U && !(owner && uid == ip->uid))
		return false;
	return gid == ~0U || (owner && (gid == ip->gid || fs_in_group(gid)));
}

/*
 * What chown does to the mode of anything but a directory: S_ISUID goes,
 * S_ISGID as fs_drop_sgid says.  A change of mode is chmod's to make
 * (EPERM otherwise).
 */
static u32 chown_mode(const struct inode *ip)
{
	if (LX_S_ISDIR(ip->mode))
		return ip->mode;
	return ip->mode & ~(u32)(LX_S_ISUID | (fs_drop_sgid(ip) ? LX_S_ISGID : 0));
}

static long set_owner(struct inode *ip, u64 uid, u64 gid)
{
	u32 mode = chown_mode(ip);
	if (!may_chown(ip, (u32)uid, (u32)gid) || (mode != ip->mode && !fs_owner_or_root(ip))) {
		fs_put(ip);
		return -LX_EPERM;
	}
	ip->mode = mode;
	if ((u32)uid != ~0U)
		ip->uid = (u32)uid;
	if ((u32)gid != ~0U)
		ip->gid = (u32)gid;
	stamp_ctime(ip);
	long r = fs_setattr(ip);
	fs_put(ip);
	return r;
}

long sys_chown(struct thread *t, u64 path, u64 uid, u64 gid, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, 0, &ip);
	return r < 0 ? r : set_owner(ip, uid, gid);
}

long sys_lchown(struct thread *t, u64 path, u64 uid, u64 gid, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, LX_AT_SYMLINK_NOFOLLOW, &ip);
	return r < 0 ? r : set_owner(ip, uid, gid);
}

long sys_fchown(struct thread *t, u64 fd, u64 uid, u64 gid, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = fd_inode(t, fd, &ip);
	return r < 0 ? r : set_owner(ip, uid, gid);
}

long sys_fchownat(struct thread *t, u64 dirfd, u64 path, u64 uid, u64 gid, u64 flags, u64 a5)
{
	(void)a5;
	if (flags & ~(u64)(LX_AT_SYMLINK_NOFOLLOW | LX_AT_EMPTY_PATH))
		return -LX_EINVAL;
	struct inode *ip;
	long r = inode_at(t, dirfd, path, flags, &ip);
	return r < 0 ? r : set_owner(ip, uid, gid);
}

long sys_umask(struct thread *t, u64 mask, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	u32 old = t->proc->umask;
	t->proc->umask = (u32)mask & 0777;
	return old;
}

#define LX_UTIME_NOW  ((1L << 30) - 1)
#define LX_UTIME_OMIT ((1L << 30) - 2)

/*
 * Who may set times: both to now (ts NULL or both UTIME_NOW) the owner,
 * root or whoever may write (EACCES); anything else the owner or root
 * (EPERM), as Linux answers (even for UTIME_NOW with UTIME_OMIT).
 */
static long may_set_times(struct inode *ip, const struct lx_timespec *ts)
{
	if (fs_owner_or_root(ip))
		return 0;
	if (!ts || (ts[0].tv_nsec == LX_UTIME_NOW && ts[1].tv_nsec == LX_UTIME_NOW))
		return fs_permission(ip, FS_MAY_WRITE);
	return -LX_EPERM;
}

/* Set atime and mtime from ts[2] (NULL: now), with UTIME_NOW / UTIME_OMIT. */
static long set_times(struct inode *ip, const struct lx_timespec *ts)
{
	long perm = may_set_times(ip, ts);
	if (perm < 0) {
		fs_put(ip);
		return perm;
	}
	struct lx_timespec now = {0, 0};
	if (fs_now)
		fs_now(&now);
	struct lx_timespec *dst[2] = {&ip->atime, &ip->mtime};
	for (int i = 0; i < 2; i++) {
		if (!ts || ts[i].tv_nsec == LX_UTIME_NOW)
			*dst[i] = now;
		else if (ts[i].tv_nsec != LX_UTIME_OMIT)
			*dst[i] = ts[i];
	}
	ip->ctime = now;
	long r = fs_setattr(ip);
	fs_put(ip);
	return r;
}

static bool times_valid(const struct lx_timespec *ts)
{
	for (int i = 0; i < 2; i++)
		if (ts[i].tv_nsec != LX_UTIME_NOW && ts[i].tv_nsec != LX_UTIME_OMIT &&
		    (ts[i].tv_nsec < 0 || ts[i].tv_nsec >= 1000000000L))
			return false;
	return true;
}

long sys_utimensat(struct thread *t, u64 dirfd, u64 path, u64 utimes, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct lx_timespec ts[2];
	if (utimes) {
		if (!copyin(t->proc, ts, utimes, sizeof(ts)))
			return -LX_EFAULT;
		if (ts[0].tv_nsec == LX_UTIME_OMIT && ts[1].tv_nsec == LX_UTIME_OMIT)
			return 0;       /* nothing to do: Linux does not even look at the path */
		if (!times_valid(ts))
			return -LX_EINVAL;
	}
	if (flags & ~(u64)(LX_AT_SYMLINK_NOFOLLOW | LX_AT_EMPTY_PATH))
		return -LX_EINVAL;
	if (!path && (int)dirfd == LX_AT_FDCWD)
		return -LX_EFAULT;      /* a NULL path names a descriptor's file, never the cwd */
	struct inode *ip;
	long r = path ? inode_at(t, dirfd, path, flags, &ip) : fd_inode(t, dirfd, &ip);
	return r < 0 ? r : set_times(ip, utimes ? ts : NULL);
}

static long utimes_at(struct thread *t, u64 dirfd, u64 path, u64 utv);

long sys_utimes(struct thread *t, u64 path, u64 utv, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return utimes_at(t, (u64)(int64_t)LX_AT_FDCWD, path, utv);
}

long sys_futimesat(struct thread *t, u64 dirfd, u64 path, u64 utv, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return utimes_at(t, dirfd, path, utv);
}

/* utimes(2) and futimesat(2): microsecond times, or now for NULL. */
static long utimes_at(struct thread *t, u64 dirfd, u64 path, u64 utv)
{
	struct lx_timeval tv[2];
	struct lx_timespec ts[2];
	if (utv) {
		if (!copyin(t->proc, tv, utv, sizeof(tv)))
			return -LX_EFAULT;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -LX_EINVAL;
			ts[i] = (struct lx_timespec){tv[i].tv_sec, tv[i].tv_usec * 1000};
		}
	}
	struct inode *ip;
	long r = inode_at(t, dirfd, path, 0, &ip);
	return r < 0 ? r : set_times(ip, utv ? ts : NULL);
}

long sys_utime(struct thread *t, u64 path, u64 ubuf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	int64_t tb[2];                  /* actime, modtime */
	struct lx_timespec ts[2];
	if (ubuf) {
		if (!copyin(t->proc, tb, ubuf, sizeof(tb)))
			return -LX_EFAULT;
		ts[0] = (struct lx_timespec){tb[0], 0};
		ts[1] = (struct lx_timespec){tb[1], 0};
	}
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, 0, &ip);
	return r < 0 ? r : set_times(ip, ubuf ? ts : NULL);
}

static long truncate_inode(struct inode *ip, u64 len)
{
	long r;
	if (LX_S_ISDIR(ip->mode))
		r = -LX_EISDIR;
	else if (!LX_S_ISREG(ip->mode) || (int64_t)len < 0)
		r = -LX_EINVAL;
	else
		r = fs_truncate(ip, len);
	fs_put(ip);
	return r;
}

long sys_truncate(struct thread *t, u64 path, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, 0, &ip);
	if (r < 0)
		return r;
	if (LX_S_ISREG(ip->mode) && (r = fs_permission(ip, FS_MAY_WRITE)) < 0) {
		fs_put(ip);
		return r;
	}
	return truncate_inode(ip, len);
}

long sys_ftruncate(struct thread *t, u64 fd, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (!f->ip || !file_writable(f))
		return -LX_EINVAL;
	fs_get(f->ip);
	return truncate_inode(f->ip, len);
}

/* mknod: regular files, FIFOs, devices and socket nodes (what mode's type says). */
static long mknod_at(struct thread *t, u64 dirfd, u64 upath, u64 mode, u64 dev)
{
	u32 type = (u32)mode & LX_S_IFMT;
	if (!type)
		type = LX_S_IFREG;
	if (type == LX_S_IFDIR)
		return -LX_EPERM;
	if (type != LX_S_IFREG && type != LX_S_IFIFO && type != LX_S_IFCHR &&
	    type != LX_S_IFBLK && type != LX_S_IFSOCK)
		return -LX_EINVAL;
	u64 major = (dev >> 8) & 0xfff, minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
	struct inode *dir;
	char last[LX_NAME_MAX + 1];
	long r = get_path(t, upath, path1);
	if (r < 0 || (r = parent_at(t, dirfd, path1, &dir, last)) < 0)
		return r;
	u32 m = type | ((u32)mode & 07777 & ~t->proc->umask);
	r = special_name(last) ? -LX_EEXIST : fs_create(dir, last, m, LX_MKDEV(major, minor), NULL);
	fs_put(dir);
	return r;
}

long sys_mknod(struct thread *t, u64 path, u64 mode, u64 dev, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return mknod_at(t, (u64)(int64_t)LX_AT_FDCWD, path, mode, dev);
}

long sys_mknodat(struct thread *t, u64 dirfd, u64 path, u64 mode, u64 dev, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return mknod_at(t, dirfd, path, mode, dev);
}

/* --- file system information --- */

struct lx_statfs {
	int64_t type, bsize, blocks, bfree, bavail, files, ffree;
	int32_t fsid[2];
	int64_t namelen, frsize, flags, spare[4];
};
#define TMPFS_MAGIC 0x01021994

/* A tmpfs-like answer: lx's free pages are the file system's free blocks. */
/* Linux's f_type of each file-system type; /proc and /sys hold no blocks, as on Linux. */
static bool statfs_type(const struct super *sb, struct lx_statfs *s)
{
	static const struct { const char *type; int64_t magic; } types[] = {
		{ "proc", 0x9fa0 }, { "sysfs", 0x62656572 }, { "ext2", 0xef53 },
		{ "pipefs", 0x50495045 },
	};
	s->type = TMPFS_MAGIC;                  /* ramfs, tmpfs, devtmpfs */
	for (unsigned i = 0; sb && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(sb->type, types[i].type))
			s->type = types[i].magic;
	return s->type == 0x9fa0 || s->type == 0x62656572;
}

static long put_statfs(struct thread *t, u64 buf, const struct super *sb)
{
	struct lx_statfs s;
	memset(&s, 0, sizeof(s));
	bool empty = statfs_type(sb, &s);
	/* ST_VALID and the mount's flags (ST_NOSUID... share MS_*'s bits), relatime unless noatime */
	u64 mf = sb ? sb->mflags & 0xd1e : 0;
	s.flags = (int64_t)(0x20 | mf | (mf & 0x400 ? 0 : 0x1000));
	s.bsize = s.frsize = LX_PAGE_SIZE;
	s.namelen = LX_NAME_MAX;
	if (!empty) {
		s.bfree = s.bavail = (int64_t)page_free_count();
		s.blocks = s.bfree + 1;
		s.files = 1 << 20;
		s.ffree = s.files - 1;
	}
	return copyout(t->proc, buf, &s, sizeof(s)) ? 0 : -LX_EFAULT;
}

long sys_statfs(struct thread *t, u64 path, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, 0, &ip);
	if (r < 0)
		return r;
	struct super *sb = ip->sb;
	fs_put(ip);
	return put_statfs(t, buf, sb);
}

long sys_fstatfs(struct thread *t, u64 fd, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	return put_statfs(t, buf, f->ip ? f->ip->sb : NULL);
}

long sys_sync(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t, (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	vfs_sync();             /* sync(2) cannot fail; an I/O error shows at the next fsync */
	return 0;
}

/* --- extended attributes: none on any file system (ext2's are not read) --- */

/* The file must exist (ENOENT, EBADF...), then there are no attributes: EOPNOTSUPP. */
static long xattr_path(struct thread *t, u64 path, u64 flags)
{
	struct inode *ip;
	long r = inode_at(t, (u64)(int64_t)LX_AT_FDCWD, path, flags, &ip);
	if (r < 0)
		return r;
	fs_put(ip);
	return -LX_EOPNOTSUPP;
}

static long xattr_fd(struct thread *t, u64 fd)
{
	return fd_get(t->proc, (int)fd) ? -LX_EOPNOTSUPP : -LX_EBADF;
}

#define XATTR_PATH(name, flags) \
	long sys_##name(struct thread *t, u64 path, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) \
	{ (void)a1, (void)a2, (void)a3, (void)a4, (void)a5; return xattr_path(t, path, flags); }
#define XATTR_FD(name) \
	long sys_##name(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) \
	{ (void)a1, (void)a2, (void)a3, (void)a4, (void)a5; return xattr_fd(t, fd); }

XATTR_PATH(setxattr, 0)
XATTR_PATH(getxattr, 0)
XATTR_PATH(listxattr, 0)
XATTR_PATH(removexattr, 0)
XATTR_PATH(lsetxattr, LX_AT_SYMLINK_NOFOLLOW)
XATTR_PATH(lgetxattr, LX_AT_SYMLINK_NOFOLLOW)
XATTR_PATH(llistxattr, LX_AT_SYMLINK_NOFOLLOW)
XATTR_PATH(lremovexattr, LX_AT_SYMLINK_NOFOLLOW)
XATTR_FD(fsetxattr)
XATTR_FD(fgetxattr)
XATTR_FD(flistxattr)
XATTR_FD(fremovexattr)

/* name_to_handle_at(2): no lx file system exports handles (EOPNOTSUPP, as
 * Linux for such a file system), once the name itself resolves. */
long sys_name_to_handle_at(struct thread *t, u64 dirfd, u64 path, u64 handle, u64 mount_id,
			   u64 flags, u64 a5)
{
	(void)handle, (void)mount_id, (void)a5;
	if (flags & ~(u64)(0x400 | LX_AT_EMPTY_PATH))       /* AT_SYMLINK_FOLLOW */
		return -LX_EINVAL;
	struct inode *ip;
	long r = inode_at(t, dirfd, path, (flags & 0x400) ? 0 : LX_AT_SYMLINK_NOFOLLOW | (flags & LX_AT_EMPTY_PATH), &ip);
	if (r < 0)
		return r;
	fs_put(ip);
	return -LX_EOPNOTSUPP;
}
