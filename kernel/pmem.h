/* SPDX-License-Identifier: MIT */
/* Physical memory as sets of ranges: parsing the firmware map, carving out what is used. */
#ifndef PECAN_PMEM_H
#define PECAN_PMEM_H

#include "types.h"
#include "config.h"

enum mem_type { MEM_RAM = 1, MEM_RESERVED = 2 };

struct mem_range {
	u64 base, end;      /* [base, end), 64-bit arithmetic throughout */
	u32 type;
};

struct mem_map {
	int n;
	struct mem_range r[CONFIG_MAX_MEM_RANGES];
};

/* Append a range; false if the table is full or the range is empty/overflowing. */
bool pmem_add(struct mem_map *m, u64 base, u64 end, u32 type);
/* Remove [base, end) from every range, splitting where needed; false (and no change) if full. */
bool pmem_remove(struct mem_map *m, u64 base, u64 end);
/* Sort by base and merge touching or overlapping ranges of the same type. */
void pmem_normalize(struct mem_map *m);
/*
 * Free RAM: the page-aligned parts of RAM ranges in `fw` that no non-RAM
 * range of `fw` overlaps (firmware maps may overlap; reserved wins).
 */
bool pmem_usable(const struct mem_map *fw, struct mem_map *out);
/* Highest size-byte block, aligned, ending at or below `limit`, inside a range. */
bool pmem_find_top(const struct mem_map *m, u64 size, u64 align, u64 limit, u64 *out);
/* Lowest size-byte block, aligned, ending at or below `limit`, inside a range. */
bool pmem_find_low(const struct mem_map *m, u64 size, u64 align, u64 limit, u64 *out);
/* True if [base, end) lies entirely inside one range of m. */
bool pmem_contains(const struct mem_map *m, u64 base, u64 end);
/* True if [base, end) shares a byte with some range of m. */
bool pmem_overlaps(const struct mem_map *m, u64 base, u64 end);
/* Highest end address of any range (0 if none). */
u64 pmem_top(const struct mem_map *m);

#endif
