// SPDX-License-Identifier: MIT
// /dev: a small ramfs holding lx's character devices (their operations are
// vfs/file.c's, chosen by st_rdev when opened) and /dev/shm's mount point.
#include "../lx.h"

struct super *devfs_new(void)
{
	static const struct { const char *name; u64 rdev; } devs[] = {
		{ "null", DEV_NULL }, { "zero", DEV_ZERO }, { "full", DEV_FULL },
		{ "random", DEV_RANDOM }, { "urandom", DEV_URANDOM }, { "tty", DEV_TTY },
		{ "console", DEV_CONSOLE },
	};
	struct super *sb = ramfs_new("devfs");
	struct inode *ip;
	if (!sb)
		return NULL;
	for (unsigned i = 0; i < sizeof(devs) / sizeof(devs[0]); i++)
		if (!fs_create(sb->root, devs[i].name, LX_S_IFCHR | 0666, devs[i].rdev, &ip))
			fs_put(ip);
	if (!fs_create(sb->root, "shm", LX_S_IFDIR | 01777, 0, &ip))
		fs_put(ip);
	return sb;
}
