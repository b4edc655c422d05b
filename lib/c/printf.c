// SPDX-License-Identifier: MIT
// printf through KDB PrintString, in chunks of a line buffer.
#include "stdio.h"
#include "../fmt/fmt.h"
#include "../drivers/client.h"
#include <l4/kdebug.h>

struct linebuf {
	char buf[128];
	int len;
};

/*
 * Through the user-level console driver once it runs, the kernel debugger
 * before, when the driver fails (dead), and for the driver itself.
 */
static void flush(struct linebuf *lb)
{
	lb->buf[lb->len] = '\0';
	if (!pecan_console || pecan_console == L4_MyGlobalId() || console_write(lb->buf, lb->len) < 0)
		L4_KDB_PrintString(lb->buf);
	lb->len = 0;
}

static void put(char c, void *arg)
{
	struct linebuf *lb = arg;
	lb->buf[lb->len++] = c;
	if (c == '\n' || lb->len == (int)sizeof(lb->buf) - 1)
		flush(lb);
}

int printf(const char *fmt, ...)
{
	struct linebuf lb = { .len = 0 };
	va_list ap;
	va_start(ap, fmt);
	int n = vfmt(put, &lb, fmt, ap);
	va_end(ap);
	if (lb.len)
		flush(&lb);
	return n;
}
