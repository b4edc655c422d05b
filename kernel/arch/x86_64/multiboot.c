// SPDX-License-Identifier: MIT
// Multiboot v1 information (QEMU -kernel/-initrd): memory map, modules, command lines.
#include "../../boot.h"

#define MBI_FLAG_CMDLINE  (1u << 2)
#define MBI_FLAG_MODS     (1u << 3)
#define MBI_FLAG_MMAP     (1u << 6)

struct mbi {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline;
	u32 mods_count, mods_addr;
	u32 syms[4];
	u32 mmap_length, mmap_addr;
} __attribute__((packed));

struct mb_module {
	u32 start, end, string, reserved;
} __attribute__((packed));

/* Memory-map entries are {u32 size; u64 base, len; u32 type}, unaligned: read bytewise. */
static u32 rd32(const u8 *p) { return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24; }
static u64 rd64(const u8 *p) { return rd32(p) | (u64)rd32(p + 4) << 32; }

const char *multiboot_parse_mmap(const u8 *buf, u32 len, struct mem_map *out)
{
	out->n = 0;
	for (u32 off = 0; off < len;) {
		if (len - off < 4)
			return "memory map truncated";
		u32 size = rd32(buf + off);
		if (size < 20)
			return "memory map entry too small";
		if (size > len - off - 4)
			return "memory map entry runs past the map";
		u64 base = rd64(buf + off + 4), length = rd64(buf + off + 12);
		u32 type = rd32(buf + off + 20);
		u64 end = base + length < base ? ~0UL : base + length;   /* clamp overflow */
		if (length && !pmem_add(out, base, end, type == 1 ? MEM_RAM : MEM_RESERVED))
			return "memory map has too many entries";
		off += size + 4;
	}
	return out->n ? NULL : "memory map is empty";
}

static void cover(struct boot_info *bi, u64 start, u64 end)
{
	if (start < bi->info_start)
		bi->info_start = start;
	if (end > bi->info_end)
		bi->info_end = end;
}

/* A loader string, which the kernel keeps using, so it is covered too. */
static const char *string_at(struct boot_info *bi, u32 phys, u64 off)
{
	if (!phys)
		return "";
	const char *s = (const char *)(phys + off);
	u64 len = 0;
	while (s[len])
		len++;
	cover(bi, phys, phys + len + 1);
	return s;
}

static const char *parse_modules(const struct mbi *m, u64 off, struct boot_info *bi)
{
	bi->nmods = 0;
	if (!(m->flags & MBI_FLAG_MODS))
		return NULL;
	if (m->mods_count > CONFIG_MAX_MODULES)
		return "too many boot modules";
	const struct mb_module *mods = (const void *)(m->mods_addr + off);
	cover(bi, m->mods_addr, m->mods_addr + m->mods_count * sizeof(*mods));
	for (u32 i = 0; i < m->mods_count; i++) {
		if (mods[i].end < mods[i].start)
			return "boot module ends before it starts";
		bi->mods[i] = (struct boot_module){ mods[i].start, mods[i].end,
						    string_at(bi, mods[i].string, off) };
	}
	bi->nmods = (int)m->mods_count;
	return NULL;
}

const char *multiboot_parse(u64 mbi, u64 off, struct boot_info *bi)
{
	const struct mbi *m = (const void *)(mbi + off);
	bi->info_start = mbi;
	bi->info_end = mbi + sizeof(*m);
	bi->cmdline = (m->flags & MBI_FLAG_CMDLINE) ? string_at(bi, m->cmdline, off) : "";
	if (!(m->flags & MBI_FLAG_MMAP))
		return "boot loader gave no memory map";
	cover(bi, m->mmap_addr, (u64)m->mmap_addr + m->mmap_length);
	const char *err = multiboot_parse_mmap((const u8 *)(m->mmap_addr + off), m->mmap_length, &bi->fw);
	return err ? err : parse_modules(m, off, bi);
}

bool multiboot_move_module(u64 mbi, u64 off, int i, u64 start, u64 end)
{
	const struct mbi *m = (const void *)(mbi + off);
	if (end > 0xffffffffUL || start > end)
		return false;
	struct mb_module *mod = (struct mb_module *)(m->mods_addr + off) + i;
	mod->start = (u32)start;
	mod->end = (u32)end;
	return true;
}
