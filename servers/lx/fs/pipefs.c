// SPDX-License-Identifier: MIT
// Pipes and FIFOs: a ring of pages between a read end and a write end, and
// named pipes whose inode (on any file system) points to their ring.  They
// follow lx.h's contract for waiting: -EAGAIN now, wake(wchan) later.
#include "../lx.h"
#include "../../../lib/c/string.h"

/* --- pipes --- */

#define PIPE_PAGES (LX_PIPE_SIZE / LX_PAGE_SIZE)

/*
 * A ring of PIPE_PAGES pages, allocated as first written.  The pipe itself
 * is the wait channel of both ends: any change wakes readers and writers.
 */
struct pipe {
	void **page;                    /* size / LX_PAGE_SIZE pages: small, or a page of pointers */
	void *small[PIPE_PAGES];
	u32 size;                       /* capacity: LX_PIPE_SIZE, or F_SETPIPE_SZ's */
	u32 head;                       /* ring index of the next byte to read */
	u32 count;                      /* bytes held */
	u32 readers, writers;
	u32 w_opens;                    /* writers ever opened: a FIFO reader's EOF waits for one */
	struct inode *fifo;             /* a named pipe's inode, which points back here */
};

/*
 * wake() also runs every poll/select waiting on poll_any again; `key` names
 * what became possible (LX_POLLIN: data came; LX_POLLOUT: room came; ~0:
 * the ends changed), which edge-triggered epoll entries go by.
 */
static void pipe_changed(struct pipe *pp, int key)
{
	wake_key(pp, key);
}

/* Copy between buf and the ring at ring index `at`, n bytes, allocating pages when writing. */
static bool ring_copy(struct pipe *pp, u32 at, void *buf, size_t n, bool to_ring)
{
	char *b = buf;
	while (n) {
		u32 i = at % pp->size;
		u32 pg = i / LX_PAGE_SIZE, off = i % LX_PAGE_SIZE;
		size_t chunk = LX_PAGE_SIZE - off < n ? LX_PAGE_SIZE - off : n;
		if (!pp->page[pg]) {
			if (!to_ring || !(pp->page[pg] = page_alloc()))
				return false;
		}
		char *p = (char *)pp->page[pg] + off;
		if (to_ring)
			memcpy(p, b, chunk);
		else
			memcpy(b, p, chunk);
		b += chunk;
		at += (u32)chunk;
		n -= chunk;
	}
	return true;
}

/*
 * Copy between the process's memory at uaddr and the ring at ring index
 * `at`, n bytes whose ring pages exist (ring_pages): the bytes copied,
 * short where a bad address stopped it.  One copy, where read and write
 * through the bounce buffer took two.
 */
static size_t ring_copy_user(struct pipe *pp, u32 at, struct proc *p, u64 uaddr, size_t n,
			     bool to_ring)
{
	size_t done = 0;
	while (done < n) {
		u32 i = (u32)((at + done) % pp->size);
		u32 off = i % LX_PAGE_SIZE;
		size_t chunk = LX_PAGE_SIZE - off < n - done ? LX_PAGE_SIZE - off : n - done;
		char *r = (char *)pp->page[i / LX_PAGE_SIZE] + off;
		size_t c = to_ring ? copyin_part(p, r, uaddr + done, chunk) :
				     copyout_part(p, uaddr + done, r, chunk);
		done += c;
		if (c < chunk)
			break;
	}
	return done;
}

/* Allocate the ring's missing pages for n bytes at ring index `at`; false without memory. */
static bool ring_pages(struct pipe *pp, u32 at, size_t n)
{
	for (size_t done = 0; done < n;) {
		u32 i = (u32)((at + done) % pp->size);
		if (!pp->page[i / LX_PAGE_SIZE] && !(pp->page[i / LX_PAGE_SIZE] = page_alloc()))
			return false;
		done += LX_PAGE_SIZE - i % LX_PAGE_SIZE;
	}
	return true;
}

/* A FIFO reader opened before any writer waits for one instead of seeing EOF (f->pos). */
static bool awaiting_writer(struct file *f, struct pipe *pp)
{
	return f->pos && f->pos == (u64)pp->w_opens + 1;
}

/* How much of n a read takes now (> 0), or what it returns at once: 0 (end of file), -EAGAIN. */
static long read_size(struct file *f, struct pipe *pp, size_t n)
{
	if (!n)
		return 0;
	if (!pp->count)
		return pp->writers || awaiting_writer(f, pp) ? -LX_EAGAIN : 0;
	return (long)(n < pp->count ? n : pp->count);
}

/* The m bytes at the ring's head were read. */
static long consumed(struct pipe *pp, size_t m)
{
	pp->head = (u32)((pp->head + m) % pp->size);
	pp->count -= (u32)m;
	pipe_changed(pp, LX_POLLOUT);
	return (long)m;
}

static long pipe_read(struct file *f, void *buf, size_t n)
{
	struct pipe *pp = f->priv;
	long m = read_size(f, pp, n);
	if (m <= 0)
		return m;
	ring_copy(pp, pp->head, buf, (size_t)m, false);
	return consumed(pp, (size_t)m);
}

/* read(2) on a pipe: the ring's bytes straight to the process (what a bad address stops stays). */
static long pipe_read_user(struct file *f, struct proc *p, u64 uaddr, size_t n)
{
	struct pipe *pp = f->priv;
	long m = read_size(f, pp, n);
	if (m <= 0)
		return m;
	size_t got = ring_copy_user(pp, pp->head, p, uaddr, (size_t)m, false);
	return got ? consumed(pp, got) : -LX_EFAULT;
}

/* How much of n a write puts in now (> 0), or -EPIPE, 0, -EAGAIN: writes up to
 * PIPE_BUF go in whole or wait; larger ones take what fits. */
static long write_size(struct pipe *pp, size_t n)
{
	if (!pp->readers)
		return -LX_EPIPE;
	if (!n)
		return 0;
	size_t room = pp->size - pp->count;
	if (room == 0 || (n <= LX_PIPE_BUF && room < n))
		return -LX_EAGAIN;
	return (long)(n < room ? n : room);
}

/* m bytes were put after the ring's last. */
static long produced(struct pipe *pp, size_t m)
{
	pp->count += (u32)m;
	pipe_changed(pp, LX_POLLIN);
	return (long)m;
}

static long pipe_write(struct file *f, const void *buf, size_t n)
{
	struct pipe *pp = f->priv;
	long m = write_size(pp, n);
	if (m <= 0)
		return m;
	if (!ring_copy(pp, pp->head + pp->count, (void *)buf, (size_t)m, true))
		return pp->count ? -LX_EAGAIN : -LX_ENOMEM;
	return produced(pp, (size_t)m);
}

/* write(2) on a pipe: the process's bytes straight into the ring (up to a bad address). */
static long pipe_write_user(struct file *f, struct proc *p, u64 uaddr, size_t n)
{
	struct pipe *pp = f->priv;
	long m = write_size(pp, n);
	if (m <= 0)
		return m;
	if (!ring_pages(pp, pp->head + pp->count, (size_t)m))
		return pp->count ? -LX_EAGAIN : -LX_ENOMEM;
	size_t put = ring_copy_user(pp, pp->head + pp->count, p, uaddr, (size_t)m, true);
	return put ? produced(pp, put) : -LX_EFAULT;
}

static int pipe_poll(struct file *f)
{
	struct pipe *pp = f->priv;
	int ev = 0;
	u32 acc = f->flags & LX_O_ACCMODE;
	if (acc != LX_O_WRONLY) {
		if (pp->count)
			ev |= LX_POLLIN;
		if (!pp->writers && !awaiting_writer(f, pp))
			ev |= LX_POLLHUP;
	}
	if (acc != LX_O_RDONLY) {
		if (pp->size - pp->count >= LX_PIPE_BUF)
			ev |= LX_POLLOUT;
		if (!pp->readers)
			ev |= LX_POLLERR;
	}
	return ev;
}

static void *pipe_wchan(struct file *f)
{
	return f->priv;
}

#define LX_FIONREAD 0x541b

/* Give back the last n bytes a read took (they could not reach the process). */
static void pipe_unread(struct file *f, size_t n)
{
	struct pipe *pp = f->priv;
	pp->head = (u32)((pp->head + pp->size - n) % pp->size);
	pp->count += (u32)n;
}

long pipe_nread(struct file *f)
{
	return ((struct pipe *)f->priv)->count;
}

static long pipe_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	struct pipe *pp = f->priv;
	if (cmd != LX_FIONREAD)
		return -LX_ENOTTY;
	int n = (int)pp->count;
	return copyout(t->proc, arg, &n, sizeof(n)) ? 0 : -LX_EFAULT;
}

static void ring_free(void **page, u32 size)
{
	for (unsigned i = 0; i < size / LX_PAGE_SIZE; i++)
		if (page[i])
			page_free(page[i]);
	if (size > LX_PIPE_SIZE)
		page_free(page);
}

static void pipe_free(struct pipe *pp)
{
	ring_free(pp->page, pp->size);
	if (pp->fifo)
		pp->fifo->priv = NULL;
	lx_free(pp);
}

static void pipe_release(struct file *f)
{
	struct pipe *pp = f->priv;
	u32 acc = f->flags & LX_O_ACCMODE;
	if (acc != LX_O_WRONLY)
		pp->readers--;
	if (acc != LX_O_RDONLY)
		pp->writers--;
	if (!pp->readers && !pp->writers)
		pipe_free(pp);
	else
		pipe_changed(pp, ~0);
}

const struct file_ops pipe_ops = {
	.read = pipe_read, .write = pipe_write, .poll = pipe_poll, .wchan = pipe_wchan,
	.ioctl = pipe_ioctl, .release = pipe_release, .unread = pipe_unread,
	.read_user = pipe_read_user, .write_user = pipe_write_user,
};

/* An end of pp with access mode flags, counted among its readers/writers. */
static struct file *pipe_end(struct pipe *pp, u32 flags)
{
	struct file *f = file_new(&pipe_ops, flags);
	if (!f)
		return NULL;
	f->priv = pp;
	u32 acc = flags & LX_O_ACCMODE;
	if (acc != LX_O_WRONLY)
		pp->readers++;
	if (acc != LX_O_RDONLY) {
		pp->writers++;
		pp->w_opens++;
	}
	return f;
}

static struct pipe *pipe_alloc(void)
{
	struct pipe *pp = lx_zalloc(sizeof(*pp));
	if (pp) {
		pp->page = pp->small;
		pp->size = LX_PIPE_SIZE;
	}
	return pp;
}

/*
 * An anonymous pipe has an inode too, as on Linux (pipefs, mounted nowhere):
 * it is the pipe's identity in fstat and /proc/PID/fd ("pipe:[ino]"), and
 * opening /proc/PID/fd/N opens it as a FIFO, a new end of the same pipe.
 */
static void pipe_inode_evict(struct inode *ip)
{
	if (ip->priv)
		((struct pipe *)ip->priv)->fifo = NULL;
	lx_free(ip);
}

static const struct fs_ops pipefs_ops = { .evict = pipe_inode_evict };

static struct inode *pipe_inode(struct pipe *pp)
{
	static struct super *sb;
	static u64 next_ino = 1;
	if (!sb && !(sb = vfs_super_new(&pipefs_ops, "pipefs")))
		return NULL;
	struct inode *ip = lx_zalloc(sizeof(*ip));
	if (!ip)
		return NULL;
	ip->ino = next_ino++;
	ip->mode = LX_S_IFIFO | 0600;
	ip->nlink = 1;
	ip->sb = sb;
	fs_get(ip);                     /* the creation reference, pipe_new's first end's */
	ip->priv = pp;
	if (fs_now)
		fs_now(&ip->mtime);
	ip->atime = ip->ctime = ip->mtime;
	pp->fifo = ip;
	return ip;
}

int pipe_new(u32 flags, struct file **rd, struct file **wr)
{
	struct pipe *pp = pipe_alloc();
	struct inode *ip = pp ? pipe_inode(pp) : NULL;
	if (!ip) {
		lx_free(pp);
		return -LX_ENOMEM;
	}
	flags &= LX_O_NONBLOCK;
	*rd = pipe_end(pp, flags | LX_O_RDONLY);
	*wr = *rd ? pipe_end(pp, flags | LX_O_WRONLY) : NULL;
	if (!*wr) {
		if (*rd)
			file_put(*rd);      /* frees the pipe */
		else
			lx_free(pp);
		lx_free(ip);
		return -LX_ENFILE;
	}
	(*rd)->ip = ip;                 /* the creation reference */
	fs_get(ip);
	(*wr)->ip = ip;
	return 0;
}

void *fifo_open_wchan(struct inode *ip)
{
	return ip;
}

/*
 * A named pipe: its ends share the pipe hanging from the inode.  A reader
 * does not wait in open (its first read waits for a writer instead), so a
 * writer, which waits in open for a reader as Linux's does, always finds one.
 */
int fifo_open(struct inode *ip, u32 flags, struct file **out)
{
	struct pipe *pp = ip->priv;
	u32 acc = flags & LX_O_ACCMODE;
	bool anon = ip->sb->ops == &pipefs_ops;   /* /proc/PID/fd/N of a pipe: no waiting, as Linux */
	if (acc == LX_O_WRONLY && !anon && (!pp || !pp->readers))
		return flags & LX_O_NONBLOCK ? -LX_ENXIO : -LX_EAGAIN;
	if (anon && !pp)
		return -LX_ENXIO;               /* both ends gone: nothing to reopen */
	bool fresh = !pp;
	if (fresh) {
		if (!(pp = pipe_alloc()))
			return -LX_ENOMEM;
		pp->fifo = ip;
		ip->priv = pp;
	}
	bool wait_writer = acc == LX_O_RDONLY && !anon && !pp->writers && !(flags & LX_O_NONBLOCK);
	struct file *f = pipe_end(pp, flags);
	if (!f) {
		if (fresh)
			pipe_free(pp);
		return -LX_ENOMEM;
	}
	if (wait_writer)
		f->pos = (u64)pp->w_opens + 1;
	fs_get(ip);
	f->ip = ip;
	wake(ip);
	pipe_changed(pp, ~0);
	*out = f;
	return 0;
}

/* --- F_GETPIPE_SZ, F_SETPIPE_SZ --- */

u32 pipe_size(struct file *f)
{
	return ((struct pipe *)f->priv)->size;
}

/*
 * Give pp a ring of `size` bytes (a power-of-two number of pages, at most
 * LX_PIPE_MAX_RING), holding what it holds now from index 0.
 */
static long ring_resize(struct pipe *pp, u32 size)
{
	void **np = size > LX_PIPE_SIZE ? page_alloc() : lx_zalloc(PIPE_PAGES * sizeof(void *));
	if (!np)
		return -LX_ENOMEM;
	struct pipe to = { .page = np, .size = size };
	static char chunk[LX_PAGE_SIZE];
	for (u32 done = 0, n; done < pp->count; done += n) {
		n = pp->count - done < LX_PAGE_SIZE ? pp->count - done : LX_PAGE_SIZE;
		ring_copy(pp, pp->head + done, chunk, n, false);
		if (!ring_copy(&to, done, chunk, n, true)) {
			ring_free(np, size);
			if (size <= LX_PIPE_SIZE)
				lx_free(np);
			return -LX_ENOMEM;
		}
	}
	ring_free(pp->page, pp->size);
	if (size <= LX_PIPE_SIZE) {                 /* the new ring fits the small array */
		memcpy(pp->small, np, PIPE_PAGES * sizeof(void *));
		lx_free(np);
		np = pp->small;
	}
	pp->page = np;
	pp->size = size;
	pp->head = 0;
	pipe_changed(pp, LX_POLLOUT);
	return size;
}

long pipe_set_size(struct file *f, u64 want, bool privileged)
{
	struct pipe *pp = f->priv;
	want = (u32)want;                   /* an unsigned int in Linux */
	if (want > 0x80000000UL)
		return -LX_EINVAL;
	u64 size = LX_PAGE_SIZE;
	while (size < want)
		size <<= 1;
	if (size > pp->size && size > LX_PIPE_MAX_SIZE && !privileged)
		return -LX_EPERM;
	if (size > LX_PIPE_MAX_RING)
		return -LX_ENOMEM;
	if (size < pp->count)
		return -LX_EBUSY;
	if (size == pp->size)
		return (long)size;
	return ring_resize(pp, (u32)size);
}
