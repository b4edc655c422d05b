// SPDX-License-Identifier: MIT
// ELF64 executable validation: every field the loader will trust is checked here.
#include "elf.h"

#define PT_LOAD 1
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

static const char *check_header(const struct ehdr *h, u64 len)
{
	if (h->ident[4] != 2)
		return "not a 64-bit ELF file";
	if (h->ident[5] != 1)
		return "not a little-endian ELF file";
	if (h->type != 2)
		return "not an executable ELF file (e_type != ET_EXEC)";
	if (h->machine != 62)
		return "not an x86-64 ELF file";
	if (h->phentsize != sizeof(struct phdr))
		return "unexpected program-header size";
	if (h->phnum == 0)
		return "no program headers";
	if (h->phoff > len || (u64)h->phnum * sizeof(struct phdr) > len - h->phoff)
		return "program headers lie outside the file (truncated?)";
	return NULL;
}

static const char *check_segment(const struct phdr *ph, u64 len, u64 user_top,
				 struct elf_segment *s)
{
	if (ph->filesz > ph->memsz)
		return "segment file size exceeds memory size";
	if (ph->offset > len || ph->filesz > len - ph->offset)
		return "segment data lies outside the file (truncated?)";
	if (ph->memsz == 0)
		return "empty loadable segment";
	if (ph->vaddr >= user_top || ph->memsz > user_top - ph->vaddr)
		return "segment lies outside user space";
	if (ph->paddr + ph->memsz < ph->paddr)
		return "segment physical range overflows";
	if ((ph->vaddr ^ ph->paddr) & (PAGE_SIZE - 1))
		return "segment virtual and physical addresses differ within a page";
	*s = (struct elf_segment){
		.vaddr = ph->vaddr, .paddr = ph->paddr, .memsz = ph->memsz,
		.filesz = ph->filesz, .offset = ph->offset,
		.rights = (ph->flags & PF_R ? 4 : 0) | (ph->flags & PF_W ? 2 : 0) | (ph->flags & PF_X ? 1 : 0),
	};
	return NULL;
}

static bool entry_executable(const struct elf_image *img)
{
	for (int i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];
		if ((s->rights & 1) && img->entry >= s->vaddr && img->entry < s->vaddr + s->memsz)
			return true;
	}
	return false;
}

const char *elf_check(const u8 *img, u64 len, u64 user_top, struct elf_image *out)
{
	if (len < 4)
		return "not an ELF file (too short)";
	if (img[0] != 0x7f || img[1] != 'E' || img[2] != 'L' || img[3] != 'F')
		return "not an ELF file (bad magic)";
	if (len < sizeof(struct ehdr))
		return "ELF header truncated";
	const struct ehdr *h = (const struct ehdr *)img;
	const char *err = check_header(h, len);
	if (err)
		return err;
	*out = (struct elf_image){ .entry = h->entry, .low = ~0UL, .high = 0 };
	for (int i = 0; i < h->phnum; i++) {
		const struct phdr *ph = (const struct phdr *)(img + h->phoff) + i;
		if (ph->type != PT_LOAD)
			continue;
		if (out->nsegs == ELF_MAX_SEGMENTS)
			return "too many loadable segments";
		struct elf_segment *s = &out->segs[out->nsegs];
		if ((err = check_segment(ph, len, user_top, s)))
			return err;
		out->nsegs++;
		if (s->vaddr < out->low)
			out->low = s->vaddr;
		if (s->vaddr + s->memsz > out->high)
			out->high = s->vaddr + s->memsz;
	}
	if (out->nsegs == 0)
		return "no loadable segments";
	if (!entry_executable(out))
		return "entry point is not inside an executable segment";
	return NULL;
}
