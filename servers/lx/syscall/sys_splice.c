// SPDX-License-Identifier: MIT
// Data between descriptors without the process's buffers: splice, tee,
// vmsplice, copy_file_range, and fallocate's space.  lx has no page
// cache to move pages between, so the bytes go through its bounce buffer
// (as sendfile's do); bytes read but not written go back to their source
// (file_unread), so a call that waits has consumed nothing.  Which pairs of
// files each call takes, and its errors, are Linux's.
#include "syscall.h"
#include "../../../lib/c/string.h"

#define SPLICE_F_NONBLOCK 2
#define SPLICE_F_ALL      15            /* MOVE, NONBLOCK, MORE, GIFT */
#define MAX_RW            0x7ffff000UL

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* The file's offset for one call: *off (from the process) instead of f->pos when uoff is set. */
struct at {
	u64 uoff;
	u64 saved;
};

static long at_begin(struct thread *t, struct file *f, u64 uoff, struct at *a)
{
	int64_t off;
	a->uoff = uoff;
	a->saved = f->pos;
	if (!uoff)
		return 0;
	if (!copyin(t->proc, &off, uoff, sizeof(off)))
		return -LX_EFAULT;
	if (off < 0)
		return -LX_EINVAL;
	f->pos = (u64)off;
	return 0;
}

static long at_end(struct thread *t, struct file *f, struct at *a, long res)
{
	if (!a->uoff)
		return res;
	int64_t off = (int64_t)f->pos;
	f->pos = a->saved;
	if (res > 0 && !copyout(t->proc, a->uoff, &off, sizeof(off)))
		return -LX_EFAULT;
	return res;
}

/*
 * Move up to n bytes from in to out (keep: give them all back to in, tee's
 * copy).  The count, or -errno; *waiting: the file to wait on after -EAGAIN.
 */
static long transfer(struct thread *t, struct file *in, struct file *out, size_t n, bool keep,
		     struct file **waiting)
{
	size_t done = 0;
	*waiting = NULL;
	while (done < n) {
		size_t want = min_sz(n - done, BOUNCE_SIZE);
		long r = in->ops->read(in, file_bounce, want);
		if (r == -LX_EAGAIN)
			*waiting = in;
		if (r <= 0)
			return done ? (long)done : r;
		long w = out->ops->write(out, file_bounce, (size_t)r);
		if (keep || w < r)
			file_unread(in, (size_t)(keep ? r : r - (w > 0 ? w : 0)));
		if (w == -LX_EAGAIN)
			*waiting = out;
		if (w == -LX_EPIPE)
			signal_send_thread(t, LX_SIGPIPE);
		if (w <= 0)
			return done ? (long)done : w;
		done += (size_t)w;
		if (w < r || (size_t)r < want || keep)
			break;
	}
	return (long)done;
}

/* -EAGAIN: park on the file (unless non-blocking), as read and write do. */
static long wait_or(struct thread *t, struct file *f, bool nonblock, long res)
{
	if (res != -LX_EAGAIN || !f || nonblock || (f->flags & LX_O_NONBLOCK))
		return res;
	block_on(t, f->ops->wchan(f), 0);
	return SYS_BLOCK;
}

static long check_pair(struct file *in, struct file *out)
{
	if (!file_readable(in) || !file_writable(out))
		return -LX_EBADF;
	return 0;
}

long sys_splice(struct thread *t, u64 fdin, u64 uoffin, u64 fdout, u64 uoffout, u64 len,
		u64 flags)
{
	if (!len)
		return 0;
	if (flags & ~(u64)SPLICE_F_ALL)
		return -LX_EINVAL;
	struct file *in = fd_get(t->proc, (int)fdin), *out = fd_get(t->proc, (int)fdout);
	if (!in || !out)
		return -LX_EBADF;
	bool ipipe = file_is_pipe(in), opipe = file_is_pipe(out);
	if ((ipipe && uoffin) || (opipe && uoffout))
		return -LX_ESPIPE;
	if ((!ipipe && !opipe) || (ipipe && opipe && in->priv == out->priv))
		return -LX_EINVAL;
	long r = check_pair(in, out);
	if (r < 0)
		return r;
	if (ipipe && !opipe && (out->flags & LX_O_APPEND))
		return -LX_EINVAL;
	struct at ai, ao;
	if ((r = at_begin(t, in, uoffin, &ai)) < 0)
		return r;
	if ((r = at_begin(t, out, uoffout, &ao)) < 0)
		return at_end(t, in, &ai, r);
	struct file *waiting;
	r = transfer(t, in, out, min_sz(len, MAX_RW), false, &waiting);
	r = at_end(t, out, &ao, at_end(t, in, &ai, r));
	return wait_or(t, waiting, flags & SPLICE_F_NONBLOCK, r);
}

long sys_tee(struct thread *t, u64 fdin, u64 fdout, u64 len, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	if (flags & ~(u64)SPLICE_F_ALL)
		return -LX_EINVAL;
	if (!len)
		return 0;
	struct file *in = fd_get(t->proc, (int)fdin), *out = fd_get(t->proc, (int)fdout);
	if (!in || !out)
		return -LX_EBADF;
	if (!file_is_pipe(in) || !file_is_pipe(out) || in->priv == out->priv)
		return -LX_EINVAL;
	long r = check_pair(in, out);
	if (r < 0)
		return r;
	struct file *waiting;
	r = transfer(t, in, out, min_sz(len, LX_PIPE_SIZE), true, &waiting);
	return wait_or(t, waiting, flags & SPLICE_F_NONBLOCK, r);
}

/* vmsplice: the process's segments into a pipe's write end, or out of its read end. */
long sys_vmsplice(struct thread *t, u64 fd, u64 uiov, u64 cnt, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	if (flags & ~(u64)SPLICE_F_ALL)
		return -LX_EINVAL;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f || !file_is_pipe(f))
		return -LX_EBADF;
	u32 saved = f->flags;
	if (flags & SPLICE_F_NONBLOCK)
		f->flags |= LX_O_NONBLOCK;
	long r = file_writable(f) ? sys_writev(t, fd, uiov, cnt, 0, 0, 0) :
				    sys_readv(t, fd, uiov, cnt, 0, 0, 0);
	f->flags = saved;
	return r;
}

/* copy_file_range's checks, in Linux's order (generic_copy_file_checks). */
static long copy_checks(struct file *in, struct file *out)
{
	if (!in->ip || !out->ip)
		return -LX_EINVAL;
	if (LX_S_ISDIR(in->ip->mode) || LX_S_ISDIR(out->ip->mode))
		return -LX_EISDIR;
	if (!LX_S_ISREG(in->ip->mode) || !LX_S_ISREG(out->ip->mode) || in->ops != &reg_ops ||
	    out->ops != &reg_ops)
		return -LX_EINVAL;
	if (!file_readable(in) || !file_writable(out) || (out->flags & LX_O_APPEND))
		return -LX_EBADF;
	if (in->ip->sb != out->ip->sb)
		return -LX_EXDEV;
	return 0;
}

/* len bytes from in's inode at pin to out's at pout: the count or -errno. */
static long copy_range(struct inode *in, u64 pin, struct inode *out, u64 pout, size_t len)
{
	size_t done = 0;
	while (done < len) {
		long r = fs_read(in, pin + done, file_bounce, min_sz(len - done, BOUNCE_SIZE));
		if (r <= 0)
			return done ? (long)done : r;
		long w = fs_seals_allow_write(out, pout + done, (size_t)r);
		if (!w)
			w = fs_write(out, pout + done, file_bounce, (size_t)r);
		if (w <= 0)
			return done ? (long)done : w;
		done += (size_t)w;
		if (w < r)
			break;
	}
	return (long)done;
}

long sys_copy_file_range(struct thread *t, u64 fdin, u64 uoffin, u64 fdout, u64 uoffout, u64 len,
			 u64 flags)
{
	if (flags)
		return -LX_EINVAL;
	struct file *in = fd_get(t->proc, (int)fdin), *out = fd_get(t->proc, (int)fdout);
	if (!in || !out)
		return -LX_EBADF;
	int64_t pin = (int64_t)in->pos, pout = (int64_t)out->pos;
	if ((uoffin && !copyin(t->proc, &pin, uoffin, sizeof(pin))) ||
	    (uoffout && !copyin(t->proc, &pout, uoffout, sizeof(pout))))
		return -LX_EFAULT;
	long r = copy_checks(in, out);
	if (r < 0)
		return r;
	if (pin < 0 || pout < 0)
		return -LX_EINVAL;
	len = min_sz(len, MAX_RW);
	if (in->ip == out->ip && (u64)pin < (u64)pout + len && (u64)pout < (u64)pin + len)
		return -LX_EINVAL;              /* overlapping ranges of one file */
	r = copy_range(in->ip, (u64)pin, out->ip, (u64)pout, len);
	if (r <= 0)
		return r;
	pin += r, pout += r;
	if (uoffin ? !copyout(t->proc, uoffin, &pin, sizeof(pin)) : (in->pos = (u64)pin, false))
		return -LX_EFAULT;
	if (uoffout ? !copyout(t->proc, uoffout, &pout, sizeof(pout)) : (out->pos = (u64)pout, false))
		return -LX_EFAULT;
	return r;
}

/* fallocate's checks, in Linux's order (vfs_fallocate); then the file system's own. */
long sys_fallocate(struct thread *t, u64 fd, u64 mode, u64 off, u64 len, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if ((int64_t)off < 0 || (int64_t)len <= 0)
		return -LX_EINVAL;
	if (mode != 0 && mode != LX_FALLOC_KEEP_SIZE &&
	    mode != (LX_FALLOC_PUNCH_HOLE | LX_FALLOC_KEEP_SIZE))
		return -LX_EOPNOTSUPP;
	if (!file_writable(f))
		return -LX_EBADF;
	if (file_is_pipe(f))
		return -LX_ESPIPE;
	if (f->ip && LX_S_ISDIR(f->ip->mode))
		return -LX_EISDIR;
	if (!f->ip || !LX_S_ISREG(f->ip->mode))
		return -LX_ENODEV;
	if (off + len < off || off + len > (1UL << 63))
		return -LX_EFBIG;
	struct inode *ip = f->ip;
	if (((mode & LX_FALLOC_PUNCH_HOLE) &&
	     (ip->seals & (LX_F_SEAL_WRITE | LX_F_SEAL_FUTURE_WRITE))) ||
	    (!(mode & LX_FALLOC_PUNCH_HOLE) && (ip->seals & LX_F_SEAL_GROW) && off + len > ip->size))
		return -LX_EPERM;
	if (mode & LX_FALLOC_PUNCH_HOLE)
		vm_file_punch(ip, off, off + len);      /* mappings see the hole, as Linux's */
	return fs_allocate(ip, (int)mode, off, len);
}
