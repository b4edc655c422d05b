// SPDX-License-Identifier: MIT
// Futexes (futex(2)): waits keyed by what the address maps, as Linux keys
// them, so that processes sharing memory wake each other; waits on several
// futexes at once (futex_waitv(2)); priority-inheritance locks whose owner
// lives in the futex word; robust lists, whose locks a dying thread marks
// FUTEX_OWNER_DIED.
#include "../syscall/syscall.h"

#define FUTEX_WAIT        0
#define FUTEX_WAKE        1
#define FUTEX_REQUEUE     3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP     5
#define FUTEX_LOCK_PI     6
#define FUTEX_UNLOCK_PI   7
#define FUTEX_TRYLOCK_PI  8
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_LOCK_PI2    13
#define FUTEX_PRIVATE_FLAG   128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_CMD_MASK    0x7f
#define FUTEX_WAITERS     0x80000000U
#define FUTEX_OWNER_DIED  0x40000000U
#define FUTEX_TID_MASK    0x3fffffffU
#define ROBUST_LIST_LIMIT 2048          /* entries walked at most, as Linux */

/*
 * A futex's key: (the memory, the address) for a private futex or a
 * private mapping, (the file, the offset) for a shared mapping
 * (mm/vm.c vm_futex_key).  Only compared, never followed.
 */
struct fkey {
	const void *obj;
	u64 off;
};

/*
 * futex_waitv's wait: its futexes' keys, in the caller's order; a wake of
 * any of them wakes the thread once, and `hit` says which (its answer).
 */
struct futex_vec {
	int n, hit;
	struct fkey keys[];
};

static char futex_chan[1];
static struct thread *waiters[1024];
static int nwaiters;
static u64 next_seq = 1;

static long futex_key(struct thread *t, u64 uaddr, u64 op, struct fkey *k)
{
	if (uaddr & 3)
		return -LX_EINVAL;
	if (op & FUTEX_PRIVATE_FLAG) {
		*k = (struct fkey){ t->mm, uaddr };
		return 0;
	}
	return vm_futex_key(t->mm, uaddr, &k->obj, &k->off) ? 0 : -LX_EFAULT;
}

static bool same_key(const struct fkey *a, const void *obj, u64 off)
{
	return a->obj == obj && a->off == off;
}

/* Which of w's futexes is k (the first, for futex_waitv's repeats): 0 for a single one, or -1. */
static int slot_of(const struct thread *w, const struct fkey *k)
{
	const struct futex_vec *v = w->futex_vec;
	if (!v)
		return same_key(k, w->futex_obj, w->futex_off) ? 0 : -1;
	for (int i = 0; i < v->n; i++)
		if (same_key(k, v->keys[i].obj, v->keys[i].off))
			return i;
	return -1;
}

/* The first waiter on k after seq `after` whose bitset meets bits (pi: PI lockers only). */
static struct thread *next_waiter(const struct fkey *k, uint32_t bits, bool pi, u64 after,
				  int *at)
{
	struct thread *best = NULL;
	for (int i = 0; i < nwaiters; i++) {
		struct thread *w = waiters[i];
		if (!(w->futex_bitset & bits) || (pi && !w->futex_pi) || w->futex_seq <= after ||
		    (best && w->futex_seq > best->futex_seq) || slot_of(w, k) < 0)
			continue;
		best = w;
		*at = i;
	}
	return best;
}

static void add_waiter(struct thread *t, const struct fkey *k, uint32_t bits, bool pi)
{
	waiters[nwaiters++] = t;
	t->futex_obj = k->obj;
	t->futex_off = k->off;
	t->futex_bitset = bits;
	t->futex_pi = pi;
	t->futex_seq = next_seq++;
}

static bool registered(struct thread *t)
{
	for (int i = 0; i < nwaiters; i++)
		if (waiters[i] == t)
			return true;
	return false;
}

/* w, a waiter on k, leaves the waiters and runs its call again: granted (woken) or to try
 * again (a PI lock). */
static void wake_waiter(int at, const struct fkey *k, bool granted)
{
	struct thread *w = waiters[at];
	if (w->futex_vec)
		w->futex_vec->hit = slot_of(w, k);
	waiters[at] = waiters[--nwaiters];
	w->woken = granted;
	w->futex_obj = NULL;
	wake_thread(w);
}

/* Wake up to n waiters on k, first come first; Linux wakes one even for n <= 0. */
static int futex_wake_key(const struct fkey *k, int n, uint32_t bits)
{
	int woken = 0, at;
	struct thread *w;
	while ((!woken || woken < n) && (w = next_waiter(k, bits, false, 0, &at))) {
		wake_waiter(at, k, !w->futex_pi);
		woken++;
	}
	return woken;
}

void futex_wake_addr(struct proc *p, u64 uaddr, int n)
{
	struct fkey k;
	if (vm_futex_key(p->mm, uaddr, &k.obj, &k.off))
		futex_wake_key(&k, n, ~0U);
}

/* A thread going away (or woken otherwise) leaves the futex waiters. */
void futex_forget(struct thread *t)
{
	lx_free(t->futex_vec);
	t->futex_vec = NULL;
	for (int i = 0; i < nwaiters; i++)
		if (waiters[i] == t) {
			waiters[i] = waiters[--nwaiters];
			t->futex_obj = NULL;
			return;
		}
}

/*
 * A wait's deadline (µs of lx_now_us, 0 for none) from the caller's
 * timespec: relative, or absolute on CLOCK_MONOTONIC, or on
 * CLOCK_REALTIME with FUTEX_CLOCK_REALTIME.
 */
static long deadline_of(struct thread *t, u64 timeout, bool absolute, u64 op, u64 *deadline)
{
	struct lx_timespec ts;
	*deadline = 0;
	if (!timeout)
		return 0;
	if (!copyin(t->proc, &ts, timeout, sizeof(ts)))
		return -LX_EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -LX_EINVAL;
	u64 us = (u64)ts.tv_sec * 1000000 + (u64)(ts.tv_nsec + 999) / 1000;
	u64 now = lx_now_us(), shift = (op & FUTEX_CLOCK_REALTIME) ? lx_clock_us(0) - now : 0;
	*deadline = !absolute ? now + us + 1 : us > shift ? us - shift : 1;
	return 0;
}

/* Park t on the futex channel until woken, its deadline, or a signal. */
static long park(struct thread *t)
{
	block_on(t, futex_chan, t->call_deadline);
	return SYS_BLOCK;
}

static long futex_wait(struct thread *t, u64 uaddr, uint32_t val, u64 timeout, bool absolute,
		       uint32_t bits, u64 op)
{
	if (t->woken) {
		t->woken = false;
		return 0;
	}
	if (t->timed_out) {
		futex_forget(t);
		return -LX_ETIMEDOUT;
	}
	if (!t->fresh)
		return park(t);
	struct fkey k;
	uint32_t cur;
	long err = deadline_of(t, timeout, absolute, op, &t->call_deadline);
	if (!err && !bits)
		err = -LX_EINVAL;
	if (!err)
		err = futex_key(t, uaddr, op, &k);
	if (err)
		return err;
	if (!copyin(t->proc, &cur, uaddr, 4))
		return -LX_EFAULT;
	if (cur != val)
		return -LX_EAGAIN;
	if (nwaiters == (int)(sizeof(waiters) / sizeof(waiters[0])))
		return -LX_ENOMEM;
	add_waiter(t, &k, bits, false);
	return park(t);
}

/* Wake nwake waiters of uaddr, then move up to nmove of the rest to uaddr2: how many. */
static long futex_requeue(struct thread *t, u64 uaddr, u64 op, int nwake, int nmove, u64 uaddr2,
			  const uint32_t *cmpval)
{
	struct fkey k1, k2;
	uint32_t cur;
	if (nwake < 0 || nmove < 0)
		return -LX_EINVAL;
	long err = futex_key(t, uaddr, op, &k1);
	if (!err)
		err = futex_key(t, uaddr2, op, &k2);
	if (err)
		return err;
	if (cmpval && !copyin(t->proc, &cur, uaddr, 4))
		return -LX_EFAULT;
	if (cmpval && cur != *cmpval)
		return -LX_EAGAIN;
	int count = 0, at;
	u64 last = 0;
	for (struct thread *w; count < nwake + nmove && (w = next_waiter(&k1, ~0U, false, last, &at));
	     count++) {
		last = w->futex_seq;
		if (count < nwake) {
			wake_waiter(at, &k1, true);
		} else if (w->futex_vec) {
			w->futex_vec->keys[slot_of(w, &k1)] = k2;
		} else {
			w->futex_obj = k2.obj;
			w->futex_off = k2.off;
		}
	}
	return count;
}

static long sign12(uint32_t v) { return (long)((int32_t)(v << 20) >> 20); }

/* FUTEX_WAKE_OP's operation on *uaddr2: the old value, or -errno. */
static long wake_op_apply(struct thread *t, u64 uaddr2, uint32_t op, uint32_t *old)
{
	uint32_t arg = (uint32_t)sign12(op >> 12), nv;
	if (op & (8U << 28))
		arg = 1U << (arg & 31);
	if (!copyin(t->proc, old, uaddr2, 4))
		return -LX_EFAULT;
	switch ((op >> 28) & 7) {
	case 0: nv = arg; break;
	case 1: nv = *old + arg; break;
	case 2: nv = *old | arg; break;
	case 3: nv = *old & ~arg; break;
	case 4: nv = *old ^ arg; break;
	default: return -LX_ENOSYS;
	}
	return copyout(t->proc, uaddr2, &nv, 4) ? 0 : -LX_EFAULT;
}

static long futex_wake_op(struct thread *t, u64 uaddr, u64 fop, int n, int n2, u64 uaddr2,
			  uint32_t op)
{
	struct fkey k1, k2;
	uint32_t old;
	long err = futex_key(t, uaddr, fop, &k1);
	if (!err)
		err = futex_key(t, uaddr2, fop, &k2);
	if (!err)
		err = wake_op_apply(t, uaddr2, op, &old);
	if (err)
		return err;
	long cmparg = sign12(op), o = (int32_t)old;
	bool hit;
	switch ((op >> 24) & 15) {
	case 0: hit = o == cmparg; break;
	case 1: hit = o != cmparg; break;
	case 2: hit = o < cmparg; break;
	case 3: hit = o <= cmparg; break;
	case 4: hit = o > cmparg; break;
	case 5: hit = o >= cmparg; break;
	default: return -LX_ENOSYS;
	}
	long r = futex_wake_key(&k1, n, ~0U);
	return hit ? r + futex_wake_key(&k2, n2, ~0U) : r;
}

/* --- futex_waitv(2): one wait on up to 128 futexes --- */

#define FUTEX_WAITV_MAX 128
#define FUTEX2_SIZE_MASK 3
#define FUTEX2_SIZE_U32  2
#define LX_CLOCK_REALTIME  0
#define LX_CLOCK_MONOTONIC 1

struct futex_waitv {                    /* the caller's entries (linux/futex.h) */
	u64 val, uaddr;
	uint32_t flags, reserved;
};

/*
 * The caller's n entries, one by one as Linux's futex_parse_waitv: EFAULT,
 * or EINVAL for reserved bits, a size other than 32 bits, or a value wider than
 * that.  FUTEX2_NUMA and FUTEX2_MPOL are refused too (lx has one node).
 */
static long waitv_parse(struct thread *t, u64 uw, uint32_t n, struct futex_waitv *w)
{
	for (uint32_t i = 0; i < n; i++) {
		if (!copyin(t->proc, &w[i], uw + i * sizeof(*w), sizeof(*w)))
			return -LX_EFAULT;
		if ((w[i].flags & ~(uint32_t)(FUTEX2_SIZE_MASK | FUTEX_PRIVATE_FLAG)) || w[i].reserved ||
		    (w[i].flags & FUTEX2_SIZE_MASK) != FUTEX2_SIZE_U32 || (w[i].val >> 32))
			return -LX_EINVAL;
	}
	return 0;
}

/* The entries' keys into v, then their words against the values, in order: 0 or -errno. */
static long waitv_setup(struct thread *t, const struct futex_waitv *w, struct futex_vec *v)
{
	for (int i = 0; i < v->n; i++) {
		long err = futex_key(t, w[i].uaddr, w[i].flags & FUTEX_PRIVATE_FLAG, &v->keys[i]);
		if (err)
			return err;
	}
	for (int i = 0; i < v->n; i++) {
		uint32_t cur;
		if (!copyin(t->proc, &cur, w[i].uaddr, 4))
			return -LX_EFAULT;
		if (cur != (uint32_t)w[i].val)
			return -LX_EAGAIN;
	}
	return nwaiters == (int)(sizeof(waiters) / sizeof(waiters[0])) ? -LX_ENOMEM : 0;
}

/* The deadline: absolute on CLOCK_MONOTONIC or CLOCK_REALTIME (other clocks: EINVAL). */
static long waitv_deadline(struct thread *t, u64 timeout, int clockid)
{
	t->call_deadline = 0;
	if (timeout && clockid != LX_CLOCK_REALTIME && clockid != LX_CLOCK_MONOTONIC)
		return -LX_EINVAL;
	return deadline_of(t, timeout, true, clockid == LX_CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0,
			   &t->call_deadline);
}

/* The first run: checks in Linux's order, then t waits on every futex. */
static long waitv_start(struct thread *t, u64 uw, uint32_t n, uint32_t flags, u64 timeout,
			int clockid)
{
	static struct futex_waitv w[FUTEX_WAITV_MAX];
	if (flags || !n || n > FUTEX_WAITV_MAX || !uw)
		return -LX_EINVAL;
	long err = waitv_deadline(t, timeout, clockid);
	if (!err)
		err = waitv_parse(t, uw, n, w);
	if (err)
		return err;
	struct futex_vec *v = lx_zalloc(sizeof(*v) + n * sizeof(v->keys[0]));
	if (!v)
		return -LX_ENOMEM;
	v->n = (int)n;
	v->hit = -1;
	if ((err = waitv_setup(t, w, v))) {
		lx_free(v);
		return err;
	}
	add_waiter(t, &v->keys[0], ~0U, false);
	t->futex_vec = v;
	return park(t);
}

/* futex_waitv(2): the index of the futex whose wake woke it, ETIMEDOUT, or a signal's restart. */
long sys_futex_waitv(struct thread *t, u64 uw, u64 n, u64 flags, u64 timeout, u64 clockid, u64 a5)
{
	(void)a5;
	if (t->woken) {
		t->woken = false;
		long hit = t->futex_vec ? t->futex_vec->hit : -LX_EINVAL;
		futex_forget(t);
		return hit;
	}
	if (t->timed_out) {
		futex_forget(t);
		return -LX_ETIMEDOUT;
	}
	if (!t->fresh)
		return park(t);
	return waitv_start(t, uw, (uint32_t)n, (uint32_t)flags, timeout, (int)clockid);
}

/* --- priority-inheritance locks: the owner's TID in the word, FUTEX_WAITERS while any wait --- */

/* Take a free PI word (its OWNER_DIED kept): 0, or -errno. */
static long pi_take(struct thread *t, u64 uaddr, const struct fkey *k, uint32_t cur)
{
	int at;
	futex_forget(t);
	uint32_t nv = (uint32_t)t->tid_linux | (cur & FUTEX_OWNER_DIED) |
		      (next_waiter(k, ~0U, true, 0, &at) ? FUTEX_WAITERS : 0);
	return copyout(t->proc, uaddr, &nv, 4) ? 0 : -LX_EFAULT;
}

/* LOCK_PI, LOCK_PI2, TRYLOCK_PI.  Priority inheritance itself is not done (docs/lx.md). */
static long futex_lock_pi(struct thread *t, u64 uaddr, u64 op, u64 timeout, bool try)
{
	struct fkey k;
	uint32_t cur;
	if (t->woken) {                         /* the unlocker made t the owner */
		t->woken = false;
		return 0;
	}
	if (t->timed_out) {
		futex_forget(t);
		return -LX_ETIMEDOUT;
	}
	bool realtime = (op & FUTEX_CMD_MASK) == FUTEX_LOCK_PI || (op & FUTEX_CLOCK_REALTIME);
	long err = t->fresh && !try ? deadline_of(t, timeout, true, realtime ? FUTEX_CLOCK_REALTIME : 0,
						  &t->call_deadline) : 0;
	if (!err)
		err = futex_key(t, uaddr, op, &k);
	if (err)
		return err;
	if (!copyin(t->proc, &cur, uaddr, 4))
		return -LX_EFAULT;
	if ((cur & FUTEX_TID_MASK) == (uint32_t)t->tid_linux)
		return -LX_EDEADLK;
	if (!(cur & FUTEX_TID_MASK))
		return pi_take(t, uaddr, &k, cur);
	if (!thread_by_linux_tid((int)(cur & FUTEX_TID_MASK)))
		return -LX_ESRCH;                   /* no such owner (it died without a robust list) */
	if (try)
		return -LX_EAGAIN;
	cur |= FUTEX_WAITERS;
	if (!copyout(t->proc, uaddr, &cur, 4))
		return -LX_EFAULT;
	if (!registered(t)) {
		if (nwaiters == (int)(sizeof(waiters) / sizeof(waiters[0])))
			return -LX_ENOMEM;
		add_waiter(t, &k, ~0U, true);
	}
	return park(t);
}

/* The owner lets go: the first waiter becomes the owner, or the word is 0. */
static long futex_unlock_pi(struct thread *t, u64 uaddr, u64 op)
{
	struct fkey k;
	uint32_t cur, nv = 0;
	long err = futex_key(t, uaddr, op, &k);
	if (err)
		return err;
	if (!copyin(t->proc, &cur, uaddr, 4))
		return -LX_EFAULT;
	if ((cur & FUTEX_TID_MASK) != (uint32_t)t->tid_linux)
		return -LX_EPERM;
	int at;
	struct thread *w = next_waiter(&k, ~0U, true, 0, &at);
	if (w)
		nv = (uint32_t)w->tid_linux | FUTEX_WAITERS;
	if (!copyout(t->proc, uaddr, &nv, 4))
		return -LX_EFAULT;
	if (w)
		wake_waiter(at, &k, true);
	return 0;
}

long sys_futex(struct thread *t, u64 uaddr, u64 op, u64 val, u64 timeout, u64 uaddr2, u64 val3)
{
	u64 cmd = op & FUTEX_CMD_MASK;
	uint32_t cmpval = (uint32_t)val3;
	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_LOCK_PI2)
		return -LX_ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(t, uaddr, (uint32_t)val, timeout, false, ~0U, op);
	case FUTEX_WAIT_BITSET:
		return futex_wait(t, uaddr, (uint32_t)val, timeout, true, (uint32_t)val3, op);
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET: {
		struct fkey k;
		uint32_t bits = cmd == FUTEX_WAKE ? ~0U : (uint32_t)val3;
		long err = bits ? futex_key(t, uaddr, op, &k) : -LX_EINVAL;
		return err ? err : futex_wake_key(&k, (int)val, bits);
	}
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(t, uaddr, op, (int)val, (int)timeout, uaddr2,
				     cmd == FUTEX_CMP_REQUEUE ? &cmpval : NULL);
	case FUTEX_WAKE_OP:
		return futex_wake_op(t, uaddr, op, (int)val, (int)timeout, uaddr2, (uint32_t)val3);
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
	case FUTEX_TRYLOCK_PI:
		return futex_lock_pi(t, uaddr, op, timeout, cmd == FUTEX_TRYLOCK_PI);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(t, uaddr, op);
	default:
		return -LX_ENOSYS;
	}
}

/* --- robust lists (set_robust_list(2)) --- */

long sys_set_robust_list(struct thread *t, u64 head, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (len != 24)
		return -LX_EINVAL;
	t->robust_list = head;
	return 0;
}

long sys_get_robust_list(struct thread *t, u64 pid, u64 head, u64 len, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	struct thread *o = (int)pid ? thread_by_linux_tid((int)pid) : t;
	u64 l = 24;
	if (!o)
		return -LX_ESRCH;
	if (!copyout(t->proc, head, &o->robust_list, 8) || !copyout(t->proc, len, &l, 8))
		return -LX_EFAULT;
	return 0;
}

/*
 * A lock t held when it died: the word keeps FUTEX_WAITERS and gains
 * FUTEX_OWNER_DIED, and one waiter wakes (a PI locker takes it over).  A
 * lock t was about to take (`pending`) that is still free wakes one too.
 */
static void owner_died(struct thread *t, u64 uaddr, bool pi, bool pending)
{
	uint32_t cur;
	struct fkey k;
	if ((uaddr & 3) || !copyin(t->proc, &cur, uaddr, 4) ||
	    !vm_futex_key(t->mm, uaddr, &k.obj, &k.off))
		return;
	if (pending && !pi && !cur) {
		futex_wake_key(&k, 1, ~0U);
		return;
	}
	if ((cur & FUTEX_TID_MASK) != (uint32_t)t->tid_linux)
		return;
	uint32_t nv = (cur & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	if (copyout(t->proc, uaddr, &nv, 4) && (cur & FUTEX_WAITERS))
		futex_wake_key(&k, 1, ~0U);
}

/* t ends (or execs): every lock on its robust list, as Linux's exit_robust_list. */
void futex_exit_robust(struct thread *t)
{
	u64 head = t->robust_list, h[3];      /* next, futex_offset, list_op_pending */
	t->robust_list = 0;
	if (!head || !copyin(t->proc, h, head, sizeof(h)))
		return;
	u64 e = h[0], pending = h[2];
	long off = (long)h[1];
	for (int n = 0; (e & ~1UL) != head && n < ROBUST_LIST_LIMIT; n++) {
		u64 next;
		bool ok = copyin(t->proc, &next, e & ~1UL, 8);
		if ((e & ~1UL) != (pending & ~1UL))
			owner_died(t, (e & ~1UL) + (u64)off, e & 1, false);
		if (!ok)
			break;
		e = next;
	}
	if (pending)
		owner_died(t, (pending & ~1UL) + (u64)off, pending & 1, true);
}
