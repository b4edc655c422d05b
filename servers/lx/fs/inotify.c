// SPDX-License-Identifier: MIT
// inotify: watches on inodes of any file system (ramfs, tmpfs, ext2) and a
// queue of events per instance, read as struct inotify_event records
// (inotify(7)).  The VFS reports changes through fs_event (vfs.h); a watch
// holds a reference to its inode, so the inode stays the same object while
// watched (ext2 keeps it in its in-core list).  An event about an inode
// itself also reaches the watches of a directory holding it, under its
// name, found by listing that directory (lx keeps no names for open files),
// as Linux reports the events marked (*) in inotify(7) to parent watches.
// IN_DELETE_SELF comes when the last name goes, or, while a descriptor is
// still open, at the close that leaves only the watches holding the inode,
// as Linux sends it when the inode goes (a file kept only by a mapping or a
// working directory gets it at its next close, or never: docs/lx.md).
#include "../lx.h"
#include "../../../lib/c/string.h"

#define IN_UNMOUNT      0x2000
#define IN_Q_OVERFLOW   0x4000
#define IN_IGNORED      0x8000
#define IN_ALL_EVENTS   0xfff
#define IN_ONLYDIR      0x01000000
#define IN_DONT_FOLLOW  0x02000000
#define IN_EXCL_UNLINK  0x04000000
#define IN_MASK_CREATE  0x10000000
#define IN_MASK_ADD     0x20000000
#define IN_ONESHOT      0x80000000u
#define ALL_BITS (IN_ALL_EVENTS | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED | IN_ONLYDIR | \
		  IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_MASK_CREATE | IN_MASK_ADD | LX_IN_ISDIR | \
		  IN_ONESHOT)
/* what a directory's watch also hears about the files in it (inotify(7)'s asterisks) */
#define CHILD_EVENTS (LX_IN_ACCESS | LX_IN_MODIFY | LX_IN_ATTRIB | LX_IN_CLOSE_WRITE | \
		      LX_IN_CLOSE_NOWRITE | LX_IN_OPEN)
#define MAX_QUEUED      16384           /* Linux's max_queued_events */
#define EVENT_HEAD      16              /* sizeof(struct inotify_event) */

struct ievent {
	struct ievent *next;
	int32_t wd;
	u32 mask, cookie, len;          /* len: the name's room, NUL padding included */
	char name[];
};

struct watch {
	struct inotify *in;
	struct inode *ip;               /* a reference */
	int wd;
	u32 mask;
	bool doomed;                    /* its inode lost its last name while open */
	struct watch *next;             /* every watch, of every instance */
};

struct inotify {
	struct ievent *head, *tail;
	u32 queued;
	int next_wd;
};

static struct watch *watches;
static const struct file_ops inotify_ops;

static void queue(struct inotify *in, int wd, u32 mask, u32 cookie, const char *name)
{
	size_t nl = name ? strlen(name) : 0, room = nl ? (nl + EVENT_HEAD) / EVENT_HEAD * EVENT_HEAD : 0;
	struct ievent *t = in->tail;
	if (t && t->wd == wd && t->mask == mask && t->cookie == cookie &&
	    (room ? t->len && !strcmp(t->name, name) : !t->len))
		return;                 /* the same event as the last one: merged, as Linux does */
	if (in->queued >= MAX_QUEUED) {
		if (in->queued > MAX_QUEUED || (t && t->mask == IN_Q_OVERFLOW))
			return;
		wd = -1, mask = IN_Q_OVERFLOW, cookie = 0, room = 0;
	}
	struct ievent *e = lx_zalloc(sizeof(*e) + room);
	if (!e)
		return;
	e->wd = wd;
	e->mask = mask;
	e->cookie = cookie;
	e->len = (u32)room;
	if (room)
		memcpy(e->name, name, nl);
	if (t)
		t->next = e;
	else
		in->head = e;
	in->tail = e;
	in->queued++;
	wake(in);
}

static void watch_free(struct watch *w)
{
	for (struct watch **pp = &watches; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	queue(w->in, w->wd, IN_IGNORED, 0, NULL);
	fs_watches--;
	fs_put(w->ip);
	lx_free(w);
}

/* One event for w; a one-shot watch then goes. */
static void deliver(struct watch *w, u32 mask, u32 cookie, const char *name)
{
	if (!(w->mask & mask & IN_ALL_EVENTS))
		return;
	queue(w->in, w->wd, mask & (IN_ALL_EVENTS | LX_IN_ISDIR), cookie, name);
	if (w->mask & IN_ONESHOT)
		watch_free(w);
}

/* The name of ip in directory dir, into name; false if dir holds none. */
static bool name_in(struct inode *dir, struct inode *ip, char name[LX_NAME_MAX + 1])
{
	static char buf[4096];
	u64 pos = 0;
	long n;
	while ((n = fs_getdents(dir, &pos, buf, sizeof(buf))) > 0)
		for (long at = 0; at < n;) {
			struct lx_dirent64 *d = (struct lx_dirent64 *)(buf + at);
			if (d->d_ino == ip->ino && strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				size_t l = strlen(d->d_name);
				l = l < LX_NAME_MAX ? l : LX_NAME_MAX;
				memcpy(name, d->d_name, l);
				name[l] = 0;
				return true;
			}
			at += d->d_reclen;
		}
	return false;
}

/* ip's own event, and the same under its name for the watches on directories holding it. */
static void inode_event(struct inode *ip, u32 mask)
{
	if (LX_S_ISDIR(ip->mode) && !(mask & (LX_IN_DELETE_SELF | LX_IN_MOVE_SELF)))
		mask |= LX_IN_ISDIR;    /* as Linux: the *_SELF events carry no IN_ISDIR */
	for (struct watch *w = watches, *n; w; w = n) {
		n = w->next;
		if (w->ip == ip)
			deliver(w, mask, 0, NULL);
	}
	if (!(mask & CHILD_EVENTS) || (mask & LX_IN_SELF_ONLY))
		return;
	char name[LX_NAME_MAX + 1];
	for (struct watch *w = watches, *n; w; w = n) {
		n = w->next;
		if (w->ip != ip && (w->mask & mask & CHILD_EVENTS) && LX_S_ISDIR(w->ip->mode) &&
		    w->ip->sb == ip->sb && name_in(w->ip, ip, name))
			deliver(w, mask, 0, name);
	}
}

/* A deleted inode's watches go (IN_IGNORED) after its IN_DELETE_SELF. */
static void deleted(struct inode *ip)
{
	for (struct watch *w = watches, *n; w; w = n) {
		n = w->next;
		if (w->ip == ip)
			watch_free(w);
	}
}

/* ip's watches: their number, and whether its deletion waits for a close. */
static u32 watch_refs(struct inode *ip, bool *doomed)
{
	u32 n = 0;
	*doomed = false;
	for (struct watch *w = watches; w; w = w->next)
		if (w->ip == ip) {
			n++;
			*doomed |= w->doomed;
		}
	return n;
}

/*
 * IN_DELETE_SELF while ip is open elsewhere waits for the close that leaves
 * its watches and the caller's reference (the event's) alone; the event's
 * mask without it, or with it once due.
 */
static u32 delete_when_closed(struct inode *ip, u32 mask)
{
	bool doomed;
	u32 n = watch_refs(ip, &doomed);
	bool open = ip->refs > n + 1;
	if ((mask & LX_IN_DELETE_SELF) && open) {
		for (struct watch *w = watches; w; w = w->next)
			w->doomed |= w->ip == ip;
		return mask & ~(u32)LX_IN_DELETE_SELF;
	}
	if ((mask & (LX_IN_CLOSE_WRITE | LX_IN_CLOSE_NOWRITE)) && doomed && !open)
		mask |= LX_IN_DELETE_SELF;
	return mask;
}

static void notify(struct inode *ip, const char *name, u32 mask, u32 cookie)
{
	if (!name) {
		mask = delete_when_closed(ip, mask);
		u32 del = mask & LX_IN_DELETE_SELF;
		if (mask & ~del)
			inode_event(ip, mask & ~del);
		if (del) {
			inode_event(ip, del);
			deleted(ip);
		}
		return;
	}
	for (struct watch *w = watches, *n; w; w = n) {
		n = w->next;
		if (w->ip == ip)
			deliver(w, mask, cookie, name);
	}
}

/* --- the instance's file --- */

static size_t event_size(const struct ievent *e)
{
	return EVENT_HEAD + e->len;
}

/* Whole events only: EINVAL if not even the first fits. */
static long in_read(struct file *f, void *buf, size_t n)
{
	struct inotify *in = f->priv;
	if (!in->head)
		return -LX_EAGAIN;
	if (event_size(in->head) > n)
		return -LX_EINVAL;
	size_t done = 0;
	struct ievent *e;
	while ((e = in->head) && done + event_size(e) <= n) {
		struct { int32_t wd; u32 mask, cookie, len; } head = { e->wd, e->mask, e->cookie, e->len };
		memcpy((char *)buf + done, &head, EVENT_HEAD);
		memcpy((char *)buf + done + EVENT_HEAD, e->name, e->len);
		done += event_size(e);
		in->head = e->next;
		if (!in->head)
			in->tail = NULL;
		in->queued--;
		lx_free(e);
	}
	return (long)done;
}

static long in_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static int in_poll(struct file *f)
{
	return ((struct inotify *)f->priv)->head ? LX_POLLIN : 0;
}

static void *in_wchan(struct file *f)
{
	return f->priv;
}

#define LX_FIONREAD 0x541b

static long in_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	struct inotify *in = f->priv;
	if ((u32)cmd != LX_FIONREAD)
		return -LX_ENOTTY;
	int bytes = 0;
	for (struct ievent *e = in->head; e; e = e->next)
		bytes += (int)event_size(e);
	return copyout(t->proc, arg, &bytes, sizeof(bytes)) ? 0 : -LX_EFAULT;
}

static void in_release(struct file *f)
{
	struct inotify *in = f->priv;
	for (struct watch *w = watches, *n; w; w = n) {
		n = w->next;
		if (w->in == in)
			watch_free(w);
	}
	while (in->head) {
		struct ievent *e = in->head;
		in->head = e->next;
		lx_free(e);
	}
	lx_free(in);
}

static const struct file_ops inotify_ops = {
	.read = in_read, .write = in_write, .poll = in_poll, .wchan = in_wchan,
	.ioctl = in_ioctl, .release = in_release,
};

/* --- system calls --- */

long sys_inotify_init1(struct thread *t, u64 flags, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	if (flags & ~(u64)(LX_O_CLOEXEC | LX_O_NONBLOCK))
		return -LX_EINVAL;
	struct inotify *in = lx_zalloc(sizeof(*in));
	struct file *f = in ? file_new(&inotify_ops, LX_O_RDONLY | ((u32)flags & LX_O_NONBLOCK)) : NULL;
	if (!f) {
		lx_free(in);
		return -LX_ENOMEM;
	}
	in->next_wd = 1;
	f->priv = in;
	fs_notify = notify;
	int fd = fd_install(t->proc, f, 0, flags & LX_O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_inotify_init(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return sys_inotify_init1(t, 0, 0, 0, 0, 0, 0);
}

/* The instance of descriptor fd: 0, -EBADF, or -EINVAL (not an inotify descriptor). */
static long get_inotify(struct thread *t, u64 fd, struct inotify **out)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (f->ops != &inotify_ops)
		return -LX_EINVAL;
	*out = f->priv;
	return 0;
}

static struct watch *find_watch(struct inotify *in, struct inode *ip, int wd)
{
	for (struct watch *w = watches; w; w = w->next)
		if (w->in == in && (ip ? w->ip == ip : w->wd == wd))
			return w;
	return NULL;
}

static long new_watch(struct inotify *in, struct inode *ip, u32 mask)
{
	struct watch *w = lx_zalloc(sizeof(*w));
	if (!w)
		return -LX_ENOMEM;
	*w = (struct watch){ .in = in, .ip = ip, .wd = in->next_wd++, .mask = mask, .next = watches };
	fs_get(ip);
	watches = w;
	fs_watches++;
	return w->wd;
}

/* Linux's order of checks: the mask, the descriptor, the path, then an existing watch. */
long sys_inotify_add_watch(struct thread *t, u64 fd, u64 upath, u64 mask, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	u32 m = (u32)mask;
	if (((m & IN_MASK_ADD) && (m & IN_MASK_CREATE)) || !(m & ALL_BITS))
		return -LX_EINVAL;
	struct inotify *in;
	long r = get_inotify(t, fd, &in);
	if (r < 0)
		return r;
	static char path[LX_PATH_MAX];
	r = copyin_str(t->proc, path, upath, sizeof(path));
	if (r < 0)
		return r;
	struct inode *ip;
	int lf = (m & IN_DONT_FOLLOW ? 0 : FS_FOLLOW) | (m & IN_ONLYDIR ? FS_DIRECTORY : 0);
	if ((r = fs_lookup(t->proc->cwd, path, lf, &ip)) < 0)
		return r;
	struct watch *w = find_watch(in, ip, 0);
	if (w && (m & IN_MASK_CREATE))
		r = -LX_EEXIST;
	else if (w)
		r = w->wd, w->mask = (m & IN_MASK_ADD ? w->mask : 0) | (m & ~(u32)IN_MASK_ADD);
	else
		r = new_watch(in, ip, m & ~(u32)(IN_MASK_ADD | IN_MASK_CREATE));
	fs_put(ip);
	return r;
}

long sys_inotify_rm_watch(struct thread *t, u64 fd, u64 wd, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct inotify *in;
	long r = get_inotify(t, fd, &in);
	if (r < 0)
		return r;
	struct watch *w = find_watch(in, NULL, (int)wd);
	if (!w)
		return -LX_EINVAL;
	watch_free(w);
	return 0;
}

/* --- unmounting (syscall/sys_mount.c) --- */

u32 inotify_sb_refs(struct super *sb)
{
	u32 n = 0;
	for (struct watch *w = watches; w; w = w->next)
		n += w->ip->sb == sb;
	return n;
}

void inotify_unmount(struct super *sb)
{
	for (struct watch *w = watches, *n; w; w = n) {
		n = w->next;
		if (w->ip->sb == sb) {
			u32 isdir = LX_S_ISDIR(w->ip->mode) ? LX_IN_ISDIR : 0;
			queue(w->in, w->wd, IN_UNMOUNT | isdir, 0, NULL);
			watch_free(w);
		}
	}
}
