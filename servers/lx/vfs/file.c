// SPDX-License-Identifier: MIT
// Open files and descriptor tables (pipes: fs/pipefs.c; devices: fs/devfs.c).
// A struct file is shared by every descriptor (and process) that got it by
// dup or fork; it holds a reference to its inode, so an unlinked file stays
// readable while open.  Objects that can make a reader or writer wait
// (pipes, the tty) follow lx.h's contract: -EAGAIN now, wake(wchan) later.
#include "../lx.h"
#include "../../../lib/c/string.h"
#include "../../../lib/fmt/fmt.h"

/* --- struct file --- */

static void file_drop_name(struct file *f);

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
	if (f->epitems)
		epoll_file_gone(f);
	if (f->ip && fs_watches && !(f->flags & LX_O_PATH))
		fs_event(f->ip, NULL, file_writable(f) ? LX_IN_CLOSE_WRITE : LX_IN_CLOSE_NOWRITE, 0);
	lock_file_gone(f);
	if (f->ops && f->ops->release)
		f->ops->release(f);
	if (f->ip)
		fs_put(f->ip);
	file_drop_name(f);
	lx_free(f);
}

static void file_drop_name(struct file *f)
{
	fs_put(f->name_dir);
	if (f->name != f->name_buf)
		lx_free(f->name);
	f->name_dir = NULL;
	f->name = NULL;
}

void file_set_name(struct file *f, struct fs_name *where)
{
	if (!where->dir)
		return;
	size_t len = strlen(where->name) + 1;
	char *name = len <= sizeof(f->name_buf) ? f->name_buf : lx_malloc(len);
	if (!name) {
		fs_name_drop(where);    /* the file just has no name to show */
		return;
	}
	if (f->name_dir)
		file_drop_name(f);
	memcpy(name, where->name, len);
	f->name_dir = where->dir;
	f->name = name;
	where->dir = NULL;
}

/* "dir/name" from the recorded name, or the inode's own path for a directory. */
static long path_name(struct file *f, char *buf, size_t n)
{
	long len = fs_path(f->name_dir ? f->name_dir : f->ip, buf, n);
	if (len < 0 || !f->name_dir)
		return len;
	int m = snfmt(buf + len, n - (size_t)len, "%s%s%s", len > 1 ? "/" : "", f->name,
		      f->ip->nlink ? "" : " (deleted)");
	return (size_t)(len + m) < n ? len + m : -LX_ERANGE;
}

long file_link_name(struct file *f, char *buf, size_t n)
{
	if (f->ops->link_name)
		return f->ops->link_name(f, buf, n);
	if (f->name_dir || (f->ip && LX_S_ISDIR(f->ip->mode)))
		return path_name(f, buf, n);
	struct lx_stat st;
	file_stat(f, &st);
	const char *kind = LX_S_ISSOCK(st.st_mode) ? "socket" : file_is_pipe(f) ? "pipe" :
			   "anon_inode";
	int m = snfmt(buf, n, "%s:[%lu]", kind, (unsigned long)st.st_ino);
	return (size_t)m < n ? m : -LX_ERANGE;
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
 * The table's head is small (lx_zalloc); each chunk of LX_NFD_CHUNK
 * descriptors is a page of its own, made when a descriptor in it is first
 * used: at 2.3 KiB a chunk is too big for lx_malloc's slabs, and its larger
 * blocks come only from the pool's never-used part, which a fork and exit
 * per table would drain.
 */
_Static_assert(sizeof(struct fdchunk) <= LX_PAGE_SIZE, "a descriptor chunk fits a page");

struct fdtable *fdtable_new(void)
{
	struct fdtable *t = lx_zalloc(sizeof(*t));
	if (t)
		t->refs = 1;
	return t;
}

static struct fdchunk *chunk_of(struct fdtable *t, u32 fd, bool make)
{
	struct fdchunk **c = &t->chunk[fd / LX_NFD_CHUNK];
	if (!*c && make)
		*c = page_alloc();
	return *c;
}

void fdtable_put(struct fdtable *t)
{
	if (!t || --t->refs)
		return;
	for (u32 n = 0; n < LX_NFD / LX_NFD_CHUNK; n++) {
		struct fdchunk *c = t->chunk[n];
		if (!c)
			continue;
		for (u32 i = 0; i < LX_NFD_CHUNK; i++)
			if (c->fd[i])
				file_put(c->fd[i]);
		page_free(c);
	}
	lx_free(t);
}

struct fdtable *fdtable_dup(struct fdtable *old)
{
	struct fdtable *t = fdtable_new();
	if (!t)
		return NULL;
	for (u32 n = 0; n * LX_NFD_CHUNK < old->top; n++) {
		if (!old->chunk[n])
			continue;
		if (!(t->chunk[n] = page_alloc())) {
			fdtable_put(t);
			return NULL;
		}
		*t->chunk[n] = *old->chunk[n];
		for (u32 i = 0; i < LX_NFD_CHUNK; i++)
			if (t->chunk[n]->fd[i])
				file_get(t->chunk[n]->fd[i]);
	}
	t->top = old->top;
	return t;
}

int fd_limit(struct proc *p)
{
	u64 lim = p->rlim[LX_RLIMIT_NOFILE][0];
	return lim < LX_NFD ? (int)lim : LX_NFD;
}

static void fd_set(struct fdchunk *c, struct fdtable *t, u32 fd, struct file *f, bool cloexec)
{
	c->fd[fd % LX_NFD_CHUNK] = f;
	c->cloexec[fd % LX_NFD_CHUNK] = cloexec;
	if (f && fd >= t->top)
		t->top = fd + 1;
}

/* On success the table owns the caller's reference to f; -EMFILE past
 * RLIMIT_NOFILE, -ENOMEM when the table cannot grow. */
int fd_install(struct proc *p, struct file *f, int min, bool cloexec)
{
	struct fdtable *t = p->fds;
	for (int i = min < 0 ? 0 : min, lim = fd_limit(p); i < lim;) {
		struct fdchunk *c = chunk_of(t, (u32)i, true);
		if (!c)
			return -LX_ENOMEM;
		int end = (i / LX_NFD_CHUNK + 1) * LX_NFD_CHUNK;
		for (end = end < lim ? end : lim; i < end; i++)
			if (!c->fd[i % LX_NFD_CHUNK]) {
				fd_set(c, t, (u32)i, f, cloexec);
				return i;
			}
	}
	return -LX_EMFILE;
}

struct file *fd_get(struct proc *p, int fd)
{
	if (!p->fds || fd < 0 || (u32)fd >= p->fds->top)
		return NULL;
	struct fdchunk *c = chunk_of(p->fds, (u32)fd, false);
	return c ? c->fd[fd % LX_NFD_CHUNK] : NULL;
}

bool fd_cloexec(struct proc *p, int fd)
{
	return fd_get(p, fd) && p->fds->chunk[fd / LX_NFD_CHUNK]->cloexec[fd % LX_NFD_CHUNK];
}

void fd_set_cloexec(struct proc *p, int fd, bool on)
{
	if (fd_get(p, fd))
		p->fds->chunk[fd / LX_NFD_CHUNK]->cloexec[fd % LX_NFD_CHUNK] = on;
}

int fd_close(struct proc *p, int fd)
{
	struct file *f = fd_get(p, fd);
	if (!f)
		return -LX_EBADF;
	fd_set(p->fds->chunk[fd / LX_NFD_CHUNK], p->fds, (u32)fd, NULL, false);
	lock_close(p, f);
	file_put(f);
	return 0;
}

int fd_replace(struct proc *p, int fd, struct file *f, bool cloexec)
{
	struct fdchunk *c = chunk_of(p->fds, (u32)fd, true);
	if (!c)
		return -LX_ENOMEM;
	struct file *old = c->fd[fd % LX_NFD_CHUNK];
	fd_set(c, p->fds, (u32)fd, f, cloexec);
	if (old) {
		lock_close(p, old);
		file_put(old);
	}
	return 0;
}

void fd_close_on_exec(struct proc *p)
{
	if (!p->fds)
		return;
	for (u32 i = 0; i < p->fds->top; i++)
		if (fd_cloexec(p, (int)i))
			fd_close(p, (int)i);
}

/* --- regular files and directories --- */

static long reg_read(struct file *f, void *buf, size_t n)
{
	long r = fs_read(f->ip, f->pos, buf, n);
	if (r > 0) {
		f->pos += (u64)r;
		fs_event(f->ip, NULL, LX_IN_ACCESS, 0);
	}
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
	if (!r && f->ip->seals)
		r = fs_seals_allow_write(f->ip, f->pos, n);
	if (r)
		return r;
	r = fs_write(f->ip, f->pos, buf, n);
	if (r > 0) {
		f->pos += (u64)r;
		fs_event(f->ip, NULL, LX_IN_MODIFY, 0);
	}
	return r;
}

int file_always_ready(struct file *f)
{
	(void)f;
	return LX_POLLIN | LX_POLLOUT;
}

void *file_no_wchan(struct file *f)
{
	return f;
}

long file_no_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	(void)t, (void)f, (void)cmd, (void)arg;
	return -LX_ENOTTY;
}

const struct file_ops reg_ops = {
	.read = reg_read, .write = reg_write, .poll = file_always_ready, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl,
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
	.read = dir_read, .write = dir_write, .poll = file_always_ready, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl,
};

/* --- everything else --- */

void file_unread(struct file *f, size_t n)
{
	if (f->ops == &reg_ops) {
		f->pos -= n;
	} else if (f->ops->unread) {
		f->ops->unread(f, n);
	}
}

long file_nread(struct file *f)
{
	if (file_is_pipe(f))
		return pipe_nread(f);
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
	int r = ip->sb->ops->open && !(flags & LX_O_PATH) ? ip->sb->ops->open(ip, flags) : 0;
	if (r < 0)
		return r;
	if ((flags & LX_O_TRUNC) && !(flags & LX_O_PATH) && LX_S_ISREG(ip->mode)) {
		r = fs_truncate(ip, 0);
		if (r < 0)
			return r;
	}
	flags &= ~(LX_O_CREAT | LX_O_EXCL | LX_O_TRUNC | LX_O_NOCTTY | LX_O_CLOEXEC);
	if (flags & LX_O_PATH) {
		ops = &devfs_null_ops;        /* names the inode, moves no data */
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
			ops = devfs_chr_ops(ip->rdev);
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
	if (!(flags & LX_O_PATH))
		fs_event(ip, NULL, LX_IN_OPEN, 0);
	return 0;
}
