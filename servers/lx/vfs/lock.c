// SPDX-License-Identifier: MIT
// Advisory locks, as Linux keeps them (flock(2), fcntl(2)):
//  - flock locks belong to an open file description and cover the file;
//  - POSIX record locks (F_SETLK) belong to a process and cover byte
//    ranges; any close of a descriptor of the file, and exit, drop them;
//  - open file description locks (F_OFD_SETLK) are record locks owned by
//    the description, dropped when its last descriptor goes.
// flock locks and record locks never conflict with each other.  A locker
// that must wait parks on lock_chan and runs its call again whenever any
// lock goes away.  Every lock of the system is in one list (lx runs one
// call at a time, and few files are locked at once).
#include "../lx.h"
#include "../../../lib/c/string.h"

enum { LK_FLOCK, LK_POSIX, LK_OFD };
#define LX_F_RDLCK 0
#define LX_F_WRLCK 1
#define LX_F_UNLCK 2
#define OFFSET_MAX 0x7fffffffffffffffUL

struct lock {
	struct lock *next;
	struct inode *ip;
	void *owner;                    /* struct proc (LK_POSIX) or struct file */
	int kind, type;
	u64 start, end;                 /* bytes start..end, inclusive */
	int pid;                        /* F_GETLK's l_pid: the POSIX owner's, else -1 */
};

struct lock *vfs_locks;
#define locks vfs_locks
static char lock_chan[1];

static bool record(int kind) { return kind != LK_FLOCK; }

/* a and b exclude each other: same file and family, other owners, overlapping, one writes. */
static bool conflicts(const struct lock *a, const struct lock *b)
{
	return a->ip == b->ip && record(a->kind) == record(b->kind) && a->owner != b->owner &&
	       a->start <= b->end && b->start <= a->end &&
	       (a->type == LX_F_WRLCK || b->type == LX_F_WRLCK);
}

static struct lock *first_conflict(const struct lock *want)
{
	for (struct lock *l = locks; l; l = l->next)
		if (conflicts(want, l))
			return l;
	return NULL;
}

/* Drop every lock `match` accepts; waiters run again if any went. */
static void drop_where(bool (*match)(const struct lock *, const void *), const void *arg)
{
	bool any = false;
	for (struct lock **pp = &locks; *pp;) {
		struct lock *l = *pp;
		if (match(l, arg)) {
			*pp = l->next;
			lx_free(l);
			any = true;
		} else {
			pp = &l->next;
		}
	}
	if (any)
		wake(lock_chan);
}

static struct lock *lock_new(const struct lock *like)
{
	struct lock *l = lx_malloc(sizeof(*l));
	if (l) {
		*l = *like;
		l->next = locks;
		locks = l;
	}
	return l;
}

/*
 * The owner's record locks on the file lose want's range (splitting one
 * that covers more on both sides into two: `spare` is the second half);
 * then, unless want unlocks, want is added, merged with the owner's
 * locks of its type that touch it.  Never fails: the caller allocated.
 */
static void apply(const struct lock *want, struct lock *spare, struct lock *mine)
{
	for (struct lock **pp = &locks; *pp;) {
		struct lock *l = *pp;
		bool same = l->ip == want->ip && l->owner == want->owner && record(l->kind);
		if (!same || l->end < want->start || l->start > want->end) {
			pp = &l->next;
			continue;
		}
		if (l->start < want->start && l->end > want->end) {
			*spare = *l;
			spare->start = want->end + 1;
			spare->next = l->next;
			l->next = spare;
			spare = NULL;
			l->end = want->start - 1;
		} else if (l->start < want->start) {
			l->end = want->start - 1;
		} else if (l->end > want->end) {
			l->start = want->end + 1;
		} else {
			*pp = l->next;
			lx_free(l);
			continue;
		}
		pp = &l->next;
	}
	lx_free(spare);
	if (want->type == LX_F_UNLCK) {
		lx_free(mine);
		return;
	}
	*mine = *want;
	for (struct lock **pp = &locks; *pp;) {
		struct lock *l = *pp;
		bool touch = l->ip == want->ip && l->owner == want->owner && record(l->kind) &&
			     l->type == want->type && (l->end == OFFSET_MAX || l->end + 1 >= mine->start) &&
			     (mine->end == OFFSET_MAX || mine->end + 1 >= l->start);
		if (touch) {
			mine->start = l->start < mine->start ? l->start : mine->start;
			mine->end = l->end > mine->end ? l->end : mine->end;
			*pp = l->next;
			lx_free(l);
		} else {
			pp = &l->next;
		}
	}
	mine->next = locks;
	locks = mine;
}

/* --- waiting, and POSIX deadlock detection --- */

/*
 * A thread parked on a record lock remembers the pid of the POSIX owner it
 * waits for (0 for none).  Any lock's release moves every waiter off its
 * channel, so a parked waiter's blocker still holds the lock it waits on.
 */
static bool waits_for(struct proc *from, int pid, int depth)
{
	if (depth > 64)
		return false;
	for (struct thread *w = from->threads; w; w = w->next_in_proc) {
		if (w->state != T_BLOCKED || w->wchan != lock_chan || !w->lock_blocker)
			continue;
		if (w->lock_blocker == pid)
			return true;
		struct proc *next = proc_by_pid(w->lock_blocker);
		if (next && waits_for(next, pid, depth + 1))
			return true;
	}
	return false;
}

/* want conflicts with held: -EAGAIN, -EDEADLK, or the thread parks. */
static long wait_for(struct thread *t, const struct lock *want, const struct lock *held, bool wait)
{
	if (!wait)
		return -LX_EAGAIN;
	t->lock_blocker = 0;
	if (want->kind == LK_POSIX && held->kind == LK_POSIX) {
		struct proc *owner = held->owner;
		if (owner == t->proc || waits_for(owner, t->proc->pid, 0))
			return -LX_EDEADLK;
		t->lock_blocker = owner->pid;
	}
	block_on(t, lock_chan, 0);
	return SYS_BLOCK;
}

/* --- flock(2) --- */

#define LX_LOCK_SH 1
#define LX_LOCK_EX 2
#define LX_LOCK_NB 4
#define LX_LOCK_UN 8

static bool flock_of(const struct lock *l, const void *f)
{
	return l->kind == LK_FLOCK && l->owner == f;
}

long lock_flock(struct thread *t, struct file *f, u64 op)
{
	u64 what = op & ~(u64)LX_LOCK_NB;
	if (what != LX_LOCK_SH && what != LX_LOCK_EX && what != LX_LOCK_UN)
		return -LX_EINVAL;
	if (!f->ip || (f->flags & LX_O_PATH))
		return -LX_EBADF;
	int type = what == LX_LOCK_EX ? LX_F_WRLCK : LX_F_RDLCK;
	for (struct lock *l = locks; l; l = l->next)
		if (flock_of(l, f) && l->type == type && what != LX_LOCK_UN)
			return 0;                   /* held already */
	drop_where(flock_of, f);            /* a conversion gives up the old lock first */
	if (what == LX_LOCK_UN)
		return 0;
	struct lock want = { .ip = f->ip, .owner = f, .kind = LK_FLOCK, .type = type,
			     .start = 0, .end = OFFSET_MAX, .pid = -1 };
	struct lock *held = first_conflict(&want);
	if (held)
		return wait_for(t, &want, held, !(op & LX_LOCK_NB));
	return lock_new(&want) ? 0 : -LX_ENOLCK;
}

/* --- fcntl(2) record locks --- */

struct lx_flock {
	int16_t l_type, l_whence;
	int32_t pad;
	int64_t l_start, l_len;
	int32_t l_pid, pad2;
};

/* The range an flock names, from f's position or size: 0 or -errno. */
static long range_of(struct file *f, const struct lx_flock *fl, struct lock *l)
{
	int64_t base;
	switch (fl->l_whence) {
	case 0: base = 0; break;
	case 1: base = (int64_t)f->pos; break;
	case 2: base = (int64_t)f->ip->size; break;
	default: return -LX_EINVAL;
	}
	int64_t start, end;
	if (__builtin_add_overflow(base, fl->l_start, &start))
		return -LX_EOVERFLOW;
	if (fl->l_len > 0) {
		if (__builtin_add_overflow(start, fl->l_len - 1, &end))
			return -LX_EOVERFLOW;
	} else if (fl->l_len < 0) {
		end = start - 1;
		start += fl->l_len;
	} else {
		end = (int64_t)OFFSET_MAX;
	}
	if (start < 0)
		return -LX_EINVAL;
	l->start = (u64)start;
	l->end = (u64)end;
	return 0;
}

/* F_GETLK: the first lock that would stop want, or l_type F_UNLCK. */
static long getlk(struct thread *t, u64 arg, struct lx_flock *fl, const struct lock *want)
{
	const struct lock *held = first_conflict(want);
	if (!held) {
		fl->l_type = LX_F_UNLCK;
	} else {
		fl->l_type = (int16_t)held->type;
		fl->l_whence = 0;
		fl->l_start = (int64_t)held->start;
		fl->l_len = held->end == OFFSET_MAX ? 0 : (int64_t)(held->end - held->start + 1);
		fl->l_pid = held->pid;
	}
	return copyout(t->proc, arg, fl, sizeof(*fl)) ? 0 : -LX_EFAULT;
}

static long setlk(struct thread *t, struct file *f, const struct lock *want, bool wait)
{
	if ((want->type == LX_F_RDLCK && !file_readable(f)) ||
	    (want->type == LX_F_WRLCK && !file_writable(f)))
		return -LX_EBADF;
	if (want->type != LX_F_UNLCK) {
		const struct lock *held = first_conflict(want);
		if (held)
			return wait_for(t, want, held, wait);
	}
	struct lock *spare = lx_malloc(sizeof(*spare)), *mine = lx_malloc(sizeof(*mine));
	if (!spare || !mine) {
		lx_free(spare);
		lx_free(mine);
		return -LX_ENOLCK;
	}
	apply(want, spare, mine);
	wake(lock_chan);                    /* a range unlocked or downgraded */
	return 0;
}

long lock_fcntl(struct thread *t, struct file *f, int cmd, u64 arg)
{
	struct lx_flock fl;
	if (!copyin(t->proc, &fl, arg, sizeof(fl)))
		return -LX_EFAULT;
	bool ofd = cmd >= LX_F_OFD_GETLK;
	if (ofd && fl.l_pid != 0)
		return -LX_EINVAL;
	if (fl.l_type != LX_F_RDLCK && fl.l_type != LX_F_WRLCK && fl.l_type != LX_F_UNLCK)
		return -LX_EINVAL;
	if (!f->ip || (f->flags & LX_O_PATH))
		return -LX_EBADF;
	struct lock want = { .ip = f->ip, .owner = ofd ? (void *)f : (void *)t->proc,
			     .kind = ofd ? LK_OFD : LK_POSIX, .type = fl.l_type,
			     .pid = ofd ? -1 : t->proc->pid };
	long r = range_of(f, &fl, &want);
	if (r)
		return r;
	if (cmd == LX_F_GETLK || cmd == LX_F_OFD_GETLK) {
		if (want.type == LX_F_UNLCK)
			return -LX_EINVAL;
		return getlk(t, arg, &fl, &want);
	}
	return setlk(t, f, &want, cmd == LX_F_SETLKW || cmd == LX_F_OFD_SETLKW);
}

/* --- releases --- */

struct posix_of { const struct proc *p; const struct inode *ip; };

static bool posix_match(const struct lock *l, const void *arg)
{
	const struct posix_of *w = arg;
	return l->kind == LK_POSIX && l->owner == w->p && (!w->ip || l->ip == w->ip);
}

static bool description_match(const struct lock *l, const void *f)
{
	return l->kind != LK_POSIX && l->owner == f;
}

void lock_close_any(struct proc *p, struct file *f)
{
	if (f->ip) {
		struct posix_of w = { p, f->ip };
		drop_where(posix_match, &w);
	}
}

void lock_file_gone_any(struct file *f)
{
	drop_where(description_match, f);
}

void lock_exit(struct proc *p)
{
	struct posix_of w = { p, NULL };
	if (locks)
		drop_where(posix_match, &w);
}
