// SPDX-License-Identifier: MIT
// The kernel's own console: COM1 (16550 UART), polled.
#include <arch.h>
#include "io.h"
#include "../../config.h"

#define COM1 0x3f8

/*
 * Switching the FIFO on or off empties the receiver (QEMU's UART too), and
 * bytes piped in before the kernel set the port up would be lost: the FIFO
 * stays as the firmware left it (IIR bits 6-7 say whether it is on).
 */
void arch_console_init(void)
{
	bool fifo = (inb(COM1 + 2) & 0xc0) == 0xc0;
	outb(COM1 + 1, 0x00);                  /* no interrupts */
	outb(COM1 + 3, 0x80);                  /* DLAB */
	outb(COM1 + 0, CONFIG_COM1_BAUD_DIV & 0xff);
	outb(COM1 + 1, CONFIG_COM1_BAUD_DIV >> 8);
	outb(COM1 + 3, 0x03);                  /* 8N1 */
	if (fifo)
		outb(COM1 + 2, 0xc1);          /* 14-byte trigger; nothing cleared */
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
	while (!(inb(COM1 + 5) & 0x01))
		if (!block)
			return -1;
	return inb(COM1);
}
