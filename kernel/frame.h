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
/* Allocate the one frame at addr; false (nothing changes) if it is outside the pool or in use. */
bool fpool_claim(struct frame_pool *p, paddr_t addr);
/* False (and nothing changes) if any frame is outside the pool or already free. */
bool fpool_free(struct frame_pool *p, paddr_t addr, word_t n);

/*
 * Kernel memory accounting (kmem.c, docs/architecture.md "Kernel memory").
 * Every kernel object made on behalf of an address space -- the space
 * itself, its page tables, its threads' TCBs and stacks, its UTCB pages,
 * the mapping-database nodes of the mappings it holds -- is charged to that
 * space's account, in bytes.  A limited account (every space but sigma0's
 * and the root task's) may hold at most its quota, and all limited accounts
 * together at most the pool less a reserve that only the kernel and the
 * privileged spaces can use.  A charge that does not fit fails: the call
 * that needed the memory reports ErrorCode 8 (out of memory).
 */
struct kmem_acct {
	word_t used;            /* bytes charged now */
	word_t quota;           /* bytes it may hold, if limited */
	bool limited;
};

/* Size the pool: size bytes at base (page aligned); its bitmap lives in its first frames. */
void kmem_init(paddr_t base, word_t size);
/* n zeroed frames charged to a (NULL: the kernel's own); 0 if the pool or a's quota is short. */
paddr_t kmem_alloc(struct kmem_acct *a, word_t n);
/* The same, their contents left as they are: for memory the kernel fills before it reads. */
paddr_t kmem_alloc_raw(struct kmem_acct *a, word_t n);
void kmem_free(struct kmem_acct *a, paddr_t addr, word_t n);
/* kmem_free of one frame the caller left all zero: the next kmem_alloc of one frame
 * may take it without zeroing it again (page tables emptied by unmap are). */
void kmem_free_zeroed(struct kmem_acct *a, paddr_t addr);
/* Charge (or give back) bytes held in memory a shared allocator already has. */
bool kmem_charge(struct kmem_acct *a, word_t bytes);
void kmem_uncharge(struct kmem_acct *a, word_t bytes);
/* A new limited account with quota bytes (0: the default, a share of the pool). */
void kmem_acct_init(struct kmem_acct *a, bool limited, word_t quota);
word_t kmem_free_count(void);           /* frames free in the pool now */
word_t kmem_total(void);                /* frames in the pool */
paddr_t frame_alloc_zeroed(word_t n);   /* kmem_alloc(NULL, n) */
void frame_free(paddr_t addr, word_t n);

#endif
