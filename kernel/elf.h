/* SPDX-License-Identifier: MIT */
/* Validation of ELF64 boot images; pure, tested on the host. */
#ifndef PECAN_ELF_H
#define PECAN_ELF_H

#include "types.h"

#define ELF_MAX_SEGMENTS 16

struct elf_segment {
	u64 vaddr, paddr, memsz, filesz, offset;
	unsigned rights;            /* MAP_R/W/X as in arch.h: r = 4, w = 2, x = 1 */
};

struct elf_image {
	u64 entry;
	int nsegs;
	struct elf_segment segs[ELF_MAX_SEGMENTS];
	u64 low, high;              /* lowest and highest virtual address loaded, [low, high) */
};

/*
 * Check that img[0..len) is a loadable x86-64 ELF64 executable whose PT_LOAD
 * segments lie inside the file and below user_top, with vaddr and paddr
 * congruent modulo the page size and the entry point inside an executable
 * segment.  Returns NULL and fills *out, or returns a message saying what is wrong.
 */
const char *elf_check(const u8 *img, u64 len, u64 user_top, struct elf_image *out);

#endif
