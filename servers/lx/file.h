/* SPDX-License-Identifier: MIT */
/*
 * The file layer's internals shared by file.c, sys_file.c and sys_path.c
 * (the interface the rest of lx uses is lx.h's "file.c" section).
 */
#ifndef LX_FILE_H
#define LX_FILE_H

#include "lx.h"

#define LX_PIPE_BUF   4096          /* writes up to this size are atomic */
#define LX_PIPE_SIZE  (64 * 1024)   /* a pipe's capacity, Linux's default */

extern const struct file_ops reg_ops, dir_ops, pipe_ops;

/* f's access mode allows reading / writing (O_PATH allows neither). */
bool file_readable(const struct file *f);
bool file_writable(const struct file *f);
/* lseek and pread/pwrite apply: f has a position (files, directories, memory devices). */
bool file_seekable(const struct file *f);
bool file_is_pipe(const struct file *f);
/* Give back the last n bytes a read took, which could not reach the process. */
void file_unread(struct file *f, size_t n);
/* fstat of any open file; anonymous pipe ends get a FIFO's answer. */
void file_stat(const struct file *f, struct lx_stat *st);
/* A new pipe: two files, the read end and the write end (refs = 1 each). */
int pipe_new(u32 flags, struct file **rd, struct file **wr);
/* Bytes a read would get now (FIONREAD); -ENOTTY when the file has no such notion. */
long file_nread(struct file *f);
/*
 * file_open_inode returns -EAGAIN for a FIFO opened for writing alone while
 * it has no reader; the open waits on this channel (the FIFO's inode).
 */
void *fifo_open_wchan(struct inode *ip);

/* Close one descriptor: 0, or -EBADF. */
int fd_close(struct proc *p, int fd);
/* Put f (one reference, consumed) at exactly fd, closing what was there. */
void fd_replace(struct proc *p, int fd, struct file *f, bool cloexec);

/* lx's buffer for data on its way to or from a process (lx runs one call at a time). */
#define BOUNCE_SIZE (64 * 1024)
extern char file_bounce[BOUNCE_SIZE];

/* Copy up to n bytes page by page; the count that could be copied before a bad address. */
size_t copyin_part(struct proc *p, void *dst, u64 src, size_t n);
size_t copyout_part(struct proc *p, u64 dst, const void *src, size_t n);

#endif
