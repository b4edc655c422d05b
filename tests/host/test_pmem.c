// SPDX-License-Identifier: MIT
// Host tests of the physical-memory range arithmetic (kernel/pmem.c).
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "pmem.h"
#include "../../lib/test/test.h"

#define TIB (1UL << 40)
#define GIB (1UL << 30)

static char why[512];

/* True if m holds exactly the n ranges of want, in order; else explains in `why`. */
static bool map_eq(const struct mem_map *m, const struct mem_range *want, int n)
{
	if (m->n != n) {
		snprintf(why, sizeof(why), "expected %d ranges, got %d", n, m->n);
		return false;
	}
	for (int i = 0; i < n; i++)
		if (m->r[i].base != want[i].base || m->r[i].end != want[i].end ||
		    m->r[i].type != want[i].type) {
			snprintf(why, sizeof(why), "range %d: expected %lx-%lx type %u, got %lx-%lx type %u",
				 i, want[i].base, want[i].end, want[i].type,
				 m->r[i].base, m->r[i].end, m->r[i].type);
			return false;
		}
	return true;
}

/* Like map_eq, but in any order (for ranges with equal bases). */
static bool map_set_eq(const struct mem_map *m, const struct mem_range *want, int n)
{
	if (m->n != n) {
		snprintf(why, sizeof(why), "expected %d ranges, got %d", n, m->n);
		return false;
	}
	for (int i = 0; i < n; i++) {
		bool found = false;
		for (int j = 0; j < m->n; j++)
			found |= m->r[j].base == want[i].base && m->r[j].end == want[i].end &&
				 m->r[j].type == want[i].type;
		if (!found) {
			snprintf(why, sizeof(why), "missing %lx-%lx type %u", want[i].base, want[i].end, want[i].type);
			return false;
		}
	}
	return true;
}

#define RANGES(...) ((const struct mem_range[]){ __VA_ARGS__ })
#define NRANGES(...) ((int)(sizeof(RANGES(__VA_ARGS__)) / sizeof(struct mem_range)))
#define MAP_IS(m, ...) map_eq((m), RANGES(__VA_ARGS__), NRANGES(__VA_ARGS__))
#define MAP_HOLDS(m, ...) map_set_eq((m), RANGES(__VA_ARGS__), NRANGES(__VA_ARGS__))

static struct mem_map one_range(u64 base, u64 end)
{
	struct mem_map m = { 0 };
	pmem_add(&m, base, end, MEM_RAM);
	return m;
}

/* --- pmem_add --- */

TEST_CASE("pmem.add_appends", "pmem_add appends ranges in order with their types") {
	struct mem_map m = { 0 };
	EXPECT(pmem_add(&m, 0x5000, 0x6000, MEM_RAM), "add failed");
	EXPECT(pmem_add(&m, 0x1000, 0x2000, MEM_RESERVED), "add failed");
	EXPECT(MAP_IS(&m, { 0x5000, 0x6000, MEM_RAM }, { 0x1000, 0x2000, MEM_RESERVED }), "%s", why);
}

TEST_CASE("pmem.add_rejects_empty", "pmem_add refuses empty and inverted ranges") {
	struct mem_map m = { 0 };
	EXPECT(!pmem_add(&m, 0x1000, 0x1000, MEM_RAM), "empty range accepted");
	EXPECT(!pmem_add(&m, 0x2000, 0x1000, MEM_RAM), "inverted range accepted");
	EXPECT(!pmem_add(&m, ~0UL, 0, MEM_RAM), "wrapped range accepted");
	EXPECT(m.n == 0, "table changed: n = %d", m.n);
}

TEST_CASE("pmem.add_table_full", "pmem_add returns false once CONFIG_MAX_MEM_RANGES ranges are stored") {
	struct mem_map m = { 0 };
	for (int i = 0; i < CONFIG_MAX_MEM_RANGES; i++)
		EXPECT(pmem_add(&m, (u64)i * 0x2000, (u64)i * 0x2000 + 0x1000, MEM_RAM), "add %d failed", i);
	EXPECT(!pmem_add(&m, 0x10000000, 0x10001000, MEM_RAM), "add past the end of the table accepted");
	EXPECT(m.n == CONFIG_MAX_MEM_RANGES, "n = %d", m.n);
	EXPECT(m.r[CONFIG_MAX_MEM_RANGES - 1].base == (u64)(CONFIG_MAX_MEM_RANGES - 1) * 0x2000,
	       "last entry overwritten");
}

/* --- pmem_remove --- */

TEST_CASE("pmem.remove_splits", "removing from the middle of a range splits it in two") {
	struct mem_map m = one_range(0x1000, 0x10000);
	EXPECT(pmem_remove(&m, 0x4000, 0x5000), "remove failed");
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x4000, MEM_RAM }, { 0x5000, 0x10000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.remove_split_keeps_type", "the upper half of a split range keeps its type") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0x10000, MEM_RESERVED);
	EXPECT(pmem_remove(&m, 0x2000, 0x3000), "remove failed");
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x2000, MEM_RESERVED }, { 0x3000, 0x10000, MEM_RESERVED }), "%s", why);
}

TEST_CASE("pmem.remove_trims_low", "removing the start of a range moves its base up") {
	struct mem_map m = one_range(0x1000, 0x10000);
	EXPECT(pmem_remove(&m, 0x0, 0x3000), "remove failed");
	EXPECT(MAP_IS(&m, { 0x3000, 0x10000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.remove_trims_high", "removing the end of a range moves its end down") {
	struct mem_map m = one_range(0x1000, 0x10000);
	EXPECT(pmem_remove(&m, 0xc000, 0x20000), "remove failed");
	EXPECT(MAP_IS(&m, { 0x1000, 0xc000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.remove_exact_edges", "removing a prefix or suffix that shares an edge trims without splitting") {
	struct mem_map m = one_range(0x1000, 0x10000);
	EXPECT(pmem_remove(&m, 0x1000, 0x2000), "remove failed");
	EXPECT(pmem_remove(&m, 0xf000, 0x10000), "remove failed");
	EXPECT(MAP_IS(&m, { 0x2000, 0xf000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.remove_everything", "removing a covering range drops every range it covers") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0x2000, MEM_RAM);
	pmem_add(&m, 0x3000, 0x4000, MEM_RESERVED);
	pmem_add(&m, 0x8000, 0x9000, MEM_RAM);
	pmem_add(&m, 0x20000, 0x30000, MEM_RAM);
	EXPECT(pmem_remove(&m, 0x1000, 0x9000), "remove failed");
	EXPECT(MAP_IS(&m, { 0x20000, 0x30000, MEM_RAM }), "%s", why);
	EXPECT(pmem_remove(&m, 0, ~0UL), "remove failed");
	EXPECT(m.n == 0, "n = %d after removing everything", m.n);
}

TEST_CASE("pmem.remove_exact_range", "removing exactly a range drops just that range") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0x2000, MEM_RAM);
	pmem_add(&m, 0x2000, 0x3000, MEM_RAM);
	pmem_add(&m, 0x3000, 0x4000, MEM_RAM);
	EXPECT(pmem_remove(&m, 0x2000, 0x3000), "remove failed");
	EXPECT(m.n == 2, "%d ranges after the remove, not 2 (normalize would hide an empty one)", m.n);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x2000, MEM_RAM }, { 0x3000, 0x4000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.remove_nothing", "removing a disjoint, touching or empty range changes nothing") {
	struct mem_map m = one_range(0x4000, 0x8000);
	EXPECT(pmem_remove(&m, 0x1000, 0x4000), "remove of range touching below failed");
	EXPECT(pmem_remove(&m, 0x8000, 0x9000), "remove of range touching above failed");
	EXPECT(pmem_remove(&m, 0x10000, 0x20000), "remove of disjoint range failed");
	EXPECT(pmem_remove(&m, 0x5000, 0x5000), "remove of empty range failed");
	EXPECT(pmem_remove(&m, 0x6000, 0x5000), "remove of inverted range failed");
	EXPECT(MAP_IS(&m, { 0x4000, 0x8000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.remove_overlapping_ranges", "remove cuts every overlapping range, including overlapping duplicates") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0x9000, MEM_RAM);
	pmem_add(&m, 0x1000, 0x9000, MEM_RAM);
	pmem_add(&m, 0x4000, 0xc000, MEM_RESERVED);
	EXPECT(pmem_remove(&m, 0x3000, 0x6000), "remove failed");
	pmem_normalize(&m);
	EXPECT(MAP_HOLDS(&m, { 0x1000, 0x3000, MEM_RAM }, { 0x6000, 0x9000, MEM_RAM },
			 { 0x6000, 0xc000, MEM_RESERVED }), "%s", why);
}

TEST_CASE("pmem.remove_split_table_full", "a split that needs a new entry in a full table returns false") {
	struct mem_map m = { 0 };
	for (int i = 0; i < CONFIG_MAX_MEM_RANGES; i++)
		pmem_add(&m, (u64)i * 0x10000, (u64)i * 0x10000 + 0x8000, MEM_RAM);
	struct mem_map before = m;
	EXPECT(!pmem_remove(&m, 0x2000, 0x3000), "split in a full table reported success");
	EXPECT(m.n == CONFIG_MAX_MEM_RANGES, "n = %d", m.n);
	EXPECT(!memcmp(&before, &m, sizeof(m)), "a refused remove changed the map");
	/* a trim needs no new entry and still works in a full table */
	EXPECT(pmem_remove(&m, 0x10000, 0x11000), "trim in a full table failed");
}

TEST_CASE("pmem.remove_64bit", "remove works on ranges above 4 GiB without truncation") {
	struct mem_map m = one_range(4 * GIB, 2 * TIB);
	EXPECT(pmem_remove(&m, 0xfd00000000UL, TIB), "remove failed");
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 4 * GIB, 0xfd00000000UL, MEM_RAM }, { TIB, 2 * TIB, MEM_RAM }), "%s", why);
}

/* --- pmem_normalize --- */

TEST_CASE("pmem.normalize_sorts", "normalize sorts disjoint ranges by base") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x9000, 0xa000, MEM_RAM);
	pmem_add(&m, 0x1000, 0x2000, MEM_RESERVED);
	pmem_add(&m, 4 * GIB, 8 * GIB, MEM_RAM);
	pmem_add(&m, 0x5000, 0x6000, MEM_RAM);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x2000, MEM_RESERVED }, { 0x5000, 0x6000, MEM_RAM },
		      { 0x9000, 0xa000, MEM_RAM }, { 4 * GIB, 8 * GIB, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.normalize_merges_overlap", "normalize merges overlapping and contained ranges of one type") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x3000, 0x8000, MEM_RAM);
	pmem_add(&m, 0x1000, 0x4000, MEM_RAM);
	pmem_add(&m, 0x2000, 0x3000, MEM_RAM);
	pmem_add(&m, 0x7000, 0x9000, MEM_RAM);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x9000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.normalize_merges_touching", "normalize merges ranges of one type that touch end to base") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x2000, 0x3000, MEM_RAM);
	pmem_add(&m, 0x1000, 0x2000, MEM_RAM);
	pmem_add(&m, 0x3000, 0x4000, MEM_RAM);
	pmem_add(&m, 0x5000, 0x6000, MEM_RAM);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x4000, MEM_RAM }, { 0x5000, 0x6000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.normalize_keeps_types_apart", "normalize never merges ranges of different types") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x2000, 0x3000, MEM_RESERVED);
	pmem_add(&m, 0x1000, 0x2000, MEM_RAM);
	pmem_add(&m, 0x3000, 0x4000, MEM_RAM);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x2000, MEM_RAM }, { 0x2000, 0x3000, MEM_RESERVED },
		      { 0x3000, 0x4000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.normalize_overlap_across_type", "normalize merges overlapping RAM ranges even with a reserved range between them") {
	/* RAM [1000,a000) and RAM [8000,20000) overlap; a reserved range whose base sorts
	 * between them must not stop them from merging (header: "merge touching or
	 * overlapping ranges of the same type"). */
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0xa000, MEM_RAM);
	pmem_add(&m, 0x5000, 0x6000, MEM_RESERVED);
	pmem_add(&m, 0x8000, 0x20000, MEM_RAM);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x20000, MEM_RAM }, { 0x5000, 0x6000, MEM_RESERVED }), "%s", why);
}

TEST_CASE("pmem.normalize_empty", "normalize of an empty or one-range map changes nothing") {
	struct mem_map m = { 0 };
	pmem_normalize(&m);
	EXPECT(m.n == 0, "n = %d", m.n);
	m = one_range(0x1000, 0x2000);
	pmem_normalize(&m);
	EXPECT(MAP_IS(&m, { 0x1000, 0x2000, MEM_RAM }), "%s", why);
}

/* --- pmem_usable --- */

TEST_CASE("pmem.usable_rounds_inward", "RAM ranges are rounded inward to whole pages") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x500, 0x9fc00, MEM_RAM);
	pmem_add(&fw, 0x100000, 0x7ffe0123, MEM_RAM);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0x1000, 0x9f000, MEM_RAM }, { 0x100000, 0x7ffe0000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_drops_subpage_ram", "RAM ranges without a whole page inside them vanish") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x1100, 0x1f00, MEM_RAM);
	pmem_add(&fw, 0x2800, 0x3800, MEM_RAM);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(out.n == 0, "%d ranges left, first %lx-%lx", out.n, out.r[0].base, out.r[0].end);
}

TEST_CASE("pmem.usable_reserved_wins", "reserved ranges overlapping RAM are removed, rounded outward") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x0, 0xa0000, MEM_RAM);
	pmem_add(&fw, 0x9fc00, 0xa0000, MEM_RESERVED);     /* EBDA, inside the RAM range */
	pmem_add(&fw, 0x100000, 0x1000000, MEM_RAM);
	pmem_add(&fw, 0x200800, 0x201800, MEM_RESERVED);   /* straddles a page boundary */
	pmem_add(&fw, 0x800000, 0x800001, 3);              /* any non-RAM type reserves */
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0x0, 0x9f000, MEM_RAM }, { 0x100000, 0x200000, MEM_RAM },
		      { 0x202000, 0x800000, MEM_RAM }, { 0x801000, 0x1000000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_reserved_before_ram", "reserved ranges win whatever their position in the firmware map") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x4000, 0x6000, MEM_RESERVED);
	pmem_add(&fw, 0x1000, 0x10000, MEM_RAM);
	pmem_add(&fw, 0x3000, 0x8000, MEM_RAM);            /* overlapping RAM, also cut */
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0x1000, 0x4000, MEM_RAM }, { 0x6000, 0x10000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_qemu_1tib_hole", "a QEMU e820 map with RAM above 4 GiB and the reserved range below 1 TiB") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x0, 0x9fc00, MEM_RAM);
	pmem_add(&fw, 0x9fc00, 0xa0000, MEM_RESERVED);
	pmem_add(&fw, 0xf0000, 0x100000, MEM_RESERVED);
	pmem_add(&fw, 0x100000, 0xbffe0000, MEM_RAM);
	pmem_add(&fw, 0xbffe0000, 0xc0000000, MEM_RESERVED);
	pmem_add(&fw, 0xfeffc000, 0xff000000, MEM_RESERVED);
	pmem_add(&fw, 0xfffc0000, 0x100000000, MEM_RESERVED);
	pmem_add(&fw, 0x100000000, 0x140000000, MEM_RAM);
	pmem_add(&fw, 0xfd00000000, 0x10000000000, MEM_RESERVED);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0x0, 0x9f000, MEM_RAM }, { 0x100000, 0xbffe0000, MEM_RAM },
		      { 0x100000000, 0x140000000, MEM_RAM }), "%s", why);
	EXPECT(pmem_top(&out) == 0x140000000, "top %lx", pmem_top(&out));
}

TEST_CASE("pmem.usable_ram_across_1tib_hole", "RAM spanning the 1 TiB reserved range is split in 64-bit arithmetic") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0xfd00000000, 0x10000000000, MEM_RESERVED);
	pmem_add(&fw, 4 * GIB, TIB + 4 * GIB, MEM_RAM);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 4 * GIB, 0xfd00000000, MEM_RAM }, { TIB, TIB + 4 * GIB, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_reserved_high_bits", "a reserved range that differs from RAM only above bit 32 does not cut it") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x100000, 0x200000, MEM_RAM);
	pmem_add(&fw, 0x100100000, 0x100200000, MEM_RESERVED);  /* same low 32 bits, 4 GiB up */
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0x100000, 0x200000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_merges_ram", "overlapping and touching firmware RAM ranges come out merged") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0x100000, 0x300000, MEM_RAM);
	pmem_add(&fw, 0x0, 0x9f000, MEM_RAM);
	pmem_add(&fw, 0x200000, 0x400000, MEM_RAM);
	pmem_add(&fw, 0x400000, 0x500000, MEM_RAM);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0x0, 0x9f000, MEM_RAM }, { 0x100000, 0x500000, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_table_full", "usable returns false when the splits overflow the output table") {
	/* 63 identical (overlapping) RAM ranges, each split in two by one reserved range */
	struct mem_map fw = { 0 }, out;
	for (int i = 0; i < CONFIG_MAX_MEM_RANGES - 1; i++)
		pmem_add(&fw, 0x0, 0x100000, MEM_RAM);
	pmem_add(&fw, 0x40000, 0x41000, MEM_RESERVED);
	EXPECT(!pmem_usable(&fw, &out), "usable reported success, %d ranges", out.n);
}

TEST_CASE("pmem.usable_reserved_at_top", "a reserved range ending at 2^64-1 (the clamp value) still removes RAM") {
	/* multiboot_parse_mmap clamps an overflowing entry to end = ~0UL */
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0xffffffff00000000UL, 0xfffffffffffff000UL, MEM_RAM);
	pmem_add(&fw, 0xffffffffffff0000UL, ~0UL, MEM_RESERVED);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(MAP_IS(&out, { 0xffffffff00000000UL, 0xffffffffffff0000UL, MEM_RAM }), "%s", why);
}

TEST_CASE("pmem.usable_ram_in_last_page", "a RAM range inside the last page of the 64-bit space yields nothing") {
	struct mem_map fw = { 0 }, out;
	pmem_add(&fw, 0xfffffffffffff800UL, ~0UL, MEM_RAM);
	EXPECT(pmem_usable(&fw, &out), "usable failed");
	EXPECT(out.n == 0, "%d ranges, first %lx-%lx", out.n, out.r[0].base, out.r[0].end);
}

/* --- pmem_find_top --- */

TEST_CASE("pmem.find_top_highest", "find_top returns the highest aligned block in the highest range") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x100000, 0x800000, MEM_RAM);
	pmem_add(&m, 0x1000000, 0x1345000, MEM_RAM);
	pmem_add(&m, 0x900000, 0xa00000, MEM_RAM);
	u64 at = 0;
	EXPECT(pmem_find_top(&m, 0x10000, 0x10000, ~0UL, &at), "nothing found");
	EXPECT(at == 0x1330000, "at %lx", at);
	EXPECT(pmem_find_top(&m, 0x100000, 0x200000, ~0UL, &at), "nothing found");
	EXPECT(at == 0x1200000, "aligned: at %lx", at);
}

TEST_CASE("pmem.find_top_limit", "find_top keeps the block at or below the limit") {
	struct mem_map m = one_range(0x100000, 0x800000);
	u64 at = 0;
	EXPECT(pmem_find_top(&m, 0x10000, 0x10000, 0x412345, &at), "nothing found");
	EXPECT(at == 0x400000, "at %lx", at);
	EXPECT(pmem_find_top(&m, 0x10000, 0x1000, 0x400000, &at), "nothing found");
	EXPECT(at == 0x3f0000, "exact limit: at %lx", at);
}

TEST_CASE("pmem.find_top_skips_range_cut_by_limit", "a range the limit leaves too small is skipped for a lower one") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x100000, 0x200000, MEM_RAM);
	pmem_add(&m, 0x800000, 0x900000, MEM_RAM);
	u64 at = 0;
	EXPECT(pmem_find_top(&m, 0x80000, 0x1000, 0x850000, &at), "nothing found");
	EXPECT(at == 0x180000, "at %lx", at);
}

TEST_CASE("pmem.find_top_exact_fit", "a block exactly the size of a range is found at the range base") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x200000, 0x400000, MEM_RAM);
	pmem_add(&m, 0x500000, 0x580000, MEM_RAM);
	u64 at = 0;
	EXPECT(pmem_find_top(&m, 0x200000, 0x200000, ~0UL, &at), "exact fit not found");
	EXPECT(at == 0x200000, "at %lx", at);
	EXPECT(pmem_find_top(&m, 0x80000, 0x1000, ~0UL, &at) && at == 0x500000, "second range: %lx", at);
}

TEST_CASE("pmem.find_top_alignment_misses", "find_top fails when alignment leaves no fit inside any range") {
	struct mem_map m = one_range(0x1000, 0x3000);
	u64 at = 0x1234;
	EXPECT(!pmem_find_top(&m, 0x1000, 0x4000, ~0UL, &at), "found %lx", at);
	EXPECT(pmem_find_top(&m, 0x1000, 0x2000, ~0UL, &at) && at == 0x2000, "align 0x2000: %lx", at);
}

TEST_CASE("pmem.find_top_nothing_fits", "find_top fails when the block is too big or the limit too low") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x100000, 0x200000, MEM_RAM);
	pmem_add(&m, 0x300000, 0x380000, MEM_RAM);
	u64 at = 0;
	EXPECT(!pmem_find_top(&m, 0x100001, 0x1000, ~0UL, &at), "too big: found %lx", at);
	EXPECT(!pmem_find_top(&m, 0x1000, 0x1000, 0x100fff, &at), "limit too low: found %lx", at);
	EXPECT(!pmem_find_top(&m, 0x1000, 0x1000, 0x800, &at), "limit below size: found %lx", at);
	struct mem_map empty = { 0 };
	EXPECT(!pmem_find_top(&empty, 0x1000, 0x1000, ~0UL, &at), "empty map: found %lx", at);
}

TEST_CASE("pmem.find_top_64bit", "find_top works above 4 GiB and below the 1 TiB reserved range") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x100000, 0xbffe0000, MEM_RAM);
	pmem_add(&m, 4 * GIB, 0xfd00000000, MEM_RAM);
	u64 at = 0;
	EXPECT(pmem_find_top(&m, 16UL << 20, 2UL << 20, ~0UL, &at), "nothing found");
	EXPECT(at == 0xfd00000000 - (16UL << 20), "at %lx", at);
	EXPECT(pmem_find_top(&m, 16UL << 20, 2UL << 20, 4 * GIB, &at), "nothing found below 4G");
	EXPECT(at == 0xbfe00000 - (16UL << 20), "below 4G: at %lx", at);
}

/* --- pmem_find_low --- */

TEST_CASE("pmem.find_low_lowest", "find_low returns the lowest aligned block that fits, skipping ranges too small") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000000, 0x1345000, MEM_RAM);
	pmem_add(&m, 0x100000, 0x180000, MEM_RAM);
	pmem_add(&m, 0x900000, 0xa00000, MEM_RAM);
	u64 at = 0;
	EXPECT(pmem_find_low(&m, 0x10000, 0x1000, ~0UL, &at) && at == 0x100000, "at %lx", at);
	EXPECT(pmem_find_low(&m, 0x80001, 0x1000, ~0UL, &at) && at == 0x900000, "too big for the first: at %lx", at);
	EXPECT(pmem_find_low(&m, 0x100000, 0x200000, ~0UL, &at) && at == 0x1000000, "aligned: at %lx", at);
	EXPECT(pmem_find_low(&m, 0x100000, 0x1000, ~0UL, &at) && at == 0x900000, "exact fit: at %lx", at);
}

TEST_CASE("pmem.find_low_alignment", "find_low rounds a range's base up and fails where that leaves no room") {
	struct mem_map m = one_range(0x101000, 0x300000);
	u64 at = 0;
	EXPECT(pmem_find_low(&m, 0x100000, 0x100000, ~0UL, &at) && at == 0x200000, "at %lx", at);
	EXPECT(!pmem_find_low(&m, 0x100001, 0x100000, ~0UL, &at), "found %lx", at);
}

TEST_CASE("pmem.find_low_limit", "find_low keeps the whole block at or below the limit") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x100000, 0x200000, MEM_RAM);
	pmem_add(&m, 4 * GIB, 8 * GIB, MEM_RAM);
	u64 at = 0;
	EXPECT(pmem_find_low(&m, 0x200000, 0x1000, 4 * GIB + 0x200000, &at) && at == 4 * GIB, "at %lx", at);
	EXPECT(!pmem_find_low(&m, 0x200000, 0x1000, 4 * GIB + 0x1ff000, &at), "limit cuts it: found %lx", at);
	EXPECT(!pmem_find_low(&m, 0x1000, 0x1000, 0x100800, &at), "limit inside the first page: found %lx", at);
	EXPECT(pmem_find_low(&m, 0x1000, 0x1000, 0x101000, &at) && at == 0x100000, "limit at the page's end: %lx", at);
}

TEST_CASE("pmem.find_low_near_top", "find_low of a range at the top of the 64-bit space neither wraps nor fits") {
	struct mem_map m = one_range(~0UL - 0x2fff, ~0UL);
	struct mem_map empty = { 0 };
	u64 at = 0;
	EXPECT(!pmem_find_low(&m, 0x1000, 0x10000, ~0UL, &at), "alignment wrapped: found %lx", at);
	EXPECT(pmem_find_low(&m, 0x1000, 0x1000, ~0UL, &at) && at == ~0UL - 0x2fff, "at %lx", at);
	EXPECT(!pmem_find_low(&empty, 0x1000, 0x1000, ~0UL, &at), "empty map: found %lx", at);
}

/* --- pmem_contains, pmem_overlaps, pmem_top --- */

TEST_CASE("pmem.overlaps", "overlaps is true when a non-empty range shares a byte with some range") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0x5000, MEM_RAM);
	pmem_add(&m, 4 * GIB, 8 * GIB, MEM_RAM);
	EXPECT(pmem_overlaps(&m, 0x4fff, 0x6000), "last byte");
	EXPECT(pmem_overlaps(&m, 0x0, 0x1001), "first byte");
	EXPECT(pmem_overlaps(&m, 0x0, 0x10000), "covering");
	EXPECT(pmem_overlaps(&m, 8 * GIB - 1, 9 * GIB), "above 4 GiB");
	EXPECT(!pmem_overlaps(&m, 0x5000, 0x6000), "touching the end");
	EXPECT(!pmem_overlaps(&m, 0x0, 0x1000), "touching the base");
	EXPECT(!pmem_overlaps(&m, 0x2000, 0x2000), "empty range inside");
	EXPECT(!pmem_overlaps(&m, 0x6000, 4 * GIB), "the hole");
}


TEST_CASE("pmem.contains", "contains is true only for non-empty ranges inside a single range") {
	struct mem_map m = { 0 };
	pmem_add(&m, 0x1000, 0x5000, MEM_RAM);
	pmem_add(&m, 0x5000, 0x9000, MEM_RAM);
	pmem_add(&m, 4 * GIB, 8 * GIB, MEM_RAM);
	EXPECT(pmem_contains(&m, 0x1000, 0x5000), "whole range");
	EXPECT(pmem_contains(&m, 0x2000, 0x3000), "inner range");
	EXPECT(pmem_contains(&m, 5 * GIB, 8 * GIB), "range above 4 GiB");
	EXPECT(!pmem_contains(&m, 0x4000, 0x6000), "range across two adjacent ranges");
	EXPECT(!pmem_contains(&m, 0x0, 0x2000), "range sticking out below");
	EXPECT(!pmem_contains(&m, 0x8000, 0xa000), "range sticking out above");
	EXPECT(!pmem_contains(&m, 0x2000, 0x2000), "empty range");
	EXPECT(!pmem_contains(&m, 0x3000, 0x2000), "inverted range");
	EXPECT(!pmem_contains(&m, 0x2000 + 4 * GIB - 0x10000, 0x2000 + 4 * GIB), "range from a hole into a range");
	EXPECT(!pmem_contains(&m, 0x2000, 0x3000 + 4 * GIB), "range spanning the hole below 4 GiB");
	EXPECT(!pmem_contains(&m, 0x1000 + 8 * GIB, 0x2000 + 8 * GIB), "range above the top");
}

TEST_CASE("pmem.top", "top is the highest end of any range, 0 when empty") {
	struct mem_map m = { 0 };
	EXPECT(pmem_top(&m) == 0, "empty: %lx", pmem_top(&m));
	pmem_add(&m, 4 * GIB, TIB + 0x1000, MEM_RAM);
	pmem_add(&m, 0x1000, 0x2000, MEM_RAM);
	pmem_add(&m, 0xfd00000000, TIB, MEM_RESERVED);
	EXPECT(pmem_top(&m) == TIB + 0x1000, "top %lx", pmem_top(&m));
}

/* --- randomized add/remove against a unit-granular reference model --- */

#define UNITS 100           /* at most 50 disjoint ranges: fits the table */

static u64 rng_state;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Compare the union of m's ranges with ref[] over the grid base + k*step. */
static bool coverage_matches(const struct mem_map *m, const bool *ref, u64 base, u64 step)
{
	bool got[UNITS] = { 0 };
	for (int i = 0; i < m->n; i++) {
		const struct mem_range *r = &m->r[i];
		if (r->base < base || r->end > base + UNITS * step || r->base >= r->end ||
		    (r->base - base) % step || (r->end - base) % step || r->type != MEM_RAM) {
			snprintf(why, sizeof(why), "bad range %d: %lx-%lx type %u", i, r->base, r->end, r->type);
			return false;
		}
		for (u64 k = (r->base - base) / step; k < (r->end - base) / step; k++)
			got[k] = true;
	}
	for (int k = 0; k < UNITS; k++)
		if (got[k] != ref[k]) {
			snprintf(why, sizeof(why), "unit %d: map says %d, model says %d", k, got[k], ref[k]);
			return false;
		}
	return true;
}

/* After normalize: sorted, non-empty, neither overlapping nor touching. */
static bool is_canonical(const struct mem_map *m)
{
	for (int i = 0; i < m->n; i++) {
		if (m->r[i].base >= m->r[i].end ||
		    (i > 0 && m->r[i - 1].end >= m->r[i].base)) {
			snprintf(why, sizeof(why), "not canonical at range %d: %lx-%lx", i, m->r[i].base, m->r[i].end);
			return false;
		}
	}
	return true;
}

static bool random_run(u64 seed, u64 base, u64 step, int ops)
{
	struct mem_map m = { 0 };
	bool ref[UNITS] = { 0 };
	rng_state = seed;
	for (int op = 0; op < ops; op++) {
		if (m.n >= 32)            /* keeps any single op within the table */
			pmem_normalize(&m);
		u64 a = rng() % (UNITS + 1), b = rng() % (UNITS + 1);
		if (a > b) {
			u64 t = a;
			a = b;
			b = t;
		}
		if (rng() % 5 == 0 && a < UNITS) {   /* many short ranges too */
			b = a + 1 + rng() % 3;
			if (b > UNITS)
				b = UNITS;
		}
		bool add = rng() % 2;
		if (add) {
			bool ok = pmem_add(&m, base + a * step, base + b * step, MEM_RAM);
			if (ok != (a < b)) {
				snprintf(why, sizeof(why), "op %d: add %lu-%lu returned %d", op, a, b, ok);
				return false;
			}
		} else if (!pmem_remove(&m, base + a * step, base + b * step)) {
			snprintf(why, sizeof(why), "op %d: remove %lu-%lu failed with n = %d", op, a, b, m.n);
			return false;
		}
		for (u64 k = a; k < b; k++)
			ref[k] = add;
		if (!coverage_matches(&m, ref, base, step))
			return false;
		if (rng() % 3 == 0) {
			pmem_normalize(&m);
			if (!is_canonical(&m) || !coverage_matches(&m, ref, base, step))
				return false;
		}
	}
	return true;
}

TEST_CASE("pmem.random_vs_model", "random add/remove (fixed seed) matches a page-granular model") {
	EXPECT(random_run(0x9e3779b97f4a7c15UL, 0x100000, PAGE_SIZE, 5000), "low: %s", why);
}

TEST_CASE("pmem.random_vs_model_64bit", "random add/remove around the 1 TiB hole and near 2^64 match the model") {
	EXPECT(random_run(0x1234567887654321UL, 0xfd00000000UL - 50 * PAGE_SIZE, PAGE_SIZE, 3000),
	       "1 TiB: %s", why);
	EXPECT(random_run(0xdeadbeefcafef00dUL, ~0UL - UNITS * 0x10000000UL, 0x10000000UL, 3000),
	       "2^64: %s", why);
	EXPECT(random_run(0x0123456789abcdefUL, 0x7ff, 3, 3000), "unaligned: %s", why);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
