// SPDX-License-Identifier: MIT
// Host tests of ELF64 image validation (kernel/elf.c).
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "elf.h"
#include "../../lib/test/test.h"

#define USER_TOP 0x0000800000000000UL   /* as in kernel/arch/x86_64/arch.h */

#define PT_NULL 0
#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_NOTE 4
#define PF_X 1
#define PF_W 2
#define PF_R 4

struct ehdr {
	u8 ident[16];
	u16 type, machine;
	u32 version;
	u64 entry, phoff, shoff;
	u32 flags;
	u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
} __attribute__((packed));

struct phdr {
	u32 type, flags;
	u64 offset, vaddr, paddr, filesz, memsz, align;
} __attribute__((packed));

_Static_assert(sizeof(struct ehdr) == 64, "ELF64 header is 64 bytes");
_Static_assert(sizeof(struct phdr) == 56, "ELF64 program header is 56 bytes");

#define IMG_MAX 0x3000
#define PHOFF   64

struct img {
	u8 b[IMG_MAX];
	u64 len;
};

static struct img im;           /* the image under construction */
static struct elf_image out;

static struct ehdr *eh(void) { return (struct ehdr *)im.b; }
static struct phdr *ph(int i) { return (struct phdr *)(im.b + PHOFF) + i; }

/* An executable with just a header and no program headers yet. */
static void base_image(void)
{
	memset(&im, 0, sizeof(im));
	static const u8 ident[16] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	struct ehdr *h = eh();
	memcpy(h->ident, ident, sizeof(ident));
	h->type = 2;
	h->machine = 62;
	h->version = 1;
	h->entry = 0x400010;
	h->phoff = PHOFF;
	h->ehsize = sizeof(struct ehdr);
	h->phentsize = sizeof(struct phdr);
	h->shentsize = 64;
	im.len = PHOFF;
}

/* Append a program header; grows the file to cover its data. */
static struct phdr *add_ph(u32 type, u32 flags, u64 offset, u64 vaddr, u64 filesz, u64 memsz)
{
	struct phdr *p = ph(eh()->phnum++);
	*p = (struct phdr){ type, flags, offset, vaddr, vaddr, filesz, memsz, 0x1000 };
	if ((u8 *)(p + 1) - im.b > (long)im.len)
		im.len = (u8 *)(p + 1) - im.b;
	if (offset + filesz > im.len && offset + filesz <= IMG_MAX)
		im.len = offset + filesz;
	return p;
}

/*
 * A typical static executable: text (R-X) at 0x400000 from file offset 0x1000,
 * a note, and data+bss (RW-) at 0x601800 from offset 0x1800; the file ends
 * exactly where the data ends, so every truncation cuts something.
 */
static void valid_image(void)
{
	base_image();
	add_ph(PT_LOAD, PF_R | PF_X, 0x1000, 0x400000, 0x800, 0x800);
	add_ph(PT_NOTE, PF_R, 0x200, 0, 0x20, 0x20);
	add_ph(PT_LOAD, PF_R | PF_W, 0x1800, 0x601800, 0x100, 0x3000);
	for (u64 i = 0x1000; i < im.len; i++)
		im.b[i] = (u8)(i * 7);
}

/* Run elf_check on an exact-size heap copy of the first len bytes, so ASan sees overreads. */
static const char *check_len(u64 len, u64 top)
{
	u8 *copy = malloc(len ? len : 1);
	memcpy(copy, im.b, len);
	const char *err = elf_check(copy, len, top, &out);
	free(copy);
	return err;
}

static const char *check(void) { return check_len(im.len, USER_TOP); }

/* err is non-NULL and mentions word. */
static bool rejected(const char *err, const char *word)
{
	return err && strstr(err, word);
}

#define EXPECT_REJECT(word)                                                         \
	do {                                                                        \
		const char *err_ = check();                                         \
		EXPECT(rejected(err_, word), "expected \"%s\", got \"%s\"", word,   \
		       err_ ? err_ : "accepted");                                   \
	} while (0)

#define EXPECT_ACCEPT()                                                             \
	do {                                                                        \
		const char *err_ = check();                                         \
		EXPECT(!err_, "rejected: %s", err_);                                \
	} while (0)

/* --- accepted images --- */

TEST_CASE("elf.accepts_valid", "a valid two-segment executable is accepted and described") {
	valid_image();
	EXPECT_ACCEPT();
	EXPECT(out.entry == 0x400010, "entry %lx", out.entry);
	EXPECT(out.nsegs == 2, "nsegs %d (the note must not count)", out.nsegs);
	const struct elf_segment *t = &out.segs[0], *d = &out.segs[1];
	EXPECT(t->vaddr == 0x400000 && t->paddr == 0x400000 && t->offset == 0x1000 &&
	       t->filesz == 0x800 && t->memsz == 0x800, "text %lx %lx %lx %lx %lx",
	       t->vaddr, t->paddr, t->offset, t->filesz, t->memsz);
	EXPECT(d->vaddr == 0x601800 && d->paddr == 0x601800 && d->offset == 0x1800 &&
	       d->filesz == 0x100 && d->memsz == 0x3000, "data %lx %lx %lx %lx %lx",
	       d->vaddr, d->paddr, d->offset, d->filesz, d->memsz);
	EXPECT(t->rights == 5, "text rights %u", t->rights);
	EXPECT(d->rights == 6, "data rights %u", d->rights);
	EXPECT(out.low == 0x400000 && out.high == 0x604800, "low %lx high %lx", out.low, out.high);
}

TEST_CASE("elf.low_high_any_order", "low and high span all segments whatever their order") {
	base_image();
	add_ph(PT_LOAD, PF_R, 0x1000, 0x800000, 0x10, 0x10);
	add_ph(PT_LOAD, PF_R | PF_X, 0x1010, 0x200010, 0x10, 0x1000);
	add_ph(PT_LOAD, PF_R | PF_W, 0x1020, 0x500020, 0x10, 0x20);
	eh()->entry = 0x200010;
	EXPECT_ACCEPT();
	EXPECT(out.nsegs == 3, "nsegs %d", out.nsegs);
	EXPECT(out.low == 0x200010 && out.high == 0x800010, "low %lx high %lx", out.low, out.high);
}

TEST_CASE("elf.rights", "segment flags map to r = 4, w = 2, x = 1; unknown flag bits are dropped") {
	base_image();
	add_ph(PT_LOAD, PF_R | PF_W | PF_X | 0xf0000000, 0x1000, 0x400000, 0x10, 0x1000);
	add_ph(PT_LOAD, PF_W, 0x1000, 0x401000, 0x10, 0x1000);
	add_ph(PT_LOAD, 0, 0x1000, 0x402000, 0x10, 0x1000);
	add_ph(PT_LOAD, PF_X, 0x1000, 0x403000, 0x10, 0x1000);
	EXPECT_ACCEPT();
	EXPECT(out.segs[0].rights == 7 && out.segs[1].rights == 2 && out.segs[2].rights == 0 &&
	       out.segs[3].rights == 1, "rights %u %u %u %u", out.segs[0].rights,
	       out.segs[1].rights, out.segs[2].rights, out.segs[3].rights);
}

TEST_CASE("elf.bss_segment", "a segment with no file data (filesz 0) is accepted") {
	valid_image();
	add_ph(PT_LOAD, PF_R | PF_W, 0, 0x700000, 0, 0x10000);
	EXPECT_ACCEPT();
	EXPECT(out.nsegs == 3 && out.segs[2].filesz == 0 && out.segs[2].memsz == 0x10000,
	       "nsegs %d", out.nsegs);
	EXPECT(out.high == 0x710000, "high %lx", out.high);
}

TEST_CASE("elf.data_ends_at_eof", "segment data ending exactly at the end of the file is accepted") {
	valid_image();
	ph(2)->filesz = im.len - ph(2)->offset;
	EXPECT_ACCEPT();
	ph(2)->offset = im.len;
	ph(2)->filesz = 0;
	EXPECT_ACCEPT();
}

TEST_CASE("elf.ignores_other_types", "non-PT_LOAD headers are not validated or counted") {
	valid_image();
	add_ph(PT_DYNAMIC, 0, ~0UL, ~0UL, ~0UL, 1);
	add_ph(PT_NULL, 0, 0x10000000, USER_TOP, 5, 1);
	EXPECT_ACCEPT();
	EXPECT(out.nsegs == 2, "nsegs %d", out.nsegs);
}

TEST_CASE("elf.segment_at_user_top", "a segment may end exactly at user_top but not start there") {
	valid_image();
	ph(2)->vaddr = ph(2)->paddr = USER_TOP - ph(2)->memsz;
	EXPECT_ACCEPT();
	EXPECT(out.high == USER_TOP, "high %lx", out.high);
	ph(2)->vaddr = ph(2)->paddr = USER_TOP;
	EXPECT_REJECT("outside user space");
	ph(2)->vaddr = ph(2)->paddr = USER_TOP - ph(2)->memsz + 0x1000;
	EXPECT_REJECT("outside user space");
}

TEST_CASE("elf.user_top_parameter", "the limit is the user_top argument, not a constant") {
	valid_image();
	EXPECT(check_len(im.len, 0x604800) == NULL, "rejected with user_top at the image end");
	EXPECT(rejected(check_len(im.len, 0x604000), "outside user space"), "accepted below the image end");
	EXPECT(rejected(check_len(im.len, 0x400000), "outside user space"), "accepted with user_top at low");
}

TEST_CASE("elf.entry_bounds", "the entry point must be inside an executable segment, ends included/excluded") {
	valid_image();
	eh()->entry = 0x400000;
	EXPECT_ACCEPT();
	eh()->entry = 0x4007ff;
	EXPECT_ACCEPT();
	eh()->entry = 0x400800;
	EXPECT_REJECT("entry point");
	eh()->entry = 0x3fffff;
	EXPECT_REJECT("entry point");
	eh()->entry = 0;
	EXPECT_REJECT("entry point");
}

TEST_CASE("elf.entry_in_data", "an entry point inside a non-executable segment is rejected") {
	valid_image();
	eh()->entry = 0x601800;
	EXPECT_REJECT("entry point");
	ph(2)->flags |= PF_X;
	EXPECT_ACCEPT();
}

TEST_CASE("elf.max_segments", "ELF_MAX_SEGMENTS loadable segments are accepted") {
	base_image();
	for (int i = 0; i < ELF_MAX_SEGMENTS; i++)
		add_ph(PT_LOAD, PF_R | PF_X, 0x1000, 0x400000 + (u64)i * 0x1000, 0x10, 0x1000);
	add_ph(PT_NOTE, 0, 0x1000, 0, 0x10, 0x10);
	EXPECT_ACCEPT();
	EXPECT(out.nsegs == ELF_MAX_SEGMENTS, "nsegs %d", out.nsegs);
	EXPECT(out.high == 0x400000 + ELF_MAX_SEGMENTS * 0x1000UL, "high %lx", out.high);
}

/* --- rejections --- */

TEST_CASE("elf.reject_short", "empty and too-short files are rejected") {
	valid_image();
	for (u64 len = 0; len < sizeof(struct ehdr); len++) {
		const char *err = check_len(len, USER_TOP);
		EXPECT(err != NULL, "%lu-byte file accepted", len);
	}
	EXPECT(rejected(check_len(0, USER_TOP), "too short"), "empty file");
	EXPECT(rejected(check_len(3, USER_TOP), "too short"), "3-byte file");
	EXPECT(rejected(check_len(63, USER_TOP), "truncated"), "63-byte ELF header");
}

TEST_CASE("elf.reject_magic", "a bad magic number is rejected") {
	for (int i = 0; i < 4; i++) {
		valid_image();
		im.b[i] ^= 0x20;
		EXPECT_REJECT("magic");
	}
}

TEST_CASE("elf.reject_class32", "a 32-bit ELF class is rejected") {
	valid_image();
	eh()->ident[4] = 1;
	EXPECT_REJECT("64-bit");
	eh()->ident[4] = 0;
	EXPECT_REJECT("64-bit");
}

TEST_CASE("elf.reject_big_endian", "a big-endian ELF file is rejected") {
	valid_image();
	eh()->ident[5] = 2;
	EXPECT_REJECT("little-endian");
}

TEST_CASE("elf.reject_type", "relocatable, shared and core files are rejected") {
	static const u16 types[] = { 0, 1, 3, 4, 0x200 };
	for (unsigned i = 0; i < ARRAY_SIZE(types); i++) {
		valid_image();
		eh()->type = types[i];
		EXPECT_REJECT("ET_EXEC");
	}
}

TEST_CASE("elf.reject_machine", "a machine other than x86-64 is rejected") {
	static const u16 machines[] = { 3, 40, 183, 243, 62 + 256 };
	for (unsigned i = 0; i < ARRAY_SIZE(machines); i++) {
		valid_image();
		eh()->machine = machines[i];
		EXPECT_REJECT("x86-64");
	}
}

TEST_CASE("elf.reject_phentsize", "a program-header size other than 56 is rejected") {
	static const u16 sizes[] = { 0, 32, 55, 57, 64 };
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		valid_image();
		eh()->phentsize = sizes[i];
		EXPECT_REJECT("program-header size");
	}
}

TEST_CASE("elf.reject_no_phdrs", "an executable without program headers is rejected") {
	valid_image();
	eh()->phnum = 0;
	EXPECT_REJECT("no program headers");
}

TEST_CASE("elf.reject_phdrs_past_eof", "program headers beyond the end of the file are rejected") {
	valid_image();
	eh()->phoff = im.len - 3 * sizeof(struct phdr) + 1;
	EXPECT_REJECT("program headers lie outside");
	eh()->phoff = im.len + 1;
	EXPECT_REJECT("program headers lie outside");
	eh()->phoff = ~0UL - 8;
	EXPECT_REJECT("program headers lie outside");
	valid_image();
	eh()->phnum = 0xffff;
	EXPECT_REJECT("program headers lie outside");
}

TEST_CASE("elf.phdrs_at_eof", "program headers ending exactly at the end of the file are accepted") {
	valid_image();
	u64 at = im.len;
	memcpy(im.b + at, ph(0), 3 * sizeof(struct phdr));
	im.len += 3 * sizeof(struct phdr);
	eh()->phoff = at;
	EXPECT_ACCEPT();
	EXPECT(out.nsegs == 2, "nsegs %d", out.nsegs);
}

TEST_CASE("elf.reject_truncated", "a valid image cut short at any length is rejected, never read past its end") {
	valid_image();
	for (u64 len = 0; len < im.len; len++)
		EXPECT(check_len(len, USER_TOP) != NULL, "image cut to %lu of %lu bytes accepted", len, im.len);
	EXPECT(check_len(im.len, USER_TOP) == NULL, "full image rejected");
}

TEST_CASE("elf.reject_data_past_eof", "segment data beyond the end of the file is rejected") {
	valid_image();
	ph(2)->filesz = im.len - ph(2)->offset + 1;
	EXPECT_REJECT("segment data lies outside");
	valid_image();
	ph(0)->offset = im.len + 0x1000;
	ph(0)->filesz = 0;
	EXPECT_REJECT("segment data lies outside");
	valid_image();
	ph(0)->offset = ~0UL - 0x10;       /* offset + filesz wraps */
	EXPECT_REJECT("segment data lies outside");
	valid_image();
	ph(2)->filesz = ph(2)->memsz = ~0UL;   /* huge filesz must not wrap past len */
	EXPECT_REJECT("segment data lies outside");
}

TEST_CASE("elf.reject_filesz_gt_memsz", "file size larger than memory size is rejected") {
	valid_image();
	ph(0)->memsz = ph(0)->filesz - 1;
	EXPECT_REJECT("file size exceeds memory size");
}

TEST_CASE("elf.reject_empty_segment", "a loadable segment with memsz 0 is rejected") {
	valid_image();
	ph(2)->filesz = ph(2)->memsz = 0;
	EXPECT_REJECT("empty loadable segment");
}

TEST_CASE("elf.reject_above_user_top", "a segment in kernel space is rejected") {
	valid_image();
	ph(2)->vaddr = ph(2)->paddr = 0xffff800000601800UL;
	EXPECT_REJECT("outside user space");
	valid_image();
	ph(2)->memsz = USER_TOP;                /* starts low, ends above */
	EXPECT_REJECT("outside user space");
}

TEST_CASE("elf.reject_vaddr_overflow", "vaddr + memsz wrapping past 2^64 is rejected") {
	valid_image();
	ph(2)->vaddr = ph(2)->paddr = 0xfffffffffffff800UL;
	ph(2)->memsz = 0x1000;
	EXPECT(rejected(check_len(im.len, ~0UL), "outside user space"), "wrapping segment accepted");
	valid_image();
	ph(0)->memsz = ~0UL - 0x1000;          /* 0x400000 + memsz wraps */
	EXPECT(rejected(check_len(im.len, ~0UL), "outside user space"), "wrapping memsz accepted");
	EXPECT_REJECT("outside user space");
}

TEST_CASE("elf.reject_paddr_overflow", "paddr + memsz wrapping past 2^64 is rejected") {
	valid_image();
	ph(2)->paddr = 0xfffffffffffff800UL;
	EXPECT_REJECT("physical range overflows");
}

TEST_CASE("elf.reject_incongruent", "vaddr and paddr differing within a page are rejected") {
	valid_image();
	ph(2)->paddr = 0x601000;
	EXPECT_REJECT("differ within a page");
	ph(2)->paddr = 0x601801;
	EXPECT_REJECT("differ within a page");
	ph(2)->paddr = 0x12345800;             /* congruent: accepted */
	EXPECT_ACCEPT();
	EXPECT(out.segs[1].paddr == 0x12345800, "paddr %lx", out.segs[1].paddr);
}

TEST_CASE("elf.reject_no_load", "an executable without PT_LOAD segments is rejected") {
	valid_image();
	ph(0)->type = PT_NOTE;
	ph(2)->type = PT_DYNAMIC;
	EXPECT_REJECT("no loadable segments");
}

TEST_CASE("elf.reject_too_many", "more than ELF_MAX_SEGMENTS loadable segments are rejected") {
	base_image();
	for (int i = 0; i < ELF_MAX_SEGMENTS + 1; i++)
		add_ph(PT_LOAD, PF_R | PF_X, 0x1000, 0x400000 + (u64)i * 0x1000, 0x10, 0x1000);
	EXPECT_REJECT("too many");
}

TEST_CASE("elf.reject_bad_later_segment", "a bad segment after good ones is still rejected") {
	valid_image();
	add_ph(PT_LOAD, PF_R, 0x1000, 0x700000, 0x20, 0x10);
	EXPECT_REJECT("file size exceeds memory size");
}

/* --- mutation fuzzing --- */

static u64 rng_state;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static char why[160];

/* Everything the loader trusts about an accepted image. */
static bool accepted_image_sane(const u8 *b, u64 len, u64 top)
{
	const struct ehdr *h = (const struct ehdr *)b;
	if (len < sizeof(*h) || memcmp(b, "\x7f" "ELF", 4) || b[4] != 2 || b[5] != 1 ||
	    h->type != 2 || h->machine != 62 || h->phentsize != sizeof(struct phdr)) {
		snprintf(why, sizeof(why), "accepted a bad header");
		return false;
	}
	if (out.nsegs < 1 || out.nsegs > ELF_MAX_SEGMENTS) {
		snprintf(why, sizeof(why), "accepted with nsegs %d", out.nsegs);
		return false;
	}
	bool entry_ok = false;
	u64 low = ~0UL, high = 0;
	for (int i = 0; i < out.nsegs; i++) {
		const struct elf_segment *s = &out.segs[i];
		if (s->offset > len || s->filesz > len - s->offset || s->filesz > s->memsz ||
		    s->memsz == 0 || s->vaddr >= top || s->memsz > top - s->vaddr ||
		    s->paddr + s->memsz < s->paddr || (s->vaddr ^ s->paddr) % PAGE_SIZE || s->rights > 7) {
			snprintf(why, sizeof(why), "accepted segment %d: off %lx filesz %lx memsz %lx vaddr %lx (len %lx)",
				 i, s->offset, s->filesz, s->memsz, s->vaddr, len);
			return false;
		}
		entry_ok |= (s->rights & 1) && out.entry >= s->vaddr && out.entry - s->vaddr < s->memsz;
		low = s->vaddr < low ? s->vaddr : low;
		high = s->vaddr + s->memsz > high ? s->vaddr + s->memsz : high;
	}
	if (!entry_ok || low != out.low || high != out.high) {
		snprintf(why, sizeof(why), "accepted: entry %lx low %lx high %lx", out.entry, out.low, out.high);
		return false;
	}
	return true;
}

static const u64 interesting[] = {
	0, 1, 0x38, 0x40, 0xfff, 0x1000, 0x1800, 0x1900, 0x18ff, 0x1901, 0x7fffffffffff,
	USER_TOP, USER_TOP - 1, 0xffff800000000000UL, ~0UL, ~0UL - 0xfff, 0x8000000000000000UL,
};

static void mutate(u8 *b, u64 len)
{
	int n = 1 + (int)(rng() % 4);
	u64 hdrs = PHOFF + 3 * sizeof(struct phdr);   /* mostly hit the headers */
	if (hdrs > len)
		hdrs = len;
	for (int k = 0; k < n; k++) {
		u64 where = rng() % 4 ? rng() % hdrs : rng() % len;
		switch (rng() % 4) {
		case 0:                 /* flip a bit */
			b[where] ^= (u8)(1u << rng() % 8);
			break;
		case 1:                 /* random byte */
			b[where] = (u8)rng();
			break;
		default: {              /* an interesting 8-byte value at an 8-aligned field */
			u64 v = interesting[rng() % ARRAY_SIZE(interesting)];
			where &= ~7UL;
			if (where + 8 <= len)
				memcpy(b + where, &v, 8);
			else
				b[where] = (u8)v;
		}
		}
	}
}

TEST_CASE("elf.fuzz_mutations", "random mutations of a valid image are rejected or accepted only when sound") {
	valid_image();
	const u64 full = im.len;
	int accepted = 0, rejected_n = 0;
	rng_state = 0x853c49e6748fea9bUL;
	for (int iter = 0; iter < 5000; iter++) {
		u64 len = rng() % 5 ? full : rng() % (full + 1);
		u8 *b = malloc(len ? len : 1);
		memcpy(b, im.b, len);
		if (len)
			mutate(b, len);
		u64 top = rng() % 4 ? USER_TOP : interesting[rng() % ARRAY_SIZE(interesting)];
		const char *err = elf_check(b, len, top, &out);
		if (err) {
			EXPECT(*err, "iteration %d: empty error message", iter);
			rejected_n++;
		} else {
			bool ok = accepted_image_sane(b, len, top);
			free(b);
			EXPECT(ok, "iteration %d: %s", iter, why);
			accepted++;
			continue;
		}
		free(b);
	}
	EXPECT(accepted > 100 && rejected_n > 1000, "fuzzer too one-sided: %d accepted, %d rejected",
	       accepted, rejected_n);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
