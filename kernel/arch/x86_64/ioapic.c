// SPDX-License-Identifier: MIT
// The I/O APIC: with several processors it takes the 8259's place for the 16 ISA lines.
#include <arch.h>
#include "ioapic.h"
#include "lapic.h"
#include "../../printk.h"

#define IOREGSEL        0x00
#define IOWIN           0x10
#define IOAPIC_VER      0x01
#define REDIR_LO(gsi)   (0x10 + 2 * (gsi))
#define REDIR_HI(gsi)   (0x11 + 2 * (gsi))
#define REDIR_MASKED    (1u << 16)
#define REDIR_LEVEL     (1u << 15)
#define REDIR_LOW       (1u << 13)
#define VEC_IRQ0        32
#define LAPIC_IRR_32_63 0x210           /* the request bits of vectors 32-63 */

static volatile u32 *regs;
static const struct madt_info *mi;
static unsigned entries;                /* redirection entries */
static u32 redir[ARCH_NUM_IRQS];        /* each ISA line's low word, mask bit included */
/*
 * An I/O APIC drops an edge that comes while its input is masked (the
 * 8259 keeps it in its request register), yet the kernel's contract is
 * that an interrupt on a masked line waits for the unmask (t_irq tests
 * it).  So edge-triggered lines are masked in software only: one that
 * fires while masked is acknowledged and remembered, and its unmask
 * raises it again with a self-IPI.  Level-triggered lines are masked in
 * the I/O APIC, which sees them again after the unmask.
 */
static u16 soft_masked = 0xffff, soft_pending;
bool ioapic_on;

static u32 rd(unsigned reg)
{
	regs[IOREGSEL / 4] = reg;
	return regs[IOWIN / 4];
}

static void wr(unsigned reg, u32 v)
{
	regs[IOREGSEL / 4] = reg;
	regs[IOWIN / 4] = v;
}

/*
 * The entry of ISA line irq, or -1 if the I/O APIC has none for it.  A
 * line whose input another line's override took (QEMU: IRQ 0 at GSI 2, so
 * IRQ 2, the cascade, has none) has no entry either.
 */
static int entry_of(unsigned irq)
{
	u32 gsi = mi->isa_gsi[irq];
	if (gsi < mi->ioapic_gsi_base || gsi - mi->ioapic_gsi_base >= entries)
		return -1;
	for (unsigned j = 0; j < ARCH_NUM_IRQS; j++)
		if (j != irq && mi->isa_gsi[j] == gsi && gsi != j)
			return -1;
	return (int)(gsi - mi->ioapic_gsi_base);
}

static void write_line(unsigned irq)
{
	int e = entry_of(irq);
	if (e >= 0)
		wr(REDIR_LO(e), redir[irq]);
}

/*
 * Route every ISA line to the boot CPU (vector 32 + line, as the PIC's,
 * edge-triggered and active high unless the MADT overrides say otherwise),
 * masked unless unmasked_lines has its bit set.  The 8259s stay masked.
 */
bool ioapic_init(const struct madt_info *m, unsigned boot_apic_id, u16 unmasked_lines)
{
	if (!m->ioapic_phys)
		return false;
	mi = m;
	regs = phys_to_virt(m->ioapic_phys);    /* uncached by the MTRRs, as the local APIC (lapic_map) */
	entries = (rd(IOAPIC_VER) >> 16 & 0xff) + 1;
	for (unsigned irq = 0; irq < ARCH_NUM_IRQS; irq++) {
		int e = entry_of(irq);
		if (e < 0)
			continue;
		u16 fl = m->isa_flags[irq];
		redir[irq] = (VEC_IRQ0 + irq) | REDIR_MASKED | ((fl & 3) == 3 ? REDIR_LOW : 0) |
			     ((fl >> 2 & 3) == 3 ? REDIR_LEVEL : 0);
		if (unmasked_lines & (1u << irq)) {
			redir[irq] &= ~REDIR_MASKED;
			soft_masked &= ~(1u << irq);
		}
		wr(REDIR_HI(e), boot_apic_id << 24);
		write_line(irq);
	}
	ioapic_on = true;
	return true;
}

unsigned ioapic_lines(void)
{
	return entries;
}

static bool level(unsigned irq)
{
	return redir[irq] & REDIR_LEVEL;
}

void ioapic_mask(unsigned irq)
{
	soft_masked |= 1u << irq;
	if (level(irq)) {
		redir[irq] |= REDIR_MASKED;
		write_line(irq);
	}
}

void ioapic_unmask(unsigned irq)
{
	soft_masked &= ~(1u << irq);
	if (level(irq) || (redir[irq] & REDIR_MASKED)) {
		redir[irq] &= ~REDIR_MASKED;
		write_line(irq);
	}
	if (soft_pending & (1u << irq)) {
		soft_pending &= ~(1u << irq);
		lapic_send_self(VEC_IRQ0 + irq);
	}
}

/* End of interrupt; false if the line is masked (the interrupt waits for the unmask). */
bool ioapic_ack(unsigned irq)
{
	lapic_eoi();
	if (!(soft_masked & (1u << irq)))
		return true;
	soft_pending |= 1u << irq;
	return false;
}

/* A line's request waits in the boot CPU's local APIC (the kernel runs with interrupts off). */
bool ioapic_pending(void)
{
	return lapic_read(LAPIC_IRR_32_63) & ((1u << ARCH_NUM_IRQS) - 1);
}
