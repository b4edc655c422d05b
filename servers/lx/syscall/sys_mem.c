// SPDX-License-Identifier: MIT
// Memory system calls: areas of the process's logical page table (mm/vm.c).
#include "syscall.h"

#define LX_MAP_ANONYMOUS 0x20
#define LX_MAP_SHARED    0x01
#define LX_MAP_PRIVATE   0x02
#define LX_MAP_TYPE      0x0f

/*
 * MAP_SHARED anonymous memory, and /dev/zero mapped shared, is an unnamed
 * file of the area's size, as Linux's shmem: its pages belong to the file,
 * so every process that inherited the area shares every page, touched
 * before the fork or after.  Mapped like a shared file; the area holds it.
 */
static long map_shared_anon(struct thread *t, u64 addr, u64 len, u64 prot, u64 flags)
{
	struct inode *ip = len ? fs_new_unnamed(0600) : NULL;
	if (len && !ip)
		return -LX_ENOMEM;
	if (ip && fs_truncate(ip, (len + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1)) < 0) {
		fs_put(ip);
		return -LX_ENOMEM;
	}
	long r = vm_mmap(t->proc, addr, len, (u32)prot, (u32)flags & ~LX_MAP_ANONYMOUS, ip, 0, true);
	if (ip)
		fs_put(ip);
	return r;
}

/* The file behind a mapping of fd: a regular file, or NULL for /dev/zero (anonymous memory). */
static long map_file(struct thread *t, u64 fd, u32 type, u64 prot, struct inode **ip, bool *writable)
{
	struct file *f = fd_get(t->proc, (int)fd);
	if (!f)
		return -LX_EBADF;
	if ((f->flags & LX_O_ACCMODE) == LX_O_WRONLY)
		return -LX_EACCES;
	*writable = (f->flags & LX_O_ACCMODE) == LX_O_RDWR;
	if (f->ip && LX_S_ISCHR(f->ip->mode) && f->ip->rdev == DEV_ZERO) {
		*ip = NULL;
		return 0;
	}
	if (!f->ip || !LX_S_ISREG(f->ip->mode))
		return -LX_ENODEV;
	if (type == LX_MAP_SHARED && (prot & 2) && !*writable)
		return -LX_EACCES;
	if (type == LX_MAP_SHARED && (f->ip->seals & (LX_F_SEAL_WRITE | LX_F_SEAL_FUTURE_WRITE))) {
		if (prot & 2)
			return -LX_EPERM;       /* memfd seals: no writable shared mapping */
		*writable = false;          /* nor one made writable later */
	}
	*ip = f->ip;
	return 0;
}

#define PAGE_UP(x) (((x) + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1))

/* Linux's RLIMIT_DATA counts private writable areas that are not the stack. */
static bool is_data(const struct vma *v)
{
	return (v->prot & VM_WRITE) && !(v->prot & (VM_SHARED | VM_STACK));
}

/*
 * Would `more` bytes (data: counted in RLIMIT_DATA too) pass the process's
 * RLIMIT_AS or RLIMIT_DATA?  Then mmap and brk fail with ENOMEM.
 */
static bool over_limit(struct proc *p, u64 more, bool data)
{
	u64 as = p->rlim[LX_RLIMIT_AS][0], dl = p->rlim[LX_RLIMIT_DATA][0], total = 0, d = 0;
	if (as == LX_RLIM_INFINITY && dl == LX_RLIM_INFINITY)
		return false;
	for (const struct vma *v = p->mm->vmas; v; v = v->next) {
		if (v->prot & VM_FAST)
			continue;                   /* lx's, not the program's */
		total += v->end - v->start;
		d += is_data(v) ? v->end - v->start : 0;
	}
	return (as != LX_RLIM_INFINITY && total + more > as) ||
	       (data && dl != LX_RLIM_INFINITY && d + more > dl);
}

long sys_mmap(struct thread *t, u64 addr, u64 len, u64 prot, u64 flags, u64 fd, u64 off)
{
	u32 type = (u32)flags & LX_MAP_TYPE;
	if (!(flags & LX_MAP_ANONYMOUS) && !fd_get(t->proc, (int)fd))
		return -LX_EBADF;                   /* the descriptor first, as Linux */
	/* MAP_SHARED_VALIDATE (3) is for files only, as Linux's */
	if (type != LX_MAP_SHARED && type != LX_MAP_PRIVATE &&
	    (type != 3 || (flags & LX_MAP_ANONYMOUS)))
		return -LX_EINVAL;
	struct inode *ip = NULL;
	bool writable = false;
	if (!(flags & LX_MAP_ANONYMOUS)) {
		long r = map_file(t, fd, type, prot, &ip, &writable);
		if (r)
			return r;
		if (!ip)
			flags |= LX_MAP_ANONYMOUS;      /* /dev/zero */
	}
	if (!len)
		return -LX_EINVAL;
	if (over_limit(t->proc, PAGE_UP(len), (prot & 2) && type == LX_MAP_PRIVATE))
		return -LX_ENOMEM;
	if (!ip && type == LX_MAP_SHARED)
		return map_shared_anon(t, addr, len, prot, flags);
	long r = vm_mmap(t->proc, addr, len, (u32)prot, (u32)flags, ip, off, writable);
	if (r >= 0 && ip)
		vm_set_name(t->proc->mm, (u64)r, (u64)r + len, fd_get(t->proc, (int)fd));
	return r;
}

long sys_munmap(struct thread *t, u64 addr, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return vm_munmap(t->proc, addr, len);
}

long sys_mprotect(struct thread *t, u64 addr, u64 len, u64 prot, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	/* PROT_READ, WRITE, EXEC, SEM and one of GROWSDOWN or GROWSUP, as Linux */
	if ((prot & ~(u64)0x0300000f) || (prot & 0x03000000) == 0x03000000)
		return -LX_EINVAL;
	return vm_mprotect(t->proc, addr, len, (u32)prot);
}

long sys_brk(struct thread *t, u64 brk, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	struct mm *mm = t->proc->mm;
	if (brk > mm->brk && brk >= mm->brk_start && over_limit(t->proc, PAGE_UP(brk) - PAGE_UP(mm->brk), true))
		return (long)mm->brk;               /* refused: the break stays, as Linux's */
	return vm_brk(t->proc, brk);
}

long sys_mremap(struct thread *t, u64 old, u64 old_len, u64 new_len, u64 flags, u64 new_addr,
		u64 a5)
{
	(void)a5;
	return vm_mremap(t->proc, old, old_len, new_len, (u32)flags, new_addr);
}

/* madvise(2)'s advice, as Linux's uapi */
enum {
	LX_MADV_NORMAL, LX_MADV_RANDOM, LX_MADV_SEQUENTIAL, LX_MADV_WILLNEED, LX_MADV_DONTNEED,
	LX_MADV_FREE = 8, LX_MADV_REMOVE, LX_MADV_DONTFORK, LX_MADV_DOFORK, LX_MADV_MERGEABLE,
	LX_MADV_UNMERGEABLE, LX_MADV_HUGEPAGE, LX_MADV_NOHUGEPAGE, LX_MADV_DONTDUMP, LX_MADV_DODUMP,
	LX_MADV_WIPEONFORK, LX_MADV_KEEPONFORK, LX_MADV_COLD, LX_MADV_PAGEOUT,
	LX_MADV_POPULATE_READ, LX_MADV_POPULATE_WRITE, LX_MADV_DONTNEED_LOCKED, LX_MADV_COLLAPSE,
	LX_MADV_HWPOISON = 100, LX_MADV_SOFT_OFFLINE,
};

/* MADV_REMOVE: the hole punched in a shared writable file mapping's file, as
 * fallocate(PUNCH_HOLE) there: its pages go from every mapping. */
static long advise_remove(const struct vma *v, u64 s, u64 e)
{
	if (!v->file || (v->prot & VM_LOCKED))
		return -LX_EINVAL;
	if ((v->prot & (VM_SHARED | VM_WRITE)) != (VM_SHARED | VM_WRITE))
		return -LX_EACCES;
	u64 off = v->off + (s - v->start), len = e - s;
	vm_file_punch(v->file, off, off + len);
	return fs_allocate(v->file, LX_FALLOC_PUNCH_HOLE | LX_FALLOC_KEEP_SIZE, off, len);
}

/* The advice that drops [s, e)'s pages: the next touch finds zeros in private
 * anonymous memory, the file again in a private file mapping, the data kept in a
 * shared one (its pages are the file's, mm/vm.c).  MADV_FREE frees at once, which
 * its "either the old data or zeros" allows. */
static long advise_drop(struct proc *p, const struct vma *v, u64 s, u64 e, int advice)
{
	if ((v->prot & VM_LOCKED) && advice != LX_MADV_DONTNEED_LOCKED)
		return -LX_EINVAL;
	if (advice == LX_MADV_FREE && (v->file || (v->prot & VM_SHARED)))
		return -LX_EINVAL;                  /* anonymous private memory only */
	return vm_discard(p, s, e);
}

/* MADV_(DONT|DO)FORK, MADV_(WIPE|KEEP)ONFORK: marks mm_fork reads. */
static long advise_fork(struct proc *p, const struct vma *v, u64 s, u64 e, int advice)
{
	bool wipe = advice == LX_MADV_WIPEONFORK || advice == LX_MADV_KEEPONFORK;
	if (wipe && (v->file || (v->prot & VM_SHARED)))
		return -LX_EINVAL;                  /* anonymous private memory only */
	u32 flag = wipe ? VM_WIPEONFORK : VM_DONTCOPY;
	bool set = advice == LX_MADV_DONTFORK || advice == LX_MADV_WIPEONFORK;
	return vm_set_flags(p->mm, s, e, set ? flag : 0, set ? 0 : flag);
}

/* One area's part [s, e) of the range: 0 or -errno.  Hints are accepted. */
static long advise_area(struct proc *p, const struct vma *v, u64 s, u64 e, int advice)
{
	if ((v->prot & VM_FAST) && advice > LX_MADV_WILLNEED)
		return -LX_EINVAL;                  /* lx's fast area is not the process's to change */
	switch (advice) {
	case LX_MADV_DONTNEED: case LX_MADV_DONTNEED_LOCKED: case LX_MADV_FREE:
		return advise_drop(p, v, s, e, advice);
	case LX_MADV_REMOVE:
		return advise_remove(v, s, e);
	case LX_MADV_DONTFORK: case LX_MADV_DOFORK: case LX_MADV_WIPEONFORK: case LX_MADV_KEEPONFORK:
		return advise_fork(p, v, s, e, advice);
	case LX_MADV_COLD: case LX_MADV_PAGEOUT:
		return (v->prot & VM_LOCKED) ? -LX_EINVAL : 0;
	default:
		return 0;
	}
}

static bool advice_known(u64 advice)
{
	return (advice <= LX_MADV_COLLAPSE && (advice < 5 || advice > 7)) ||
	       advice == LX_MADV_HWPOISON || advice == LX_MADV_SOFT_OFFLINE;
}

/*
 * madvise(2), as Linux's do_madvise: the advice goes to every area in the
 * range, in order, and the first area's error ends it; a hole in the range
 * gives ENOMEM after the areas around it were advised.  The populate advice
 * stops at a hole instead, as Linux's madvise_populate.
 */
long sys_madvise(struct thread *t, u64 addr, u64 len, u64 advice, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	u64 end = addr + PAGE_UP(len);
	if (!advice_known(advice) || (addr & (LX_PAGE_SIZE - 1)) || (len && !PAGE_UP(len)) ||
	    end < addr)
		return -LX_EINVAL;
	bool populate = advice == LX_MADV_POPULATE_READ || advice == LX_MADV_POPULATE_WRITE;
	long hole = 0;
	for (u64 a = addr; a < end;) {
		const struct vma *v = t->proc->mm->vmas;
		while (v && v->end <= a)
			v = v->next;
		if (!v || v->start > a) {
			hole = -LX_ENOMEM;
			if (!v || v->start >= end || populate)
				break;
			a = v->start;
		}
		u64 e = v->end < end ? v->end : end;
		long r = populate ? vm_populate(t->proc, a, e, advice == LX_MADV_POPULATE_WRITE)
				  : advise_area(t->proc, v, a, e, (int)advice);
		if (r)
			return r;
		a = e;
	}
	return hole;
}

#define LX_MS_ASYNC      1
#define LX_MS_INVALIDATE 2
#define LX_MS_SYNC       4

long sys_msync(struct thread *t, u64 addr, u64 len, u64 flags, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	if ((flags & ~(u64)(LX_MS_ASYNC | LX_MS_INVALIDATE | LX_MS_SYNC)) ||
	    (flags & (LX_MS_ASYNC | LX_MS_SYNC)) == (LX_MS_ASYNC | LX_MS_SYNC))
		return -LX_EINVAL;
	return vm_msync(t->proc, addr, len);
}
