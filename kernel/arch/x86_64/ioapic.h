/* SPDX-License-Identifier: MIT */
/* The I/O APIC in place of the 8259s when several processors run (pic.c dispatches). */
#ifndef ARCH_IOAPIC_H
#define ARCH_IOAPIC_H

#include "acpi.h"

extern bool ioapic_on;                  /* the ISA lines come through the I/O APIC */
/* false (and the PIC stays) if the MADT lists no I/O APIC */
bool ioapic_init(const struct madt_info *m, unsigned boot_apic_id, u16 unmasked_lines);
unsigned ioapic_lines(void);            /* its redirection entries */
void ioapic_mask(unsigned irq);
void ioapic_unmask(unsigned irq);
bool ioapic_ack(unsigned irq);          /* EOI; false if the line is masked (delivered at its unmask) */
bool ioapic_pending(void);

#endif
