// SPDX-License-Identifier: MIT
// eventfd: a 64-bit counter read and written 8 bytes at a time (eventfd(2)).
// A read takes the whole count (EFD_SEMAPHORE: one) and waits while it is 0;
// a write adds and waits while the sum would pass 2^64 - 2.
#include "../lx.h"
#include "../../../lib/c/string.h"

#define EFD_SEMAPHORE 1
#define EFD_MAX       (~0ULL - 1)

struct eventfd {
	u64 count;
	bool semaphore;
	u64 last_read;                  /* given back by unread when the copy to the process fails */
};

static long efd_read(struct file *f, void *buf, size_t n)
{
	struct eventfd *e = f->priv;
	if (n < 8)
		return -LX_EINVAL;
	if (!e->count)
		return -LX_EAGAIN;
	u64 v = e->semaphore ? 1 : e->count;
	e->count -= v;
	e->last_read = v;
	memcpy(buf, &v, 8);
	wake_key(e, LX_POLLOUT);
	return 8;
}

static void efd_unread(struct file *f, size_t n)
{
	struct eventfd *e = f->priv;
	(void)n;
	e->count += e->last_read;
}

static long efd_write(struct file *f, const void *buf, size_t n)
{
	struct eventfd *e = f->priv;
	u64 v;
	if (n < 8)
		return -LX_EINVAL;
	memcpy(&v, buf, 8);
	if (v == ~0ULL)
		return -LX_EINVAL;
	if (EFD_MAX - e->count < v)
		return -LX_EAGAIN;
	e->count += v;
	if (v)
		wake_key(e, LX_POLLIN);
	return 8;
}

static int efd_poll(struct file *f)
{
	struct eventfd *e = f->priv;
	return (e->count ? LX_POLLIN : 0) | (e->count < EFD_MAX ? LX_POLLOUT : 0);
}

static void *efd_wchan(struct file *f)
{
	return f->priv;
}

static void efd_release(struct file *f)
{
	lx_free(f->priv);
}

static const struct file_ops eventfd_ops = {
	.read = efd_read, .write = efd_write, .poll = efd_poll, .wchan = efd_wchan,
	.ioctl = file_no_ioctl, .release = efd_release, .unread = efd_unread,
};

long sys_eventfd2(struct thread *t, u64 initval, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	if (flags & ~(u64)(EFD_SEMAPHORE | LX_O_CLOEXEC | LX_O_NONBLOCK))
		return -LX_EINVAL;
	struct eventfd *e = lx_zalloc(sizeof(*e));
	struct file *f = e ? file_new(&eventfd_ops, LX_O_RDWR | ((u32)flags & LX_O_NONBLOCK)) : NULL;
	if (!f) {
		lx_free(e);
		return -LX_ENOMEM;
	}
	e->count = (u32)initval;        /* unsigned int in Linux */
	e->semaphore = flags & EFD_SEMAPHORE;
	f->priv = e;
	int fd = fd_install(t->proc, f, 0, flags & LX_O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_eventfd(struct thread *t, u64 initval, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return sys_eventfd2(t, initval, 0, 0, 0, 0, 0);
}
