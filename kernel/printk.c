// SPDX-License-Identifier: MIT
// The kernel's console printer (the serial port) and its ways to stop.
#include "printk.h"
#include "../lib/fmt/fmt.h"
#include <arch.h>

static void console_sink(char c, void *arg)
{
	(void)arg;
	arch_console_putc(c);
}

void printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfmt(console_sink, NULL, fmt, ap);
	va_end(ap);
}

static __attribute__((noreturn)) void vhalt(int status, const char *prefix, const char *fmt, va_list ap)
{
	printk("%s", prefix);
	vfmt(console_sink, NULL, fmt, ap);
	printk("\n");
	arch_poweroff(status);
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vhalt(HALT_PANIC, "pecan: PANIC: ", fmt, ap);
}

void halt_system(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vhalt(status, "pecan: ", fmt, ap);
}
