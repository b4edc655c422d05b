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
	*ip = f->ip;
	return 0;
}

long sys_mmap(struct thread *t, u64 addr, u64 len, u64 prot, u64 flags, u64 fd, u64 off)
{
	u32 type = (u32)flags & LX_MAP_TYPE;
	if (type != LX_MAP_SHARED && type != LX_MAP_PRIVATE && type != 3)
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
	if (!ip && type == LX_MAP_SHARED)
		return map_shared_anon(t, addr, len, prot, flags);
	return vm_mmap(t->proc, addr, len, (u32)prot, (u32)flags, ip, off, writable);
}

long sys_munmap(struct thread *t, u64 addr, u64 len, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2; (void)a3; (void)a4; (void)a5;
	return vm_munmap(t->proc, addr, len);
}

long sys_mprotect(struct thread *t, u64 addr, u64 len, u64 prot, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return vm_mprotect(t->proc, addr, len, (u32)prot);
}

long sys_brk(struct thread *t, u64 brk, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return vm_brk(t->proc, brk);
}

/* mremap: only shrinking in place, or moving to a fresh area by copying. */
long sys_mremap(struct thread *t, u64 old, u64 old_len, u64 new_len, u64 flags, u64 a4, u64 a5)
{
	(void)a4; (void)a5;
	if (old & (LX_PAGE_SIZE - 1))
		return -LX_EINVAL;
	if (new_len <= old_len) {
		u64 cut = (old + new_len + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1);
		u64 end = (old + old_len + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1);
		if (cut < end)
			vm_munmap(t->proc, cut, end - cut);
		return (long)old;
	}
	if (!(flags & 1))                           /* MREMAP_MAYMOVE */
		return -LX_ENOMEM;
	long n = vm_mmap(t->proc, 0, new_len, 3, LX_MAP_PRIVATE | LX_MAP_ANONYMOUS, NULL, 0, false);
	if (n < 0)
		return n;
	char buf[LX_PAGE_SIZE];
	for (u64 done = 0; done < old_len; done += sizeof(buf)) {
		u64 c = old_len - done < sizeof(buf) ? old_len - done : sizeof(buf);
		if (!copyin(t->proc, buf, old + done, c) || !copyout(t->proc, (u64)n + done, buf, c)) {
			vm_munmap(t->proc, (u64)n, new_len);
			return -LX_EFAULT;
		}
	}
	vm_munmap(t->proc, old, old_len);
	return n;
}

long sys_madvise(struct thread *t, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)t; (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	return 0;                                   /* advice only */
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

long sys_mincore(struct thread *t, u64 addr, u64 len, u64 vec, u64 a3, u64 a4, u64 a5)
{
	(void)a3; (void)a4; (void)a5;
	return vm_mincore(t->proc, addr, len, vec);
}
