/* SPDX-License-Identifier: MIT */
/* printf-style formatting into a character sink; shared by kernel and user code. */
#ifndef PECAN_FMT_H
#define PECAN_FMT_H

#include <stdarg.h>

typedef void (*fmt_sink_t)(char c, void *arg);

/* Supports %c %s %d %i %u %o %x %X %p %%, flags '-' '0', a width, and l/ll/z. */
int vfmt(fmt_sink_t sink, void *arg, const char *fmt, va_list ap);
int snfmt(char *buf, unsigned long size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vsnfmt(char *buf, unsigned long size, const char *fmt, va_list ap);

#endif
