// SPDX-License-Identifier: MIT
// sendmmsg(2) and recvmmsg(2): sendmsg and recvmsg (socket.c) over an array of
// messages, for every family, with Linux's counts: the number of messages done
// if any was, else the first one's error; each done message's msg_len set.
#include "../vfs/vfs.h"
#include "net.h"
#include "../syscall/syscall.h"
#include "../proc/proc.h"

/* struct mmsghdr: a msghdr (56 bytes) and the count the call sets, padded to 64 */
#define MMSG_SIZE   64
#define MMSG_LEN_AT 56
#define UIO_MAXIOV  1024                /* a longer vector is cut to this, as Linux's */
#define LX_MSG_WAITFORONE 0x10000
#define LX_MSG_CMSG_COMPAT 0x80000000u

/*
 * A call parks (SYS_BLOCK) only in a message that did nothing, and runs again
 * when woken: the messages done before are kept in t->mmsg_done, so the rerun
 * goes on from the next one.  With a signal pending, the messages done are the
 * answer (Linux's partial count); with none done, syscall.c restarts the call.
 */
static long parked(struct thread *t, u32 done)
{
	t->mmsg_done = done;
	if (!done || !signal_pending(t))
		return SYS_BLOCK;
	unblock(t);
	return done;
}

/* The count message ent's call set, into its msg_len: r itself, or -EFAULT. */
static long put_len(struct thread *t, u64 ent, long r)
{
	u32 len = (u32)r;
	return copyout(t->proc, ent + MMSG_LEN_AT, &len, sizeof(len)) ? r : -LX_EFAULT;
}

/* The answer once the loop stopped at message `done` with r (0: all done). */
static long mmsg_result(u32 done, long r)
{
	return done ? (long)done : r;
}

long sys_sendmmsg(struct thread *t, u64 fd, u64 uvec, u64 vlen, u64 flags, u64 a4, u64 a5)
{
	(void)a4, (void)a5;
	if ((u32)flags & LX_MSG_CMSG_COMPAT)
		return -LX_EINVAL;
	long r = sock_check(t, fd);
	if (r < 0)
		return r;
	if (t->fresh)
		t->mmsg_done = 0;
	u32 n = (u32)(vlen < UIO_MAXIOV ? vlen : UIO_MAXIOV), i = t->mmsg_done;
	for (r = 0; i < n; i++) {
		size_t total;
		u64 ent = uvec + (u64)i * MMSG_SIZE;
		r = sock_sendmsg(t, fd, ent, flags & 0xffffffffu, &total);
		if (r == SYS_BLOCK)
			return parked(t, i);
		if (r < 0)
			break;
		if ((r = put_len(t, ent, r)) < 0)
			break;
		if ((size_t)r < total) {        /* a stream took part: this message ends the call */
			i++;
			break;
		}
	}
	return mmsg_result(i, r < 0 ? r : 0);
}

/* recvmmsg's timeout: its end (µs of lx's clock; a zero timeout ends at once), or -errno. */
static long timeout_end(struct thread *t, u64 uts, u64 *end)
{
	struct lx_timespec ts;
	*end = 0;
	if (!uts)
		return 0;
	if (!copyin(t->proc, &ts, uts, sizeof(ts)))
		return -LX_EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
		return -LX_EINVAL;
	if (!ts.tv_sec && !ts.tv_nsec)
		*end = 1;                       /* long past: Linux's zero end time */
	else if (ts.tv_sec > 1000000000L)
		*end = ~0UL;
	else
		*end = lx_now_us() + (u64)ts.tv_sec * 1000000 + ((u64)ts.tv_nsec + 999) / 1000;
	return 0;
}

/* After a datagram: the time left written back; true when it has run out. */
static bool timeout_over(struct thread *t, u64 uts)
{
	u64 now = lx_now_us(), end = t->mmsg_end;
	u64 left = end > now ? end - now : 0;
	struct lx_timespec ts = { (int64_t)(left / 1000000), (int64_t)(left % 1000000) * 1000 };
	copyout(t->proc, uts, &ts, sizeof(ts));     /* a bad address: the count stands */
	return !left;
}

/*
 * Linux checks the timeout only after each datagram (recvmmsg(2), BUGS): a
 * wait for the next one has no end.  MSG_WAITFORONE: after the first, no wait.
 */
long sys_recvmmsg(struct thread *t, u64 fd, u64 uvec, u64 vlen, u64 flags, u64 uts, u64 a5)
{
	(void)a5;
	if ((u32)flags & LX_MSG_CMSG_COMPAT)
		return -LX_EINVAL;
	if (t->fresh) {
		long e = timeout_end(t, uts, &t->mmsg_end);
		if (e < 0)
			return e;
		t->mmsg_done = 0;
	}
	long r = sock_check(t, fd);
	if (r < 0)
		return r;
	u32 n = (u32)(vlen < UIO_MAXIOV ? vlen : UIO_MAXIOV), i = t->mmsg_done;
	for (r = 0; i < n;) {
		u64 ent = uvec + (u64)i * MMSG_SIZE, f = flags & 0xffffffffu;
		if (i && (f & LX_MSG_WAITFORONE))
			f |= LX_MSG_DONTWAIT;
		r = sys_recvmsg(t, fd, ent, f & ~(u64)LX_MSG_WAITFORONE, 0, 0, 0);
		if (r == SYS_BLOCK)
			return parked(t, i);
		if (r < 0)
			break;
		if ((r = put_len(t, ent, r)) < 0)
			break;
		i++;
		r = 0;
		if (uts && timeout_over(t, uts))
			break;
	}
	return mmsg_result(i, r);
}
