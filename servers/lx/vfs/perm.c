// SPDX-License-Identifier: MIT
/*
 * Permissions (vfs/vfs.h): the one check of an inode's mode bits against
 * the caller's credentials (fs_cred), as Linux's generic_permission, and
 * the rules built on it that every file-system type shares: open(2)'s,
 * a new inode's owner, and the owner tests of chmod, chown and utimensat.
 * The path walk and the fs_* entry points (vfs/namei.c) and the system
 * calls (syscall/sys_path.c, proc/exec.c) call them; no type checks again.
 */
#include "vfs.h"
#include "../mm/mm.h"

const struct cred *fs_cred;

#define LX_O_NOATIME 01000000

bool fs_is_root(void)
{
	return !fs_cred || fs_cred->fsuid == 0;
}

/* The groups are sorted: a binary search, as Linux's groups_search. */
static bool in_groups(const struct group_info *g, u32 gid)
{
	if (!g)
		return false;
	u32 lo = 0, hi = g->n;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		if (g->gid[mid] == gid)
			return true;
		if (g->gid[mid] < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool fs_in_group(u32 gid)
{
	return !fs_cred || fs_cred->fsgid == gid || in_groups(fs_cred->groups, gid);
}

bool fs_owner_or_root(const struct inode *ip)
{
	return fs_is_root() || fs_cred->fsuid == ip->uid;
}

/* The rwx bits that apply to the caller: the owner's, else the group's, else others'. */
static u32 class_bits(const struct inode *ip)
{
	if (fs_cred->fsuid == ip->uid)
		return (ip->mode >> 6) & 7;
	if (fs_in_group(ip->gid))
		return (ip->mode >> 3) & 7;
	return ip->mode & 7;
}

/*
 * Root (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) may do anything but execute
 * a file that is not a directory and has no x bit at all.
 */
int fs_permission(const struct inode *ip, int mask)
{
	mask &= FS_MAY_READ | FS_MAY_WRITE | FS_MAY_EXEC;
	if (fs_is_root()) {
		bool exec_file = (mask & FS_MAY_EXEC) && !LX_S_ISDIR(ip->mode);
		return exec_file && !(ip->mode & 0111) ? -LX_EACCES : 0;
	}
	return ((u32)mask & ~class_bits(ip)) ? -LX_EACCES : 0;
}

/* open(2)'s access mode as FS_MAY_* bits: O_TRUNC wants write too, O_PATH nothing. */
static int open_mask(u32 flags)
{
	if (flags & LX_O_PATH)
		return 0;
	static const int acc[4] = {FS_MAY_READ, FS_MAY_WRITE, FS_MAY_READ | FS_MAY_WRITE,
				   FS_MAY_READ | FS_MAY_WRITE};
	int mask = acc[flags & LX_O_ACCMODE];
	return (flags & LX_O_TRUNC) ? mask | FS_MAY_WRITE : mask;
}

int fs_may_open(const struct inode *ip, u32 flags)
{
	int mask = open_mask(flags);
	if (LX_S_ISDIR(ip->mode) && (mask & FS_MAY_WRITE))
		return -LX_EISDIR;
	int r = fs_permission(ip, mask);
	if (r == 0 && (flags & LX_O_NOATIME) && !(flags & LX_O_PATH) && !fs_owner_or_root(ip))
		r = -LX_EPERM;
	return r;
}

/*
 * The owner is fsuid; the group fsgid, or dir's when dir is set-group-ID,
 * and then a new directory is set-group-ID too.  A new file's S_ISGID with
 * S_IXGRP stays only for members of dir's group or root (mode_strip_sgid).
 */
void fs_init_owner(struct inode *ip, const struct inode *dir)
{
	ip->uid = fs_cred ? fs_cred->fsuid : 0;
	ip->gid = fs_cred ? fs_cred->fsgid : 0;
	if (dir->mode & LX_S_ISGID) {
		ip->gid = dir->gid;
		if (LX_S_ISDIR(ip->mode))
			ip->mode |= LX_S_ISGID;
	}
	u32 sx = LX_S_ISGID | 0010;
	if (!LX_S_ISDIR(ip->mode) && (ip->mode & sx) == sx && !fs_in_group(dir->gid) &&
	    !fs_is_root())
		ip->mode &= ~(u32)LX_S_ISGID;
}

/*
 * Linux's setattr_should_drop_sgid: a group-executable S_ISGID goes,
 * another only when the caller is neither in the file's group nor root.
 */
bool fs_drop_sgid(const struct inode *ip)
{
	if (!(ip->mode & LX_S_ISGID))
		return false;
	return (ip->mode & 0010) || (!fs_in_group(ip->gid) && !fs_is_root());
}

struct group_info *groups_new(u32 n)
{
	struct group_info *g = lx_malloc(sizeof(*g) + (size_t)n * sizeof(u32));
	if (g) {
		g->refs = 1;
		g->n = n;
	}
	return g;
}

void groups_put(struct group_info *g)
{
	if (g && --g->refs == 0)
		lx_free(g);
}
