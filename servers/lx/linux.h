/* SPDX-License-Identifier: MIT */
/*
 * The Linux x86-64 user ABI as lx implements it: error numbers, flags and
 * the structures programs pass through system calls.  Values are the
 * kernel's (asm-generic and x86-64 uapi); names carry an LX_ prefix where
 * they would clash with a host libc's in the host tests.
 */
#ifndef LX_LINUX_H
#define LX_LINUX_H

#include <stdint.h>

/* the end of the user half that access_ok checks (x86-64, 4-level paging) */
#define LX_TASK_SIZE_MAX 0x7ffffffff000UL

/* errno */
#define LX_EPERM    1
#define LX_ENOENT   2
#define LX_ESRCH    3
#define LX_EINTR    4
#define LX_EIO      5
#define LX_ENXIO    6
#define LX_E2BIG    7
#define LX_ENOEXEC  8
#define LX_ELIBBAD  80          /* a broken ELF interpreter */
#define LX_EBADF    9
#define LX_ECHILD   10
#define LX_EAGAIN   11
#define LX_ENOMEM   12
#define LX_EACCES   13
#define LX_EFAULT   14
#define LX_EBUSY    16
#define LX_EEXIST   17
#define LX_EXDEV    18
#define LX_ENODEV   19
#define LX_ENOTDIR  20
#define LX_EISDIR   21
#define LX_EINVAL   22
#define LX_ENFILE   23
#define LX_EMFILE   24
#define LX_ENOTTY   25
#define LX_ETXTBSY  26
#define LX_EFBIG    27
#define LX_ENOSPC   28
#define LX_ESPIPE   29
#define LX_EROFS    30
#define LX_EMLINK   31
#define LX_EPIPE    32
#define LX_EDOM     33
#define LX_ERANGE   34
#define LX_EDEADLK  35
#define LX_ENAMETOOLONG 36
#define LX_ENOSYS   38
#define LX_ENOTEMPTY 39
#define LX_ELOOP    40
#define LX_ENOTSOCK 88
#define LX_EDESTADDRREQ 89
#define LX_EMSGSIZE 90
#define LX_EPROTOTYPE 91
#define LX_ENOPROTOOPT 92
#define LX_EPROTONOSUPPORT 93
#define LX_ESOCKTNOSUPPORT 94
#define LX_EOPNOTSUPP 95
#define LX_EAFNOSUPPORT 97
#define LX_EADDRINUSE 98
#define LX_ENOTCONN 107
#define LX_ECONNREFUSED 111
#define LX_EISCONN  106
#define LX_ETIMEDOUT 110
#define LX_ECONNRESET 104
#define LX_ENOLCK   37
#define LX_EOVERFLOW 75
/* the network's (net/inet.c) */
#define LX_EADDRNOTAVAIL 99
#define LX_ENETDOWN   100
#define LX_ENETUNREACH 101
#define LX_ENOBUFS    105
#define LX_EALREADY   114
#define LX_EINPROGRESS 115
#define LX_ERESTART 512     /* internal: restart the call after a handler with SA_RESTART */

/* file types and permissions (st_mode) */
#define LX_S_IFMT   0170000
#define LX_S_IFSOCK 0140000
#define LX_S_IFLNK  0120000
#define LX_S_IFREG  0100000
#define LX_S_IFBLK  0060000
#define LX_S_IFDIR  0040000
#define LX_S_IFCHR  0020000
#define LX_S_IFIFO  0010000
#define LX_S_ISUID  04000
#define LX_S_ISGID  02000
#define LX_S_ISVTX  01000
#define LX_S_ISDIR(m) (((m) & LX_S_IFMT) == LX_S_IFDIR)
#define LX_S_ISREG(m) (((m) & LX_S_IFMT) == LX_S_IFREG)
#define LX_S_ISLNK(m) (((m) & LX_S_IFMT) == LX_S_IFLNK)
#define LX_S_ISCHR(m) (((m) & LX_S_IFMT) == LX_S_IFCHR)
#define LX_S_ISFIFO(m) (((m) & LX_S_IFMT) == LX_S_IFIFO)
#define LX_S_ISSOCK(m) (((m) & LX_S_IFMT) == LX_S_IFSOCK)

/* open flags */
#define LX_O_ACCMODE   03
#define LX_O_RDONLY    00
#define LX_O_WRONLY    01
#define LX_O_RDWR      02
#define LX_O_CREAT     0100
#define LX_O_EXCL      0200
#define LX_O_NOCTTY    0400
#define LX_O_TRUNC     01000
#define LX_O_APPEND    02000
#define LX_O_NONBLOCK  04000
#define LX_O_DIRECTORY 0200000
#define LX_O_NOFOLLOW  0400000
#define LX_O_CLOEXEC   02000000
#define LX_O_PATH      010000000
#define LX_AT_FDCWD    (-100)
#define LX_AT_SYMLINK_NOFOLLOW 0x100
#define LX_AT_REMOVEDIR 0x200
#define LX_AT_SYMLINK_FOLLOW 0x400
#define LX_AT_EMPTY_PATH 0x1000

struct lx_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct lx_timeval {
	int64_t tv_sec;
	int64_t tv_usec;
};

/* struct stat of x86-64 (144 bytes) */
struct lx_stat {
	uint64_t st_dev;
	uint64_t st_ino;
	uint64_t st_nlink;
	uint32_t st_mode;
	uint32_t st_uid;
	uint32_t st_gid;
	uint32_t __pad0;
	uint64_t st_rdev;
	int64_t st_size;
	int64_t st_blksize;
	int64_t st_blocks;          /* 512-byte units */
	struct lx_timespec st_atim;
	struct lx_timespec st_mtim;
	struct lx_timespec st_ctim;
	int64_t __unused[3];
};

/* getdents64 records: 8-byte aligned, d_reclen covers the padded name */
struct lx_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};
#define LX_DT_UNKNOWN 0
#define LX_DT_FIFO 1
#define LX_DT_CHR  2
#define LX_DT_DIR  4
#define LX_DT_BLK  6
#define LX_DT_REG  8
#define LX_DT_LNK  10
#define LX_DT_SOCK 12

#define LX_NAME_MAX 255
#define LX_PATH_MAX 4096
#define LX_SYMLOOP_MAX 40

#endif
