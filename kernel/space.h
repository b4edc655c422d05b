/* SPDX-License-Identifier: MIT */
/* Address spaces: page tables plus the KIP and UTCB areas. */
#ifndef PECAN_SPACE_H
#define PECAN_SPACE_H

#include "types.h"

struct space {
	paddr_t root;            /* top-level page table */
	word_t kip_base;         /* where the KIP appears in this space */
	word_t utcb_base, utcb_size;
	bool privileged;         /* sigma0's and the root task's spaces */
	int nthreads;
};

/* A new space with the KIP mapped at kip_base and the given UTCB area; NULL if OOM. */
struct space *space_create(word_t kip_base, word_t utcb_base, word_t utcb_size);
bool space_map(struct space *s, word_t va, paddr_t pa, unsigned rights);
/* Copy n bytes from user address va; false if any byte is unmapped or not user memory. */
bool space_read(struct space *s, word_t va, void *buf, size_t n);
/* The kernel address of user address va if mapped with at least `rights`, else NULL. */
void *space_kaddr(struct space *s, word_t va, unsigned rights);

#endif
