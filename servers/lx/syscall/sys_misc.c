// SPDX-License-Identifier: MIT
// System calls on time, the machine, limits, futexes and thread-local storage.
#include "syscall.h"
#include "../../../lib/c/string.h"

#define NOARGS (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5
/* lx has no real-time clock: wall time starts at 2026-01-01 00:00 UTC at boot. */
#define EPOCH_AT_BOOT 1767225600UL

static long put(struct thread *t, u64 uaddr, const void *v, size_t n)
{
	return copyout(t->proc, uaddr, v, n) ? 0 : -LX_EFAULT;
}

static struct lx_timespec ts_of(u64 us)
{
	return (struct lx_timespec){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) * 1000 };
}

/* µs of a struct timespec in the process; false for a bad pointer or value. */
static bool get_ts(struct thread *t, u64 uaddr, u64 *us)
{
	struct lx_timespec ts;
	if (!copyin(t->proc, &ts, uaddr, sizeof(ts)) || ts.tv_sec < 0 || ts.tv_nsec < 0 ||
	    ts.tv_nsec >= 1000000000)
		return false;
	*us = (u64)ts.tv_sec * 1000000 + (u64)(ts.tv_nsec + 999) / 1000;
	return true;
}

static u64 clock_us(u64 clk)
{
	u64 now = lx_now_us();
	return clk == 0 || clk == 5 || clk == 8 || clk == 11 ? now + EPOCH_AT_BOOT * 1000000 : now;
}

long sys_clock_gettime(struct thread *t, u64 clk, u64 tp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (clk > 11)
		return -LX_EINVAL;
	struct lx_timespec ts = ts_of(clock_us(clk));
	return put(t, tp, &ts, sizeof(ts));
}

long sys_clock_getres(struct thread *t, u64 clk, u64 tp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (clk > 11)
		return -LX_EINVAL;
	struct lx_timespec ts = { 0, 1000 };
	return tp ? put(t, tp, &ts, sizeof(ts)) : 0;
}

long sys_gettimeofday(struct thread *t, u64 tv, u64 tz, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	u64 us = clock_us(0);
	struct lx_timeval v = { (int64_t)(us / 1000000), (int64_t)(us % 1000000) };
	int32_t zone[2] = { 0, 0 };
	if (tv && put(t, tv, &v, sizeof(v)))
		return -LX_EFAULT;
	return tz ? put(t, tz, zone, sizeof(zone)) : 0;
}

long sys_time(struct thread *t, u64 tloc, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	int64_t s = (int64_t)(clock_us(0) / 1000000);
	if (tloc && put(t, tloc, &s, 8))
		return -LX_EFAULT;
	return s;
}

/* Sleep until the absolute time `until` (µs of lx_now_us); fixed at the first run. */
static long sleep_until(struct thread *t, u64 until, u64 rem)
{
	u64 now = lx_now_us();
	if (now >= until)
		return 0;
	if (t->timed_out)
		return 0;
	if (signal_pending(t) && rem) {
		struct lx_timespec left = ts_of(until - now);
		put(t, rem, &left, sizeof(left));
	}
	block_on(t, &t->call_deadline, until);
	return SYS_BLOCK;
}

long sys_nanosleep(struct thread *t, u64 req, u64 rem, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (t->fresh) {
		u64 us;
		if (!get_ts(t, req, &us))
			return -LX_EINVAL;
		t->call_deadline = lx_now_us() + us;
	}
	return sleep_until(t, t->call_deadline, rem);
}

long sys_clock_nanosleep(struct thread *t, u64 clk, u64 flags, u64 req, u64 rem, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (clk > 11)
		return -LX_EINVAL;
	if (t->fresh) {
		u64 us;
		if (!get_ts(t, req, &us))
			return -LX_EINVAL;
		if (flags & 1) {                    /* TIMER_ABSTIME */
			u64 base = clock_us(clk) - lx_now_us();
			t->call_deadline = us > base ? us - base : 0;
		} else {
			t->call_deadline = lx_now_us() + us;
		}
	}
	return sleep_until(t, t->call_deadline, (flags & 1) ? 0 : rem);
}

long sys_uname(struct thread *t, u64 buf, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	static const char *const fields[6] = { "Linux", "pecan", "6.1.0-lx",
					       "#1 Pecan lx", "x86_64", "(none)" };
	char u[6][65];
	memset(u, 0, sizeof(u));
	for (int i = 0; i < 6; i++)
		memcpy(u[i], fields[i], strlen(fields[i]));
	return put(t, buf, u, sizeof(u));
}

long sys_sysinfo(struct thread *t, u64 buf, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	u64 info[14] = { 0 };
	info[0] = lx_now_us() / 1000000;
	info[4] = pool_total_bytes();
	info[5] = page_free_count() * LX_PAGE_SIZE;
	info[10] = (u64)proc_count();               /* procs, a u16 at byte 80 */
	info[13] = 1;                               /* mem_unit, a u32 at byte 104 */
	return put(t, buf, info, 112);
}

long sys_times(struct thread *t, u64 buf, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	u64 ticks = lx_now_us() / 10000;
	u64 tms[4] = { t->proc->utime_us / 10000, 0, 0, 0 };
	if (buf && put(t, buf, tms, sizeof(tms)))
		return -LX_EFAULT;
	return (long)ticks;
}

long sys_getrusage(struct thread *t, u64 who, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)who; (void)a2; (void)a3; (void)a4; (void)a5;
	char zero[144] = { 0 };
	return put(t, buf, zero, sizeof(zero));
}

/* --- limits --- */

#define RLIM_INFINITY LX_RLIM_INFINITY
#define RLIMIT_STACK  3
#define RLIMIT_NPROC  6
#define RLIMIT_NOFILE 7
#define RLIMIT_NLIMITS LX_RLIMIT_NLIMITS

/* What lx can give: the ceiling of each hard limit. */
static void limit_of(int res, u64 lim[2])
{
	lim[0] = lim[1] = RLIM_INFINITY;
	if (res == RLIMIT_STACK)
		lim[0] = LX_STACK_SIZE;
	else if (res == RLIMIT_NOFILE)
		lim[0] = lim[1] = LX_NFD;
	else if (res == RLIMIT_NPROC)
		lim[0] = lim[1] = LX_MAX_PROCS;
}

void rlimits_default(struct proc *p)
{
	for (int r = 0; r < RLIMIT_NLIMITS; r++)
		limit_of(r, p->rlim[r]);
}

/*
 * Limits are kept per process and inherited (RLIMIT_FSIZE is enforced on
 * writes); the others are reported as set.  A hard limit is never raised
 * past what lx can give (EPERM), nor a soft one past its hard one (EINVAL).
 */
long sys_prlimit64(struct thread *t, u64 pid, u64 res, u64 nlim, u64 olim, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (res >= RLIMIT_NLIMITS)
		return -LX_EINVAL;
	struct proc *p = pid ? proc_by_pid((int)pid) : t->proc;
	if (!p)
		return -LX_ESRCH;
	u64 want[2], ceiling[2];
	if (nlim && !copyin(t->proc, want, nlim, sizeof(want)))
		return -LX_EFAULT;
	if (olim && put(t, olim, p->rlim[res], sizeof(p->rlim[res])))
		return -LX_EFAULT;
	if (!nlim)
		return 0;
	limit_of((int)res, ceiling);
	if (want[0] > want[1])
		return -LX_EINVAL;
	if (want[1] > p->rlim[res][1] && want[1] > ceiling[1])
		return -LX_EPERM;
	p->rlim[res][0] = want[0];
	p->rlim[res][1] = want[1];
	return 0;
}

long sys_getrlimit(struct thread *t, u64 res, u64 olim, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return sys_prlimit64(t, 0, res, 0, olim, 0, 0);
}

long sys_setrlimit(struct thread *t, u64 res, u64 nlim, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return sys_prlimit64(t, 0, res, nlim, 0, 0, 0);
}

long sys_getpriority(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return 20;                                  /* nice 0, as the kernel encodes it */
}

long sys_setpriority(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return 0;
}

long sys_prctl(struct thread *t, u64 op, u64 arg, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct proc *p = t->proc;
	if (op == 15) {                             /* PR_SET_NAME */
		char name[16];
		long n = copyin_str(p, name, arg, sizeof(name));
		if (n == -LX_EFAULT)
			return n;
		name[15] = 0;
		memcpy(p->comm, name, sizeof(name));
		return 0;
	}
	if (op == 16)                               /* PR_GET_NAME */
		return put(t, arg, p->comm, sizeof(p->comm));
	return -LX_EINVAL;
}

long sys_sched_getaffinity(struct thread *t, u64 pid, u64 len, u64 mask, u64 a3, u64 a4, u64 a5)
{
	(void)pid; (void)a3; (void)a4; (void)a5;
	u64 one = 1;
	if (len < 8)
		return -LX_EINVAL;
	return put(t, mask, &one, 8) ? -LX_EFAULT : 8;
}

long sys_getcpu(struct thread *t, u64 cpu, u64 node, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	uint32_t zero = 0;
	if (cpu && put(t, cpu, &zero, 4))
		return -LX_EFAULT;
	return node ? put(t, node, &zero, 4) : 0;
}

long sys_membarrier(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return a0 == 0 ? 0 : -LX_EINVAL;            /* QUERY: no commands (one CPU) */
}

/* --- randomness: xorshift seeded from the TSC; not cryptographic --- */

static u64 rnd_state;

long lx_random(void *buf, size_t n)
{
	if (!rnd_state) {
		uint32_t lo, hi;
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		rnd_state = ((u64)hi << 32 | lo) ^ 0x9e3779b97f4a7c15UL;
	}
	for (size_t i = 0; i < n; i++) {
		rnd_state ^= rnd_state << 13;
		rnd_state ^= rnd_state >> 7;
		rnd_state ^= rnd_state << 17;
		((uint8_t *)buf)[i] = (uint8_t)(rnd_state >> 24);
	}
	return (long)n;
}

#define LX_GRND_NONBLOCK 1
#define LX_GRND_RANDOM   2
#define LX_GRND_INSECURE 4

/* lx's generator never blocks, so the flags change nothing, but unknown ones are EINVAL. */
long sys_getrandom(struct thread *t, u64 buf, u64 len, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	if ((flags & ~(u64)(LX_GRND_NONBLOCK | LX_GRND_RANDOM | LX_GRND_INSECURE)) ||
	    (flags & (LX_GRND_RANDOM | LX_GRND_INSECURE)) == (LX_GRND_RANDOM | LX_GRND_INSECURE))
		return -LX_EINVAL;
	char tmp[256];
	u64 done = 0;
	while (done < len) {
		size_t n = len - done < sizeof(tmp) ? len - done : sizeof(tmp);
		lx_random(tmp, n);
		if (!copyout(t->proc, buf + done, tmp, n))
			return done ? (long)done : -LX_EFAULT;
		done += n;
	}
	return (long)done;
}

/* --- thread-local storage, thread exit bookkeeping --- */

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

long sys_arch_prctl(struct thread *t, u64 code, u64 addr, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	u64 zero = 0;
	switch (code) {
	case ARCH_SET_FS:
		if (addr >= LX_USER_END)
			return -LX_EPERM;
		t->fs_base = addr;
		t->fs_dirty = true;
		return 0;
	case ARCH_GET_FS:
		return put(t, addr, &t->fs_base, 8);
	case ARCH_GET_GS:
		return put(t, addr, &zero, 8);
	case ARCH_SET_GS:
		return -LX_EPERM;                   /* %gs holds the UTCB pointer (docs/lx.md) */
	default:
		return -LX_EINVAL;
	}
}

long sys_set_tid_address(struct thread *t, u64 addr, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	t->clear_child_tid = addr;
	return t->tid_linux;
}

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
	(void)pid; (void)a3; (void)a4; (void)a5;
	u64 l = 24;
	if (put(t, head, &t->robust_list, 8) || put(t, len, &l, 8))
		return -LX_EFAULT;
	return 0;
}

/*
 * rseq: registration succeeds and the CPU fields read 0 (one CPU).  lx
 * never restarts a critical section when it preempts one; programs that
 * only read the CPU number (glibc's sched_getcpu) are served.
 */
long sys_rseq(struct thread *t, u64 rseq, u64 len, u64 flags, u64 sig, u64 a4, u64 a5)
{
	(void)sig; (void)a4; (void)a5;
	if (flags & 1)                              /* unregister */
		return 0;
	if (len < 32 || (rseq & 31))
		return -LX_EINVAL;
	uint32_t cpu[2] = { 0, 0 };
	return put(t, rseq, cpu, sizeof(cpu));
}

/* --- futexes --- */

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_CMD_MASK 0x7f

static char futex_chan[1];
static struct thread *futex_waiters[256];
static int nwaiters;

/* Wake at most n threads of p's memory waiting at uaddr (whose bitset meets `bits`). */
static int futex_wake_bits(struct mm *mm, u64 uaddr, int n, uint32_t bits)
{
	int woken = 0;
	for (int i = 0; i < nwaiters && woken < n;) {
		struct thread *w = futex_waiters[i];
		if (w->futex_mm == mm && w->futex_addr == uaddr && (w->futex_bitset & bits)) {
			futex_waiters[i] = futex_waiters[--nwaiters];
			w->woken = true;
			w->futex_mm = NULL;
			wake_thread(w);
			woken++;
		} else {
			i++;
		}
	}
	return woken;
}

void futex_wake_addr(struct proc *p, u64 uaddr, int n)
{
	futex_wake_bits(p->mm, uaddr, n, ~0U);
}

/* A thread going away (or woken otherwise) leaves the futex waiters. */
void futex_forget(struct thread *t)
{
	for (int i = 0; i < nwaiters; i++)
		if (futex_waiters[i] == t) {
			futex_waiters[i] = futex_waiters[--nwaiters];
			return;
		}
}

/* `absolute`: the timeout is a point on CLOCK_MONOTONIC, or CLOCK_REALTIME with op bit 8. */
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
	if (t->fresh) {
		uint32_t cur;
		if (!copyin(t->proc, &cur, uaddr, 4))
			return -LX_EFAULT;
		if (cur != val)
			return -LX_EAGAIN;
		if (!bits)
			return -LX_EINVAL;
		u64 us = 0;
		if (timeout && !get_ts(t, timeout, &us))
			return -LX_EINVAL;
		u64 shift = (op & 256) ? EPOCH_AT_BOOT * 1000000 : 0;
		t->call_deadline = !timeout ? 0 : !absolute ? lx_now_us() + us :
			us > shift ? us - shift : 1;
		if (nwaiters == (int)(sizeof(futex_waiters) / sizeof(futex_waiters[0])))
			return -LX_ENOMEM;
		futex_waiters[nwaiters++] = t;
		t->futex_mm = t->mm;
		t->futex_addr = uaddr;
		t->futex_bitset = bits;
	}
	block_on(t, futex_chan, t->call_deadline ? t->call_deadline : 0);
	return SYS_BLOCK;
}

static long futex_requeue(struct thread *t, u64 uaddr, int nwake, int nmove, u64 uaddr2)
{
	int done = futex_wake_bits(t->mm, uaddr, nwake, ~0U);
	for (int i = 0; i < nwaiters && nmove > 0; i++) {
		struct thread *w = futex_waiters[i];
		if (w->futex_mm == t->mm && w->futex_addr == uaddr) {
			w->futex_addr = uaddr2;
			nmove--;
			done++;
		}
	}
	return done;
}

static long futex_wake_op(struct thread *t, u64 uaddr, int n, int n2, u64 uaddr2, uint32_t op)
{
	uint32_t old, arg = (op >> 12) & 0xfff, cmparg = op & 0xfff, nv;
	if (op & (8U << 28))
		arg = 1U << arg;
	if (!copyin(t->proc, &old, uaddr2, 4))
		return -LX_EFAULT;
	switch ((op >> 28) & 7) {
	case 0: nv = arg; break;
	case 1: nv = old + arg; break;
	case 2: nv = old | arg; break;
	case 3: nv = old & ~arg; break;
	case 4: nv = old ^ arg; break;
	default: return -LX_ENOSYS;
	}
	if (!copyout(t->proc, uaddr2, &nv, 4))
		return -LX_EFAULT;
	bool hit;
	switch ((op >> 24) & 15) {
	case 0: hit = old == cmparg; break;
	case 1: hit = old != cmparg; break;
	case 2: hit = (int)old < (int)cmparg; break;
	case 3: hit = (int)old <= (int)cmparg; break;
	case 4: hit = (int)old > (int)cmparg; break;
	case 5: hit = (int)old >= (int)cmparg; break;
	default: return -LX_ENOSYS;
	}
	long r = futex_wake_bits(t->mm, uaddr, n, ~0U);
	if (hit)
		r += futex_wake_bits(t->mm, uaddr2, n2, ~0U);
	return r;
}

long sys_futex(struct thread *t, u64 uaddr, u64 op, u64 val, u64 timeout, u64 uaddr2, u64 val3)
{
	if (uaddr & 3)
		return -LX_EINVAL;
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
		return futex_wait(t, uaddr, (uint32_t)val, timeout, false, ~0U, op);
	case FUTEX_WAIT_BITSET:
		return futex_wait(t, uaddr, (uint32_t)val, timeout, true, (uint32_t)val3, op);
	case FUTEX_WAKE:
		return futex_wake_bits(t->mm, uaddr, (int)val, ~0U);
	case FUTEX_WAKE_BITSET:
		return futex_wake_bits(t->mm, uaddr, (int)val, (uint32_t)val3);
	case FUTEX_CMP_REQUEUE: {
		uint32_t cur;
		if (!copyin(t->proc, &cur, uaddr, 4))
			return -LX_EFAULT;
		if (cur != (uint32_t)val3)
			return -LX_EAGAIN;
	}
		/* fall through */
	case FUTEX_REQUEUE:
		return futex_requeue(t, uaddr, (int)val, (int)timeout, uaddr2);
	case FUTEX_WAKE_OP:
		return futex_wake_op(t, uaddr, (int)val, (int)timeout, uaddr2, (uint32_t)val3);
	default:
		return -LX_ENOSYS;
	}
}

/*
 * Kernel keyrings are not there: ENOSYS, as from a Linux built without
 * CONFIG_KEYS, which their users (PAM's session in su) expect and go on
 * without.  Listed so that lx does not log them as unknown.
 */
long sys_add_key(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return -LX_ENOSYS;
}

long sys_request_key(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return -LX_ENOSYS;
}

long sys_keyctl(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return -LX_ENOSYS;
}
