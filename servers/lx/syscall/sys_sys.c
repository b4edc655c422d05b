// SPDX-License-Identifier: MIT
// System calls on process attributes and the machine: personality,
// capabilities, scheduling parameters, I/O priority, memory locking,
// protection keys, namespaces, host and domain names, the wall clock,
// chroot, and cross-process calls (kcmp, process_vm_readv/writev).  Each
// follows its man page; where lx has nothing to do (it never swaps, it has
// one CPU and one scheduler) the call checks its arguments as Linux does and
// reports what it keeps.  Privilege is lx_privileged's alone.
#include "syscall.h"
#include "../../../lib/c/string.h"

#define ARGS_UNUSED3 (void)a3; (void)a4; (void)a5

static long put(struct thread *t, u64 uaddr, const void *v, size_t n)
{
	return copyout(t->proc, uaddr, v, n) ? 0 : -LX_EFAULT;
}

/* The process a pid names (0: the caller); NULL for none. */
static struct proc *target(struct thread *t, u64 pid)
{
	if ((int)pid < 0)
		return NULL;
	struct proc *p = pid ? proc_by_pid((int)pid) : t->proc;
	return p && !p->zombie ? p : NULL;
}

#define CAP_FULL_LO 0xffffffffUL          /* capabilities 0..40 (CAP_LAST_CAP, Linux 6.x) */
#define CAP_FULL    (CAP_FULL_LO | (0x1ffUL << 32))
#define SCHED_OTHER 0
#define SCHED_FIFO  1
#define SCHED_RR    2
#define SCHED_BATCH 3
#define SCHED_IDLE  5
#define IOPRIO_CLASS_SHIFT 13

void attrs_default(struct proc *p)
{
	memset(&p->attrs, 0, sizeof(p->attrs));
	p->attrs.dumpable = 1;
	p->attrs.ioprio = 4;                       /* best effort, level 4, as Linux reports */
	if (lx_privileged(p))
		p->attrs.caps[0] = p->attrs.caps[1] = CAP_FULL;
}

/* --- personality(2) --- */

long sys_personality(struct thread *t, u64 persona, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; ARGS_UNUSED3;
	u32 old = t->proc->attrs.personality;
	if ((u32)persona != 0xffffffffU)
		t->proc->attrs.personality = (u32)persona;
	return old;
}

/* --- capget(2), capset(2) --- */

#define CAP_V1 0x19980330U
#define CAP_V2 0x20071026U
#define CAP_V3 0x20080522U

struct cap_header { u32 version; int32_t pid; };
struct cap_data { u32 effective, permitted, inheritable; };

/* The header's version (-EINVAL after writing the preferred one back) and its data count. */
static long cap_version(struct thread *t, u64 hdr, struct cap_header *h)
{
	if (!copyin(t->proc, h, hdr, sizeof(*h)))
		return -LX_EFAULT;
	if (h->version == CAP_V1)
		return 1;
	if (h->version == CAP_V2 || h->version == CAP_V3)
		return 2;
	h->version = CAP_V3;
	return put(t, hdr, &h->version, 4) ? -LX_EFAULT : -LX_EINVAL;
}

long sys_capget(struct thread *t, u64 hdr, u64 data, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	struct cap_header h;
	long n = cap_version(t, hdr, &h);
	if (n < 0)
		return n;
	if (h.pid < 0)
		return -LX_EINVAL;
	struct proc *p = target(t, (u64)h.pid);
	if (!p)
		return -LX_ESRCH;
	if (!data)
		return 0;                           /* a probe of the version */
	struct cap_data d[2];
	for (int i = 0; i < 2; i++)
		d[i] = (struct cap_data){ (u32)(p->attrs.caps[0] >> (32 * i)),
					  (u32)(p->attrs.caps[1] >> (32 * i)),
					  (u32)(p->attrs.caps[2] >> (32 * i)) };
	return put(t, data, d, (size_t)n * sizeof(d[0]));
}

/* Only the caller's own sets; none may grow past the permitted set (EPERM). */
long sys_capset(struct thread *t, u64 hdr, u64 data, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	struct cap_header h;
	long n = cap_version(t, hdr, &h);
	if (n < 0)
		return n;
	if (h.pid != 0 && h.pid != t->proc->pid)
		return -LX_EPERM;
	struct cap_data d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	if (!copyin(t->proc, d, data, (size_t)n * sizeof(d[0])))
		return -LX_EFAULT;
	u64 set[3];
	for (int i = 0; i < 3; i++)
		set[i] = (u64)((u32 *)&d[0])[i] | (u64)((u32 *)&d[1])[i] << 32;
	u64 *cur = t->proc->attrs.caps;
	if ((set[1] & ~cur[1]) || (set[0] & ~set[1]) || (set[2] & ~(cur[2] | cur[1])))
		return -LX_EPERM;
	memcpy(cur, set, sizeof(set));
	return 0;
}

/* --- scheduling parameters (sched(7)): kept and reported; lx has one scheduler --- */

static bool policy_ok(int policy, int prio)
{
	switch (policy) {
	case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE:
		return prio == 0;
	case SCHED_FIFO: case SCHED_RR:
		return prio >= 1 && prio <= 99;
	default:
		return false;
	}
}

static long set_sched(struct thread *t, u64 pid, int policy, u64 uparam)
{
	int32_t prio;
	if (!uparam || (int)pid < 0)
		return -LX_EINVAL;
	if (!copyin(t->proc, &prio, uparam, 4))
		return -LX_EFAULT;
	struct proc *p = target(t, pid);
	if (!p)
		return -LX_ESRCH;
	if (policy < 0)
		policy = p->attrs.sched_policy;
	if (!policy_ok(policy, prio))
		return -LX_EINVAL;
	if ((policy == SCHED_FIFO || policy == SCHED_RR) && !lx_privileged(t->proc))
		return -LX_EPERM;
	p->attrs.sched_policy = policy;
	p->attrs.sched_prio = prio;
	return 0;
}

long sys_sched_setscheduler(struct thread *t, u64 pid, u64 policy, u64 param, u64 a3, u64 a4,
			    u64 a5)
{
	ARGS_UNUSED3;
	if ((int)policy < 0)
		return -LX_EINVAL;
	return set_sched(t, pid, (int)(policy & ~0x40000000UL), param);  /* less SCHED_RESET_ON_FORK */
}

long sys_sched_setparam(struct thread *t, u64 pid, u64 param, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	return set_sched(t, pid, -1, param);
}

long sys_sched_getscheduler(struct thread *t, u64 pid, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; ARGS_UNUSED3;
	if ((int)pid < 0)
		return -LX_EINVAL;
	struct proc *p = target(t, pid);
	return p ? p->attrs.sched_policy : -LX_ESRCH;
}

long sys_sched_getparam(struct thread *t, u64 pid, u64 param, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	if (!param || (int)pid < 0)
		return -LX_EINVAL;
	struct proc *p = target(t, pid);
	if (!p)
		return -LX_ESRCH;
	int32_t prio = p->attrs.sched_prio;
	return put(t, param, &prio, 4);
}

static long prio_range(u64 policy, bool max)
{
	switch ((int)policy) {
	case SCHED_FIFO: case SCHED_RR:
		return max ? 99 : 1;
	case SCHED_OTHER: case SCHED_BATCH: case SCHED_IDLE:
		return 0;
	default:
		return -LX_EINVAL;
	}
}

long sys_sched_get_priority_max(struct thread *t, u64 policy, u64 a1, u64 a2, u64 a3, u64 a4,
				u64 a5)
{
	(void)t; (void)a1; (void)a2; ARGS_UNUSED3;
	return prio_range(policy, true);
}

long sys_sched_get_priority_min(struct thread *t, u64 policy, u64 a1, u64 a2, u64 a3, u64 a4,
				u64 a5)
{
	(void)t; (void)a1; (void)a2; ARGS_UNUSED3;
	return prio_range(policy, false);
}

/* SCHED_RR's quantum is Linux's 100 ms; other policies report 0 (no fixed slice). */
long sys_sched_rr_get_interval(struct thread *t, u64 pid, u64 uts, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	if ((int)pid < 0)
		return -LX_EINVAL;
	struct proc *p = target(t, pid);
	if (!p)
		return -LX_ESRCH;
	struct lx_timespec ts = { 0, p->attrs.sched_policy == SCHED_RR ? 100000000 : 0 };
	return put(t, uts, &ts, sizeof(ts));
}

/* --- ioprio_get(2), ioprio_set(2): per process, IOPRIO_WHO_PROCESS only for pgrp/user too --- */

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_WHO_PGRP    2
#define IOPRIO_WHO_USER    3

long sys_ioprio_get(struct thread *t, u64 which, u64 who, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	if (which < IOPRIO_WHO_PROCESS || which > IOPRIO_WHO_USER)
		return -LX_EINVAL;
	if (which != IOPRIO_WHO_PROCESS)
		return t->proc->attrs.ioprio;       /* everyone is one user in one group here */
	struct proc *p = target(t, who);
	return p ? p->attrs.ioprio : -LX_ESRCH;
}

long sys_ioprio_set(struct thread *t, u64 which, u64 who, u64 ioprio, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	int cls = (int)(ioprio >> IOPRIO_CLASS_SHIFT) & 7, level = (int)ioprio & 7;
	if (which < IOPRIO_WHO_PROCESS || which > IOPRIO_WHO_USER || cls > 3 || (cls == 0 && level))
		return -LX_EINVAL;                  /* (bits 3..12 are hints, as Linux 6.x takes them) */
	if (cls == 1 && !lx_privileged(t->proc))
		return -LX_EPERM;                   /* IOPRIO_CLASS_RT */
	struct proc *p = which == IOPRIO_WHO_PROCESS ? target(t, who) : t->proc;
	if (!p)
		return -LX_ESRCH;
	p->attrs.ioprio = (int)ioprio;
	return 0;
}

/* --- memory locking: lx never pages out, so a locked page is any mapped page --- */

/* [addr, addr+len) rounded to pages is wholly mapped: 0, or -ENOMEM. */
static long range_mapped(struct proc *p, u64 addr, u64 len)
{
	u64 start = addr & ~(LX_PAGE_SIZE - 1), end = (addr + len + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1);
	if (end < start || end > LX_USER_END)
		return -LX_ENOMEM;
	for (const struct vma *v = p->mm->vmas; v && start < end; v = v->next) {
		if (v->end <= start)
			continue;
		if (v->start > start)
			return -LX_ENOMEM;
		start = v->end;
	}
	return start >= end ? 0 : -LX_ENOMEM;
}

/* mlock's pages are made resident, as Linux populates them (unless MLOCK_ONFAULT). */
static long lock_range(struct thread *t, u64 addr, u64 len, bool populate)
{
	u64 lim = t->proc->rlim[8][0];             /* RLIMIT_MEMLOCK */
	if (!lx_privileged(t->proc) && lim != LX_RLIM_INFINITY && len > lim)
		return lim ? -LX_ENOMEM : -LX_EPERM;
	long r = range_mapped(t->proc, addr, len);
	u64 page, end = addr + len;
	u32 rights;
	for (u64 va = addr & ~(LX_PAGE_SIZE - 1); !r && populate && va < end; va += LX_PAGE_SIZE)
		if (vm_fault(t->proc, va, VM_READ, &page, &rights) == -LX_ENOMEM)
			r = -LX_EAGAIN;             /* some of the range could not be made resident */
	if (!r)                                     /* marked: MADV_DONTNEED refuses it */
		r = vm_set_flags(t->proc->mm, addr & ~(LX_PAGE_SIZE - 1),
				 (addr + len + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1),
				 VM_LOCKED, 0);
	return r;
}

long sys_mlock(struct thread *t, u64 addr, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	return lock_range(t, addr, len, true);
}

long sys_mlock2(struct thread *t, u64 addr, u64 len, u64 flags, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	if (flags & ~1UL)                           /* MLOCK_ONFAULT */
		return -LX_EINVAL;
	return lock_range(t, addr, len, !(flags & 1));
}

long sys_munlock(struct thread *t, u64 addr, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	long r = range_mapped(t->proc, addr, len);
	return r ? r : vm_set_flags(t->proc->mm, addr & ~(LX_PAGE_SIZE - 1),
				    (addr + len + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1), 0,
				    VM_LOCKED);
}

long sys_mlockall(struct thread *t, u64 flags, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; ARGS_UNUSED3;
	if (!flags || (flags & ~7UL) || flags == 4)   /* MCL_CURRENT|FUTURE|ONFAULT; ONFAULT alone */
		return -LX_EINVAL;
	u64 lim = t->proc->rlim[8][0];
	if (!lx_privileged(t->proc) && !lim)
		return -LX_EPERM;
	/* MCL_CURRENT marks today's areas; MCL_FUTURE's later areas are not marked */
	return (flags & 1) ? vm_set_flags(t->proc->mm, 0, LX_USER_END, VM_LOCKED, 0) : 0;
}

long sys_munlockall(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0; (void)a1; (void)a2; ARGS_UNUSED3;
	return vm_set_flags(t->proc->mm, 0, LX_USER_END, 0, VM_LOCKED);
}

/* mincore(2): a page is resident once the process's table holds it (lx never pages out). */
long sys_mincore(struct thread *t, u64 addr, u64 len, u64 vec, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	if (addr & (LX_PAGE_SIZE - 1))
		return -LX_EINVAL;
	long r = range_mapped(t->proc, addr, len);
	if (r)
		return r;
	u64 pages = (len + LX_PAGE_SIZE - 1) / LX_PAGE_SIZE;
	uint8_t v[256];
	for (u64 done = 0; done < pages;) {
		u64 n = pages - done < sizeof(v) ? pages - done : sizeof(v);
		for (u64 i = 0; i < n; i++)
			v[i] = vm_resident(t->proc->mm, addr + (done + i) * LX_PAGE_SIZE);
		if (!copyout(t->proc, vec + done, v, n))
			return -LX_EFAULT;
		done += n;
	}
	return 0;
}

/* --- protection keys: as Linux on a CPU without PKU (lx exposes none) --- */

long sys_pkey_alloc(struct thread *t, u64 flags, u64 rights, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; (void)a2; ARGS_UNUSED3;
	if (flags || (rights & ~3UL))
		return -LX_EINVAL;
	return -LX_ENOSPC;
}

long sys_pkey_free(struct thread *t, u64 key, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; (void)key; (void)a1; (void)a2; ARGS_UNUSED3;
	return -LX_EINVAL;                          /* no key was ever allocated */
}

long sys_pkey_mprotect(struct thread *t, u64 addr, u64 len, u64 prot, u64 key, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if ((int)key != -1 && key != 0)            /* key 0 is every page's default */
		return -LX_EINVAL;
	return sys_mprotect(t, addr, len, prot, 0, 0, 0);
}

/* --- namespaces: lx has none (as a kernel built without them) --- */

#define CLONE_FS      0x00000200
#define CLONE_FILES   0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VM      0x00000100
#define CLONE_THREAD  0x00010000
#define CLONE_SYSVSEM 0x00040000
#define CLONE_NS_ALL  0x7e020080UL             /* NEWNS, NEWCGROUP, NEWUTS ... NEWNET, NEWTIME */

long sys_unshare(struct thread *t, u64 flags, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; ARGS_UNUSED3;
	struct proc *p = t->proc;
	u64 known = CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_VM | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_NS_ALL;
	if (flags & ~known)
		return -LX_EINVAL;
	if ((flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) && p->nthreads > 1)
		return -LX_EINVAL;
	if (flags & CLONE_NS_ALL)
		return lx_privileged(p) ? -LX_EINVAL : -LX_EPERM;
	if ((flags & CLONE_FILES) && p->fds->refs > 1) {
		struct fdtable *own = fdtable_dup(p->fds);
		if (!own)
			return -LX_ENOMEM;
		fdtable_put(p->fds);
		p->fds = own;
	}
	return 0;                                   /* the rest is never shared between processes here */
}

long sys_setns(struct thread *t, u64 fd, u64 nstype, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)nstype; (void)a2; ARGS_UNUSED3;
	return fd_get(t->proc, (int)fd) ? -LX_EINVAL : -LX_EBADF;   /* no descriptor names a namespace */
}

/* --- host and domain names (uname(2) reports them) --- */

/* (written only by set_name, which marks lx_uts's copy stale) */
char lx_hostname[65] = LX_UTS_NODENAME, lx_domainname[65] = "(none)";

/* uname(2)'s struct utsname, built again only after set_name changed a name */
static char uts[LX_UTS_FIELDS][65];
static bool uts_stale = true;

const void *lx_uts(void)
{
	if (uts_stale) {
		const char *const fields[LX_UTS_FIELDS] = { "Linux", lx_hostname, LX_UTS_RELEASE,
							    LX_UTS_VERSION, "x86_64", lx_domainname };
		memset(uts, 0, sizeof(uts));
		for (int i = 0; i < LX_UTS_FIELDS; i++)
			memcpy(uts[i], fields[i], strlen(fields[i]));
		uts_stale = false;
	}
	return uts;
}

static long set_name(struct thread *t, char *dst, u64 uname, u64 len)
{
	if (!lx_privileged(t->proc))
		return -LX_EPERM;
	if ((int64_t)len < 0 || len > 64)
		return -LX_EINVAL;
	char tmp[65];
	if (!copyin(t->proc, tmp, uname, len))
		return -LX_EFAULT;
	tmp[len] = 0;
	memcpy(dst, tmp, len + 1);
	uts_stale = true;
	return 0;
}

long sys_sethostname(struct thread *t, u64 name, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	return set_name(t, lx_hostname, name, len);
}

long sys_setdomainname(struct thread *t, u64 name, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; ARGS_UNUSED3;
	return set_name(t, lx_domainname, name, len);
}

/* --- privileged hardware access: lx gives no process the I/O ports --- */

long sys_iopl(struct thread *t, u64 level, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; (void)a1; (void)a2; ARGS_UNUSED3;
	if (level > 3)
		return -LX_EINVAL;
	return level == 0 ? 0 : -LX_EPERM;
}

long sys_ioperm(struct thread *t, u64 from, u64 num, u64 on, u64 a3, u64 a4, u64 a5)
{
	(void)t; ARGS_UNUSED3;
	if (from + num < from || from + num > 65536)
		return -LX_EINVAL;
	return on ? -LX_EPERM : 0;
}

long sys_vhangup(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a0; (void)a1; (void)a2; ARGS_UNUSED3;
	return lx_privileged(t->proc) ? 0 : -LX_EPERM;
}

/* --- chroot(2): the process's root, which the path walk honours for "/" and ".." --- */

long sys_chroot(struct thread *t, u64 upath, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; ARGS_UNUSED3;
	struct proc *p = t->proc;
	char *path = page_alloc();
	if (!path)
		return -LX_ENOMEM;
	long r = copyin_str(p, path, upath, LX_PATH_MAX);
	struct inode *ip = NULL;
	if (r >= 0)
		r = path[0] ? fs_lookup(p->cwd, path, FS_FOLLOW | FS_DIRECTORY, &ip) : -LX_ENOENT;
	page_free(path);
	if (r < 0)
		return r;
	if (!lx_privileged(p)) {
		fs_put(ip);
		return -LX_EPERM;
	}
	fs_put(p->root);
	p->root = ip;
	return 0;
}

/* --- kcmp(2): resources two processes share, ordered by lx's pointers --- */

#define KCMP_FILE 0
#define KCMP_VM 1
#define KCMP_FILES 2
#define KCMP_FS 3
#define KCMP_SIGHAND 4
#define KCMP_IO 5
#define KCMP_SYSVSEM 6

static long order(const void *a, const void *b)
{
	return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? 1 : 2;
}

long sys_kcmp(struct thread *t, u64 pid1, u64 pid2, u64 type, u64 idx1, u64 idx2, u64 a5)
{
	(void)a5;
	struct proc *p1 = pid1 ? proc_by_pid((int)pid1) : NULL, *p2 = pid2 ? proc_by_pid((int)pid2) : NULL;
	if (!p1 || !p2 || p1->zombie || p2->zombie)
		return -LX_ESRCH;
	(void)t;
	switch (type) {
	case KCMP_FILE: {
		struct file *f1 = fd_get(p1, (int)idx1), *f2 = fd_get(p2, (int)idx2);
		return f1 && f2 ? order(f1, f2) : -LX_EBADF;
	}
	case KCMP_VM:
		return order(p1->mm, p2->mm);
	case KCMP_FILES:
		return order(p1->fds, p2->fds);
	case KCMP_SIGHAND:
		return order(p1->sig, p2->sig);
	case KCMP_FS:
	case KCMP_IO:
	case KCMP_SYSVSEM:
		return order(p1, p2);               /* never shared between processes in lx */
	default:
		return -LX_EINVAL;
	}
}

/* --- process_vm_readv(2), process_vm_writev(2) --- */

struct lx_iovec { u64 base, len; };
#define PVM_IOV_MAX 1024

/* Copy between the caller's and p's iovecs, segment by segment: the bytes moved, or -errno. */
static long vm_transfer(struct thread *t, struct proc *p, const struct lx_iovec *l, u64 nl,
			const struct lx_iovec *r, u64 nr, bool write)
{
	static char chunk[LX_PAGE_SIZE];
	long done = 0;
	u64 li = 0, ri = 0, lo = 0, ro = 0;
	while (li < nl && ri < nr) {
		u64 n = l[li].len - lo < r[ri].len - ro ? l[li].len - lo : r[ri].len - ro;
		n = n < sizeof(chunk) ? n : sizeof(chunk);
		if (n) {
			struct proc *from = write ? t->proc : p, *to = write ? p : t->proc;
			u64 src = write ? l[li].base + lo : r[ri].base + ro;
			u64 dst = write ? r[ri].base + ro : l[li].base + lo;
			if (!copyin(from, chunk, src, n) || !copyout(to, dst, chunk, n))
				return done ? done : -LX_EFAULT;
			done += (long)n;
			lo += n, ro += n;
		}
		if (lo == l[li].len)
			li++, lo = 0;
		if (ro == r[ri].len)
			ri++, ro = 0;
	}
	return done;
}

static long process_vm(struct thread *t, u64 pid, u64 liov, u64 nl, u64 riov, u64 nr, u64 flags,
		       bool write)
{
	static struct lx_iovec l[PVM_IOV_MAX], r[PVM_IOV_MAX];
	if (flags || nl > PVM_IOV_MAX || nr > PVM_IOV_MAX)
		return -LX_EINVAL;
	if (!copyin(t->proc, l, liov, nl * sizeof(l[0])) || !copyin(t->proc, r, riov, nr * sizeof(r[0])))
		return -LX_EFAULT;
	struct proc *p = target(t, pid);
	if (!pid || !p)
		return -LX_ESRCH;
	return vm_transfer(t, p, l, nl, r, nr, write);
}

long sys_process_vm_readv(struct thread *t, u64 pid, u64 liov, u64 nl, u64 riov, u64 nr, u64 flags)
{
	return process_vm(t, pid, liov, nl, riov, nr, flags, false);
}

long sys_process_vm_writev(struct thread *t, u64 pid, u64 liov, u64 nl, u64 riov, u64 nr, u64 flags)
{
	return process_vm(t, pid, liov, nl, riov, nr, flags, true);
}

/* --- sched_setattr(2), sched_getattr(2) --- */

struct sched_attr {
	u32 size, policy;
	u64 flags;
	int32_t nice;
	u32 priority;
	u64 runtime, deadline, period;
	u32 util_min, util_max;
};
#define SCHED_ATTR_SIZE_VER0 48
#define SCHED_DEADLINE 6

long sys_sched_getattr(struct thread *t, u64 pid, u64 uattr, u64 size, u64 flags, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (!uattr || (int)pid < 0 || flags || size < SCHED_ATTR_SIZE_VER0 || size > LX_PAGE_SIZE)
		return -LX_EINVAL;
	struct proc *p = target(t, pid);
	if (!p)
		return -LX_ESRCH;
	u32 n = size < sizeof(struct sched_attr) ? (u32)size : (u32)sizeof(struct sched_attr);
	struct sched_attr a = { .size = n, .policy = (u32)p->attrs.sched_policy,
				.priority = (u32)p->attrs.sched_prio };
	return put(t, uattr, &a, n);
}

long sys_sched_setattr(struct thread *t, u64 pid, u64 uattr, u64 flags, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	struct sched_attr a;
	u32 size;
	if (!uattr || (int)pid < 0 || flags)
		return -LX_EINVAL;
	if (!copyin(t->proc, &size, uattr, 4))
		return -LX_EFAULT;
	if (size && (size < SCHED_ATTR_SIZE_VER0 || size > LX_PAGE_SIZE)) {
		u32 want = SCHED_ATTR_SIZE_VER0;
		return put(t, uattr, &want, 4) ? -LX_EFAULT : -LX_E2BIG;
	}
	memset(&a, 0, sizeof(a));
	if (!copyin(t->proc, &a, uattr, SCHED_ATTR_SIZE_VER0))
		return -LX_EFAULT;
	if (a.policy == SCHED_DEADLINE)
		return -LX_EINVAL;                  /* no deadline scheduling in lx */
	if (a.nice < -20 || a.nice > 19 || !policy_ok((int)a.policy, (int)a.priority))
		return -LX_EINVAL;
	struct proc *p = target(t, pid);
	if (!p)
		return -LX_ESRCH;
	if ((a.policy == SCHED_FIFO || a.policy == SCHED_RR) && !lx_privileged(t->proc))
		return -LX_EPERM;
	p->attrs.sched_policy = (int)a.policy;
	p->attrs.sched_prio = (int)a.priority;
	return 0;
}

/* --- NUMA memory policy: one node (0), so every policy names it --- */

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_WEIGHTED_INTERLEAVE 6
#define MPOL_MODE_FLAGS (3U << 14)          /* MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES */

/* The node mask of maxnode bits at umask names only node 0 (or none): 0, -EINVAL or -EFAULT. */
static long node_mask(struct thread *t, u64 umask, u64 maxnode, bool *empty)
{
	*empty = true;
	if (!umask || maxnode < 2)
		return 0;
	if (maxnode > LX_PAGE_SIZE * 8)
		return -LX_EINVAL;
	u64 bits = maxnode - 1;                     /* Linux reads maxnode - 1 bits */
	for (u64 w = 0; w * 64 < bits; w++) {
		u64 word;
		if (!copyin(t->proc, &word, umask + w * 8, 8))
			return -LX_EFAULT;
		if (bits - w * 64 < 64)
			word &= (1UL << (bits - w * 64)) - 1;
		if (word & ~(w ? 0UL : 1UL))
			return -LX_EINVAL;          /* a node that does not exist */
		if (word)
			*empty = false;
	}
	return 0;
}

static long policy_check(struct thread *t, u64 mode, u64 umask, u64 maxnode)
{
	bool empty;
	long r = node_mask(t, umask, maxnode, &empty);
	if (r)
		return r;
	u32 m = (u32)mode & ~MPOL_MODE_FLAGS;
	if (m > MPOL_WEIGHTED_INTERLEAVE || (mode >> 16))
		return -LX_EINVAL;
	if ((m == MPOL_DEFAULT || m == MPOL_LOCAL) && !empty)
		return -LX_EINVAL;
	if ((m == MPOL_BIND || m == MPOL_INTERLEAVE || m == MPOL_PREFERRED_MANY ||
	     m == MPOL_WEIGHTED_INTERLEAVE) && empty)
		return -LX_EINVAL;
	return 0;
}

long sys_set_mempolicy(struct thread *t, u64 mode, u64 umask, u64 maxnode, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	long r = policy_check(t, mode, umask, maxnode);
	if (!r)
		t->proc->attrs.mempolicy = (int)mode;
	return r;
}

long sys_mbind(struct thread *t, u64 addr, u64 len, u64 mode, u64 umask, u64 maxnode, u64 flags)
{
	if ((addr & (LX_PAGE_SIZE - 1)) || (flags & ~7UL))
		return -LX_EINVAL;
	long r = policy_check(t, mode, umask, maxnode);
	return r ? r : range_mapped(t->proc, addr, len) ? -LX_EFAULT : 0;
}

#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2
#define MPOL_F_MEMS_ALLOWED 4

/* get_mempolicy(2): the process's policy (also for an address: mbind keeps
 * none per area); node 0 for MPOL_F_NODE and the allowed mask. */
long sys_get_mempolicy(struct thread *t, u64 umode, u64 umask, u64 maxnode, u64 addr, u64 flags,
		       u64 a5)
{
	(void)a5;
	if (flags & ~7UL)
		return -LX_EINVAL;
	if ((flags & MPOL_F_MEMS_ALLOWED) && (flags & (MPOL_F_NODE | MPOL_F_ADDR)))
		return -LX_EINVAL;
	if (!(flags & MPOL_F_ADDR) && addr)
		return -LX_EINVAL;
	if ((flags & MPOL_F_ADDR) && range_mapped(t->proc, addr, 1))
		return -LX_EFAULT;
	if (umask && maxnode < 2)
		return -LX_EINVAL;
	int32_t mode = (flags & MPOL_F_NODE) ? 0 : t->proc->attrs.mempolicy;   /* node 0 */
	if (umode && put(t, umode, &mode, 4))
		return -LX_EFAULT;
	if (umask) {
		u64 words = (maxnode - 1 + 63) / 64, one = (flags & MPOL_F_MEMS_ALLOWED) ? 1 : 0, zero = 0;
		for (u64 w = 0; w < words; w++)
			if (put(t, umask + w * 8, w ? &zero : &one, 8))
				return -LX_EFAULT;
	}
	return 0;
}

/* migrate_pages(2): every page is on node 0 already; 0 pages could not move. */
long sys_migrate_pages(struct thread *t, u64 pid, u64 maxnode, u64 uold, u64 unew, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	bool empty_old, empty_new;
	long r = node_mask(t, uold, maxnode, &empty_old);
	if (!r)
		r = node_mask(t, unew, maxnode, &empty_new);
	if (r)
		return r;
	return target(t, pid) ? 0 : -LX_ESRCH;
}

#define MPOL_MF_MOVE 2
#define MPOL_MF_MOVE_ALL 4

/* move_pages(2) with one node: each page's status is node 0, or -EFAULT / -ENOENT. */
long sys_move_pages(struct thread *t, u64 pid, u64 count, u64 upages, u64 unodes, u64 ustatus,
		    u64 flags)
{
	if (flags & ~(u64)(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL))
		return -LX_EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && !lx_privileged(t->proc))
		return -LX_EPERM;
	struct proc *p = target(t, pid);
	if (!p)
		return -LX_ESRCH;
	for (u64 i = 0; i < count; i++) {
		u64 va;
		int32_t node = 0, st;
		if (!copyin(t->proc, &va, upages + i * 8, 8) ||
		    (unodes && !copyin(t->proc, &node, unodes + i * 4, 4)))
			return -LX_EFAULT;
		if (node != 0)
			return -LX_ENODEV;
		st = range_mapped(p, va, 1) ? -LX_EFAULT : vm_resident(p->mm, va) ? 0 : -LX_ENOENT;
		if (!copyout(t->proc, ustatus + i * 4, &st, 4))
			return -LX_EFAULT;
	}
	return 0;
}

/* --- reboot(2): every way down powers the machine off (lx cannot restart it) --- */

#define REBOOT_MAGIC1 0xfee1deadU
#define REBOOT_CMD_RESTART 0x01234567U
#define REBOOT_CMD_HALT 0xcdef0123U
#define REBOOT_CMD_POWER_OFF 0x4321fedcU
#define REBOOT_CMD_RESTART2 0xa1b2c3d4U
#define REBOOT_CMD_CAD_ON 0x89abcdefU
#define REBOOT_CMD_CAD_OFF 0U

long sys_reboot(struct thread *t, u64 magic1, u64 magic2, u64 cmd, u64 arg, u64 a4, u64 a5)
{
	(void)arg; (void)a4; (void)a5;
	if (!lx_privileged(t->proc))
		return -LX_EPERM;
	u32 m2 = (u32)magic2;
	if ((u32)magic1 != REBOOT_MAGIC1 ||
	    (m2 != 672274793U && m2 != 85072278U && m2 != 369367448U && m2 != 537993216U))
		return -LX_EINVAL;
	switch ((u32)cmd) {
	case REBOOT_CMD_CAD_ON:
	case REBOOT_CMD_CAD_OFF:
		return 0;
	case REBOOT_CMD_RESTART:
	case REBOOT_CMD_RESTART2:
	case REBOOT_CMD_HALT:
	case REBOOT_CMD_POWER_OFF:
		lx_log("lx: reboot(2) by process %d: powering off\n", t->proc->pid);
		lx_power_off(0);
	default:
		return -LX_EINVAL;
	}
}

/* --- syslog(2): lx's own log lines are the kernel log --- */

#define KLOG_SIZE 16384
static char klog[KLOG_SIZE];
static u64 klog_end, klog_read;             /* bytes ever logged; read by SYSLOG_ACTION_READ */
static u64 klog_clear;                      /* READ_ALL starts here (SYSLOG_ACTION_CLEAR) */
static char klog_chan[1];
#define KLOG_POLL_US 100000                 /* a waiting SYSLOG_ACTION_READ looks again */

/* (No wake here: lx_log runs anywhere, also inside the wait lists' own loops.) */
void klog_append(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		klog[klog_end++ % KLOG_SIZE] = s[i];
}

/* Copy log bytes from *from up to the end to buf (at most len): the count, or -EFAULT. */
static long klog_copy(struct thread *t, u64 buf, u64 len, u64 *from)
{
	if (klog_end - *from > KLOG_SIZE)
		*from = klog_end - KLOG_SIZE;       /* overwritten: the oldest kept */
	u64 n = 0;
	char chunk[256];
	while (*from < klog_end && n < len) {
		u64 c = 0;
		while (c < sizeof(chunk) && *from + c < klog_end && n + c < len) {
			chunk[c] = klog[(*from + c) % KLOG_SIZE];
			c++;
		}
		if (!copyout(t->proc, buf + n, chunk, c))
			return n ? (long)n : -LX_EFAULT;
		n += c;
		*from += c;
	}
	return (long)n;
}

long sys_syslog(struct thread *t, u64 type, u64 buf, u64 len, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	if (type != 3 && type != 10 && !lx_privileged(t->proc))
		return -LX_EPERM;               /* READ_ALL and SIZE_BUFFER are open to all (dmesg_restrict 0) */
	u64 from = klog_clear;
	if ((int)len < 0 && (type == 2 || type == 3 || type == 4))
		return -LX_EINVAL;
	len = (u32)len;                             /* an int in Linux */
	switch (type) {
	case 0: case 1: case 6: case 7:             /* CLOSE, OPEN, CONSOLE_OFF, CONSOLE_ON */
		return 0;
	case 2:                                     /* READ: waits for something unread */
		if (!buf && len)
			return -LX_EINVAL;
		if (!len)
			return 0;
		if (klog_read >= klog_end) {
			block_on(t, klog_chan, lx_now_us() + KLOG_POLL_US);
			return SYS_BLOCK;
		}
		return klog_copy(t, buf, len, &klog_read);
	case 3: case 4: {                           /* READ_ALL, READ_CLEAR */
		if (!buf && len)
			return -LX_EINVAL;
		if (klog_end - from > len)
			from = klog_end - len;          /* the last len bytes */
		long r = klog_copy(t, buf, len, &from);
		if (type == 4 && r >= 0)
			klog_clear = klog_end;
		return r;
	}
	case 5:                                     /* CLEAR */
		klog_clear = klog_end;
		return 0;
	case 8:                                     /* CONSOLE_LEVEL */
		return len >= 1 && len <= 8 ? 0 : -LX_EINVAL;
	case 9:                                     /* SIZE_UNREAD */
		return (long)(klog_end - klog_read < KLOG_SIZE ? klog_end - klog_read : KLOG_SIZE);
	case 10:                                    /* SIZE_BUFFER */
		return KLOG_SIZE;
	default:
		return -LX_EINVAL;
	}
}

/* restart_syscall(2): lx restarts interrupted calls itself and never leaves a
 * restart block, so a direct call gets Linux's answer for none: EINTR. */
long sys_restart_syscall(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; (void)a0; (void)a1; (void)a2; ARGS_UNUSED3;
	return -LX_EINTR;
}

/* --- seccomp(2): strict mode; no filters (as a kernel without CONFIG_SECCOMP_FILTER) --- */

#define SECCOMP_SET_MODE_STRICT 0

bool seccomp_strict_allows(u64 nr)
{
	return nr == 0 || nr == 1 || nr == 60 || nr == 15;     /* read, write, exit, rt_sigreturn */
}

long seccomp_strict_kill(struct thread *t)
{
	proc_exit(t->proc, LX_SIGKILL);
	return SYS_NOREPLY;
}

long seccomp_set_strict(struct thread *t)
{
	t->seccomp_strict = true;
	return 0;
}

long sys_seccomp(struct thread *t, u64 op, u64 flags, u64 uargs, u64 a3, u64 a4, u64 a5)
{
	ARGS_UNUSED3;
	if (op == SECCOMP_SET_MODE_STRICT && !flags && !uargs)
		return seccomp_set_strict(t);
	return -LX_EINVAL;
}
