// SPDX-License-Identifier: MIT
// epoll: an instance is a list of entries, each a (file, descriptor) pair
// with the events it wants.  Readiness is vfs.h's: an entry is ready when
// its file's poll answers a wanted bit; epoll_wait parks on poll_any like
// poll(2) and asks again after every wake().  Entries hold no reference to
// their file (as Linux's): the file's last close takes them away
// (epoll_file_gone).  Edge-triggered entries report when a bit is new since
// their last report, or when their file's channel was woken since then with
// a key they want (epoll_wake, from wake_key).  Objects that wake without a
// key (wake: every bit) make an edge of any change, where Linux's name what
// changed; pipes and eventfds name it, so a read that leaves data behind is
// no edge for their readers.
#include "../lx.h"
#include "../../../lib/c/string.h"

#define EPOLLERR       0x008
#define EPOLLHUP       0x010
#define EPOLLEXCLUSIVE (1U << 28)
#define EPOLLWAKEUP    (1U << 29)
#define EPOLLONESHOT   (1U << 30)
#define EPOLLET        (1U << 31)
#define EXCLUSIVE_OK   (0x3ffU | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)
#define EPOLL_CTL_ADD  1
#define EPOLL_CTL_DEL  2
#define EPOLL_CTL_MOD  3
#define EPOLL_CLOEXEC  LX_O_CLOEXEC
#define MAX_NESTS      4              /* Linux's EP_MAX_NESTS: chains of over 5 instances are ELOOP */
#define MAX_EVENTS     (0x7fffffff / 12)

struct lx_epoll_event {
	u32 events;
	u64 data;
} __attribute__((packed));

struct epitem {
	struct epoll *ep;
	struct file *f;                 /* no reference: the file's last close removes the entry */
	int fd;
	u32 events;                     /* what the caller asked, EPOLLET/ONESHOT included */
	u64 data;
	u32 seen;                       /* ET: the bits of the last report (less those gone since) */
	bool edge;                      /* ET: the file's channel was woken since the last report */
	bool disarmed;                  /* ONESHOT: reported; silent until EPOLL_CTL_MOD */
	struct epitem *next;            /* in ep's list, the order of reports */
	struct epitem *next_on_file;    /* f->epitems */
	struct epitem *next_et;         /* every edge-triggered entry (epoll_wake) */
};

struct epoll {
	struct epitem *items;
	struct file *file;              /* the instance's own file */
};

static struct epitem *et_items;

static const struct file_ops epoll_ops;

static bool is_epoll(const struct file *f)
{
	return f->ops == &epoll_ops;
}

static void unlink_item(struct epitem **list, struct epitem *it, size_t link_off)
{
	for (struct epitem **pp = list; *pp; pp = (struct epitem **)((char *)*pp + link_off))
		if (*pp == it) {
			*pp = *(struct epitem **)((char *)it + link_off);
			return;
		}
}

#define UNLINK(list, it, field) unlink_item(list, it, offsetof(struct epitem, field))

static void item_free(struct epitem *it)
{
	UNLINK(&it->ep->items, it, next);
	UNLINK(&it->f->epitems, it, next_on_file);
	if (it->events & EPOLLET)
		UNLINK(&et_items, it, next_et);
	lx_free(it);
}

void epoll_file_gone(struct file *f)
{
	while (f->epitems)
		item_free(f->epitems);
}

void epoll_wake(void *wchan, int key)
{
	for (struct epitem *it = et_items; it; it = it->next_et)
		if ((it->events & (u32)key) && it->f->ops->wchan(it->f) == wchan)
			it->edge = true;
}

/* The bits of it's file that it reports now (0: not ready). */
static u32 item_ready(struct epitem *it)
{
	if (it->disarmed)
		return 0;
	u32 ev = (u32)it->f->ops->poll(it->f);
	if (ev & LX_POLLIN)
		ev |= LX_POLLRDNORM;
	if (ev & LX_POLLOUT)
		ev |= LX_POLLWRNORM;
	ev &= it->events | EPOLLERR | EPOLLHUP;
	if (!(it->events & EPOLLET))
		return ev;
	it->seen &= ev;                 /* a bit that went away may come back as an edge */
	return (ev & ~it->seen) || (ev && it->edge) ? ev : 0;
}

/* it was reported with ev: edge and one-shot bookkeeping, and to the list's end (round robin). */
static void item_reported(struct epitem *it, u32 ev)
{
	it->seen = ev;
	it->edge = false;
	if (it->events & EPOLLONESHOT)
		it->disarmed = true;
	struct epitem **pp = &it->ep->items;
	UNLINK(pp, it, next);
	while (*pp)
		pp = &(*pp)->next;
	it->next = NULL;
	*pp = it;
}

static int epoll_poll(struct file *f)
{
	struct epoll *ep = f->priv;
	for (struct epitem *it = ep->items; it; it = it->next)
		if (item_ready(it))
			return LX_POLLIN;
	return 0;
}

static void *epoll_wchan(struct file *f)
{
	return f->priv;
}

static long epoll_rw(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static long epoll_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static void epoll_release(struct file *f)
{
	struct epoll *ep = f->priv;
	while (ep->items)
		item_free(ep->items);
	lx_free(ep);
}

static const struct file_ops epoll_ops = {
	.read = epoll_rw, .write = epoll_write, .poll = epoll_poll, .wchan = epoll_wchan,
	.ioctl = file_no_ioctl, .release = epoll_release,
};

static long epoll_new(struct thread *t, u64 flags)
{
	if (flags & ~(u64)EPOLL_CLOEXEC)
		return -LX_EINVAL;
	struct epoll *ep = lx_zalloc(sizeof(*ep));
	struct file *f = ep ? file_new(&epoll_ops, LX_O_RDWR) : NULL;
	if (!f) {
		lx_free(ep);
		return -LX_ENOMEM;
	}
	f->priv = ep;
	ep->file = f;
	int fd = fd_install(t->proc, f, 0, flags & EPOLL_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_epoll_create(struct thread *t, u64 size, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return (int)size <= 0 ? -LX_EINVAL : epoll_new(t, 0);
}

long sys_epoll_create1(struct thread *t, u64 flags, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return epoll_new(t, flags);
}

static struct epitem *find_item(struct epoll *ep, struct file *f, int fd)
{
	for (struct epitem *it = ep->items; it; it = it->next)
		if (it->f == f && it->fd == fd)
			return it;
	return NULL;
}

/* Epoll instances in the longest chain from f down through its entries (0: f is no epoll). */
static int depth_below(struct file *f)
{
	if (!is_epoll(f))
		return 0;
	int most = 0;
	for (struct epitem *it = ((struct epoll *)f->priv)->items; it; it = it->next) {
		int d = depth_below(it->f);
		most = d > most ? d : most;
	}
	return 1 + most;
}

/* Epoll instances in the longest chain from epf up through the instances watching it. */
static int depth_above(struct file *epf)
{
	int most = 0;
	for (struct epitem *it = epf->epitems; it; it = it->next_on_file) {
		int d = depth_above(it->ep->file);
		most = d > most ? d : most;
	}
	return 1 + most;
}

/* f's entries lead to `to` (the graph has no loop before the entry being added). */
static bool reaches(struct file *f, struct file *to)
{
	if (f == to)
		return true;
	if (!is_epoll(f))
		return false;
	for (struct epitem *it = ((struct epoll *)f->priv)->items; it; it = it->next)
		if (reaches(it->f, to))
			return true;
	return false;
}

static int add_item(struct epoll *ep, struct file *epf, struct file *f, int fd,
		    const struct lx_epoll_event *ev)
{
	if (is_epoll(f) && (reaches(f, epf) || depth_above(epf) + depth_below(f) > MAX_NESTS + 1))
		return -LX_ELOOP;
	struct epitem *it = lx_zalloc(sizeof(*it));
	if (!it)
		return -LX_ENOMEM;
	*it = (struct epitem){ .ep = ep, .f = f, .fd = fd, .events = ev->events, .data = ev->data,
			       .next = ep->items, .next_on_file = f->epitems };
	ep->items = it;
	f->epitems = it;
	if (it->events & EPOLLET) {
		it->next_et = et_items;
		et_items = it;
	}
	wake(ep);                       /* waiters on ep (a watching epoll) look again */
	return 0;
}

static int mod_item(struct epitem *it, const struct lx_epoll_event *ev)
{
	if ((it->events | ev->events) & EPOLLEXCLUSIVE)
		return -LX_EINVAL;
	if (it->events & EPOLLET)
		UNLINK(&et_items, it, next_et);
	it->events = ev->events;
	it->data = ev->data;
	it->disarmed = false;
	it->seen = 0;
	if (it->events & EPOLLET) {
		it->next_et = et_items;
		et_items = it;
	}
	wake(it->ep);
	return 0;
}

/* Linux's order of checks: the event, the descriptors, the target's kind, the flags, the op. */
long sys_epoll_ctl(struct thread *t, u64 epfd, u64 op, u64 fd, u64 uev, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct lx_epoll_event ev = { 0, 0 };
	bool has_ev = op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD;
	if (has_ev && !copyin(t->proc, &ev, uev, sizeof(ev)))
		return -LX_EFAULT;
	struct file *epf = fd_get(t->proc, (int)epfd), *f = fd_get(t->proc, (int)fd);
	if (!epf || !f)
		return -LX_EBADF;
	if (f->ops->poll == file_always_ready)
		return -LX_EPERM;
	if (epf == f || !is_epoll(epf))
		return -LX_EINVAL;
	if (has_ev && (ev.events & EPOLLEXCLUSIVE) &&
	    (is_epoll(f) || (ev.events & ~EXCLUSIVE_OK)))
		return -LX_EINVAL;
	struct epoll *ep = epf->priv;
	struct epitem *it = find_item(ep, f, (int)fd);
	switch (op) {
	case EPOLL_CTL_ADD:
		return it ? -LX_EEXIST : add_item(ep, epf, f, (int)fd, &ev);
	case EPOLL_CTL_MOD:
		return it ? mod_item(it, &ev) : -LX_ENOENT;
	case EPOLL_CTL_DEL:
		if (!it)
			return -LX_ENOENT;
		item_free(it);
		return 0;
	default:
		return -LX_EINVAL;
	}
}

/* Up to max ready entries into lx's bounce buffer; how many. */
static int collect(struct epoll *ep, int max)
{
	struct lx_epoll_event *out = (struct lx_epoll_event *)file_bounce;
	int n = 0;
	static struct epitem *ready[BOUNCE_SIZE / sizeof(*out)];
	static u32 evs[BOUNCE_SIZE / sizeof(*out)];
	for (struct epitem *it = ep->items; it && n < max; it = it->next) {
		u32 ev = item_ready(it);
		if (!ev)
			continue;
		out[n] = (struct lx_epoll_event){ ev, it->data };
		evs[n] = ev;
		ready[n++] = it;
	}
	for (int i = 0; i < n; i++)
		item_reported(ready[i], evs[i]);
	return n;
}

static long do_epoll_wait(struct thread *t, u64 epfd, u64 uev, u64 max, u64 us, bool masked)
{
	struct file *f = fd_get(t->proc, (int)epfd);
	long r = 0;
	if ((int)max <= 0 || (int)max > MAX_EVENTS)
		r = -LX_EINVAL;
	else if (uev >= LX_CANONICAL_END || (u64)(int)max * 12 > LX_CANONICAL_END - uev)
		r = -LX_EFAULT;                 /* Linux's access_ok: the array lies in user space */
	else if (!f)
		r = -LX_EBADF;
	else if (!is_epoll(f))
		r = -LX_EINVAL;
	if (r)
		return wait_end(t, masked, r);
	int cap = (int)(BOUNCE_SIZE / sizeof(struct lx_epoll_event));
	int n = collect(f->priv, (int)max < cap ? (int)max : cap);
	if (!n && !wait_expired(t, us))
		return wait_ready(t, us);
	if (n && !copyout(t->proc, uev, file_bounce, (size_t)n * sizeof(struct lx_epoll_event)))
		return wait_end(t, masked, -LX_EFAULT);
	return wait_end(t, masked, n);
}

static u64 ms_timeout(u64 ms)
{
	return (int)ms < 0 ? WAIT_FOREVER : (u64)(u32)ms * 1000;
}

long sys_epoll_wait(struct thread *t, u64 epfd, u64 uev, u64 max, u64 ms, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	return do_epoll_wait(t, epfd, uev, max, ms_timeout(ms), false);
}

long sys_epoll_pwait(struct thread *t, u64 epfd, u64 uev, u64 max, u64 ms, u64 sig, u64 size)
{
	long r = wait_sigmask(t, sig, size);
	if (r < 0)
		return r;
	return do_epoll_wait(t, epfd, uev, max, ms_timeout(ms), sig != 0);
}

long sys_epoll_pwait2(struct thread *t, u64 epfd, u64 uev, u64 max, u64 uts, u64 sig, u64 size)
{
	u64 us;
	long r = wait_timeout(t, uts, &us);
	if (r < 0)
		return r;
	r = wait_sigmask(t, sig, size);
	if (r < 0)
		return r;
	return do_epoll_wait(t, epfd, uev, max, us, sig != 0);
}
