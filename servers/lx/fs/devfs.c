// SPDX-License-Identifier: MIT
// /dev: a small ramfs holding lx's character devices, /dev/shm's mount
// point and the links /dev/fd, /dev/std{in,out,err}, and the devices' file operations, chosen by st_rdev when a
// character-device inode is opened (on any file system).
#include "../lx.h"
#include "../../../lib/c/string.h"


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
	/* the disk, as a block device only mount(2) uses (its ext2: syscall/sys_mount.c);
	 * opening it gives ENXIO */
	if (!fs_create(sb->root, "sda", LX_S_IFBLK | 0660, LX_MKDEV(8, 0), &ip))
		fs_put(ip);
	if (!fs_create(sb->root, "shm", LX_S_IFDIR | 01777, 0, &ip))
		fs_put(ip);
	/* as udev makes them: a process's descriptors through /proc (fs/procfs.c) */
	static const char *const links[][2] = {
		{ "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" },
		{ "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
	};
	for (unsigned i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		fs_symlink(sb->root, links[i][0], links[i][1]);
	return sb;
}

/* --- memory devices --- */

static long null_read(struct file *f, void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return 0;
}

static long null_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf;
	return (long)n;
}

/*
 * write(2) to /dev/null and /dev/zero never reads the buffer: Linux checks
 * only that it lies in the user half (access_ok), so a buffer there that is
 * not mapped still counts as written, and one beyond it is EFAULT.
 */
static long null_write_user(struct file *f, struct proc *p, u64 uaddr, size_t n)
{
	(void)f, (void)p;
	if (uaddr + n < uaddr || uaddr + n > LX_TASK_SIZE_MAX)
		return -LX_EFAULT;
	return (long)n;
}

static long zero_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	size_t words = n >> 3, bytes = n & 7;
	__asm__ volatile("rep stosq" : "+D"(buf), "+c"(words) : "a"(0UL) : "memory");
	__asm__ volatile("rep stosb" : "+D"(buf), "+c"(bytes) : "a"(0UL) : "memory");
	return (long)n;
}

static long full_write(struct file *f, const void *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return -LX_ENOSPC;
}

static long random_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	return lx_random(buf, n);
}

const struct file_ops devfs_null_ops = {
	.read = null_read, .write = null_write, .write_user = null_write_user, .poll = file_always_ready, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl,
};
static const struct file_ops zero_ops = {
	.read = zero_read, .write = null_write, .write_user = null_write_user, .poll = file_always_ready, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl,
};
static const struct file_ops full_ops = {
	.read = zero_read, .write = full_write, .poll = file_always_ready, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl,
};
static const struct file_ops random_ops = {
	.read = random_read, .write = null_write, .poll = file_always_ready, .wchan = file_no_wchan,
	.ioctl = file_no_ioctl,
};

const struct file_ops *devfs_chr_ops(u64 rdev)
{
	switch (rdev) {
	case DEV_NULL: return &devfs_null_ops;
	case DEV_ZERO: return &zero_ops;
	case DEV_FULL: return &full_ops;
	case DEV_RANDOM:
	case DEV_URANDOM: return &random_ops;
	case DEV_TTY:
	case DEV_CONSOLE: return &tty_ops;
	default: return NULL;
	}
}
