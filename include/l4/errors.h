/* SPDX-License-Identifier: MIT */
/* The one enum of error codes a non-IPC system call leaves in the ErrorCode TCR. */
#ifndef L4_ERRORS_H
#define L4_ERRORS_H

#define L4_ERR_OK               0
#define L4_ERR_NO_PRIVILEGE     1
#define L4_ERR_INVALID_THREAD   2
#define L4_ERR_INVALID_SPACE    3
#define L4_ERR_INVALID_SCHED    4
#define L4_ERR_INVALID_PARAM    5
#define L4_ERR_UTCB_AREA        6
#define L4_ERR_KIP_AREA         7
#define L4_ERR_NO_MEM           8
/* Pecan extension: the system-call number has no implementation. */
#define L4_ERR_NO_SYSCALL       9

/* The exception vector (MR19) of a foreign `syscall`: above every CPU vector. */
#define PECAN_VEC_SYSCALL       0x100

/*
 * Label bit (MR0 bit 16) of an exception handler's reply: with u >= 19,
 * MR19 becomes the faulter's TLS base (FS.base on x86-64), which must be a
 * user-half address or the reply is garbage.  Without it FS.base stays.
 */
#define PECAN_EXC_REPLY_FSBASE  1

/* What a foreign `syscall` without an exception handler returns in RAX (-ENOSYS). */
#define PECAN_FOREIGN_NOSYS     (-38L)

#endif
