/* SPDX-License-Identifier: MIT */
/* printf for user programs, through the kernel debugger's PrintString for now. */
#ifndef PECAN_STDIO_H
#define PECAN_STDIO_H

int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
