// SPDX-License-Identifier: MIT
// System calls on time, the machine, limits and thread-local storage.
#include "syscall.h"
#include "../../../lib/c/string.h"

#define NOARGS (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5
/* lx has no real-time clock: wall time starts at 2026-01-01 00:00 UTC at boot. */
static long put(struct thread *t, u64 uaddr, const void *v, size_t n)
{
	return copyout(t->proc, uaddr, v, n) ? 0 : -LX_EFAULT;
}

static struct lx_timespec ts_of(u64 us)
{
	return (struct lx_timespec){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) * 1000 };
}

#define FAR_US (1UL << 61)     /* about 73,000 years: later times are that far, sums stay in range */

long copyin_timespec_us(struct thread *t, u64 uaddr, u64 *us)
{
	struct lx_timespec ts;
	if (!copyin(t->proc, &ts, uaddr, sizeof(ts)))
		return -LX_EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -LX_EINVAL;
	if ((u64)ts.tv_sec >= FAR_US / 1000000)
		*us = FAR_US;
	else
		*us = (u64)ts.tv_sec * 1000000 + (u64)(ts.tv_nsec + 999) / 1000;
	return 0;
}

/* CLOCK_REALTIME's distance from boot's clock is vdso/vdso.c's (the vDSO reads it too). */
u64 lx_clock_us(u64 clk)
{
	return lx_clock_ns(clk) / 1000;
}

u64 wall_to_boot_us(u64 wall_us)
{
	u64 off = (u64)lx_wall_offset_ns() / 1000;
	return wall_us > off ? wall_us - off : 1;
}

/* Set CLOCK_REALTIME to `ns` ns since the epoch. */
static long set_wall(struct thread *t, u64 ns)
{
	if (!lx_privileged(t->proc))
		return -LX_EPERM;
	lx_set_wall_ns(ns);
	return 0;
}

long sys_clock_settime(struct thread *t, u64 clk, u64 tp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct lx_timespec ts;
	if (!copyin(t->proc, &ts, tp, sizeof(ts)))
		return -LX_EFAULT;
	if (clk != 0)
		return -LX_EINVAL;                  /* only CLOCK_REALTIME can be set */
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -LX_EINVAL;
	return set_wall(t, (u64)ts.tv_sec * 1000000000 + (u64)ts.tv_nsec);
}

long sys_settimeofday(struct thread *t, u64 tv, u64 tz, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	struct lx_timeval v;
	int32_t zone[2];
	if (tv && !copyin(t->proc, &v, tv, sizeof(v)))
		return -LX_EFAULT;
	if (tz && !copyin(t->proc, zone, tz, sizeof(zone)))
		return -LX_EFAULT;
	if (tz && (zone[0] < -15 * 60 || zone[0] > 15 * 60))
		return -LX_EINVAL;
	if (tv && (v.tv_sec < 0 || v.tv_usec < 0 || v.tv_usec >= 1000000))
		return -LX_EINVAL;
	if (!lx_privileged(t->proc))
		return -LX_EPERM;
	return tv ? set_wall(t, ((u64)v.tv_sec * 1000000 + (u64)v.tv_usec) * 1000) : 0;
}

/*
 * adjtimex(2) reads the clock's state: unsynchronised (TIME_ERROR, as Linux
 * without an NTP daemon), no offset or frequency correction, 1 µs precision.  Changing it (modes other than 0
 * and ADJ_OFFSET_SS_READ) is refused: lx's clock cannot be slewed.
 */
static long timex(struct thread *t, u64 buf)
{
	struct { u32 modes; int32_t pad; int64_t offset, freq, maxerror, esterror; int32_t status, pad2;
		 int64_t constant, precision, tolerance; struct lx_timeval time; int64_t tick;
		 int64_t rest[14]; } tx;
	_Static_assert(sizeof(tx) == 208, "struct timex");
	if (!copyin(t->proc, &tx, buf, sizeof(tx)))
		return -LX_EFAULT;
	if (tx.modes != 0 && tx.modes != 0xa001)
		return -LX_EPERM;
	u64 us = lx_clock_us(0);
	memset(&tx, 0, sizeof(tx));
	tx.maxerror = 16000000;                     /* NTP_PHASE_LIMIT: nothing synchronised it */
	tx.status = 0x40;                           /* STA_UNSYNC */
	tx.constant = 2;
	tx.precision = 1;
	tx.tolerance = 32768000;
	tx.time = (struct lx_timeval){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) };
	tx.tick = 10000;
	return put(t, buf, &tx, sizeof(tx)) ? -LX_EFAULT : 5;   /* TIME_ERROR: unsynchronised, as Linux without NTP */
}

long sys_adjtimex(struct thread *t, u64 buf, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return timex(t, buf);
}

long sys_clock_adjtime(struct thread *t, u64 clk, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (clk > 11)
		return -LX_EINVAL;
	return clk == 0 ? timex(t, buf) : -LX_EOPNOTSUPP;
}


/* A thread of p by its Linux ID. */
static struct thread *thread_in(struct proc *p, int tid)
{
	for (struct thread *t = p ? p->threads : NULL; t; t = t->next_in_proc)
		if (t->tid_linux == tid)
			return t;
	return NULL;
}

int cpu_clock_target(struct thread *t, u64 clk, int *pid, int *tid)
{
	*pid = *tid = 0;
	if (clk == 2 || clk == 3) {             /* CLOCK_PROCESS_CPUTIME_ID, THREAD_CPUTIME_ID */
		*pid = t->proc->pid;
		*tid = clk == 3 ? t->tid_linux : 0;
		return 0;
	}
	int id = (int)~((int64_t)clk >> 3);
	if ((int64_t)clk >= 0 || (clk & 3) == 3 || (int64_t)clk < -((int64_t)1 << 34))
		return -LX_EINVAL;
	if (clk & 4) {                          /* a thread's: of the caller's process only */
		*pid = t->proc->pid;
		*tid = id ? id : t->tid_linux;
		return thread_in(t->proc, *tid) ? 0 : -LX_EINVAL;
	}
	*pid = id ? id : t->proc->pid;
	struct proc *p = proc_by_pid(*pid);
	return p && !p->zombie ? 0 : -LX_EINVAL;
}

bool cpu_clock_now(int pid, int tid, u64 *us)
{
	struct proc *p = proc_by_pid(pid);
	struct thread *th = tid ? thread_in(p, tid) : NULL;
	if (!p || (tid && !th))
		return false;
	*us = th ? th->utime_us : p->utime_us;
	return true;
}

/*
 * The ns clock clk reads for t: a wall clock's (ns, as the vDSO reads it), or a
 * CPU-time clock's (µs precision); EINVAL if none.  *res: its resolution in ns.
 */
static long clock_read(struct thread *t, u64 clk, u64 *ns, u64 *res)
{
	int pid, tid;
	if (clk == 10)
		return -LX_EINVAL;                      /* CLOCK_SGI_CYCLE is gone from Linux */
	if (clk <= 11 && clk != 2 && clk != 3) {
		*ns = lx_clock_ns(clk);
		*res = 1;
		return 0;
	}
	long r = cpu_clock_target(t, clk, &pid, &tid);
	if (r < 0 || !cpu_clock_now(pid, tid, ns))
		return r < 0 ? r : -LX_EINVAL;
	*ns *= 1000;
	*res = 1000;
	return 0;
}

long sys_clock_gettime(struct thread *t, u64 clk, u64 tp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	u64 ns, res;
	long r = clock_read(t, clk, &ns, &res);
	if (r < 0)
		return r;
	struct lx_timespec ts = { (int64_t)(ns / 1000000000), (int64_t)(ns % 1000000000) };
	return put(t, tp, &ts, sizeof(ts));
}

long sys_clock_getres(struct thread *t, u64 clk, u64 tp, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	u64 ns, res;
	if (clock_read(t, clk, &ns, &res) < 0)
		return -LX_EINVAL;
	struct lx_timespec ts = { 0, (int64_t)res };
	return tp ? put(t, tp, &ts, sizeof(ts)) : 0;
}

long sys_gettimeofday(struct thread *t, u64 tv, u64 tz, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	u64 us = lx_clock_us(0);
	struct lx_timeval v = { (int64_t)(us / 1000000), (int64_t)(us % 1000000) };
	int32_t zone[2] = { 0, 0 };
	if (tv && put(t, tv, &v, sizeof(v)))
		return -LX_EFAULT;
	return tz ? put(t, tz, zone, sizeof(zone)) : 0;
}

long sys_time(struct thread *t, u64 tloc, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	int64_t s = (int64_t)(lx_clock_us(0) / 1000000);
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
		long r = copyin_timespec_us(t, req, &us);
		if (r < 0)
			return r;
		t->call_deadline = lx_now_us() + us;
	}
	return sleep_until(t, t->call_deadline, rem);
}

long sys_clock_nanosleep(struct thread *t, u64 clk, u64 flags, u64 req, u64 rem, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (clk > 11)
		return -LX_EINVAL;
	if (clk == 3)
		return -LX_EOPNOTSUPP;  /* CLOCK_THREAD_CPUTIME_ID has no sleep, as Linux's kernel says */
	if (t->fresh) {
		u64 us;
		long r = copyin_timespec_us(t, req, &us);
		if (r < 0)
			return r;
		if (flags & 1) {                    /* TIMER_ABSTIME */
			u64 base = lx_clock_us(clk) - lx_now_us();
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
	return put(t, buf, lx_uts(), LX_UTS_FIELDS * 65);
}

long sys_sysinfo(struct thread *t, u64 buf, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	u64 info[14] = { 0 };
	info[0] = (lx_now_us() + 999999) / 1000000;  /* a second begun counts, as Linux's */
	info[4] = pool_total_bytes();
	info[5] = page_free_count() * LX_PAGE_SIZE;
	info[10] = (u64)proc_count();               /* procs, a u16 at byte 80 */
	info[13] = 1;                               /* mem_unit, a u32 at byte 104 */
	return put(t, buf, info, 112);
}

static struct lx_timeval tv_of(u64 us)
{
	return (struct lx_timeval){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) };
}

/* times(2): clock ticks of 10 ms, as AT_CLKTCK says; CPU times as proc/cputime.c counts them. */
long sys_times(struct thread *t, u64 buf, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	u64 ticks = lx_now_us() / 10000, tms[4];
	cpu_times(t->proc, false, &tms[0], &tms[1]);
	cpu_times(t->proc, true, &tms[2], &tms[3]);
	for (int i = 0; i < 4; i++)
		tms[i] /= 10000;
	if (buf && put(t, buf, tms, sizeof(tms)))
		return -LX_EFAULT;
	return (long)ticks;
}

#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD 1

/* struct rusage: the times, maxrss in KiB; lx counts no faults, I/O or switches. */
long rusage_put(struct thread *t, u64 buf, struct proc *p, bool children)
{
	struct { struct lx_timeval utime, stime; int64_t rest[14]; } ru;
	memset(&ru, 0, sizeof(ru));
	u64 user, sys;
	cpu_times(p, children, &user, &sys);
	ru.utime = tv_of(user);
	ru.stime = tv_of(sys);
	if (!children && p->mm)
		ru.rest[0] = (int64_t)(p->mm->pages * (LX_PAGE_SIZE / 1024));
	return put(t, buf, &ru, sizeof(ru));
}

/* RUSAGE_THREAD answers the process's figures: lx counts per process. */
long sys_getrusage(struct thread *t, u64 who, u64 buf, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	int w = (int)who;
	if (w != RUSAGE_SELF && w != RUSAGE_CHILDREN && w != RUSAGE_THREAD)
		return -LX_EINVAL;
	return rusage_put(t, buf, t->proc, w == RUSAGE_CHILDREN);
}

/* --- limits --- */

#define RLIM_INFINITY LX_RLIM_INFINITY
#define RLIMIT_MEMLOCK 8
#define RLIMIT_MSGQUEUE 12
#define RLIMIT_NLIMITS LX_RLIMIT_NLIMITS
#define NOFILE_SOFT 1024                /* Linux's INR_OPEN_CUR and INR_OPEN_MAX */
#define NOFILE_HARD 4096

/* Privilege (CAP_SYS_ADMIN, CAP_SYS_RESOURCE, ...): effective user root. */
bool lx_privileged(struct proc *p)
{
	return p->cred.euid == 0;             /* root's capabilities, as docs/lx.md says */
}

/* init's limits, as Linux's defaults (docs/lx.md, "Limits"). */
void rlimits_default(struct proc *p)
{
	for (int r = 0; r < RLIMIT_NLIMITS; r++)
		p->rlim[r][0] = p->rlim[r][1] = RLIM_INFINITY;
	p->rlim[LX_RLIMIT_STACK][0] = LX_STACK_SIZE;
	p->rlim[LX_RLIMIT_CORE][0] = 0;
	p->rlim[LX_RLIMIT_NOFILE][0] = NOFILE_SOFT;
	p->rlim[LX_RLIMIT_NOFILE][1] = NOFILE_HARD;
	p->rlim[LX_RLIMIT_NPROC][0] = p->rlim[LX_RLIMIT_NPROC][1] = LX_MAX_PROCS;
	p->rlim[RLIMIT_MEMLOCK][0] = p->rlim[RLIMIT_MEMLOCK][1] = 8UL << 20;
	p->rlim[RLIMIT_MSGQUEUE][0] = p->rlim[RLIMIT_MSGQUEUE][1] = 819200;
	p->rlim[13][0] = p->rlim[13][1] = 0;        /* RLIMIT_NICE */
	p->rlim[14][0] = p->rlim[14][1] = 0;        /* RLIMIT_RTPRIO */
	p->rlim[11][0] = p->rlim[11][1] = LX_MAX_PROCS;   /* RLIMIT_SIGPENDING */
}

/*
 * prlimit64(2): limits are kept per process and inherited.  As Linux: a soft
 * limit above its hard one is EINVAL; raising a hard limit needs privilege
 * (EPERM), and RLIMIT_NOFILE's never goes past LX_NFD (nr_open, EPERM).
 * RLIMIT_CPU's new soft limit restarts its SIGXCPU clock.
 */
long sys_prlimit64(struct thread *t, u64 pid, u64 res, u64 nlim, u64 olim, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (res >= RLIMIT_NLIMITS)
		return -LX_EINVAL;
	struct proc *p = pid ? proc_by_pid((int)pid) : t->proc;
	if (!p || (int)pid < 0)
		return -LX_ESRCH;
	u64 want[2];
	if (nlim && !copyin(t->proc, want, nlim, sizeof(want)))
		return -LX_EFAULT;
	if (nlim && want[0] > want[1])
		return -LX_EINVAL;
	if (nlim && ((want[1] > p->rlim[res][1] && !lx_privileged(t->proc)) ||
		     (res == LX_RLIMIT_NOFILE && want[1] > LX_NFD)))
		return -LX_EPERM;
	if (olim && put(t, olim, p->rlim[res], sizeof(p->rlim[res])))
		return -LX_EFAULT;
	if (!nlim)
		return 0;
	p->rlim[res][0] = want[0];
	p->rlim[res][1] = want[1];
	if (res == LX_RLIMIT_CPU)
		cpu_limit_changed(p);
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

#define PRIO_PROCESS 0
#define PRIO_USER 2

/*
 * getpriority(2)/setpriority(2): a nice value per process, kept and
 * reported (lx schedules every process alike).  A process group or user
 * means every process in it (one user while everyone is root).
 */
static bool prio_who(struct thread *t, struct proc *p, int which, int who)
{
	if (which == PRIO_PROCESS)
		return p->pid == (who ? who : t->proc->pid);
	if (which == PRIO_USER)
		return who == 0;
	return p->pgid == (who ? who : t->proc->pgid);
}

long sys_getpriority(struct thread *t, u64 which, u64 who, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	if (which > PRIO_USER)
		return -LX_EINVAL;
	int best = 99;
	for (struct proc *p = procs; p; p = p->next_all)
		if (!p->zombie && prio_who(t, p, (int)which, (int)who) && p->attrs.nice < best)
			best = p->attrs.nice;
	return best == 99 ? -LX_ESRCH : 20 - best;  /* the kernel's encoding: 20 - nice */
}

long sys_setpriority(struct thread *t, u64 which, u64 who, u64 niceval, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	if (which > PRIO_USER)
		return -LX_EINVAL;
	int nice = (int)niceval < -20 ? -20 : (int)niceval > 19 ? 19 : (int)niceval;
	long r = -LX_ESRCH;
	for (struct proc *p = procs; p; p = p->next_all) {
		if (p->zombie || !prio_who(t, p, (int)which, (int)who))
			continue;
		if (nice < p->attrs.nice && !lx_privileged(t->proc))
			return -LX_EACCES;
		p->attrs.nice = nice;
		r = 0;
	}
	return r;
}

#define PR_GET_DUMPABLE 3
#define PR_SET_DUMPABLE 4
#define PR_SET_CHILD_SUBREAPER 36
#define PR_GET_CHILD_SUBREAPER 37
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39

/* prctl's flags: set (checked as Linux checks them) and read back. */
static long prctl_flag(struct thread *t, int op, u64 arg, u64 a2, u64 a3, u64 a4)
{
	struct proc *p = t->proc;
	int32_t v;
	switch (op) {
	case 21:                                    /* PR_GET_SECCOMP (strict mode never gets here) */
		return 0;
	case 22:                                    /* PR_SET_SECCOMP */
		return arg == 1 ? seccomp_set_strict(t) : -LX_EINVAL;
	case PR_GET_DUMPABLE:
		return p->attrs.dumpable;
	case PR_SET_DUMPABLE:
		if (arg > 1)
			return -LX_EINVAL;
		p->attrs.dumpable = (u32)arg;
		return 0;
	case PR_SET_CHILD_SUBREAPER:
		p->subreaper = arg != 0;
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		v = p->subreaper;
		return put(t, arg, &v, 4);
	case PR_SET_NO_NEW_PRIVS:
		if (arg != 1 || a2 || a3 || a4)
			return -LX_EINVAL;
		p->attrs.no_new_privs = true;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (arg || a2 || a3 || a4)
			return -LX_EINVAL;
		return p->attrs.no_new_privs;
	default:
		return -LX_EINVAL;
	}
}

long sys_prctl(struct thread *t, u64 op, u64 arg, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a5;
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
	if (op == 1) {                              /* PR_SET_PDEATHSIG: sent when the parent exits */
		if (arg > LX_NSIG)
			return -LX_EINVAL;
		p->pdeath_sig = (int)arg;
		return 0;
	}
	if (op == 2) {                              /* PR_GET_PDEATHSIG */
		int32_t sig = p->pdeath_sig;
		return put(t, arg, &sig, 4);
	}
	return prctl_flag(t, (int)op, arg, a2, a3, a4);
}

/* The thread affinity calls name: 0 the caller, else a live thread by Linux thread ID. */
static struct thread *affinity_target(struct thread *t, u64 tid)
{
	if (!tid)
		return t;
	struct thread *o = thread_by_linux_tid((int)tid);
	return o && !o->proc->zombie && (int)tid > 0 ? o : NULL;
}

/* The mask is one word (at most 64 processors): len must hold it, in whole words. */
long sys_sched_getaffinity(struct thread *t, u64 pid, u64 len, u64 mask, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	if (len < 8 || (len & 7))
		return -LX_EINVAL;
	struct thread *o = affinity_target(t, pid);
	if (!o)
		return -LX_ESRCH;
	return put(t, mask, &o->cpus_allowed, 8) ? -LX_EFAULT : 8;
}

/* The mask's first word counts (bytes past len read as zero), as Linux's first cpumask word. */
long sys_sched_setaffinity(struct thread *t, u64 pid, u64 len, u64 mask, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	u64 want = 0;
	if (len && !copyin(t->proc, &want, mask, len < 8 ? len : 8))
		return -LX_EFAULT;
	struct thread *o = affinity_target(t, pid);
	if (!o)
		return -LX_ESRCH;
	return cpu_set_affinity(o, want);
}

/* The caller's home processor (lx moves threads only by sched_setaffinity); one node. */
long sys_getcpu(struct thread *t, u64 cpu, u64 node, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	uint32_t here = t->cpu, zero = 0;
	if (cpu && put(t, cpu, &here, 4))
		return -LX_EFAULT;
	return node ? put(t, node, &zero, 4) : 0;
}

long sys_membarrier(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; NOARGS;
	return a0 == 0 ? 0 : -LX_EINVAL;            /* QUERY: no command is offered */
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

/*
 * rseq: registration succeeds and the CPU fields read the thread's home
 * processor (proc/cpu.c rewrites them when it moves the thread).  lx never
 * restarts a critical section when it preempts one; programs that only read
 * the CPU number (glibc's sched_getcpu) are served.
 */
long sys_rseq(struct thread *t, u64 rseq, u64 len, u64 flags, u64 sig, u64 a4, u64 a5)
{
	(void)sig; (void)a4; (void)a5;
	if (flags & 1) {                            /* unregister */
		t->rseq = 0;
		return 0;
	}
	if (len < 32 || (rseq & 31))
		return -LX_EINVAL;
	uint32_t cpu[2] = { t->cpu, t->cpu };
	long r = put(t, rseq, cpu, sizeof(cpu));
	if (!r)
		t->rseq = rseq;
	return r;
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
