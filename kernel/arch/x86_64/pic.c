// SPDX-License-Identifier: MIT
// The legacy 8259 PIC pair: vectors 32-47, per-line masks, end of interrupt, spurious lines.
// With several processors the I/O APIC takes over the same lines (ioapic.c, pic_hand_over).
#include <arch.h>
#include "io.h"
#include "ioapic.h"
#include "../../config.h"

#define PIC1_CMD  0x20
#define PIC1_DATA 0x21
#define PIC2_CMD  0xa0
#define PIC2_DATA 0xa1
#define PIC_EOI   0x20
#define PIC_READ_ISR 0x0b
#define PIC_READ_IRR 0x0a
#define CASCADE   2

static u16 mask = 0xffff;     /* bit n set: line n masked */

static void write_mask(void)
{
	outb(PIC1_DATA, mask & 0xff);
	outb(PIC2_DATA, mask >> 8);
}

/* Remap the PICs away from the exception vectors and mask every line. */
void arch_pic_init(void)
{
	outb(PIC1_CMD, 0x11);  outb(PIC2_CMD, 0x11);
	outb(PIC1_DATA, 32);   outb(PIC2_DATA, 40);
	outb(PIC1_DATA, 4);    outb(PIC2_DATA, 2);
	outb(PIC1_DATA, 1);    outb(PIC2_DATA, 1);
	write_mask();
}

/* The I/O APIC takes the lines: returns those unmasked now, and masks them all here. */
u16 pic_hand_over(void)
{
	u16 unmasked = ~mask & ~(1u << CASCADE);
	mask = 0xffff;
	write_mask();
	return unmasked;
}

void arch_irq_mask(unsigned irq)
{
	if (CONFIG_IOAPIC && unlikely(ioapic_on)) {
		ioapic_mask(irq);
		return;
	}
	mask |= 1u << irq;
	write_mask();
}

void arch_irq_unmask(unsigned irq)
{
	if (CONFIG_IOAPIC && unlikely(ioapic_on)) {
		ioapic_unmask(irq);
		return;
	}
	mask &= ~(1u << irq);
	if (irq >= 8)
		mask &= ~(1u << CASCADE);
	write_mask();
}

/*
 * Acknowledge line irq at the PICs.  False for a spurious IRQ 7 or 15 (its
 * in-service bit is clear): then nothing was delivered and, for 15, only
 * the master (which did see the cascade) gets its EOI.
 */
bool arch_irq_ack(unsigned irq)
{
	if (CONFIG_IOAPIC && unlikely(ioapic_on))
		return ioapic_ack(irq);
	if (irq == 7 || irq == 15) {
		u16 cmd = irq == 7 ? PIC1_CMD : PIC2_CMD;
		outb(cmd, PIC_READ_ISR);
		bool real = inb(cmd) & 0x80;
		if (!real) {
			if (irq == 15)
				outb(PIC1_CMD, PIC_EOI);
			return false;
		}
	}
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
	return true;
}

/* The request registers, read through OCW3 (arch_irq_ack selects the ISR again before it reads). */
bool arch_irq_pending(void)
{
	if (CONFIG_IOAPIC && unlikely(ioapic_on))
		return ioapic_pending();
	outb(PIC1_CMD, PIC_READ_IRR);
	outb(PIC2_CMD, PIC_READ_IRR);
	u16 irr = inb(PIC1_CMD) | (u16)inb(PIC2_CMD) << 8;
	return irr & ~mask & ~(1u << CASCADE);
}
