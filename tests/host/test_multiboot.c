// SPDX-License-Identifier: MIT
// Host tests of Multiboot v1 information parsing (kernel/arch/x86_64/multiboot.c).
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "boot.h"
#include "../../lib/test/test.h"

#define FLAG_CMDLINE (1u << 2)
#define FLAG_MODS    (1u << 3)
#define FLAG_MMAP    (1u << 6)

struct mbi {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline;
	u32 mods_count, mods_addr;
	u32 syms[4];
	u32 mmap_length, mmap_addr;
} __attribute__((packed));

struct mb_module {
	u32 start, end, string, reserved;
} __attribute__((packed));

_Static_assert(sizeof(struct mbi) == 52, "Multiboot info up to mmap_addr is 52 bytes");

static char why[200];

/* --- building memory maps --- */

struct mmap_buf {
	u8 b[2048];
	u32 len;
};

/* Append an entry whose size field is `size` (20 for a plain entry). */
static void put_entry(struct mmap_buf *m, u32 size, u64 base, u64 len, u32 type)
{
	u8 *p = m->b + m->len;
	memset(p, 0xcc, size + 4);            /* padding beyond 20 bytes is junk */
	memcpy(p, &size, 4);
	memcpy(p + 4, &base, 8);
	memcpy(p + 12, &len, 8);
	memcpy(p + 20, &type, 4);
	m->len += size + 4;
}

static void entry(struct mmap_buf *m, u64 base, u64 len, u32 type) { put_entry(m, 20, base, len, type); }

/* Parse the first len bytes from an exact-size heap copy, so ASan catches overreads. */
static const char *parse_len(const struct mmap_buf *m, u32 len, struct mem_map *out)
{
	u8 *copy = malloc(len ? len : 1);
	memcpy(copy, m->b, len);
	const char *err = multiboot_parse_mmap(copy, len, out);
	free(copy);
	return err;
}

static bool range_is(const struct mem_map *m, int i, u64 base, u64 end, u32 type)
{
	if (i >= m->n || m->r[i].base != base || m->r[i].end != end || m->r[i].type != type) {
		snprintf(why, sizeof(why), "range %d: expected %lx-%lx type %u, got %lx-%lx type %u (n %d)",
			 i, base, end, type, i < m->n ? m->r[i].base : 0, i < m->n ? m->r[i].end : 0,
			 i < m->n ? m->r[i].type : 0, m->n);
		return false;
	}
	return true;
}

static bool has_word(const char *err, const char *word) { return err && strstr(err, word); }

/* QEMU's e820 map for a machine with 6 GiB, including the reserved range below 1 TiB. */
static void qemu_map(struct mmap_buf *m)
{
	m->len = 0;
	entry(m, 0x0, 0x9fc00, 1);
	entry(m, 0x9fc00, 0x400, 2);
	entry(m, 0xf0000, 0x10000, 2);
	entry(m, 0x100000, 0xbfee0000, 1);
	entry(m, 0xbffe0000, 0x20000, 2);
	entry(m, 0xfeffc000, 0x4000, 2);
	entry(m, 0xfffc0000, 0x40000, 2);
	entry(m, 0x100000000, 0xc0000000, 1);
	entry(m, 0xfd00000000, 0x300000000, 2);
}

TEST_CASE("multiboot.mmap_qemu", "a typical QEMU map parses into ranges with 64-bit ends and types") {
	struct mmap_buf m;
	struct mem_map out;
	qemu_map(&m);
	const char *err = parse_len(&m, m.len, &out);
	EXPECT(!err, "error: %s", err);
	EXPECT(out.n == 9, "n %d", out.n);
	EXPECT(range_is(&out, 0, 0x0, 0x9fc00, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 1, 0x9fc00, 0xa0000, MEM_RESERVED), "%s", why);
	EXPECT(range_is(&out, 3, 0x100000, 0xbffe0000, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 6, 0xfffc0000, 0x100000000, MEM_RESERVED), "%s", why);
	EXPECT(range_is(&out, 7, 0x100000000, 0x1c0000000, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 8, 0xfd00000000, 0x10000000000, MEM_RESERVED), "%s", why);
}

TEST_CASE("multiboot.mmap_types", "type 1 is RAM; ACPI, NVS, bad and unknown types are reserved") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	static const u32 types[] = { 1, 2, 3, 4, 5, 0, 0xffffffff };
	for (unsigned i = 0; i < ARRAY_SIZE(types); i++)
		entry(&m, 0x100000 * (i + 1), 0x1000, types[i]);
	EXPECT(!parse_len(&m, m.len, &out), "error");
	EXPECT(out.n == (int)ARRAY_SIZE(types), "n %d", out.n);
	for (unsigned i = 0; i < ARRAY_SIZE(types); i++)
		EXPECT(out.r[i].type == (types[i] == 1 ? MEM_RAM : MEM_RESERVED), "entry %u type %u -> %u",
		       i, types[i], out.r[i].type);
}

TEST_CASE("multiboot.mmap_padded_entries", "entries with size > 20 are stepped over by size + 4") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	put_entry(&m, 24, 0x0, 0x9fc00, 1);
	put_entry(&m, 20, 0x100000, 0x1000000, 1);
	put_entry(&m, 44, 0xfd00000000, 0x300000000, 2);
	put_entry(&m, 21, 0x2000000, 0x1000, 2);
	const char *err = parse_len(&m, m.len, &out);
	EXPECT(!err, "error: %s", err);
	EXPECT(out.n == 4, "n %d", out.n);
	EXPECT(range_is(&out, 0, 0x0, 0x9fc00, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 1, 0x100000, 0x1100000, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 2, 0xfd00000000, 0x10000000000, MEM_RESERVED), "%s", why);
	EXPECT(range_is(&out, 3, 0x2000000, 0x2001000, MEM_RESERVED), "%s", why);
}

TEST_CASE("multiboot.mmap_truncated", "a map cut inside an entry is an error at every cut, never an overread") {
	struct mmap_buf m;
	struct mem_map out;
	qemu_map(&m);
	for (u32 len = 1; len < m.len; len++) {
		const char *err = parse_len(&m, len, &out);
		if (len % 24 == 0)
			EXPECT(!err && out.n == (int)(len / 24), "cut at entry boundary %u: %s", len, err ? err : "n wrong");
		else
			EXPECT(has_word(err, "truncated") || has_word(err, "runs past"),
			       "cut at %u: %s", len, err ? err : "accepted");
	}
}

TEST_CASE("multiboot.mmap_entry_past_end", "an entry whose size runs past the map is an error") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	entry(&m, 0x0, 0x9fc00, 1);
	put_entry(&m, 20, 0x100000, 0x1000000, 1);
	u32 big = 0xffffffff;
	memcpy(m.b + 24, &big, 4);            /* second entry claims 4 GiB */
	EXPECT(has_word(parse_len(&m, m.len, &out), "runs past"), "huge size accepted");
	u32 one_more = 21;
	memcpy(m.b + 24, &one_more, 4);       /* one byte more than is there */
	EXPECT(has_word(parse_len(&m, m.len, &out), "runs past"), "size one past the end accepted");
}

TEST_CASE("multiboot.mmap_entry_too_small", "an entry size below 20 is an error") {
	static const u32 sizes[] = { 0, 4, 16, 19 };
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct mmap_buf m = { .len = 0 };
		struct mem_map out;
		entry(&m, 0x0, 0x9fc00, 1);
		entry(&m, 0x100000, 0x1000000, 1);
		memcpy(m.b + 24, &sizes[i], 4);
		EXPECT(has_word(parse_len(&m, m.len, &out), "too small"), "size %u accepted", sizes[i]);
	}
}

TEST_CASE("multiboot.mmap_empty", "an empty map, or one of only zero-length entries, is an error") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	EXPECT(has_word(parse_len(&m, 0, &out), "empty"), "empty map accepted");
	entry(&m, 0x100000, 0, 1);
	entry(&m, 0x0, 0, 2);
	EXPECT(has_word(parse_len(&m, m.len, &out), "empty"), "zero-length entries accepted");
	EXPECT(out.n == 0, "n %d", out.n);
}

TEST_CASE("multiboot.mmap_skips_zero_length", "zero-length entries are skipped, the rest kept in order") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	entry(&m, 0x0, 0x9fc00, 1);
	entry(&m, 0x9fc00, 0, 2);
	entry(&m, 0x100000, 0x1000000, 1);
	entry(&m, 0xfd00000000, 0, 2);
	EXPECT(!parse_len(&m, m.len, &out), "error");
	EXPECT(out.n == 2, "n %d", out.n);
	EXPECT(range_is(&out, 0, 0x0, 0x9fc00, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 1, 0x100000, 0x1100000, MEM_RAM), "%s", why);
}

TEST_CASE("multiboot.mmap_overflow_clamps", "base + length past 2^64 clamps the end to 2^64 - 1") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	entry(&m, 0xfffffffffffff000UL, 0x2000, 2);
	entry(&m, 0x100000000UL, ~0UL, 1);
	entry(&m, 0xffffffff00000000UL, 0x100000000UL, 2);   /* ends exactly at 2^64: sum wraps to 0 */
	entry(&m, 0x8000000000000000UL, 0x8000000000001000UL, 1);
	const char *err = parse_len(&m, m.len, &out);
	EXPECT(!err, "error: %s", err);
	EXPECT(range_is(&out, 0, 0xfffffffffffff000UL, ~0UL, MEM_RESERVED), "%s", why);
	EXPECT(range_is(&out, 1, 0x100000000UL, ~0UL, MEM_RAM), "%s", why);
	EXPECT(range_is(&out, 2, 0xffffffff00000000UL, ~0UL, MEM_RESERVED), "%s", why);
	EXPECT(range_is(&out, 3, 0x8000000000000000UL, ~0UL, MEM_RAM), "%s", why);
}

TEST_CASE("multiboot.mmap_too_many", "more entries than CONFIG_MAX_MEM_RANGES is an error") {
	struct mmap_buf m = { .len = 0 };
	struct mem_map out;
	for (int i = 0; i < CONFIG_MAX_MEM_RANGES; i++)
		entry(&m, (u64)i << 20, 0x1000, 1);
	EXPECT(!parse_len(&m, m.len, &out) && out.n == CONFIG_MAX_MEM_RANGES, "a full table rejected");
	entry(&m, 0x80000000, 0x1000, 1);
	EXPECT(has_word(parse_len(&m, m.len, &out), "too many"), "overfull map accepted");
}

/* --- whole Multiboot information, in a fake physical memory --- */

#define FAKE_PHYS 0x8000u       /* "physical" address of mem[0] */
#define MMAP_AT   0x8000u
#define MBI_AT    0x9000u
#define CMD_AT    0x9100u
#define MODS_AT   0xa000u
#define STR_AT    0xb000u

static u8 mem[0x4000] __attribute__((aligned(16)));
static struct boot_info bi;

static void *at(u32 phys) { return mem + (phys - FAKE_PHYS); }
static u64 virt_offset(void) { return (u64)(uintptr_t)mem - FAKE_PHYS; }
static struct mbi *mbi(void) { return at(MBI_AT); }
static struct mb_module *mods(void) { return at(MODS_AT); }

/* A loader's info: QEMU's map, a kernel command line and two modules. */
static void fake_mbi(void)
{
	struct mmap_buf m;
	memset(mem, 0xee, sizeof(mem));
	qemu_map(&m);
	memcpy(at(MMAP_AT), m.b, m.len);
	strcpy(at(CMD_AT), "pecan.selftest=kfault console=com1");
	strcpy(at(STR_AT), "sigma0");
	strcpy(at(STR_AT + 0x100), "root --verbose");
	mods()[0] = (struct mb_module){ 0x200000, 0x210000, STR_AT, 0 };
	mods()[1] = (struct mb_module){ 0x210000, 0x230123, STR_AT + 0x100, 0 };
	*mbi() = (struct mbi){
		.flags = FLAG_CMDLINE | FLAG_MODS | FLAG_MMAP | 3,
		.mem_lower = 639, .mem_upper = 0x2fefbc,
		.cmdline = CMD_AT, .mods_count = 2, .mods_addr = MODS_AT,
		.mmap_length = m.len, .mmap_addr = MMAP_AT,
	};
}

static const char *parse(void)
{
	memset(&bi, 0x55, sizeof(bi));      /* no stale results */
	return multiboot_parse(MBI_AT, virt_offset(), &bi);
}

TEST_CASE("multiboot.parse_full", "a full MBI yields the map, command line and both modules") {
	fake_mbi();
	const char *err = parse();
	EXPECT(!err, "error: %s", err);
	EXPECT(bi.cmdline && !strcmp(bi.cmdline, "pecan.selftest=kfault console=com1"), "cmdline \"%s\"",
	       bi.cmdline ? bi.cmdline : "(null)");
	EXPECT(bi.fw.n == 9, "map has %d ranges", bi.fw.n);
	EXPECT(range_is(&bi.fw, 8, 0xfd00000000, 0x10000000000, MEM_RESERVED), "%s", why);
	EXPECT(bi.nmods == 2, "nmods %d", bi.nmods);
	EXPECT(bi.mods[0].start == 0x200000 && bi.mods[0].end == 0x210000, "module 0 %lx-%lx",
	       bi.mods[0].start, bi.mods[0].end);
	EXPECT(bi.mods[1].start == 0x210000 && bi.mods[1].end == 0x230123, "module 1 %lx-%lx",
	       bi.mods[1].start, bi.mods[1].end);
	EXPECT(!strcmp(bi.mods[0].cmdline, "sigma0"), "module 0 cmdline \"%s\"", bi.mods[0].cmdline);
	EXPECT(!strcmp(bi.mods[1].cmdline, "root --verbose"), "module 1 cmdline \"%s\"", bi.mods[1].cmdline);
}

TEST_CASE("multiboot.parse_info_range", "info_start/info_end cover the MBI, the memory map, the module array and the strings") {
	fake_mbi();
	EXPECT(!parse(), "error");
	EXPECT(bi.info_start == MMAP_AT, "info_start %lx, map at %x", bi.info_start, MMAP_AT);
	EXPECT(bi.info_end == STR_AT + 0x100 + sizeof("root --verbose"), "info_end %lx", bi.info_end);
	/* map above everything, no modules: MBI start, map end */
	struct mmap_buf m;
	qemu_map(&m);
	memcpy(at(0xb800), m.b, m.len);
	mbi()->mmap_addr = 0xb800;
	mbi()->flags &= ~FLAG_MODS;
	EXPECT(!parse(), "error");
	EXPECT(bi.info_start == MBI_AT, "no mods: info_start %lx", bi.info_start);
	EXPECT(bi.info_end == 0xb800 + m.len, "no mods: info_end %lx", bi.info_end);
	EXPECT(bi.nmods == 0, "nmods %d without the mods flag", bi.nmods);
}

TEST_CASE("multiboot.parse_info_mods_below", "info_start follows a module array below the MBI, info_end a map above it") {
	fake_mbi();
	struct mmap_buf m;
	qemu_map(&m);
	memcpy(at(0xb800), m.b, m.len);
	mbi()->mmap_addr = 0xb800;
	memcpy(at(0x8800), mods(), 2 * sizeof(struct mb_module));
	mbi()->mods_addr = 0x8800;
	EXPECT(!parse(), "error");
	EXPECT(bi.info_start == 0x8800, "info_start %lx", bi.info_start);
	EXPECT(bi.info_end == 0xb800 + m.len, "info_end %lx", bi.info_end);
	EXPECT(bi.nmods == 2 && bi.mods[1].end == 0x230123, "modules not read from the new array");
}

TEST_CASE("multiboot.parse_no_cmdline", "without the cmdline flag, or with cmdline 0, the command line is empty") {
	fake_mbi();
	mbi()->flags &= ~FLAG_CMDLINE;
	EXPECT(!parse(), "error");
	EXPECT(bi.cmdline && bi.cmdline[0] == '\0', "cmdline \"%s\"", bi.cmdline ? bi.cmdline : "(null)");
	fake_mbi();
	mbi()->cmdline = 0;
	EXPECT(!parse(), "error");
	EXPECT(bi.cmdline && bi.cmdline[0] == '\0', "cmdline 0: \"%s\"", bi.cmdline ? bi.cmdline : "(null)");
}

TEST_CASE("multiboot.parse_module_no_string", "a module with string 0 gets an empty command line") {
	fake_mbi();
	mods()[1].string = 0;
	EXPECT(!parse(), "error");
	EXPECT(bi.mods[1].cmdline && bi.mods[1].cmdline[0] == '\0', "cmdline \"%s\"",
	       bi.mods[1].cmdline ? bi.mods[1].cmdline : "(null)");
	EXPECT(!strcmp(bi.mods[0].cmdline, "sigma0"), "module 0 cmdline \"%s\"", bi.mods[0].cmdline);
}

TEST_CASE("multiboot.parse_no_mmap", "an MBI without the mmap flag is an error") {
	fake_mbi();
	mbi()->flags &= ~FLAG_MMAP;
	EXPECT(has_word(parse(), "no memory map"), "accepted without a memory map");
}

TEST_CASE("multiboot.parse_bad_mmap", "errors in the memory map reach the caller") {
	fake_mbi();
	mbi()->mmap_length = 0;
	EXPECT(has_word(parse(), "empty"), "empty map accepted");
	fake_mbi();
	mbi()->mmap_length -= 3;
	EXPECT(has_word(parse(), "runs past"), "truncated map accepted");
}

TEST_CASE("multiboot.parse_module_backwards", "a module whose end is below its start is an error") {
	fake_mbi();
	mods()[1].end = mods()[1].start - 1;
	EXPECT(has_word(parse(), "ends before it starts"), "backwards module accepted");
	fake_mbi();
	mods()[1].end = mods()[1].start;   /* empty module: allowed */
	EXPECT(!parse(), "empty module rejected");
	EXPECT(bi.nmods == 2 && bi.mods[1].start == bi.mods[1].end, "empty module recorded wrongly");
}

TEST_CASE("multiboot.parse_too_many_modules", "more than CONFIG_MAX_MODULES modules is an error, exactly that many is fine") {
	fake_mbi();
	for (u32 i = 0; i < CONFIG_MAX_MODULES + 1; i++)
		mods()[i] = (struct mb_module){ 0x200000 + i * 0x1000, 0x201000 + i * 0x1000, STR_AT, 0 };
	mbi()->mods_count = CONFIG_MAX_MODULES;
	EXPECT(!parse(), "%d modules rejected", CONFIG_MAX_MODULES);
	EXPECT(bi.nmods == CONFIG_MAX_MODULES, "nmods %d", bi.nmods);
	EXPECT(bi.mods[CONFIG_MAX_MODULES - 1].start == 0x200000 + (CONFIG_MAX_MODULES - 1) * 0x1000UL,
	       "last module %lx", bi.mods[CONFIG_MAX_MODULES - 1].start);
	EXPECT(bi.info_end == STR_AT + sizeof("sigma0"), "info_end %lx (module strings end it)", bi.info_end);
	mbi()->mods_count = CONFIG_MAX_MODULES + 1;
	EXPECT(has_word(parse(), "too many"), "%d modules accepted", CONFIG_MAX_MODULES + 1);
	mbi()->mods_count = 0xffffffff;
	EXPECT(has_word(parse(), "too many"), "2^32-1 modules accepted");
}

TEST_CASE("multiboot.parse_zero_modules", "the mods flag with a count of 0 gives no modules") {
	fake_mbi();
	mbi()->mods_count = 0;
	EXPECT(!parse(), "error");
	EXPECT(bi.nmods == 0, "nmods %d", bi.nmods);
}

TEST_CASE("multiboot.move_module", "a moved module's new range is what the MBI then says, the other entries unchanged") {
	fake_mbi();
	EXPECT(multiboot_move_module(MBI_AT, virt_offset(), 1, 0x5000000, 0x5020123), "move refused");
	EXPECT(mods()[1].start == 0x5000000 && mods()[1].end == 0x5020123, "entry 1 %x-%x",
	       mods()[1].start, mods()[1].end);
	EXPECT(mods()[1].string == STR_AT + 0x100, "entry 1 string %x", mods()[1].string);
	EXPECT(mods()[0].start == 0x200000 && mods()[0].end == 0x210000, "entry 0 %x-%x",
	       mods()[0].start, mods()[0].end);
	EXPECT(!parse() && bi.mods[1].start == 0x5000000 && bi.mods[1].end == 0x5020123,
	       "parsed again: module 1 %lx-%lx", bi.mods[1].start, bi.mods[1].end);
}

TEST_CASE("multiboot.move_module_above_4g", "a range that does not fit the 32-bit fields is refused and changes nothing") {
	fake_mbi();
	EXPECT(!multiboot_move_module(MBI_AT, virt_offset(), 0, 0xfffff000, 0x100000000), "accepted");
	EXPECT(!multiboot_move_module(MBI_AT, virt_offset(), 0, 0x300000, 0x200000), "backwards accepted");
	EXPECT(mods()[0].start == 0x200000 && mods()[0].end == 0x210000, "entry 0 %x-%x",
	       mods()[0].start, mods()[0].end);
	EXPECT(multiboot_move_module(MBI_AT, virt_offset(), 0, 0xffff0000, 0xffffffff), "top accepted");
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
