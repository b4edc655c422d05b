/* SPDX-License-Identifier: MIT */
/*
 * lx's file-system types, each behind vfs/vfs.h's struct fs_ops and none
 * knowing another: ramfs (the in-memory file system, also tmpfs, filled at
 * boot from a cpio archive), procfs (/proc and /sys, generated from the
 * process table), devfs (/dev's character devices), pipefs (pipes and
 * FIFOs) and ext2 (on the disk).
 * ramfs is pure data structures: the host tests run it against the host's heap.
 */
#ifndef LX_FS_H
#define LX_FS_H

#include "../vfs/vfs.h"

/* fs/ramfs.c: a new, empty in-memory file system; NULL without memory */
struct super *ramfs_new(const char *type);
/* An empty ramfs for /tmp and /dev/shm (sticky, writable by all) */
struct super *tmpfs_new(void);
/* An empty ramfs as the root (lx's RAM root; the host tests' tree). */
void fs_init(void);
/* Unmounts and frees everything; no reference may be used afterwards (leak checks). */
void fs_destroy(void);
/* Fill the root file system (a ramfs) from a cpio (newc) archive. */
int fs_load_cpio(const void *archive, size_t len);
/* A regular file with no name (System V shared memory): freed with its last reference. */
struct inode *fs_new_unnamed(uint32_t mode);

/* fs/procfs.c: /proc and /sys, generated from the process table as they are read */
struct super *procfs_new(void);
struct super *sysfs_new(void);

/* fs/devfs.c: /dev with lx's character devices, and their operations */
struct super *devfs_new(void);
const struct file_ops *devfs_chr_ops(u64 rdev);     /* NULL: no such device (ENXIO) */
extern const struct file_ops devfs_null_ops;        /* also O_PATH descriptors' */

/* fs/pipefs.c: pipes and FIFOs */
extern const struct file_ops pipe_ops;
/* A new pipe: two files, the read end and the write end (refs = 1 each). */
int pipe_new(u32 flags, struct file **rd, struct file **wr);
/* Open a FIFO's inode: -EAGAIN for a writer alone while it has no reader, and
 * the open waits on fifo_open_wchan(ip). */
int fifo_open(struct inode *ip, u32 flags, struct file **out);
void *fifo_open_wchan(struct inode *ip);
/* F_GETPIPE_SZ / F_SETPIPE_SZ (fcntl(2)): the capacity; the new capacity or -errno */
u32 pipe_size(struct file *f);
long pipe_set_size(struct file *f, u64 want, bool privileged);
long pipe_nread(struct file *f);                    /* bytes a read would get now */

/* Event files, each in its own fs/ file with its system calls (syscall.h SYSCALLS_EVENT) */
void epoll_file_gone(struct file *f);               /* f's last close: its epoll entries go */
void epoll_wake(void *wchan, int key);              /* from wake(): an edge for ET entries wanting key */
u64 timerfd_next(void);                             /* the earliest armed timer (µs), 0: none */
void timerfd_expire(u64 now);                       /* count expirations and wake readers */
/* fs/ext2.c: the periodic writeback of dirty blocks and pages (deadline in µs, 0: none) */
u64 ext2_next_writeback(void);
void ext2_writeback(u64 now);
/*
 * fs/timerfd.c's timers, shared by POSIX timers (proc/ptimer.c): armed on
 * `clock` (a CLOCK_REALTIME absolute time moves with lx's wall clock),
 * counting expirations in ticks.  A timer without `fire` is woken (its
 * address is the wait channel) and needs the clock only while ticks is 0; one
 * with `fire` is told of every expiration as it is counted and consumes ticks.
 */
struct lx_itimerspec {
	struct lx_timespec interval, value;
};
struct ktimer {
	int clock;
	u64 next;                       /* the next expiration (µs of lx_now_us), 0: disarmed */
	u64 interval;                   /* µs; 0: one shot */
	u64 ticks;                      /* expirations not yet taken */
	struct ktimer *next_armed;
	void (*fire)(struct ktimer *kt);
};
bool ktimer_valid(const struct lx_itimerspec *v);   /* both times: sec >= 0, nsec in range */
void ktimer_arm(struct ktimer *kt, const struct lx_itimerspec *v, bool abstime);   /* 0: disarmed */
void ktimer_disarm(struct ktimer *kt);
struct lx_itimerspec ktimer_get(struct ktimer *kt); /* the time left and the interval */
long memfd_fcntl(struct file *f, u64 cmd, u64 arg);  /* F_ADD_SEALS, F_GET_SEALS */
long pidfd_pid(struct proc *p, int fd);             /* waitid's P_PIDFD: the pid, or -EBADF */
/* fs/inotify.c, for umount2: the references sb's watches hold; they end (IN_UNMOUNT, IN_IGNORED) */
u32 inotify_sb_refs(struct super *sb);
void inotify_unmount(struct super *sb);

/* fs/ext2.c: the ext2 file system on the disk (lib/disk); NULL and *err if it is none */
struct super *ext2_mount_disk(int *err);

#endif
