// SPDX-License-Identifier: MIT
// signalfd: reading takes the caller's pending signals of the descriptor's
// mask as struct signalfd_siginfo records (signalfd(2)).  Like Linux's, the
// file names no process: read and poll look at the calling thread's pending
// signals (its own, then its process's), taken by proc/signal.c's
// signal_dequeue.  A parked reader is run again by the signal's arrival
// (signal_send_* wakes a thread that waits with the signal blocked).
#include "../lx.h"
#include "../../../lib/c/string.h"

#define SFD_RECORD 128

struct signalfd_siginfo_k {
	u32 signo;
	int32_t err, code;
	u32 pid, uid;
	int32_t fd;
	u32 tid, band, overrun, trapno;
	int32_t status, int_;
	u64 ptr, utime, stime, addr;
	uint16_t addr_lsb;
	uint8_t pad[46];
};
_Static_assert(sizeof(struct signalfd_siginfo_k) == SFD_RECORD, "Linux's record size");

struct signalfd {
	u64 mask;
	u64 taken;                      /* the last read's signals, for unread */
};

static const struct file_ops signalfd_ops;

static long sfd_read(struct file *f, void *buf, size_t n)
{
	struct signalfd *s = f->priv;
	struct thread *t = lx_current;
	if (n < SFD_RECORD)
		return -LX_EINVAL;
	size_t done = 0;
	s->taken = 0;
	int sig;
	struct lx_siginfo q;
	while (done + SFD_RECORD <= n && (sig = signal_dequeue(t, s->mask, &q))) {
		struct signalfd_siginfo_k si = { .signo = (u32)sig, .err = q.err, .code = q.code,
						 .pid = (u32)q.pid, .uid = q.uid, .status = q.status,
						 .ptr = q.value };
		if (sig == LX_SIGSEGV || sig == LX_SIGBUS || sig == LX_SIGILL || sig == LX_SIGFPE)
			si.addr = q.addr, si.pid = si.uid = 0, si.status = 0, si.ptr = 0;
		memcpy((char *)buf + done, &si, sizeof(si));
		s->taken |= SIGBIT(sig);
		done += SFD_RECORD;
	}
	return done ? (long)done : -LX_EAGAIN;
}

/* The records could not reach the process: their signals stay pending. */
static void sfd_unread(struct file *f, size_t n)
{
	struct signalfd *s = f->priv;
	(void)n;
	lx_current->sigpending |= s->taken;
	s->taken = 0;
}

static long sfd_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static int sfd_poll(struct file *f)
{
	struct signalfd *s = f->priv;
	struct thread *t = lx_current;
	return t && ((t->sigpending | t->proc->sigpending) & s->mask) ? LX_POLLIN : 0;
}

static void *sfd_wchan(struct file *f)
{
	return f->priv;
}

static void sfd_release(struct file *f)
{
	lx_free(f->priv);
}

static const struct file_ops signalfd_ops = {
	.read = sfd_read, .write = sfd_write, .poll = sfd_poll, .wchan = sfd_wchan,
	.ioctl = file_no_ioctl, .release = sfd_release, .unread = sfd_unread,
};

static long sfd_new(struct thread *t, u64 mask, u64 flags)
{
	struct signalfd *s = lx_zalloc(sizeof(*s));
	struct file *f = s ? file_new(&signalfd_ops, LX_O_RDWR | ((u32)flags & LX_O_NONBLOCK)) : NULL;
	if (!f) {
		lx_free(s);
		return -LX_ENOMEM;
	}
	s->mask = mask;
	f->priv = s;
	int fd = fd_install(t->proc, f, 0, flags & LX_O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_signalfd4(struct thread *t, u64 fd, u64 umask, u64 size, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	u64 mask;
	if ((flags & ~(u64)(LX_O_CLOEXEC | LX_O_NONBLOCK)) || size != sizeof(mask))
		return -LX_EINVAL;
	if (!copyin(t->proc, &mask, umask, sizeof(mask)))
		return -LX_EFAULT;
	mask &= ~(SIGBIT(LX_SIGKILL) | SIGBIT(LX_SIGSTOP));
	if ((int)fd == -1)
		return sfd_new(t, mask, flags);
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (f->ops != &signalfd_ops)
		return -LX_EINVAL;
	((struct signalfd *)f->priv)->mask = mask;
	wake(f->priv);
	return (int)fd;
}

long sys_signalfd(struct thread *t, u64 fd, u64 umask, u64 size, u64 a3, u64 a4, u64 a5)
{
	(void)a3, (void)a4, (void)a5;
	return sys_signalfd4(t, fd, umask, size, 0, 0, 0);
}
