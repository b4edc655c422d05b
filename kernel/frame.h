/* SPDX-License-Identifier: MIT */
/* Physical frame allocation: a bitmap pool (pure, host-tested) and the kernel's pool. */
#ifndef PECAN_FRAME_H
#define PECAN_FRAME_H

#include "types.h"

struct frame_pool {
	paddr_t base;       /* physical address of frame 0, page aligned */
	word_t nframes;
	word_t nfree;
	word_t hint;        /* where the next search starts */
	u64 *bitmap;        /* bit set = frame in use; nframes bits */
};

/* Storage in words the bitmap of a pool of n frames needs. */
#define FRAME_BITMAP_WORDS(n) (((n) + 63) / 64)

void fpool_init(struct frame_pool *p, paddr_t base, word_t nframes, u64 *bitmap);
/* n contiguous frames whose physical address is aligned to align_frames pages
 * (a power of two); 0 if none.  A pool based at 0 never hands out frame 0. */
paddr_t fpool_alloc(struct frame_pool *p, word_t n, word_t align_frames);
/* False (and nothing changes) if any frame is outside the pool or already free. */
bool fpool_free(struct frame_pool *p, paddr_t addr, word_t n);

/* The kernel's pool (kmem.c): zeroed frames for page tables, TCBs, stacks, UTCBs. */
void kmem_init(paddr_t base, word_t size);
paddr_t frame_alloc_zeroed(word_t n);
word_t kmem_free_count(void);           /* frames free in the pool now */
word_t kmem_total(void);                /* frames in the pool */
void frame_free(paddr_t addr, word_t n);

#endif
