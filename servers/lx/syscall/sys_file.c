// SPDX-License-Identifier: MIT
// System calls on descriptors: I/O, descriptor management, pipes, polling.
// Data moves through one bounce buffer in lx (lx runs one call at a time),
// copied to and from the process with copyin/copyout, so a bad pointer is
// an EFAULT for the caller and never a fault in lx.  A call that must wait
// parks the thread and returns SYS_BLOCK; it is run again from the start,
// so nothing is consumed before a call decides to wait.
#include "../vfs/vfs.h"
#include "syscall.h"
#include "../../../lib/c/string.h"

/* page-aligned: a string of up to a page from or into it (the network server's
 * SEND and RECV) lies in one page, which the kernel's short-string path takes */
char file_bounce[BOUNCE_SIZE] __attribute__((aligned(4096)));
#define bounce file_bounce

#define MAX_RW   0x7ffff000UL           /* Linux's MAX_RW_COUNT */
#define IOV_MAX  1024

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

static size_t page_chunk(u64 addr, size_t n)
{
	return min_sz(n, LX_PAGE_SIZE - (addr & (LX_PAGE_SIZE - 1)));
}

#define FAST_MIN 256        /* below this, copyin/copyout's own copy costs less than a second walk */

/*
 * lx's address of the process's byte at uaddr, present for reading or
 * writing; NULL for a bad address.  For writing, a one-byte copyout first
 * breaks copy-on-write the way copyout does (taking the old page from the
 * space); vm_fault then finds the page writable and only reports it.
 */
static char *user_byte(struct proc *p, u64 uaddr, bool write, const void *first)
{
	u64 page;
	u32 rights;
	if (uaddr >= LX_USER_END || (write && !copyout(p, uaddr, first, 1)))
		return NULL;
	if (vm_fault(p, uaddr, write ? VM_WRITE : VM_READ, &page, &rights))
		return NULL;
	return (char *)page + (uaddr & (LX_PAGE_SIZE - 1));
}

size_t copyin_part(struct proc *p, void *dst, u64 src, size_t n)
{
	if (n < FAST_MIN && page_chunk(src, n) == n)       /* one small piece: most calls */
		return copyin(p, dst, src, n) ? n : 0;
	size_t done = 0;
	while (done < n) {
		size_t c = page_chunk(src + done, n - done);
		char *d = (char *)dst + done, *from;
		if (c < FAST_MIN) {
			if (!copyin(p, d, src + done, c))
				break;
		} else if ((from = user_byte(p, src + done, false, NULL))) {
			memcpy(d, from, c);
		} else {
			break;
		}
		done += c;
	}
	return done;
}

size_t copyout_part(struct proc *p, u64 dst, const void *src, size_t n)
{
	if (n < FAST_MIN && page_chunk(dst, n) == n)       /* one small piece: most calls */
		return copyout(p, dst, src, n) ? n : 0;
	size_t done = 0;
	while (done < n) {
		size_t c = page_chunk(dst + done, n - done);
		const char *s = (const char *)src + done;
		char *to;
		if (c < FAST_MIN) {
			if (!copyout(p, dst + done, s, c))
				break;
		} else if ((to = user_byte(p, dst + done, true, s))) {
			memcpy(to, s, c);
		} else {
			break;
		}
		done += c;
	}
	return done;
}

/* -EAGAIN from an object: park on its channel unless the file is non-blocking. */
static long wait_on(struct thread *t, struct file *f)
{
	if (f->flags & LX_O_NONBLOCK)
		return -LX_EAGAIN;
	block_on(t, f->ops->wchan(f), 0);
	return SYS_BLOCK;
}

/*
 * Read up to n bytes from f into the process at buf: the count (short if
 * the buffer ends in a bad page), or -errno (-EAGAIN: nothing now).
 */
static long do_read(struct thread *t, struct file *f, u64 buf, size_t n)
{
	if (!file_readable(f))
		return -LX_EBADF;
	size_t done = 0;
	n = min_sz(n, MAX_RW);
	if (f->ops->read_user)
		return f->ops->read_user(f, t->proc, buf, n);
	while (done < n) {
		size_t want = min_sz(n - done, BOUNCE_SIZE);
		long r = f->ops->read(f, bounce, want);
		if (r < 0)
			return done ? (long)done : r;
		size_t c = copyout_part(t->proc, buf + done, bounce, (size_t)r);
		done += c;
		if (c < (size_t)r) {
			file_unread(f, (size_t)r - c);
			return done ? (long)done : -LX_EFAULT;
		}
		if ((size_t)r < want)
			break;
	}
	return (long)done;
}

/* Write n bytes from the process at buf to f: the count, or -errno (-EAGAIN: no room now). */
static long do_write(struct thread *t, struct file *f, u64 buf, size_t n)
{
	if (!file_writable(f))
		return -LX_EBADF;
	size_t done = 0;
	n = min_sz(n, MAX_RW);
	if (!n)
		return f->ops->write(f, bounce, 0);
	if (f->ops->write_user) {
		long r = f->ops->write_user(f, t->proc, buf, n);
		if (r == -LX_EPIPE)
			signal_send_thread(t, LX_SIGPIPE);
		return r;
	}
	while (done < n) {
		size_t want = min_sz(n - done, BOUNCE_SIZE);
		size_t c = copyin_part(t->proc, bounce, buf + done, want);
		if (!c)
			return done ? (long)done : -LX_EFAULT;
		long r = f->ops->write(f, bounce, c);
		if (r < 0) {
			if (r == -LX_EPIPE)
				signal_send_thread(t, LX_SIGPIPE);
			return done ? (long)done : r;
		}
		done += (size_t)r;
		if ((size_t)r < c || c < want)
			break;
	}
	return (long)done;
}

long sys_read(struct thread *t, u64 fd, u64 buf, u64 n, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	long r = do_read(t, f, buf, n);
	return r == -LX_EAGAIN ? wait_on(t, f) : r;
}

long sys_write(struct thread *t, u64 fd, u64 buf, u64 n, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	long r = do_write(t, f, buf, n);
	return r == -LX_EAGAIN ? wait_on(t, f) : r;
}

struct lx_iovec {
	u64 base, len;
};

/* readv/writev: segment after segment until one comes short; waits only before the first byte. */
static long do_rw_vec(struct thread *t, u64 fd, u64 uiov, u64 cnt, bool wr, bool at, u64 off)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (cnt > IOV_MAX)
		return -LX_EINVAL;
	static struct lx_iovec iov[IOV_MAX];
	if (!copyin(t->proc, iov, uiov, cnt * sizeof(iov[0])))
		return -LX_EFAULT;
	size_t total = 0;
	for (u64 i = 0; i < cnt; i++) {
		if (iov[i].len > MAX_RW || total + iov[i].len > MAX_RW)
			return -LX_EINVAL;
		total += iov[i].len;
	}
	u64 saved = f->pos;
	if (at) {
		if (!file_seekable(f))
			return -LX_ESPIPE;
		if ((int64_t)off < 0)
			return -LX_EINVAL;
		f->pos = off;
	}
	long done = 0, r = 0;
	for (u64 i = 0; i < cnt; i++) {
		if (!iov[i].len)
			continue;
		r = wr ? do_write(t, f, iov[i].base, iov[i].len) : do_read(t, f, iov[i].base, iov[i].len);
		if (r < 0)
			break;
		done += r;
		if ((u64)r < iov[i].len)
			break;
	}
	if (at)
		f->pos = saved;
	if (done)
		return done;
	if (r == -LX_EAGAIN)
		return wait_on(t, f);
	if (r == 0 && total == 0)   /* zero-length: still checks the access mode */
		return wr ? (file_writable(f) ? 0 : -LX_EBADF) : (file_readable(f) ? 0 : -LX_EBADF);
	return r;
}

long sys_readv(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return do_rw_vec(t, fd, iov, cnt, false, false, 0);
}

long sys_writev(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return do_rw_vec(t, fd, iov, cnt, true, false, 0);
}

long sys_preadv(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 off, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_rw_vec(t, fd, iov, cnt, false, true, off);
}

long sys_pwritev(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 off, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_rw_vec(t, fd, iov, cnt, true, true, off);
}

/*
 * preadv2/pwritev2: an offset of -1 means the file's position (readv,
 * writev); RWF_APPEND and RWF_NOAPPEND turn O_APPEND on or off for this
 * call, RWF_NOWAIT answers EAGAIN instead of waiting; RWF_HIPRI, DSYNC and
 * SYNC change nothing in lx (every write is as synchronous as it gets).
 * Linux's flags past those: EOPNOTSUPP.
 */
#define RWF_HIPRI    0x01
#define RWF_DSYNC    0x02
#define RWF_SYNC     0x04
#define RWF_NOWAIT   0x08
#define RWF_APPEND   0x10
#define RWF_NOAPPEND 0x20
static long do_rw_vec2(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 off, u64 flags, bool wr)
{
	if (flags & ~(u64)(RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND | RWF_NOAPPEND))
		return -LX_EOPNOTSUPP;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	u32 saved = f->flags;
	if (wr && (flags & RWF_APPEND))
		f->flags |= LX_O_APPEND;
	else if (wr && (flags & RWF_NOAPPEND))
		f->flags &= ~(u32)LX_O_APPEND;
	if (flags & RWF_NOWAIT)
		f->flags |= LX_O_NONBLOCK;
	long r = do_rw_vec(t, fd, iov, cnt, wr, off != ~0UL, off);
	f->flags = (f->flags & ~(u32)(LX_O_APPEND | LX_O_NONBLOCK)) |
		   (saved & (LX_O_APPEND | LX_O_NONBLOCK));
	return r;
}

long sys_preadv2(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 off, u64 off_hi, u64 flags)
{
	(void)off_hi;                   /* x86-64 passes the whole offset in the low word */
	return do_rw_vec2(t, fd, iov, cnt, off, flags, false);
}

long sys_pwritev2(struct thread *t, u64 fd, u64 iov, u64 cnt, u64 off, u64 off_hi, u64 flags)
{
	(void)off_hi;
	return do_rw_vec2(t, fd, iov, cnt, off, flags, true);
}

/* pread/pwrite: at off, f's own position unchanged. */
static long do_rw_at(struct thread *t, u64 fd, u64 buf, u64 n, u64 off, bool wr)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (!file_seekable(f))
		return -LX_ESPIPE;
	if ((int64_t)off < 0)
		return -LX_EINVAL;
	u64 saved = f->pos;
	f->pos = off;
	long r = wr ? do_write(t, f, buf, n) : do_read(t, f, buf, n);
	f->pos = saved;
	return r;
}

long sys_pread64(struct thread *t, u64 fd, u64 buf, u64 n, u64 off, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_rw_at(t, fd, buf, n, off, false);
}

long sys_pwrite64(struct thread *t, u64 fd, u64 buf, u64 n, u64 off, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_rw_at(t, fd, buf, n, off, true);
}

#define LX_SEEK_SET  0
#define LX_SEEK_CUR  1
#define LX_SEEK_END  2
#define LX_SEEK_DATA 3
#define LX_SEEK_HOLE 4

long sys_lseek(struct thread *t, u64 fd, u64 off, u64 whence, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (whence > LX_SEEK_HOLE)
		return -LX_EINVAL;                  /* before ESPIPE, as Linux */
	if (!file_seekable(f))
		return -LX_ESPIPE;
	int64_t size = f->ip ? (int64_t)f->ip->size : 0, o = (int64_t)off, n;
	switch (whence) {
	case LX_SEEK_SET: n = o; break;
	case LX_SEEK_CUR: n = (int64_t)f->pos + o; break;
	case LX_SEEK_END: n = size + o; break;
	case LX_SEEK_DATA:
	case LX_SEEK_HOLE:
		if (o < 0)
			return -LX_EINVAL;
		if (o >= size)
			return -LX_ENXIO;
		n = whence == LX_SEEK_DATA ? o : size;
		break;
	default:
		return -LX_EINVAL;
	}
	if (n < 0)
		return -LX_EINVAL;
	f->pos = (u64)n;
	return n;
}

long sys_close(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return fd_close(t->proc, (int)fd);
}

/*
 * close_range(2): CLOSE_RANGE_UNSHARE first gives the caller a table of its
 * own (as unshare(CLONE_FILES)); CLOSE_RANGE_CLOEXEC marks instead of closing.
 */
long sys_close_range(struct thread *t, u64 first, u64 last, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
#define CLOSE_RANGE_UNSHARE 2
#define CLOSE_RANGE_CLOEXEC 4
	struct proc *p = t->proc;
	if ((u32)first > (u32)last || (flags & ~(u64)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)))
		return -LX_EINVAL;
	if ((flags & CLOSE_RANGE_UNSHARE) && p->fds->refs > 1) {
		struct fdtable *own = fdtable_dup(p->fds);
		if (!own)
			return -LX_ENOMEM;
		fdtable_put(p->fds);
		p->fds = own;
	}
	for (u64 i = (u32)first; i <= (u32)last && i < p->fds->top; i++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			fd_set_cloexec(p, (int)i, true);
		else
			fd_close(p, (int)i);
	}
	return 0;
}

/* A second descriptor for oldfd's file, the lowest free from min (below RLIMIT_NOFILE). */
static long dup_from(struct proc *p, int oldfd, u64 min, bool cloexec)
{
	struct file *f = fd_get(p, oldfd);
	if (!f)
		return -LX_EBADF;
	if (min >= (u64)fd_limit(p))
		return -LX_EINVAL;
	file_get(f);
	int fd = fd_install(p, f, (int)min, cloexec);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_dup(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	file_get(f);
	int r = fd_install(t->proc, f, 0, false);
	if (r < 0)
		file_put(f);
	return r;
}

/* dup2 and dup3: newfd at or past RLIMIT_NOFILE is EBADF, as Linux. */
static long dup_to(struct proc *p, u64 oldfd, u64 newfd, bool cloexec)
{
	struct file *f = fd_get(p, (int)oldfd);
	if (!f || newfd >= (u64)fd_limit(p))
		return -LX_EBADF;
	file_get(f);
	if (fd_replace(p, (int)newfd, f, cloexec) < 0) {
		file_put(f);
		return -LX_ENOMEM;
	}
	return (long)newfd;
}

long sys_dup2(struct thread *t, u64 oldfd, u64 newfd, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	oldfd = (u32)oldfd, newfd = (u32)newfd;     /* unsigned int in Linux */
	if (oldfd == newfd)
		return fd_get(t->proc, (int)oldfd) ? (long)newfd : -LX_EBADF;
	return dup_to(t->proc, oldfd, newfd, false);
}

long sys_dup3(struct thread *t, u64 oldfd, u64 newfd, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	oldfd = (u32)oldfd, newfd = (u32)newfd;
	if ((flags & ~(u64)LX_O_CLOEXEC) || oldfd == newfd)
		return -LX_EINVAL;
	return dup_to(t->proc, oldfd, newfd, flags & LX_O_CLOEXEC);
}

#define LX_F_DUPFD 0
#define LX_F_GETFD 1
#define LX_F_SETFD 2
#define LX_F_GETFL 3
#define LX_F_SETFL 4
#define LX_F_SETOWN 8
#define LX_F_GETOWN 9
#define LX_F_DUPFD_CLOEXEC 1030
#define LX_F_SETPIPE_SZ 1031
#define LX_F_GETPIPE_SZ 1032
#define LX_FD_CLOEXEC 1
#define LX_O_LARGEFILE 0100000

/* F_SETOWN: a process (pid), a process group (-pgid) that exists (ESRCH), or none (0). */
static long set_owner(struct file *f, int who)
{
	bool found = who == 0;
	for (struct proc *q = procs; q && !found; q = q->next_all)
		found = !q->zombie && (who > 0 ? q->pid == who : q->pgid == -who);
	if (!found)
		return -LX_ESRCH;
	f->owner = who;
	return 0;
}

long sys_fcntl(struct thread *t, u64 fd, u64 cmd, u64 arg, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct proc *p = t->proc;
	struct file *f = fd_get(p, (int)fd);
	if (!f)
		return -LX_EBADF;
	switch ((u32)cmd) {
	case LX_F_DUPFD:
	case LX_F_DUPFD_CLOEXEC:
		return dup_from(p, (int)fd, (u32)arg, cmd == LX_F_DUPFD_CLOEXEC);
	case LX_F_GETFD:
		return fd_cloexec(p, (int)fd) ? LX_FD_CLOEXEC : 0;
	case LX_F_SETFD:
		fd_set_cloexec(p, (int)fd, (arg & LX_FD_CLOEXEC) != 0);
		return 0;
	case LX_F_GETFL:
		return f->flags | LX_O_LARGEFILE;
	case LX_F_SETFL: {
		u32 mask = LX_O_APPEND | LX_O_NONBLOCK;
		f->flags = (f->flags & ~mask) | ((u32)arg & mask);
		return 0;
	}
	case LX_F_GETLK:
	case LX_F_SETLK:
	case LX_F_SETLKW:
	case LX_F_OFD_GETLK:
	case LX_F_OFD_SETLK:
	case LX_F_OFD_SETLKW:
		return lock_fcntl(t, f, (int)cmd, arg);
	case LX_F_SETOWN:
		return set_owner(f, (int)arg);
	case LX_F_GETOWN:
		return f->owner;
	case LX_F_GETPIPE_SZ:
		return file_is_pipe(f) ? (long)pipe_size(f) : -LX_EBADF;
	case LX_F_SETPIPE_SZ:
		return file_is_pipe(f) ? pipe_set_size(f, arg, lx_privileged(p)) : -LX_EBADF;
	case 1033:      /* F_ADD_SEALS */
	case 1034:      /* F_GET_SEALS */
		return memfd_fcntl(f, cmd, arg);
	default:
		return -LX_EINVAL;
	}
}

static long do_pipe(struct thread *t, u64 ufds, u64 flags)
{
	if (flags & ~(u64)(LX_O_CLOEXEC | LX_O_NONBLOCK | 040000 /* O_DIRECT */))
		return -LX_EINVAL;
	struct proc *p = t->proc;
	struct file *rd, *wr;
	int r = pipe_new((u32)flags, &rd, &wr);
	if (r < 0)
		return r;
	bool cloexec = flags & LX_O_CLOEXEC;
	int fds[2];
	fds[0] = fd_install(p, rd, 0, cloexec);
	if (fds[0] < 0) {
		file_put(rd);
		file_put(wr);
		return fds[0];
	}
	fds[1] = fd_install(p, wr, 0, cloexec);
	if (fds[1] < 0) {
		fd_close(p, fds[0]);
		file_put(wr);
		return fds[1];
	}
	if (!copyout(p, ufds, fds, sizeof(fds))) {
		fd_close(p, fds[0]);
		fd_close(p, fds[1]);
		return -LX_EFAULT;
	}
	return 0;
}

long sys_pipe(struct thread *t, u64 fds, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return do_pipe(t, fds, 0);
}

long sys_pipe2(struct thread *t, u64 fds, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	return do_pipe(t, fds, flags);
}

/* --- poll and select --- */

#define NO_TIMEOUT (~0UL)
#define LX_POLLRDNORM 0x040
#define LX_POLLRDBAND 0x080
#define LX_POLLWRNORM 0x100
#define LX_POLLWRBAND 0x200

/* The absolute deadline of a call that waits at most `us` µs, fixed by its first run (0: none). */
static u64 deadline_of(struct thread *t, u64 us)
{
	if (t->fresh)
		t->call_deadline = us == NO_TIMEOUT ? 0 : lx_now_us() + (us ? us : 1);
	return t->call_deadline;
}

static bool expired(struct thread *t, u64 us)
{
	if (us == 0 || t->timed_out)
		return true;
	return us != NO_TIMEOUT && lx_now_us() >= deadline_of(t, us);
}

/* A temporary signal mask for ppoll/pselect6; 0 or -errno. */
static long push_sigmask(struct thread *t, u64 umask, u64 size)
{
	if (!umask)
		return 0;
	u64 m;
	if (size != sizeof(m))
		return -LX_EINVAL;
	if (!copyin(t->proc, &m, umask, sizeof(m)))
		return -LX_EFAULT;
	if (!t->restore_sigmask) {
		t->saved_sigmask = t->sigmask;
		t->restore_sigmask = true;
	}
	t->sigmask = m & ~(SIGBIT(LX_SIGKILL) | SIGBIT(LX_SIGSTOP));
	return 0;
}

/* The call returns (not waits): a temporary mask is undone. */
static long end_wait(struct thread *t, bool masked, long res)
{
	if (masked && t->restore_sigmask) {
		t->sigmask = t->saved_sigmask;
		t->restore_sigmask = false;
	}
	return res;
}

/*
 * Park until anything changes.  A signal handler ends the wait with EINTR,
 * never a restart, whatever SA_RESTART says (signal(7): poll, select, epoll
 * are not restarted); a temporary mask stays for signal_deliver to undo.
 */
static long wait_any(struct thread *t, u64 us)
{
	if (signal_pending(t))
		return -LX_EINTR;
	block_on(t, poll_any, deadline_of(t, us));
	return SYS_BLOCK;
}

struct lx_pollfd {
	int32_t fd;
	int16_t events, revents;
};
#define MAX_POLLFD (BOUNCE_SIZE / sizeof(struct lx_pollfd))

static int16_t poll_one(struct proc *p, struct lx_pollfd *pf)
{
	if (pf->fd < 0)
		return 0;
	struct file *f = fd_get(p, pf->fd);
	if (!f)
		return LX_POLLNVAL;
	int ev = f->ops->poll(f);
	if (ev & LX_POLLIN)
		ev |= LX_POLLRDNORM;
	if (ev & LX_POLLOUT)
		ev |= LX_POLLWRNORM;
	return (int16_t)(ev & (pf->events | LX_POLLERR | LX_POLLHUP));
}

static long do_poll(struct thread *t, u64 ufds, u64 nfds, u64 us, bool masked)
{
	struct proc *p = t->proc;
	if (nfds > MAX_POLLFD)
		return end_wait(t, masked, -LX_EINVAL);
	struct lx_pollfd *pfd = (struct lx_pollfd *)bounce;
	size_t size = nfds * sizeof(*pfd);
	if (!copyin(p, pfd, ufds, size))
		return end_wait(t, masked, -LX_EFAULT);
	long ready = 0;
	for (u64 i = 0; i < nfds; i++) {
		pfd[i].revents = poll_one(p, &pfd[i]);
		if (pfd[i].revents)
			ready++;
	}
	if (!ready && !expired(t, us))
		return wait_any(t, us);
	if (!copyout(p, ufds, pfd, size))
		return end_wait(t, masked, -LX_EFAULT);
	return end_wait(t, masked, ready);
}

/* A timespec or timeval (scale 1000: nanoseconds, 1: microseconds) as µs; NO_TIMEOUT for none. */
static long timeout_us(struct thread *t, u64 uts, u64 per_us, u64 *us)
{
	struct lx_timespec ts;
	if (!uts) {
		*us = NO_TIMEOUT;
		return 0;
	}
	if (!copyin(t->proc, &ts, uts, sizeof(ts)))
		return -LX_EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || (u64)ts.tv_nsec >= 1000000 * per_us)
		return -LX_EINVAL;
	if (ts.tv_sec > 1000000000L)
		*us = NO_TIMEOUT - 1;
	else
		*us = (u64)ts.tv_sec * 1000000 + (u64)ts.tv_nsec / per_us;
	return 0;
}

long sys_poll(struct thread *t, u64 fds, u64 nfds, u64 ms, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	int timeout = (int)ms;
	return do_poll(t, fds, nfds, timeout < 0 ? NO_TIMEOUT : (u64)timeout * 1000, false);
}

long sys_ppoll(struct thread *t, u64 fds, u64 nfds, u64 uts, u64 umask, u64 size, u64 a5)
{
	(void)a5;
	u64 us;
	long r = timeout_us(t, uts, 1000, &us);
	if (r < 0)
		return r;
	r = push_sigmask(t, umask, size);
	if (r < 0)
		return r;
	return do_poll(t, fds, nfds, us, umask != 0);
}

#define FD_SETSIZE 1024
#define SET_WORDS (FD_SETSIZE / 64)

/* The three sets of select: in (what the caller asks) and out (what holds). */
static long do_select(struct thread *t, u64 nfds, u64 uset[3], u64 us, bool masked)
{
	struct proc *p = t->proc;
	static u64 in[3][SET_WORDS], out[3][SET_WORDS];
	if ((int)nfds < 0)
		return end_wait(t, masked, -LX_EINVAL);
	if (nfds > FD_SETSIZE)
		nfds = FD_SETSIZE;
	size_t bytes = (nfds + 63) / 64 * 8;
	for (int s = 0; s < 3; s++) {
		memset(in[s], 0, sizeof(in[s]));
		memset(out[s], 0, sizeof(out[s]));
		if (uset[s] && !copyin(p, in[s], uset[s], bytes))
			return end_wait(t, masked, -LX_EFAULT);
	}
	long ready = 0;
	for (u64 fd = 0; fd < nfds; fd++) {
		u64 w = fd / 64, bit = 1UL << (fd % 64);
		if (!((in[0][w] | in[1][w] | in[2][w]) & bit))
			continue;
		struct file *f = fd_get(p, (int)fd);
		if (!f)
			return end_wait(t, masked, -LX_EBADF);
		int ev = f->ops->poll(f);
		static const int want[3] = {
			LX_POLLIN | LX_POLLHUP | LX_POLLERR, LX_POLLOUT | LX_POLLERR, LX_POLLPRI
		};
		for (int s = 0; s < 3; s++)
			if ((in[s][w] & bit) && (ev & want[s])) {
				out[s][w] |= bit;
				ready++;
			}
	}
	if (!ready && !expired(t, us))
		return wait_any(t, us);
	for (int s = 0; s < 3; s++)
		if (uset[s] && !copyout(p, uset[s], out[s], bytes))
			return end_wait(t, masked, -LX_EFAULT);
	return end_wait(t, masked, ready);
}

/* select reports the time left through its timeval, as Linux does. */
static void time_left(struct thread *t, u64 utv, u64 us)
{
	if (!utv || us == NO_TIMEOUT || us == 0)
		return;
	u64 now = lx_now_us(), end = t->call_deadline;
	u64 left = end > now ? end - now : 0;
	struct lx_timeval tv = {(int64_t)(left / 1000000), (int64_t)(left % 1000000)};
	copyout(t->proc, utv, &tv, sizeof(tv));
}

long sys_select(struct thread *t, u64 nfds, u64 r, u64 w, u64 e, u64 utv, u64 a5)
{
	(void)a5;
	u64 us, sets[3] = {r, w, e};
	long res = timeout_us(t, utv, 1, &us);
	if (res < 0)
		return res;
	deadline_of(t, us);
	res = do_select(t, nfds, sets, us, false);
	if (res != SYS_BLOCK)
		time_left(t, utv, us);
	return res;
}

long sys_pselect6(struct thread *t, u64 nfds, u64 r, u64 w, u64 e, u64 uts, u64 usig)
{
	u64 us, sets[3] = {r, w, e};
	long res = timeout_us(t, uts, 1000, &us);
	if (res < 0)
		return res;
	struct { u64 set, size; } sig = {0, 0};
	if (usig && !copyin(t->proc, &sig, usig, sizeof(sig)))
		return -LX_EFAULT;
	res = push_sigmask(t, sig.set, sig.size);
	if (res < 0)
		return res;
	return do_select(t, nfds, sets, us, sig.set != 0);
}

/* The same waits for other files' calls (syscall.h). */
u64 wait_deadline(struct thread *t, u64 us) { return deadline_of(t, us); }
bool wait_expired(struct thread *t, u64 us) { return expired(t, us); }
long wait_timeout(struct thread *t, u64 uts, u64 *us) { return timeout_us(t, uts, 1000, us); }
long wait_sigmask(struct thread *t, u64 umask, u64 size) { return push_sigmask(t, umask, size); }
long wait_end(struct thread *t, bool masked, long res) { return end_wait(t, masked, res); }
long wait_ready(struct thread *t, u64 us) { return wait_any(t, us); }

/* --- ioctl, sendfile, sync --- */

#define LX_FIONREAD 0x541b
#define LX_FIONBIO  0x5421
#define LX_FIONCLEX 0x5450
#define LX_FIOCLEX  0x5451

long sys_ioctl(struct thread *t, u64 fd, u64 cmd, u64 arg, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	struct proc *p = t->proc;
	struct file *f = fd_get(p, (int)fd);
	if (!f)
		return -LX_EBADF;
	switch ((u32)cmd) {
	case LX_FIOCLEX:
	case LX_FIONCLEX:
		fd_set_cloexec(p, (int)fd, (u32)cmd == LX_FIOCLEX);
		return 0;
	case LX_FIONBIO: {
		int on;
		if (!copyin(p, &on, arg, sizeof(on)))
			return -LX_EFAULT;
		f->flags = on ? f->flags | LX_O_NONBLOCK : f->flags & ~(u32)LX_O_NONBLOCK;
		return 0;
	}
	}
	long r = f->ops->ioctl ? f->ops->ioctl(t, f, cmd, arg) : -LX_ENOTTY;
	if (r == -LX_ENOTTY && (u32)cmd == LX_FIONREAD) {
		long n = file_nread(f);
		if (n < 0)
			return n;
		int v = (int)n;
		return copyout(p, arg, &v, sizeof(v)) ? 0 : -LX_EFAULT;
	}
	return r;
}

/*
 * Copy from in to out through the bounce buffer.  Bytes read but not
 * written go back to in, so waiting (on either end) loses nothing.
 */
long sys_sendfile(struct thread *t, u64 out_fd, u64 in_fd, u64 uoff, u64 count, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct proc *p = t->proc;
	struct file *out = fd_get(p, (int)out_fd), *in = fd_get(p, (int)in_fd);
	if (!out || !in || !file_readable(in) || !file_writable(out))
		return -LX_EBADF;
	int64_t off = 0;
	u64 saved = in->pos;
	if (uoff) {
		if (!file_seekable(in))
			return -LX_ESPIPE;
		if (!copyin(p, &off, uoff, sizeof(off)))
			return -LX_EFAULT;
		if (off < 0)
			return -LX_EINVAL;
		in->pos = (u64)off;
	}
	size_t done = 0, n = min_sz(count, MAX_RW);
	long r = 0;
	struct file *waiting = NULL;
	while (done < n) {
		size_t want = min_sz(n - done, BOUNCE_SIZE);
		r = in->ops->read(in, bounce, want);
		if (r == -LX_EAGAIN)
			waiting = in;
		if (r <= 0)
			break;
		long w = out->ops->write(out, bounce, (size_t)r);
		if (w < (long)r)
			file_unread(in, (size_t)(r - (w > 0 ? w : 0)));
		if (w == -LX_EAGAIN)
			waiting = out;
		if (w == -LX_EPIPE)
			signal_send_thread(t, LX_SIGPIPE);
		if (w <= 0) {
			r = w;
			break;
		}
		done += (size_t)w;
		if (w < r || (size_t)r < want)
			break;
	}
	if (uoff) {
		off = (int64_t)in->pos;
		in->pos = saved;
		if (!copyout(p, uoff, &off, sizeof(off)))
			return -LX_EFAULT;
	}
	if (done)
		return (long)done;
	if (waiting)
		return wait_on(t, waiting);
	return r;
}

/* fsync and fdatasync: the file's data and record reach its medium (ext2's disk). */
static long fd_sync(struct thread *t, u64 fd)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (!f->ip || file_is_pipe(f))
		return -LX_EINVAL;      /* pipes and sockets, as Linux */
	return fs_fsync(f->ip);
}

long sys_fsync(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return fd_sync(t, fd);
}

long sys_fdatasync(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return fd_sync(t, fd);
}

long sys_flock(struct thread *t, u64 fd, u64 op, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	return f ? lock_flock(t, f, op) : -LX_EBADF;
}

/* --- advice and write-back: lx's files need neither (ext2 writes through) --- */

static bool has_data(const struct file *f)
{
	return f->ip && (LX_S_ISREG(f->ip->mode) || LX_S_ISDIR(f->ip->mode));
}

long sys_fadvise64(struct thread *t, u64 fd, u64 off, u64 len, u64 advice, u64 a4, u64 a5)
{
	(void)off, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f || (f->flags & LX_O_PATH))
		return -LX_EBADF;
	if (file_is_pipe(f))
		return -LX_ESPIPE;
	return advice > 5 || (int64_t)len < 0 ? -LX_EINVAL : 0;
}

long sys_readahead(struct thread *t, u64 fd, u64 off, u64 count, u64 a3, u64 a4, u64 a5)
{
	(void)off, (void)count, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f || !file_readable(f))
		return -LX_EBADF;
	return f->ip && LX_S_ISREG(f->ip->mode) ? 0 : -LX_EINVAL;
}

long sys_sync_file_range(struct thread *t, u64 fd, u64 off, u64 n, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	if (flags & ~7UL)
		return -LX_EINVAL;
	if ((int64_t)off < 0 || (int64_t)n < 0 || off + n < off)
		return -LX_EINVAL;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	return has_data(f) ? 0 : -LX_ESPIPE;
}

long sys_syncfs(struct thread *t, u64 fd, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	return f->ip ? fs_fsync(f->ip) : 0;
}
