/* SPDX-License-Identifier: MIT */
/* The user image's ELF file, checked by the kernel's own validator (kernel/elf.c). */
#ifndef MUNGI_ELFIMG_H
#define MUNGI_ELFIMG_H

#define ELFIMG_MAX 16

struct elfimg {
	unsigned long entry;
	int nsegs;
	struct {
		unsigned long vaddr, memsz, filesz, offset;
		unsigned rights;        /* r 4, w 2, x 1 */
	} seg[ELFIMG_MAX];
	unsigned long rt;               /* the address of section .mungi_rt, 0: none */
};

/* NULL and *out filled, or what is wrong with img[0..len). Segments must lie below top. */
const char *elfimg_check(const unsigned char *img, unsigned long len, unsigned long top, struct elfimg *out);

#endif
