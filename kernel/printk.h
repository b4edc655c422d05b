/* SPDX-License-Identifier: MIT */
/* Kernel console output, and how the kernel stops when it must. */
#ifndef PECAN_PRINTK_H
#define PECAN_PRINTK_H

/* Exit statuses written to QEMU's isa-debug-exit (tools/run maps them back). */
enum halt_status {
	HALT_OK = 0,            /* an orderly power-off */
	HALT_PANIC = 3,         /* kernel invariant broken */
	HALT_KERNEL_FAULT = 4,  /* CPU exception in kernel mode */
	HALT_BAD_BOOT = 5,      /* missing or invalid boot modules or memory map */
	HALT_IDLE = 6,          /* no thread can ever run again (pecan.deadlock=poweroff) */
};

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void halt_system(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

#endif
