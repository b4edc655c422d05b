/* SPDX-License-Identifier: MIT */
/* ACPI: finding the processors and interrupt controllers in the MADT (pure parsing, host-tested). */
#ifndef ARCH_ACPI_H
#define ARCH_ACPI_H

#include "../../types.h"
#include "../../config.h"

/* What the MADT says about the machine; only enabled processors are listed. */
struct madt_info {
	u32 lapic_phys;                  /* local APIC registers (the same address on every CPU) */
	unsigned ncpus;                  /* enabled processors, at most CONFIG_MAX_CPUS */
	unsigned ignored;                /* enabled processors beyond CONFIG_MAX_CPUS */
	u8 apic_id[CONFIG_MAX_CPUS];     /* in MADT order; the firmware lists the boot CPU first */
	u32 ioapic_phys;                 /* the first I/O APIC, 0 if none */
	u32 ioapic_gsi_base;
	u32 isa_gsi[16];                 /* ISA IRQ n arrives at GSI isa_gsi[n] (overrides applied) */
	u16 isa_flags[16];               /* its MPS flags: polarity bits 0-1, trigger bits 2-3 (0: ISA's) */
};

/*
 * Parse a MADT of len bytes (the whole table, header included).  NULL on
 * success, else why it was refused; checks the signature, the length, the
 * checksum and every entry's length, so a broken table never reads past its end.
 */
const char *madt_parse(const u8 *madt, u32 len, struct madt_info *out);

/*
 * Find the RSDP in the BIOS areas and the MADT through the RSDT (or XSDT);
 * phys_map maps physical memory.  NULL if there is no valid MADT.
 */
const u8 *acpi_find_madt(word_t phys_map, u32 *len);

#endif
