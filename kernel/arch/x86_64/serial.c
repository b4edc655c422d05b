// SPDX-License-Identifier: MIT
// The kernel's own console: COM1 (16550 UART), polled.
#include <arch.h>
#include "io.h"
#include "../../config.h"

#define COM1 0x3f8

/*
 * Switching the FIFO on empties the receiver (QEMU does so too), so bytes
 * that arrived before the kernel set the port up are kept here for getc.
 */
static u8 early[16];
static unsigned early_n, early_next;

void arch_console_init(void)
{
	while (early_n < sizeof(early) && (inb(COM1 + 5) & 0x01))
		early[early_n++] = inb(COM1);
	outb(COM1 + 1, 0x00);                  /* no interrupts */
	outb(COM1 + 3, 0x80);                  /* DLAB */
	outb(COM1 + 0, CONFIG_COM1_BAUD_DIV & 0xff);
	outb(COM1 + 1, CONFIG_COM1_BAUD_DIV >> 8);
	outb(COM1 + 3, 0x03);                  /* 8N1 */
	outb(COM1 + 2, 0xc1);                  /* FIFO on, 14-byte trigger, nothing cleared */
	outb(COM1 + 4, 0x03);
}

void arch_console_putc(char c)
{
	if (c == '\n')
		arch_console_putc('\r');
	while (!(inb(COM1 + 5) & 0x20))
		;
	outb(COM1, (u8)c);
}

int arch_console_getc(bool block)
{
	if (early_next < early_n)
		return early[early_next++];
	while (!(inb(COM1 + 5) & 0x01))
		if (!block)
			return -1;
	return inb(COM1);
}
