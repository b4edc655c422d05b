/* SPDX-License-Identifier: MIT */
/*
 * Address-space allocation for objects (seed 002, "Objects"): free extents,
 * first fit, and a stale list.  A deleted object's range waits on the stale
 * list for at least dt before it may be handed out again, so no validation
 * cached for the old object (which expires after dt) can cover a new one.
 * Pure: the host tests run it against a page-by-page model.
 */
#ifndef MUNGI_ADDR_H
#define MUNGI_ADDR_H

#include "btree.h"

#define ADDR_PAGE 4096UL

struct stale {
	uint64_t base, npages;
	uint64_t release;               /* when it was deleted */
	struct stale *next;
};

struct addr_space {
	struct btree free;              /* end address -> pages, maximal free extents */
	struct stale *stale, *stale_tail;       /* in release order */
	uint64_t dt;                    /* the reuse delay, in the caller's time unit */
	uint64_t free_pages, stale_pages;
	struct stale *(*stale_alloc)(void *ctx);
	void (*stale_free)(void *ctx, struct stale *s);
	void *ctx;
};

/*
 * The page-aligned range [base, base + npages pages) becomes free; nodes and
 * stale records come from the allocators given.  Returns 0, -1 without memory.
 */
int addr_init(struct addr_space *a, uint64_t base, uint64_t npages, uint64_t dt,
	      struct bt_node *(*node_alloc)(void *), void (*node_free)(void *, struct bt_node *),
	      struct stale *(*stale_alloc)(void *), void (*stale_free)(void *, struct stale *), void *ctx);
/* The lowest free range of npages pages (first fit), now in use; 0 when there is none. */
uint64_t addr_alloc(struct addr_space *a, uint64_t npages);
/* A range that was never part of the space becomes free (for fixed objects); 0 or -1. */
int addr_add(struct addr_space *a, uint64_t base, uint64_t npages);
/* Take the given free range out of the free extents (fixed objects); 0, or -1 if not all free. */
int addr_reserve(struct addr_space *a, uint64_t base, uint64_t npages);
/* A range in use goes onto the stale list at time now; 0, or -1 without memory (nothing changed). */
int addr_release(struct addr_space *a, uint64_t base, uint64_t npages, uint64_t now);
/* Stale ranges released at least dt before now become free (coalesced), at most max of them. */
void addr_reap(struct addr_space *a, uint64_t now, uint64_t max);
/* The number of free extents (for checks). */
uint64_t addr_extents(const struct addr_space *a);

#endif
