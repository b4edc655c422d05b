// SPDX-License-Identifier: MIT
// timerfd: a timer whose expirations are read as an 8-byte count
// (timerfd_create(2)), and the timers behind it (struct ktimer, fs.h), which
// POSIX timers share (proc/ptimer.c).  Armed timers sit on one list that lx's
// deadline machinery consults (syscall.c next_deadline and expire_deadlines,
// woken by the clock thread); a read or poll also brings the count up to date itself.
// Times are kept as µs of lx_now_us; a CLOCK_REALTIME absolute time is moved
// onto it by the (fixed) offset of lx's wall clock.  lx's wall clock is never
// set, so TFD_TIMER_CANCEL_ON_SET is accepted and never cancels.
#include "../lx.h"
#include "../../../lib/c/string.h"

#define TFD_TIMER_ABSTIME       1
#define TFD_TIMER_CANCEL_ON_SET 2
#define CLOCK_REALTIME          0
#define CLOCK_MONOTONIC         1
#define CLOCK_BOOTTIME          7
#define CLOCK_REALTIME_ALARM    8
#define CLOCK_BOOTTIME_ALARM    9

static struct ktimer *armed;

static const struct file_ops timerfd_ops;

static void disarm(struct ktimer *tf)
{
	for (struct ktimer **pp = &armed; *pp; pp = &(*pp)->next_armed)
		if (*pp == tf) {
			*pp = tf->next_armed;
			break;
		}
	tf->next = 0;
	deadlines_changed();
}

/* Count the expirations up to now (a timer with `fire` is told); true if there were any. */
static bool update(struct ktimer *tf, u64 now)
{
	if (!tf->next || tf->next > now)
		return false;
	u64 k = 1 + (tf->interval ? (now - tf->next) / tf->interval : 0);
	tf->ticks += k;
	if (tf->interval) {
		tf->next += k * tf->interval;
		deadlines_changed();
	} else {
		disarm(tf);
	}
	if (tf->fire)
		tf->fire(tf);
	return true;
}

/*
 * Only a timer with nothing to read needs the clock: once readable, its
 * later expirations are counted when it is read or polled (update), so a
 * fast periodic timer nobody reads does not keep lx's clock busy.
 */
u64 timerfd_next(void)
{
	u64 d = 0;
	for (struct ktimer *tf = armed; tf; tf = tf->next_armed)
		if (!tf->ticks && (!d || tf->next < d))
			d = tf->next;
	return d;
}

void timerfd_expire(u64 now)
{
	for (struct ktimer *tf = armed, *n; tf; tf = n) {
		n = tf->next_armed;
		if (update(tf, now) && !tf->fire)
			wake(tf);
	}
}

static long tfd_read(struct file *f, void *buf, size_t n)
{
	struct ktimer *tf = f->priv;
	if (n < 8)
		return -LX_EINVAL;
	update(tf, lx_now_us());
	if (!tf->ticks)
		return -LX_EAGAIN;
	memcpy(buf, &tf->ticks, 8);
	tf->ticks = 0;
	deadlines_changed();            /* its next expiration matters again */
	return 8;
}

static long tfd_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_EINVAL;
}

static int tfd_poll(struct file *f)
{
	struct ktimer *tf = f->priv;
	update(tf, lx_now_us());
	return tf->ticks ? LX_POLLIN : 0;
}

static void *tfd_wchan(struct file *f)
{
	return f->priv;
}

static void tfd_release(struct file *f)
{
	disarm(f->priv);
	lx_free(f->priv);
}

static const struct file_ops timerfd_ops = {
	.read = tfd_read, .write = tfd_write, .poll = tfd_poll, .wchan = tfd_wchan,
	.ioctl = file_no_ioctl, .release = tfd_release,
};

long sys_timerfd_create(struct thread *t, u64 clk, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	if ((flags & ~(u64)(LX_O_CLOEXEC | LX_O_NONBLOCK)) ||
	    (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC && clk != CLOCK_BOOTTIME &&
	     clk != CLOCK_REALTIME_ALARM && clk != CLOCK_BOOTTIME_ALARM))
		return -LX_EINVAL;
	struct ktimer *tf = lx_zalloc(sizeof(*tf));     /* ticks: expirations not yet read */
	struct file *f = tf ? file_new(&timerfd_ops, LX_O_RDWR | ((u32)flags & LX_O_NONBLOCK)) : NULL;
	if (!f) {
		lx_free(tf);
		return -LX_ENOMEM;
	}
	tf->clock = (int)clk;
	f->priv = tf;
	int fd = fd_install(t->proc, f, 0, flags & LX_O_CLOEXEC);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* The timer of descriptor fd: 0, -EBADF or -EINVAL (not a timerfd). */
static long get_timer(struct thread *t, u64 fd, struct ktimer **out)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if (f->ops != &timerfd_ops)
		return -LX_EINVAL;
	*out = f->priv;
	return 0;
}

static bool ts_valid(const struct lx_timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

bool ktimer_valid(const struct lx_itimerspec *v)
{
	return ts_valid(&v->value) && ts_valid(&v->interval);
}

#define FAR_US (1UL << 61)     /* about 73,000 years: later times are that far, sums stay in range */

/* µs of a timespec, rounded up (a timer never fires early). */
static u64 ts_us(const struct lx_timespec *ts)
{
	if ((u64)ts->tv_sec >= FAR_US / 1000000)
		return FAR_US;
	return (u64)ts->tv_sec * 1000000 + ((u64)ts->tv_nsec + 999) / 1000;
}

static struct lx_timespec us_ts(u64 us)
{
	return (struct lx_timespec){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) * 1000 };
}

/* What timerfd_gettime reports: the time to the next expiration and the interval. */
struct lx_itimerspec ktimer_get(struct ktimer *tf)
{
	u64 now = lx_now_us();
	update(tf, now);
	struct lx_itimerspec v = { us_ts(tf->interval), { 0, 0 } };
	if (tf->next)
		v.value = us_ts(tf->next > now ? tf->next - now : 1);
	return v;
}

void ktimer_disarm(struct ktimer *tf)
{
	if (tf->next)
		disarm(tf);
}

void ktimer_arm(struct ktimer *tf, const struct lx_itimerspec *v, bool abstime)
{
	if (tf->next)
		disarm(tf);
	tf->ticks = 0;
	tf->interval = ts_us(&v->interval);
	if (!v->value.tv_sec && !v->value.tv_nsec)
		return;
	u64 now = lx_now_us(), at = ts_us(&v->value);
	if (abstime) {
		u64 base = lx_clock_us((u64)tf->clock) - now;      /* the clock's offset from lx's */
		at = at > base ? at - base : 1;
	} else {
		at += now;
	}
	tf->next = at ? at : 1;
	tf->next_armed = armed;
	armed = tf;
	deadlines_changed();
}

long sys_timerfd_settime(struct thread *t, u64 fd, u64 flags, u64 unew, u64 uold, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	struct lx_itimerspec v, old;
	struct ktimer *tf;
	if (!copyin(t->proc, &v, unew, sizeof(v)))
		return -LX_EFAULT;
	if ((flags & ~(u64)(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !ktimer_valid(&v))
		return -LX_EINVAL;
	long r = get_timer(t, fd, &tf);
	if (r < 0)
		return r;
	old = ktimer_get(tf);
	if (uold && !copyout(t->proc, uold, &old, sizeof(old)))
		return -LX_EFAULT;
	ktimer_arm(tf, &v, flags & TFD_TIMER_ABSTIME);
	wake(tf);
	return 0;
}

long sys_timerfd_gettime(struct thread *t, u64 fd, u64 ucur, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	struct ktimer *tf;
	long r = get_timer(t, fd, &tf);
	if (r < 0)
		return r;
	struct lx_itimerspec v = ktimer_get(tf);
	return copyout(t->proc, ucur, &v, sizeof(v)) ? 0 : -LX_EFAULT;
}
