// SPDX-License-Identifier: MIT
// memfd: an unnamed RAM file (ramfs's fs_new_unnamed) opened read-write,
// and its seals (memfd_create(2), fcntl(2) F_ADD_SEALS/F_GET_SEALS).  The
// seals live in the inode; vfs/ enforces them (fs_seals_allow_write on
// write, fs_truncate, and mmap's shared writable mappings); a write seal
// waits until no shared mapping may write (EBUSY).  Departure: MFD_HUGETLB
// is refused (EINVAL): lx has no huge pages.
#include "../lx.h"
#include "../../../lib/c/string.h"

#define MFD_CLOEXEC       0x01
#define MFD_ALLOW_SEALING 0x02
#define MFD_HUGETLB       0x04
#define MFD_NOEXEC_SEAL   0x08
#define MFD_EXEC          0x10
#define MFD_NAME_MAX      249           /* Linux's, after its "memfd:" prefix */
#define F_ADD_SEALS       1033
#define F_GET_SEALS       1034
#define ALL_SEALS (LX_F_SEAL_SEAL | LX_F_SEAL_SHRINK | LX_F_SEAL_GROW | LX_F_SEAL_WRITE | \
		   LX_F_SEAL_FUTURE_WRITE | LX_F_SEAL_EXEC)

long sys_memfd_create(struct thread *t, u64 uname, u64 flags, u64 a2, u64 a3, u64 a4, u64 a5)
{
	(void)a2, (void)a3, (void)a4, (void)a5;
	char name[MFD_NAME_MAX + 1];
	if ((flags & ~(u64)(MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL | MFD_EXEC)) ||
	    ((flags & MFD_NOEXEC_SEAL) && (flags & MFD_EXEC)))
		return -LX_EINVAL;
	long n = copyin_str(t->proc, name, uname, sizeof(name));
	if (n < 0)
		return n == -LX_ENAMETOOLONG ? -LX_EINVAL : n;
	bool noexec = flags & MFD_NOEXEC_SEAL;
	struct inode *ip = fs_new_unnamed(noexec ? 0666 : 0777);
	if (!ip)
		return -LX_ENOMEM;
	ip->seals = LX_SEALABLE;
	if (noexec)
		ip->seals |= LX_F_SEAL_EXEC;
	else if (!(flags & MFD_ALLOW_SEALING))
		ip->seals |= LX_F_SEAL_SEAL;
	struct file *f;
	long r = file_open_inode(t, ip, LX_O_RDWR, &f);
	fs_put(ip);                     /* the file holds its own reference */
	if (r < 0)
		return r;
	r = fd_install(t->proc, f, 0, flags & MFD_CLOEXEC);
	if (r < 0)
		file_put(f);
	return r;
}

/* Does any process map ip shared and able to write (Linux's i_mmap_writable)? */
static bool mapped_writable(const struct inode *ip)
{
	for (struct proc *p = procs; p; p = p->next_all)
		for (const struct vma *v = !p->zombie && p->mm ? p->mm->vmas : NULL; v; v = v->next)
			if (v->file == ip && (v->prot & VM_SHARED) && !(v->prot & VM_NOWRITE))
				return true;
	return false;
}

/* fcntl's F_ADD_SEALS and F_GET_SEALS; -EINVAL for a file that is no memfd. */
long memfd_fcntl(struct file *f, u64 cmd, u64 arg)
{
	struct inode *ip = f->ip;
	if (!ip || !(ip->seals & LX_SEALABLE))
		return -LX_EINVAL;
	if (cmd == F_GET_SEALS)
		return ip->seals & ALL_SEALS;
	if (!file_writable(f))
		return -LX_EPERM;
	if ((u32)arg & ~ALL_SEALS)
		return -LX_EINVAL;
	if (ip->seals & LX_F_SEAL_SEAL)
		return -LX_EPERM;
	if (((u32)arg & LX_F_SEAL_WRITE) && !(ip->seals & LX_F_SEAL_WRITE) && mapped_writable(ip))
		return -LX_EBUSY;
	ip->seals |= (u32)arg;
	return 0;
}
