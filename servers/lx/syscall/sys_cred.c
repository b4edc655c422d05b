// SPDX-License-Identifier: MIT
/*
 * Users and groups: the get*id and set*id calls, setgroups/getgroups, with
 * Linux's rules (credentials(7), setresuid(2), setreuid(2), setfsuid(2)).
 * The privilege to set any ID (CAP_SETUID, CAP_SETGID) is euid 0's; an ID
 * of -1 means "unchanged" where Linux says so and is refused (EINVAL) as a
 * new ID elsewhere.  The user and group calls share one shape through
 * struct ids, a view of the four user or the four group IDs of a cred.
 */
#include "syscall.h"

#define NOARGS (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5
#define KEEP   0xffffffffU     /* -1: leave this ID as it is */

struct ids {
	u32 *real, *eff, *saved, *fs;
};

static struct ids user_ids(struct cred *c) { return (struct ids){&c->uid, &c->euid, &c->suid, &c->fsuid}; }
static struct ids group_ids(struct cred *c) { return (struct ids){&c->gid, &c->egid, &c->sgid, &c->fsgid}; }

static bool privileged(const struct thread *t)
{
	return t->proc->cred.euid == 0;
}

/* An unprivileged caller may take only one of its own real, effective or saved IDs. */
static bool one_of_three(struct ids d, u32 id)
{
	return id == *d.real || id == *d.eff || id == *d.saved;
}

/* setuid/setgid: privileged, all four IDs; otherwise the real or saved ID as effective. */
static long set_one(struct thread *t, struct ids d, u64 arg)
{
	u32 id = (u32)arg;
	if (id == KEEP)
		return -LX_EINVAL;
	if (privileged(t))
		*d.real = *d.saved = id;
	else if (id != *d.real && id != *d.saved)
		return -LX_EPERM;
	*d.eff = *d.fs = id;
	return 0;
}

/* setreuid/setregid: the real ID from the real or effective one, the effective from any
 * of the three; the saved ID becomes the new effective one when the real ID was set or
 * the effective one set to something other than the old real one. */
static long set_re(struct thread *t, struct ids d, u64 ra, u64 ea)
{
	u32 r = (u32)ra, e = (u32)ea;
	bool priv = privileged(t);
	if (r != KEEP && !priv && r != *d.real && r != *d.eff)
		return -LX_EPERM;
	if (e != KEEP && !priv && !one_of_three(d, e))
		return -LX_EPERM;
	if (r != KEEP || (e != KEEP && e != *d.real))
		*d.saved = e != KEEP ? e : *d.eff;
	if (r != KEEP)
		*d.real = r;
	if (e != KEEP)
		*d.eff = e;
	*d.fs = *d.eff;
	return 0;
}

/* setresuid/setresgid: each ID from any of the three, unless privileged. */
static long set_res(struct thread *t, struct ids d, u64 ra, u64 ea, u64 sa)
{
	u32 v[3] = {(u32)ra, (u32)ea, (u32)sa};
	u32 *dst[3] = {d.real, d.eff, d.saved};
	if (!privileged(t))
		for (int i = 0; i < 3; i++)
			if (v[i] != KEEP && !one_of_three(d, v[i]))
				return -LX_EPERM;
	for (int i = 0; i < 3; i++)
		if (v[i] != KEEP)
			*dst[i] = v[i];
	*d.fs = *d.eff;
	return 0;
}

/* setfsuid/setfsgid: always the old fs ID; the new one only if allowed (no errors). */
static long set_fs(struct thread *t, struct ids d, u64 arg)
{
	u32 id = (u32)arg, old = *d.fs;
	if (id != KEEP && (privileged(t) || one_of_three(d, id) || id == *d.fs))
		*d.fs = id;
	return old;
}

static long get_three(struct thread *t, struct ids d, u64 ur, u64 ue, u64 us)
{
	struct proc *p = t->proc;
	return copyout(p, ur, d.real, 4) && copyout(p, ue, d.eff, 4) && copyout(p, us, d.saved, 4)
		       ? 0 : -LX_EFAULT;
}

#define CRED(t) (&(t)->proc->cred)

long sys_getuid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) { NOARGS; return CRED(t)->uid; }
long sys_geteuid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) { NOARGS; return CRED(t)->euid; }
long sys_getgid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) { NOARGS; return CRED(t)->gid; }
long sys_getegid(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5) { NOARGS; return CRED(t)->egid; }

long sys_setuid(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return set_one(t, user_ids(CRED(t)), id);
}

long sys_setgid(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return set_one(t, group_ids(CRED(t)), id);
}

long sys_setreuid(struct thread *t, u64 r, u64 e, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return set_re(t, user_ids(CRED(t)), r, e);
}

long sys_setregid(struct thread *t, u64 r, u64 e, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return set_re(t, group_ids(CRED(t)), r, e);
}

long sys_setresuid(struct thread *t, u64 r, u64 e, u64 s, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return set_res(t, user_ids(CRED(t)), r, e, s);
}

long sys_setresgid(struct thread *t, u64 r, u64 e, u64 s, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return set_res(t, group_ids(CRED(t)), r, e, s);
}

long sys_getresuid(struct thread *t, u64 r, u64 e, u64 s, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return get_three(t, user_ids(CRED(t)), r, e, s);
}

long sys_getresgid(struct thread *t, u64 r, u64 e, u64 s, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return get_three(t, group_ids(CRED(t)), r, e, s);
}

long sys_setfsuid(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return set_fs(t, user_ids(CRED(t)), id);
}

long sys_setfsgid(struct thread *t, u64 id, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return set_fs(t, group_ids(CRED(t)), id);
}

/* getgroups: the count; with a nonzero size smaller than it, EINVAL. */
long sys_getgroups(struct thread *t, u64 size, u64 list, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	const struct group_info *g = CRED(t)->groups;
	u32 n = g ? g->n : 0;
	if ((int)size < 0 || ((int)size && (u32)(int)size < n))
		return -LX_EINVAL;
	if ((int)size && n && !copyout(t->proc, list, g->gid, (size_t)n * 4))
		return -LX_EFAULT;
	return n;
}

/* Shell sort: up to 65,536 groups in well under n² steps. */
static void sort_gids(u32 *v, u32 n)
{
	for (u32 gap = n / 2; gap > 0; gap /= 2)
		for (u32 i = gap; i < n; i++) {
			u32 x = v[i], j = i;
			for (; j >= gap && v[j - gap] > x; j -= gap)
				v[j] = v[j - gap];
			v[j] = x;
		}
}

/* setgroups: CAP_SETGID (EPERM) before the size (EINVAL beyond NGROUPS_MAX); kept sorted. */
long sys_setgroups(struct thread *t, u64 size, u64 list, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (!privileged(t))
		return -LX_EPERM;
	u32 n = (u32)(int)size;
	if (n > LX_NGROUPS_MAX)
		return -LX_EINVAL;
	struct group_info *g = groups_new(n);
	if (!g)
		return -LX_ENOMEM;
	long r = n && !copyin(t->proc, g->gid, list, (size_t)n * 4) ? -LX_EFAULT : 0;
	for (u32 i = 0; r == 0 && i < n; i++)
		if (g->gid[i] == KEEP)
			r = -LX_EINVAL;
	if (r < 0) {
		groups_put(g);
		return r;
	}
	sort_gids(g->gid, n);
	groups_put(CRED(t)->groups);
	CRED(t)->groups = g;
	return 0;
}
