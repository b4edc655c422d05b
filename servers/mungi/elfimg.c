// SPDX-License-Identifier: MIT
// The user image: the kernel's ELF checks (kernel/elf.c is pure and is
// linked in), then the section .mungi_rt found by name.
#include "../../kernel/elf.h"
#include "elfimg.h"

struct shdr {
	u32 name, type;
	u64 flags, addr, offset, size;
	u32 link, info;
	u64 align, entsize;
} __attribute__((packed));

/* Offsets of e_shoff, e_shentsize, e_shnum, e_shstrndx in the ELF64 header. */
static u64 rd(const u8 *p, int n)
{
	u64 v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool named(const u8 *img, u64 len, u64 strtab, u64 strsize, u32 name, const char *want)
{
	for (u64 i = 0;; i++) {
		if (name + i >= strsize || strtab + name + i >= len)
			return false;
		if (img[strtab + name + i] != (u8)want[i])
			return false;
		if (!want[i])
			return true;
	}
}

/* The address of the section called .mungi_rt, or 0. */
static u64 find_rt(const u8 *img, u64 len)
{
	u64 shoff = rd(img + 0x28, 8), entsize = rd(img + 0x3a, 2), n = rd(img + 0x3c, 2),
	    strndx = rd(img + 0x3e, 2);
	if (entsize != sizeof(struct shdr) || shoff > len || n * entsize > len - shoff || strndx >= n)
		return 0;
	const struct shdr *sh = (const struct shdr *)(img + shoff);
	for (u64 i = 0; i < n; i++)
		if (named(img, len, sh[strndx].offset, sh[strndx].size, sh[i].name, ".mungi_rt"))
			return sh[i].size >= 24 ? sh[i].addr : 0;
	return 0;
}

const char *elfimg_check(const unsigned char *img, unsigned long len, unsigned long top, struct elfimg *out)
{
	struct elf_image e;
	const char *err = elf_check(img, len, top, &e);
	if (err)
		return err;
	out->entry = e.entry;
	out->nsegs = e.nsegs;
	for (int i = 0; i < e.nsegs; i++) {
		out->seg[i].vaddr = e.segs[i].vaddr;
		out->seg[i].memsz = e.segs[i].memsz;
		out->seg[i].filesz = e.segs[i].filesz;
		out->seg[i].offset = e.segs[i].offset;
		out->seg[i].rights = e.segs[i].rights;
	}
	out->rt = find_rt(img, len);
	return out->rt ? NULL : "no section .mungi_rt (not linked with lib/mungi?)";
}
