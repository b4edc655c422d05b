// SPDX-License-Identifier: MIT
// Open files, descriptor tables, pipes and the simple character devices.
// A struct file is shared by every descriptor (and process) that got it by
// dup or fork; it holds a reference to its inode, so an unlinked file stays
// readable while open.  Objects that can make a reader or writer wait
// (pipes, the tty) follow lx.h's contract: -EAGAIN now, wake(wchan) later.
#include "file.h"
#include "../../lib/c/string.h"

/* --- struct file --- */

struct file *file_new(const struct file_ops *ops, u32 flags)
{
	struct file *f = lx_zalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->refs = 1;
	f->flags = flags;
	f->ops = ops;
	return f;
}

void file_get(struct file *f)
{
	f->refs++;
}

void file_put(struct file *f)
{
	if (!f || --f->refs)
		return;
	if (f->ops && f->ops->release)
		f->ops->release(f);
	if (f->ip)
		fs_put(f->ip);
	lx_free(f);
}

bool file_readable(const struct file *f)
{
	u32 acc = f->flags & LX_O_ACCMODE;
	return !(f->flags & LX_O_PATH) && (acc == LX_O_RDONLY || acc == LX_O_RDWR);
}

bool file_writable(const struct file *f)
{
	u32 acc = f->flags & LX_O_ACCMODE;
	return !(f->flags & LX_O_PATH) && (acc == LX_O_WRONLY || acc == LX_O_RDWR);
}

bool file_is_pipe(const struct file *f)
{
	return f->ops == &pipe_ops;
}

bool file_seekable(const struct file *f)
{
	if (!f->ip || file_is_pipe(f) || f->ops == &tty_ops)
		return false;
	return true;
}

/* --- descriptor tables --- */

/*
 * A table is one page of its own: at 2.3 KiB it is too big for lx_malloc's
 * slabs, and lx_malloc's larger blocks come only from the pool's never-used
 * part, which a fork and exit per table would drain.
 */
_Static_assert(sizeof(struct fdtable) <= LX_PAGE_SIZE, "a descriptor table fits a page");

struct fdtable *fdtable_new(void)
{
	struct fdtable *t = page_alloc();
	if (t)
		t->refs = 1;
	return t;
}

struct fdtable *fdtable_dup(struct fdtable *old)
{
	struct fdtable *t = fdtable_new();
	if (!t)
		return NULL;
	for (u32 i = 0; i < old->top; i++)
		if (old->fd[i]) {
			t->fd[i] = old->fd[i];
			t->cloexec[i] = old->cloexec[i];
			file_get(t->fd[i]);
		}
	t->top = old->top;
	return t;
}

void fdtable_put(struct fdtable *t)
{
	if (!t || --t->refs)
		return;
	for (u32 i = 0; i < t->top; i++)
		if (t->fd[i])
			file_put(t->fd[i]);
	page_free(t);
}

/* On success the table owns the caller's reference to f. */
int fd_install(struct proc *p, struct file *f, int min, bool cloexec)
{
	for (int i = min < 0 ? 0 : min; i < LX_NFD; i++)
		if (!p->fds->fd[i]) {
			p->fds->fd[i] = f;
			p->fds->cloexec[i] = cloexec;
			if ((u32)i >= p->fds->top)
				p->fds->top = (u32)i + 1;
			return i;
		}
	return -LX_EMFILE;
}

struct file *fd_get(struct proc *p, int fd)
{
	if (!p->fds || fd < 0 || fd >= LX_NFD)
		return NULL;
	return p->fds->fd[fd];
}

int fd_close(struct proc *p, int fd)
{
	struct file *f = fd_get(p, fd);
	if (!f)
		return -LX_EBADF;
	p->fds->fd[fd] = NULL;
	p->fds->cloexec[fd] = 0;
	file_put(f);
	return 0;
}

void fd_replace(struct proc *p, int fd, struct file *f, bool cloexec)
{
	struct file *old = p->fds->fd[fd];
	p->fds->fd[fd] = f;
	p->fds->cloexec[fd] = cloexec;
	if ((u32)fd >= p->fds->top)
		p->fds->top = (u32)fd + 1;
	if (old)
		file_put(old);
}

void fd_close_on_exec(struct proc *p)
{
	if (!p->fds)
		return;
	for (u32 i = 0; i < p->fds->top; i++)
		if (p->fds->fd[i] && p->fds->cloexec[i])
			fd_close(p, (int)i);
}

/* --- regular files and directories --- */

static long reg_read(struct file *f, void *buf, size_t n)
{
	long r = fs_read(f->ip, f->pos, buf, n);
	if (r > 0)
		f->pos += (u64)r;
	return r;
}

/*
 * RLIMIT_FSIZE (setrlimit(2)): a write that would end past the writer's limit
 * stores what lies below it; one that starts at or past it fails with EFBIG
 * and raises SIGXFSZ.  0, or -EFBIG.
 */
static long fsize_limit(u64 pos, size_t *n)
{
	struct thread *t = lx_current;
	u64 lim = t ? t->proc->rlim[LX_RLIMIT_FSIZE][0] : LX_RLIM_INFINITY;
	if (lim == LX_RLIM_INFINITY || pos + *n <= lim)
		return 0;
	if (pos >= lim) {
		signal_send_thread(t, LX_SIGXFSZ);
		return -LX_EFBIG;
	}
	*n = lim - pos;
	return 0;
}

static long reg_write(struct file *f, const void *buf, size_t n)
{
	if (f->flags & LX_O_APPEND)
		f->pos = f->ip->size;
	long r = fsize_limit(f->pos, &n);
	if (r)
		return r;
	r = fs_write(f->ip, f->pos, buf, n);
	if (r > 0)
		f->pos += (u64)r;
	return r;
}

static int always_ready(struct file *f)
{
	(void)f;
	return LX_POLLIN | LX_POLLOUT;
}

static void *no_wchan(struct file *f)
{
	return f;
}

static long reg_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	(void)t, (void)f, (void)cmd, (void)arg;
	return -LX_ENOTTY;
}

const struct file_ops reg_ops = {
	.read = reg_read, .write = reg_write, .poll = always_ready, .wchan = no_wchan,
	.ioctl = reg_ioctl,
};

static long dir_read(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EISDIR;
}

static long dir_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EISDIR;
}

const struct file_ops dir_ops = {
	.read = dir_read, .write = dir_write, .poll = always_ready, .wchan = no_wchan,
	.ioctl = reg_ioctl,
};

/* --- memory devices --- */

static long null_read(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return 0;
}

static long null_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf;
	return (long)n;
}

static long zero_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	size_t words = n >> 3, bytes = n & 7;
	__asm__ volatile("rep stosq" : "+D"(buf), "+c"(words) : "a"(0UL) : "memory");
	__asm__ volatile("rep stosb" : "+D"(buf), "+c"(bytes) : "a"(0UL) : "memory");
	return (long)n;
}

static long full_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_ENOSPC;
}

static long random_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	return lx_random(buf, n);
}

static const struct file_ops null_ops = {
	.read = null_read, .write = null_write, .poll = always_ready, .wchan = no_wchan,
	.ioctl = reg_ioctl,
};
static const struct file_ops zero_ops = {
	.read = zero_read, .write = null_write, .poll = always_ready, .wchan = no_wchan,
	.ioctl = reg_ioctl,
};
static const struct file_ops full_ops = {
	.read = zero_read, .write = full_write, .poll = always_ready, .wchan = no_wchan,
	.ioctl = reg_ioctl,
};
static const struct file_ops random_ops = {
	.read = random_read, .write = null_write, .poll = always_ready, .wchan = no_wchan,
	.ioctl = reg_ioctl,
};

static const struct file_ops *chr_ops(u64 rdev)
{
	switch (rdev) {
	case DEV_NULL: return &null_ops;
	case DEV_ZERO: return &zero_ops;
	case DEV_FULL: return &full_ops;
	case DEV_RANDOM:
	case DEV_URANDOM: return &random_ops;
	case DEV_TTY:
	case DEV_CONSOLE: return &tty_ops;
	default: return NULL;
	}
}

/* --- pipes --- */

#define PIPE_PAGES (LX_PIPE_SIZE / LX_PAGE_SIZE)

/*
 * A ring of PIPE_PAGES pages, allocated as first written.  The pipe itself
 * is the wait channel of both ends: any change wakes readers and writers.
 */
struct pipe {
	void *page[PIPE_PAGES];
	u32 head;                       /* ring index of the next byte to read */
	u32 count;                      /* bytes held */
	u32 readers, writers;
	u32 w_opens;                    /* writers ever opened: a FIFO reader's EOF waits for one */
	struct inode *fifo;             /* a named pipe's inode, which points back here */
};

/* wake() also runs every poll/select waiting on poll_any again */
static void pipe_changed(struct pipe *pp)
{
	wake(pp);
}

/* Copy between buf and the ring at ring index `at`, n bytes, allocating pages when writing. */
static bool ring_copy(struct pipe *pp, u32 at, void *buf, size_t n, bool to_ring)
{
	char *b = buf;
	while (n) {
		u32 i = at % LX_PIPE_SIZE;
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

/* A FIFO reader opened before any writer waits for one instead of seeing EOF (f->pos). */
static bool awaiting_writer(struct file *f, struct pipe *pp)
{
	return f->pos && f->pos == (u64)pp->w_opens + 1;
}

static long pipe_read(struct file *f, void *buf, size_t n)
{
	struct pipe *pp = f->priv;
	if (!n)
		return 0;
	if (!pp->count)
		return pp->writers || awaiting_writer(f, pp) ? -LX_EAGAIN : 0;
	size_t m = n < pp->count ? n : pp->count;
	ring_copy(pp, pp->head, buf, m, false);
	pp->head = (u32)((pp->head + m) % LX_PIPE_SIZE);
	pp->count -= (u32)m;
	pipe_changed(pp);
	return (long)m;
}

/* Writes up to PIPE_BUF go in whole or wait; larger ones take what fits. */
static long pipe_write(struct file *f, const void *buf, size_t n)
{
	struct pipe *pp = f->priv;
	if (!pp->readers)
		return -LX_EPIPE;
	if (!n)
		return 0;
	size_t room = LX_PIPE_SIZE - pp->count;
	if (room == 0 || (n <= LX_PIPE_BUF && room < n))
		return -LX_EAGAIN;
	size_t m = n < room ? n : room;
	if (!ring_copy(pp, pp->head + pp->count, (void *)buf, m, true))
		return pp->count ? -LX_EAGAIN : -LX_ENOMEM;
	pp->count += (u32)m;
	pipe_changed(pp);
	return (long)m;
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
		if (LX_PIPE_SIZE - pp->count >= LX_PIPE_BUF)
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

static long pipe_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	struct pipe *pp = f->priv;
	if (cmd != LX_FIONREAD)
		return -LX_ENOTTY;
	int n = (int)pp->count;
	return copyout(t->proc, arg, &n, sizeof(n)) ? 0 : -LX_EFAULT;
}

static void pipe_free(struct pipe *pp)
{
	for (unsigned i = 0; i < PIPE_PAGES; i++)
		if (pp->page[i])
			page_free(pp->page[i]);
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
		pipe_changed(pp);
}

const struct file_ops pipe_ops = {
	.read = pipe_read, .write = pipe_write, .poll = pipe_poll, .wchan = pipe_wchan,
	.ioctl = pipe_ioctl, .release = pipe_release,
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

int pipe_new(u32 flags, struct file **rd, struct file **wr)
{
	struct pipe *pp = lx_zalloc(sizeof(*pp));
	if (!pp)
		return -LX_ENOMEM;
	flags &= LX_O_NONBLOCK;
	*rd = pipe_end(pp, flags | LX_O_RDONLY);
	if (!*rd) {
		lx_free(pp);
		return -LX_ENFILE;
	}
	*wr = pipe_end(pp, flags | LX_O_WRONLY);
	if (!*wr) {
		file_put(*rd);
		return -LX_ENFILE;
	}
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
static int fifo_open(struct inode *ip, u32 flags, struct file **out)
{
	struct pipe *pp = ip->priv;
	u32 acc = flags & LX_O_ACCMODE;
	if (acc == LX_O_WRONLY && (!pp || !pp->readers))
		return flags & LX_O_NONBLOCK ? -LX_ENXIO : -LX_EAGAIN;
	bool fresh = !pp;
	if (fresh) {
		if (!(pp = lx_zalloc(sizeof(*pp))))
			return -LX_ENOMEM;
		pp->fifo = ip;
		ip->priv = pp;
	}
	bool wait_writer = acc == LX_O_RDONLY && !pp->writers && !(flags & LX_O_NONBLOCK);
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
	pipe_changed(pp);
	*out = f;
	return 0;
}

/* --- everything else --- */

void file_unread(struct file *f, size_t n)
{
	if (file_is_pipe(f)) {
		struct pipe *pp = f->priv;
		pp->head = (u32)((pp->head + LX_PIPE_SIZE - n) % LX_PIPE_SIZE);
		pp->count += (u32)n;
	} else if (f->ops == &reg_ops) {
		f->pos -= n;
	} else if (f->ops->unread) {
		f->ops->unread(f, n);
	}
}

long file_nread(struct file *f)
{
	if (file_is_pipe(f))
		return ((struct pipe *)f->priv)->count;
	if (f->ops == &reg_ops)
		return f->pos < f->ip->size ? (long)(f->ip->size - f->pos) : 0;
	return -LX_ENOTTY;
}

void file_stat(const struct file *f, struct lx_stat *st)
{
	if (f->ip) {
		fs_stat(f->ip, st);
		return;
	}
	memset(st, 0, sizeof(*st));
	st->st_dev = 2;
	st->st_ino = (u64)(uintptr_t)f->priv / 16;
	st->st_nlink = 1;
	st->st_mode = file_is_pipe(f) ? LX_S_IFIFO | 0600 : LX_S_IFSOCK | 0777;
	st->st_blksize = LX_PAGE_SIZE;
	if (fs_now)
		fs_now(&st->st_mtim);
	st->st_atim = st->st_ctim = st->st_mtim;
}

/* The file's type decides its operations; flags are open's, access already checked. */
int file_open_inode(struct thread *t, struct inode *ip, u32 flags, struct file **out)
{
	(void)t;
	const struct file_ops *ops;
	if ((flags & LX_O_TRUNC) && !(flags & LX_O_PATH) && LX_S_ISREG(ip->mode)) {
		int r = fs_truncate(ip, 0);
		if (r < 0)
			return r;
	}
	flags &= ~(LX_O_CREAT | LX_O_EXCL | LX_O_TRUNC | LX_O_NOCTTY | LX_O_CLOEXEC);
	if (flags & LX_O_PATH) {
		ops = &null_ops;
	} else {
		switch (ip->mode & LX_S_IFMT) {
		case LX_S_IFREG:
			ops = &reg_ops;
			break;
		case LX_S_IFDIR:
			if ((flags & LX_O_ACCMODE) != LX_O_RDONLY)
				return -LX_EISDIR;
			ops = &dir_ops;
			break;
		case LX_S_IFCHR:
			ops = chr_ops(ip->rdev);
			if (!ops)
				return -LX_ENXIO;
			break;
		case LX_S_IFIFO:
			return fifo_open(ip, flags, out);
		case LX_S_IFLNK:
			return -LX_ELOOP;
		default:
			return -LX_ENXIO;
		}
	}
	struct file *f = file_new(ops, flags);
	if (!f)
		return -LX_ENOMEM;
	fs_get(ip);
	f->ip = ip;
	*out = f;
	return 0;
}
