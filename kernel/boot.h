/* SPDX-License-Identifier: MIT */
/* What the boot loader hands the kernel, in a loader-independent form. */
#ifndef PECAN_BOOT_H
#define PECAN_BOOT_H

#include "pmem.h"

struct boot_module {
	u64 start, end;             /* physical [start, end) */
	const char *cmdline;        /* kernel-readable, never NULL */
};

struct boot_info {
	struct mem_map fw;          /* the firmware memory map, as given */
	int nmods;
	struct boot_module mods[CONFIG_MAX_MODULES];
	const char *cmdline;        /* kernel command line, never NULL */
	u64 info_start, info_end;   /* the loader's structures and strings, to keep intact */
};

/*
 * Parse the Multiboot v1 information at physical address mbi, readable at
 * mbi + virt_offset.  Returns NULL on success or a message naming what is wrong.
 */
const char *multiboot_parse(u64 mbi, u64 virt_offset, struct boot_info *bi);
/*
 * Tell the root task (which reads the information at mbi, as the KIP's
 * BootInfo says) that module i, of those multiboot_parse found, now lies at
 * [start, end); false, changing nothing, if that does not fit the 32-bit fields.
 */
bool multiboot_move_module(u64 mbi, u64 virt_offset, int i, u64 start, u64 end);
/* Parse a Multiboot memory map of len bytes into out; NULL or an error message. */
const char *multiboot_parse_mmap(const u8 *buf, u32 len, struct mem_map *out);

#endif
