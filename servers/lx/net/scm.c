// SPDX-License-Identifier: MIT
// AF_UNIX control messages (cmsg(3), unix(7)): the descriptors SCM_RIGHTS
// carries, taken from sendmsg's control buffer and put into recvmsg's.
// SCM_CREDENTIALS a sender gives is checked as Linux checks it; a receiver with
// SO_PASSCRED gets the sender's real pid, uid and gid with each read.
#include "../vfs/vfs.h"
#include "net.h"
#include "../syscall/syscall.h"
#include "../../../lib/c/string.h"

#define LX_SCM_RIGHTS      1
#define LX_SCM_CREDENTIALS 2
#define SCM_MAX_FD         253          /* Linux's limit per message */
#define CMSG_HDR           16           /* struct cmsghdr: u64 len, int level, int type */
#define CMSG_ALIGN(n)      (((n) + 7) & ~(u64)7)

struct cmsg_k {
	u64 len;
	int32_t level, type;
};

void scm_release(struct scm_files *s)
{
	for (u32 i = 0; i < s->n; i++)
		file_put(s->f[i]);
	lx_free(s->f);
	s->f = NULL;
	s->n = 0;
}

/* Another holder of the same files (MSG_PEEK); false without memory. */
bool scm_dup(const struct scm_files *from, struct scm_files *to)
{
	to->n = 0;
	if (!(to->f = lx_malloc(from->n * sizeof(*to->f))))
		return false;
	for (u32 i = 0; i < from->n; i++)
		file_get(to->f[to->n++] = from->f[i]);
	return true;
}

/* SCM_RIGHTS' descriptors at uaddr appended to s (with references): 0 or -errno. */
static long rights_in(struct thread *t, u64 uaddr, u32 n, struct scm_files *s)
{
	int32_t fds[SCM_MAX_FD];
	if (s->n + n > SCM_MAX_FD)
		return -LX_EINVAL;
	if (!copyin(t->proc, fds, uaddr, n * sizeof(int32_t)))
		return -LX_EFAULT;
	struct file **grown = lx_realloc(s->f, (s->n + n) * sizeof(*grown));
	if (!grown && s->n + n)
		return -LX_ENOMEM;
	s->f = grown;
	for (u32 i = 0; i < n; i++) {
		struct file *f = fd_get(t->proc, fds[i]);
		if (!f)
			return -LX_EBADF;
		file_get(s->f[s->n++] = f);
	}
	return 0;
}

/* A sender's struct ucred must be its own unless it is privileged (unix(7)). */
static long creds_in(struct thread *t, u64 uaddr)
{
	struct { int32_t pid; u32 uid, gid; } uc;
	if (!copyin(t->proc, &uc, uaddr, sizeof(uc)))
		return -LX_EFAULT;
	const struct cred *c = &t->proc->cred;
	bool own = uc.pid == t->proc->pid &&
		   (uc.uid == c->uid || uc.uid == c->euid || uc.uid == c->suid) &&
		   (uc.gid == c->gid || uc.gid == c->egid || uc.gid == c->sgid);
	return own || lx_privileged(t->proc) ? 0 : -LX_EPERM;
}

long scm_send_parse(struct thread *t, u64 control, u64 len, struct scm_files *s)
{
	s->f = NULL;
	s->n = 0;
	for (u64 pos = 0; pos + CMSG_HDR <= len;) {
		struct cmsg_k h;
		long r = 0;
		if (!copyin(t->proc, &h, control + pos, sizeof(h)))
			r = -LX_EFAULT;
		else if (h.len < CMSG_HDR || h.len > len - pos)
			r = -LX_EINVAL;
		else if (h.level != LX_SOL_SOCKET)
			;                               /* other levels: not for AF_UNIX, skipped */
		else if (h.type == LX_SCM_RIGHTS)
			r = rights_in(t, control + pos + CMSG_HDR, (u32)((h.len - CMSG_HDR) / 4), s);
		else if (h.type == LX_SCM_CREDENTIALS && h.len == CMSG_HDR + 12)
			r = creds_in(t, control + pos + CMSG_HDR);
		else
			r = -LX_EINVAL;
		if (r) {
			scm_release(s);
			return r;
		}
		pos += CMSG_ALIGN(h.len);
	}
	return 0;
}

/* SO_PASSCRED's SCM_CREDENTIALS at control: the bytes it takes of room (0: no room) */
static long creds_out(struct thread *t, u64 control, u64 room, const struct scm_files *s,
		      int *mflags)
{
	struct { struct cmsg_k h; u32 cred[3]; } c = { { CMSG_HDR + 12, LX_SOL_SOCKET,
						       LX_SCM_CREDENTIALS }, { 0, 0, 0 } };
	if (room < CMSG_HDR + 12) {
		*mflags |= LX_MSG_CTRUNC;
		return 0;
	}
	memcpy(c.cred, s->cred, sizeof(c.cred));
	if (!copyout(t->proc, control, &c, sizeof(c)))
		return -LX_EFAULT;
	return CMSG_ALIGN(sizeof(c)) < room ? (long)CMSG_ALIGN(sizeof(c)) : (long)room;
}

/* SCM_RIGHTS at control: as many of s's files as fit in room, the rest closed. */
static long rights_out(struct thread *t, u64 control, u64 room, struct scm_files *s, bool cloexec,
		       int *mflags)
{
	u32 fit = room >= CMSG_HDR ? (u32)((room - CMSG_HDR) / 4) : 0;
	int32_t fds[SCM_MAX_FD];
	u32 n = 0;
	struct cmsg_k h = { 0, 0, 0 };
	if (fit && s->n && !copyout(t->proc, control, &h, sizeof(h)))
		return -LX_EFAULT;                  /* before any descriptor is installed */
	for (; n < s->n && n < fit; n++) {
		int fd = fd_install(t->proc, s->f[n], 0, cloexec);
		if (fd < 0)
			break;
		s->f[n] = NULL;                     /* the table holds that reference now */
		fds[n] = fd;
	}
	if (n < s->n)
		*mflags |= LX_MSG_CTRUNC;           /* no room: the rest are closed */
	for (u32 i = n; i < s->n; i++)
		file_put(s->f[i]);
	lx_free(s->f);
	s->f = NULL;
	s->n = 0;
	if (!n)
		return 0;
	h = (struct cmsg_k){ CMSG_HDR + n * 4, LX_SOL_SOCKET, LX_SCM_RIGHTS };
	if (!copyout(t->proc, control, &h, sizeof(h)) ||
	    !copyout(t->proc, control + CMSG_HDR, fds, n * 4))
		return -LX_EFAULT;
	return CMSG_ALIGN(h.len) < room ? (long)CMSG_ALIGN(h.len) : (long)room;
}

/* The credentials first, then the descriptors, as Linux orders them. */
long scm_recv_put(struct thread *t, u64 control, u64 room, struct scm_files *s, bool cloexec,
		  u64 *used, int *mflags)
{
	long c = s->has_cred ? creds_out(t, control, room, s, mflags) : 0;
	if (c < 0) {
		scm_release(s);
		return c;
	}
	long r = s->n ? rights_out(t, control + (u64)c, room - (u64)c, s, cloexec, mflags) : 0;
	*used = (u64)c + (u64)(r > 0 ? r : 0);
	return r < 0 ? r : 0;
}
