/* SPDX-License-Identifier: MIT */
/*
 * lx's virtual file system: inodes of every file-system type behind one
 * table of operations (struct fs_ops), the mount table, the one path walk,
 * open files (struct file with its struct file_ops) and descriptor tables.
 * Pure C over linux.h and mm/mm.h: the host tests (tests/host/test_lxfs.c)
 * build the inode and path-walk parts (vfs/namei.c) with fs/ramfs.c.
 *
 * Every call that can fail returns a negative Linux errno (linux.h).
 * Inodes are reference counted: lookups return a reference the caller drops
 * with fs_put; when the last goes the file system decides (ramfs frees an
 * inode with no links; ext2 writes it back and forgets it).
 */
#ifndef LX_VFS_H
#define LX_VFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "../linux.h"

typedef uint64_t u64;
typedef uint32_t u32;
struct proc;
struct thread;
struct fastimg;
struct file;
struct super;

/* --- inodes, file systems and mounts (vfs/namei.c) --- */
struct inode;
struct dentry;

/* A tag lx puts on inodes of its own kinds, to tell them apart (System V segments). */
struct inode_ops {
	const char *kind;
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
	struct super *sb;               /* the mounted file system it belongs to */
	struct super *mounted;          /* a directory another file system is mounted on */
	const struct inode_ops *ops;    /* NULL for ordinary nodes */
	void *priv;                     /* lx's: a pipe, a socket */
	void *fs_priv;                  /* the file-system type's own (ext2: its inode record) */
	/* ramfs's (fs/ramfs.c), in the inode so that a RAM inode is one allocation */
	struct inode *parent;           /* directories: ".." */
	struct dentry *entries;         /* directories */
	uint64_t nentries;
	void **blocks;                  /* regular files: data pages, NULL = hole */
	uint8_t *block_ro;              /* 1: the page lies in the archive, copy before writing */
	uint64_t nblocks;
	char *target;                   /* symbolic links */
	/* memfd (fs/memfd.c): LX_SEALABLE | F_SEAL_*; 0 for every other file */
	uint32_t seals;
	/* O_TMPFILE without O_EXCL (fs_tmpfile): linkat may name it although nlink is 0 */
	bool linkable;
};

/* memfd seals (fcntl(2) F_ADD_SEALS); write, truncate and mmap obey them */
#define LX_F_SEAL_SEAL         0x01
#define LX_F_SEAL_SHRINK       0x02
#define LX_F_SEAL_GROW         0x04
#define LX_F_SEAL_WRITE        0x08
#define LX_F_SEAL_FUTURE_WRITE 0x10
#define LX_F_SEAL_EXEC         0x20
#define LX_SEALABLE            0x80000000u      /* a memfd: seals apply */

/*
 * A file-system type's operations: inode operations and file-system
 * operations in one table, called through the VFS only (vfs/namei.c),
 * which walks paths, crosses mount points, answers "." and a root's "..",
 * refuses links and renames between file systems (EXDEV) and the
 * removal of a mount point (EBUSY), and checks permissions (vfs/perm.c)
 * with the caller's credentials.  The type checks the rest as Linux
 * does.  Names are NUL-terminated components, except lookup's (name, len).
 * A NULL entry: the operation is refused (EPERM for names, EINVAL for
 * data; page NULL: no shared mappings, ENODEV).
 */
struct fs_name;
struct fs_ops {
	/* one component of dir ("." and ".." included); *out: a reference */
	int (*lookup)(struct inode *dir, const char *name, size_t len, struct inode **out);
	/* mode has the type bits; EEXIST if the name exists; *out: a reference (may be NULL) */
	int (*create)(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
		      struct inode **out);
	int (*link)(struct inode *dir, const char *name, struct inode *target);
	int (*symlink)(struct inode *dir, const char *name, const char *target);
	int (*unlink)(struct inode *dir, const char *name);       /* EISDIR for directories */
	int (*rmdir)(struct inode *dir, const char *name);        /* ENOTEMPTY unless empty */
	int (*rename)(struct inode *odir, const char *oname, struct inode *ndir, const char *nname);
	long (*readlink)(struct inode *ip, char *buf, size_t n);
	long (*read)(struct inode *ip, uint64_t off, void *buf, size_t n);
	long (*write)(struct inode *ip, uint64_t off, const void *buf, size_t n);
	int (*truncate)(struct inode *ip, uint64_t size);
	/* shared mappings: the page holding byte off, allocated if `alloc` */
	void *(*page)(struct inode *ip, uint64_t off, bool alloc);
	long (*getdents)(struct inode *dir, uint64_t *pos, void *buf, size_t n);
	uint64_t (*blocks)(const struct inode *ip);     /* st_blocks (512-byte units) */
	int (*setattr)(struct inode *ip);               /* mode, owner or times changed */
	int (*fsync)(struct inode *ip);                 /* ip's data and record on the medium */
	void (*evict)(struct inode *ip);                /* its last reference is gone */
	int (*sync)(struct super *sb);                  /* everything on the medium */
	void (*kill)(struct super *sb);                 /* free everything (vfs_destroy) */
	/* Generated file systems (fs/procfs.c).  jump: a "magic" symbolic link
	 * (/proc/PID/fd/N, exe, cwd) names an object, not a path: the walk goes
	 * to *out (a reference) and `where` gets the name it was opened by, as
	 * Linux's nd_jump_link; NULL or -LX_ENOSYS: an ordinary link.  open: may
	 * refuse an open of ip (a read-only sysctl opened for writing: EACCES). */
	int (*jump)(struct inode *ip, struct inode **out, struct fs_name *where);
	int (*open)(struct inode *ip, uint32_t flags);
	/* fallocate(2) modes 0 and LX_FALLOC_KEEP_SIZE (allocate), PUNCH_HOLE|KEEP_SIZE (zeros
	 * or a hole); NULL: EOPNOTSUPP */
	int (*allocate)(struct inode *ip, int mode, uint64_t off, uint64_t len);
	/* A page cache's (fs/ext2.c): a shared mapping may store into the page holding
	 * off from now on, so fsync and the last reference write it back; NULL: the
	 * pages are the file (ramfs) */
	void (*page_dirty)(struct inode *ip, uint64_t off);
};
#define LX_FALLOC_KEEP_SIZE  1
#define LX_FALLOC_PUNCH_HOLE 2

/*
 * The directory and last component a walk ended at (its last symbolic link
 * followed), so that an open file knows its name for /proc/PID/fd; dir is a
 * reference, or NULL when the walk ended at a directory (whose path
 * fs_path finds from the inode).  After FS_CREATE's ENOENT it is the
 * missing final name, where O_CREAT makes the file.
 */
struct fs_name {
	struct inode *dir;
	char name[LX_NAME_MAX + 1];
	bool missing;           /* FS_CREATE's mark (vfs/namei.c): the final name is not there */
};
void fs_name_drop(struct fs_name *w);      /* drops dir's reference */

/* One mounted file system. */
struct super {
	const struct fs_ops *ops;
	const char *type;               /* "ramfs", "tmpfs", "proc", "devfs", "ext2" */
	struct inode *root;             /* holds a reference */
	struct inode *covered;          /* the directory it is mounted on (a reference); NULL for / */
	uint64_t dev;                   /* st_dev */
	void *priv;                     /* the type's own */
	/* umount2 (vfs/namei.c): references held on its inodes (fs_get/fs_put, the
	 * root's mount reference included), and whether MNT_DETACH took it out of
	 * the tree (it ends with its last reference) */
	u32 irefs;
	bool detached;
	/* mount(2) (syscall/sys_mount.c): the source /proc/mounts shows ("" for lx's own),
	 * the MS_* flags it records, MNT_EXPIRE's mark */
	char source[64];
	u64 mflags;                     /* LX_MS_NOSUID and LX_MS_NOEXEC are obeyed by execve */
	bool expiring;
};

#define LX_MS_NOSUID 0x2
#define LX_MS_NOEXEC 0x8

/* Lookup flags */
#define FS_FOLLOW    1      /* follow a symbolic link in the last component */
#define FS_DIRECTORY 2      /* the result must be a directory (a trailing '/' implies it) */
/* O_CREAT's walk: a final "name/" is EISDIR; fs_lookup_named keeps where at a missing final name */
#define FS_CREATE    4

/* The clock file systems stamp times with (lx sets it; the host tests leave 0). */
extern void (*fs_now)(struct lx_timespec *ts);

/*
 * The mount table.  vfs_mount_root makes sb the root ("/"); vfs_mount puts
 * sb on the directory path names (EBUSY if something is mounted there).
 * The VFS takes over sb (and frees it in vfs_destroy).
 */
void vfs_mount_root(struct super *sb);
int vfs_mount(const char *path, struct super *sb);
/* The same on dir (a reference it takes over); -ENOSPC when the table is full. */
int vfs_mount_at(struct inode *dir, struct super *sb);
/*
 * umount2(2) of ip, a reference the caller keeps: 0 if it may go, -EINVAL
 * if ip is no mount's root, -EBUSY for "/" or, unless detach, while any
 * inode of the file system is referenced beyond its root's mount reference,
 * the caller's, and `pinned` more (inotify's watches).  vfs_umount then
 * takes it and every mount below it out of the tree (the caller's reference
 * dropped first); each is written back and freed once nothing holds it.
 */
int vfs_umount_check(struct inode *ip, bool detach, u32 pinned);
void vfs_umount(struct super *sb);
struct super *vfs_super_new(const struct fs_ops *ops, const char *type);   /* NULL: ENOMEM */
/* The mount table in mount order ([0] is "/"), for /proc/mounts: NULL past its end; -1: not mounted. */
struct super *vfs_mount_nth(int i);
int vfs_mount_index(const struct super *sb);
/* Unmounts everything and destroys every file system (host tests' leak checks). */
void vfs_destroy(void);
int vfs_sync(void);                         /* sync(2): every file system */
int fs_fsync(struct inode *ip);
/* mode, owner or times of ip were changed by the caller: the file system records them */
int fs_setattr(struct inode *ip);

struct inode *fs_root(void);                /* no reference taken */

void fs_get(struct inode *ip);
void fs_put(struct inode *ip);

/* Resolve path (absolute, or relative to cwd); *out gets a reference. */
int fs_lookup(struct inode *cwd, const char *path, int flags, struct inode **out);
/*
 * The same, and where the walk ended (where->dir a reference on success).
 * With FS_CREATE, an ENOENT for the final name itself, reached through any
 * symbolic links, leaves where at that name (where->dir a reference, and
 * where->missing): open(O_CREAT) makes the file there, the walk's RESOLVE_*
 * restrictions already obeyed; a final "name/" is EISDIR, as O_CREAT's.
 * After any other error where->dir is NULL.
 */
int fs_lookup_named(struct inode *cwd, const char *path, int flags, struct inode **out,
		    struct fs_name *where);
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
/* renameat2's RENAME_EXCHANGE: the two names trade places (both must exist: ENOENT). */
int fs_exchange(struct inode *odir, const char *oname, struct inode *ndir, const char *nname);
/* open(2)'s O_TMPFILE: a new unnamed regular file of dir's file system (*out: a reference);
 * EOPNOTSUPP where the type cannot make one */
int fs_tmpfile(struct inode *dir, uint32_t mode, bool linkable, struct inode **out);
long fs_readlink(struct inode *ip, char *buf, size_t n); /* not NUL-terminated, as Linux */

/*
 * Change notification (inotify(7), fs/inotify.c).  The fs_* calls above and
 * vfs/file.c report each change with fs_event(ip, name, mask, cookie): with
 * a name, ip is the directory whose entry changed (IN_CREATE, IN_DELETE,
 * IN_MOVED_FROM/TO); without, ip itself changed (IN_MODIFY, IN_ATTRIB,
 * IN_CLOSE_WRITE, IN_DELETE_SELF, IN_MOVE_SELF...).  fs_notify is inotify's
 * (NULL in the host tests); fs_watches counts the watches, so that nothing
 * is looked up for events while there are none.
 */
#define LX_IN_ACCESS        0x001
#define LX_IN_MODIFY        0x002
#define LX_IN_ATTRIB        0x004
#define LX_IN_CLOSE_WRITE   0x008
#define LX_IN_CLOSE_NOWRITE 0x010
#define LX_IN_OPEN          0x020
#define LX_IN_MOVED_FROM    0x040
#define LX_IN_MOVED_TO      0x080
#define LX_IN_CREATE        0x100
#define LX_IN_DELETE        0x200
#define LX_IN_DELETE_SELF   0x400
#define LX_IN_MOVE_SELF     0x800
#define LX_IN_ISDIR         0x40000000
#define LX_IN_SELF_ONLY     0x08000000      /* lx's: not for the parent's watches (link counts) */
extern void (*fs_notify)(struct inode *ip, const char *name, uint32_t mask, uint32_t cookie);
extern uint32_t fs_watches;
void fs_event(struct inode *ip, const char *name, uint32_t mask, uint32_t cookie);

/* Regular file data. */
long fs_read(struct inode *ip, uint64_t off, void *buf, size_t n);
long fs_write(struct inode *ip, uint64_t off, const void *buf, size_t n);
int fs_truncate(struct inode *ip, uint64_t size);       /* EPERM past a memfd's seals */
int fs_allocate(struct inode *ip, int mode, uint64_t off, uint64_t len);   /* fallocate */
/* A write of n bytes at off is allowed by ip's seals: 0 or -EPERM. */
int fs_seals_allow_write(const struct inode *ip, uint64_t off, size_t n);
int fs_new_name_ok(const struct inode *dir, const char *name, size_t len);   /* for the types */
/* The page holding byte off, allocated (zeroed) if `alloc`; NULL past EOF or without memory. */
void *fs_page(struct inode *ip, uint64_t off, bool alloc);
bool fs_can_share(const struct inode *ip);   /* its file system gives pages (fs_page) */
void fs_page_dirty(struct inode *ip, uint64_t off);   /* fs_ops.page_dirty, if any */

/* Directory listing: fills buf with lx_dirent64 records from *pos on; returns bytes or -errno. */
long fs_getdents(struct inode *dir, uint64_t *pos, void *buf, size_t n);

void fs_stat(const struct inode *ip, struct lx_stat *st);
/*
 * The path of a directory from the root ("/" for the root), for getcwd:
 * its length without the NUL, -ERANGE if buf is too small, -ENOENT once removed.
 */
long fs_path(struct inode *dir, char *buf, size_t n);

/* --- credentials and permissions (vfs/perm.c) --- */
/*
 * A process's credentials (credentials(7)): real, effective, saved and
 * file-system user and group IDs and the supplementary groups.  Root's
 * privileges follow Linux without capability sets: the file-system ones
 * (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN, CAP_FSETID,
 * CAP_MKNOD) belong to fsuid 0, the others (CAP_SETUID, CAP_SETGID, CAP_KILL)
 * to euid 0.
 */
#define LX_NGROUPS_MAX 65536
struct group_info {
	u32 refs;                       /* credentials sharing it (fork) */
	u32 n;
	u32 gid[];                      /* sorted, as Linux keeps them */
};
struct cred {
	u32 uid, euid, suid, fsuid;
	u32 gid, egid, sgid, fsgid;
	struct group_info *groups;      /* NULL: none */
};
/*
 * The credentials of the system call in progress (syscall/syscall.c sets
 * them around each call); NULL while lx acts for itself (boot), which
 * may do anything.
 */
extern const struct cred *fs_cred;
#define FS_MAY_EXEC  1
#define FS_MAY_WRITE 2
#define FS_MAY_READ  4
/* 0, or -EACCES: the caller may access ip as mask (FS_MAY_*) says. */
int fs_permission(const struct inode *ip, int mask);
bool fs_is_root(void);                          /* fsuid 0: the file-system privileges */
bool fs_in_group(u32 gid);                      /* fsgid or a supplementary group */
bool fs_owner_or_root(const struct inode *ip);  /* fsuid owns it, or CAP_FOWNER */
/* open(2)'s checks of an existing inode with open flags (Linux's may_open). */
int fs_may_open(const struct inode *ip, u32 flags);
/* chown and a change of data by a non-root caller take S_ISGID away (Linux's rule). */
bool fs_drop_sgid(const struct inode *ip);
/* A new inode's owner, group and set-group-ID bit from the caller and dir (inode_init_owner). */
void fs_init_owner(struct inode *ip, const struct inode *dir);
struct group_info *groups_new(u32 n);           /* refs = 1; NULL: ENOMEM */
void groups_put(struct group_info *g);

/* --- open files and descriptor tables (vfs/file.c) --- */
/* --- files (vfs/file.c) --- */
/*
 * Operations of an open file.  read/write move bytes between lx's buffer
 * and the object; they return the count or -errno, and -LX_EAGAIN when
 * nothing can move now: the system-call layer then parks the thread on
 * wchan(f) (unless O_NONBLOCK) and runs the call again when the object
 * calls wake() on that channel.
 *
 * Readiness, the one mechanism behind poll, ppoll, select, pselect6 and
 * epoll (fs/epoll.c): poll(f) answers the LX_POLL* bits that hold now
 * (LX_POLLIN, LX_POLLOUT, LX_POLLERR, LX_POLLHUP, LX_POLLRDHUP...; a read
 * end also reports LX_POLLHUP once no writer is left), and whenever they
 * may have changed the object calls wake(wchan(f)).  Those calls park on
 * poll_any, which every wake() also wakes, and then ask poll again; an
 * edge-triggered epoll entry counts a wake of its file's channel as a new
 * edge (wake_key(wchan, bits) narrows that to entries wanting those bits).  A new kind of file (AF_INET sockets, say) is pollable everywhere
 * by filling in poll and wchan and waking its channel.  poll ==
 * file_always_ready marks a file with no readiness of its own (regular
 * files, directories, memory devices): epoll_ctl refuses it (EPERM), as
 * Linux does.
 */
struct file_ops {
	long (*read)(struct file *f, void *buf, size_t n);
	long (*write)(struct file *f, const void *buf, size_t n);
	int (*poll)(struct file *f);    /* LX_POLL* that hold now */
	void *(*wchan)(struct file *f);
	long (*ioctl)(struct thread *t, struct file *f, u64 cmd, u64 arg);
	void (*release)(struct file *f);
	/* optional: take back the last n bytes read returned (file_unread) */
	void (*unread)(struct file *f, size_t n);
	/* optional: what /proc/PID/fd/N reads for a file with no name
	 * ("anon_inode:[eventfd]"); the length, as readlink */
	long (*link_name)(struct file *f, char *buf, size_t n);
	/* optional: read/write straight between the object and the process's memory at
	 * uaddr, without the bounce buffer (pipes): as read/write, and -EFAULT when a
	 * bad address stopped it before the first byte */
	long (*read_user)(struct file *f, struct proc *p, u64 uaddr, size_t n);
	long (*write_user)(struct file *f, struct proc *p, u64 uaddr, size_t n);
};
#define LX_POLLIN   0x001
#define LX_POLLPRI  0x002
#define LX_POLLOUT  0x004
#define LX_POLLERR  0x008
#define LX_POLLHUP  0x010
#define LX_POLLNVAL 0x020
#define LX_POLLRDNORM 0x040
#define LX_POLLWRNORM 0x100
#define LX_POLLRDHUP 0x2000             /* the peer shut its writing half (sockets) */

struct file {
	u32 refs;
	u32 flags;                      /* open flags (O_APPEND, O_NONBLOCK, access mode) */
	u64 pos;
	struct inode *ip;               /* NULL for pipes' and sockets' anonymous ends */
	const struct file_ops *ops;
	void *priv;
	/* the name it was opened by, for /proc/PID/fd (file_link_name): dir a
	 * reference and name in name_buf or allocated, or both NULL (directories,
	 * anonymous files); short names are kept in the file, so an open costs no
	 * allocation of its own */
	struct inode *name_dir;
	char *name;
	char name_buf[24];
	/* fs/epoll.c: */
	struct epitem *epitems;         /* epoll entries watching this file; they die with it */
	/* fcntl F_SETOWN (syscall/sys_file.c): a pid, or -pgid; kept and reported (no SIGIO) */
	int owner;
};

/*
 * A descriptor table grows in pages of LX_NFD_CHUNK descriptors up to
 * LX_NFD (RLIMIT_NOFILE's ceiling, Linux's nr_open); a process uses those
 * below its RLIMIT_NOFILE (fd_install, fd_limit).
 */
#define LX_NFD_CHUNK 256
#define LX_NFD (64 * LX_NFD_CHUNK)
struct fdchunk {
	struct file *fd[LX_NFD_CHUNK];
	uint8_t cloexec[LX_NFD_CHUNK];
};
struct fdtable {
	u32 refs;
	u32 top;                        /* no descriptor at or above this (vfs/file.c) */
	struct fdchunk *chunk[LX_NFD / LX_NFD_CHUNK];   /* NULL: none there yet */
};

#define LX_PIPE_BUF   4096          /* writes up to this size are atomic */
#define LX_PIPE_SIZE  (64 * 1024)   /* a pipe's capacity, Linux's default */
#define LX_PIPE_MAX_SIZE (1024 * 1024)   /* /proc/sys/fs/pipe-max-size: the most without privilege */
#define LX_PIPE_MAX_RING ((u64)LX_PAGE_SIZE / 8 * LX_PAGE_SIZE)   /* a page of page pointers: 2 MiB */

extern const struct file_ops reg_ops, dir_ops;
/* Operations a simple file_ops may share: always ready, waits on itself, no ioctl (ENOTTY). */
int file_always_ready(struct file *f);
void *file_no_wchan(struct file *f);
long file_no_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg);

/* f's access mode allows reading / writing (O_PATH allows neither). */
bool file_readable(const struct file *f);
bool file_writable(const struct file *f);
/* lseek and pread/pwrite apply: f has a position (files, directories, memory devices). */
bool file_seekable(const struct file *f);
bool file_is_pipe(const struct file *f);
/* Give back the last n bytes a read took, which could not reach the process. */
void file_unread(struct file *f, size_t n);
/* fstat of any open file; anonymous pipe ends get a FIFO's answer. */
void file_stat(const struct file *f, struct lx_stat *st);
/* Record where f was opened (a copy; takes over where->dir's reference). */
void file_set_name(struct file *f, struct fs_name *where);
/* What readlink of /proc/PID/fd/N gives: a path ("... (deleted)" once
 * unlinked), "pipe:[ino]", "socket:[ino]" or ops->link_name's; its length. */
long file_link_name(struct file *f, char *buf, size_t n);
/* Bytes a read would get now (FIONREAD); -ENOTTY when the file has no such notion. */
long file_nread(struct file *f);

/* Close one descriptor: 0, or -EBADF. */
int fd_close(struct proc *p, int fd);
/* Put f (one reference, consumed) at exactly fd (below LX_NFD), closing what was there:
 * 0, or -ENOMEM (f not consumed) when the table cannot grow. */
int fd_replace(struct proc *p, int fd, struct file *f, bool cloexec);

/* lx's buffer for data on its way to or from a process (lx runs one call at a time). */
#define BOUNCE_SIZE (64 * 1024)
extern char file_bounce[BOUNCE_SIZE];

/* Copy up to n bytes page by page; the count that could be copied before a bad address. */
size_t copyin_part(struct proc *p, void *dst, u64 src, size_t n);
size_t copyout_part(struct proc *p, u64 dst, const void *src, size_t n);

/* vfs/file.c: open files and descriptor tables */
struct file *file_new(const struct file_ops *ops, u32 flags);   /* refs = 1 */
void file_get(struct file *f);
void file_put(struct file *f);
/* Open an inode (regular file, directory, device, FIFO) with open flags. */
int file_open_inode(struct thread *t, struct inode *ip, u32 flags, struct file **out);
struct fdtable *fdtable_new(void);
struct fdtable *fdtable_dup(struct fdtable *t);
void fdtable_put(struct fdtable *t);
int fd_install(struct proc *p, struct file *f, int min, bool cloexec);  /* the fd, or -EMFILE */
struct file *fd_get(struct proc *p, int fd);        /* no reference taken; NULL: EBADF */
/* fd's close-on-exec flag (fd open) */
bool fd_cloexec(struct proc *p, int fd);
void fd_set_cloexec(struct proc *p, int fd, bool on);
/* The first descriptor number p may not use: its RLIMIT_NOFILE, at most LX_NFD. */
int fd_limit(struct proc *p);
void fd_close_on_exec(struct proc *p);
/* The root the path walk starts "/" from and stops ".." at: the calling
 * process's (chroot(2)); NULL: the file system's.  syscall_run sets it. */
extern struct inode *vfs_walk_root;
/* openat2(2)'s RESOLVE_* restrictions on the walks of the call in progress (Linux's
 * bits; 0: none), and the directory RESOLVE_BENEATH keeps them under and
 * RESOLVE_IN_ROOT takes for "/": sys_openat2 sets both around its walks. */
#define LX_RESOLVE_NO_XDEV       0x01
#define LX_RESOLVE_NO_MAGICLINKS 0x02
#define LX_RESOLVE_NO_SYMLINKS   0x04
#define LX_RESOLVE_BENEATH       0x08
#define LX_RESOLVE_IN_ROOT       0x10
#define LX_RESOLVE_CACHED        0x20
extern int vfs_walk_resolve;
extern struct inode *vfs_walk_scope;

/* vfs/lock.c: advisory locks (flock(2), fcntl(2)'s record and OFD locks) */
#define LX_F_GETLK      5
#define LX_F_SETLK      6
#define LX_F_SETLKW     7
#define LX_F_OFD_GETLK  36
#define LX_F_OFD_SETLK  37
#define LX_F_OFD_SETLKW 38
long lock_flock(struct thread *t, struct file *f, u64 op);
long lock_fcntl(struct thread *t, struct file *f, int cmd, u64 arg);   /* the six commands above */
void lock_exit(struct proc *p);                    /* p's POSIX locks go */
struct lock;
extern struct lock *vfs_locks;                     /* every lock; NULL: none (the common case) */
void lock_close_any(struct proc *p, struct file *f);
void lock_file_gone_any(struct file *f);
/* p closed a descriptor of f: its POSIX locks on the file go */
static inline void lock_close(struct proc *p, struct file *f)
{
	if (vfs_locks)
		lock_close_any(p, f);
}
/* f's last reference went: its flock and OFD locks go */
static inline void lock_file_gone(struct file *f)
{
	if (vfs_locks)
		lock_file_gone_any(f);
}
/* device numbers (st_rdev) of the character devices lx provides */
#define LX_MKDEV(ma, mi) (((ma) << 8) | (mi))
#define DEV_NULL    LX_MKDEV(1, 3)
#define DEV_ZERO    LX_MKDEV(1, 5)
#define DEV_FULL    LX_MKDEV(1, 7)
#define DEV_RANDOM  LX_MKDEV(1, 8)
#define DEV_URANDOM LX_MKDEV(1, 9)
#define DEV_TTY     LX_MKDEV(5, 0)
#define DEV_CONSOLE LX_MKDEV(5, 1)
long lx_random(void *buf, size_t n);                /* getrandom's bytes */

#endif
