// SPDX-License-Identifier: MIT
// The kernel's own frame pool, carved out of RAM at boot and reported Reserved to sigma0,
// and the accounts every space's kernel memory is charged to (frame.h).
#include "frame.h"
#include "config.h"
#include "kip.h"
#include "printk.h"
#include <arch.h>

static struct frame_pool kpool;
/* Free frames known to be all zero, most recently freed last: page tables emptied by unmap. */
#define ZEROED_MAX 16
static paddr_t zeroed[ZEROED_MAX];
static int nzeroed;
/* Single frames freed lately, most recent last: kmem_alloc_raw takes them first, as
 * they may still be in the caches (the pool's hint would give a cold frame). */
#define WARM_MAX 16             /* a ring: a free beyond it forgets the oldest */
static paddr_t warm[WARM_MAX];
static unsigned nwarm, warm_top;
static word_t *kip_free;                /* the KIP word that shows the free bytes */
static word_t limited_used, limited_cap;        /* bytes, over all limited accounts */

static void publish(void)
{
	if (kip_free)
		*kip_free = kpool.nfree * PAGE_SIZE;
}

/* The pool's bitmap takes its first frames; they stay allocated for ever. */
void kmem_init(paddr_t base, word_t size)
{
	word_t n = size / PAGE_SIZE;
	word_t bm_frames = ALIGN_UP(FRAME_BITMAP_WORDS(n) * 8, PAGE_SIZE) / PAGE_SIZE;
	fpool_init(&kpool, base, n, phys_to_virt(base));
	if (fpool_alloc(&kpool, bm_frames, 1) != base)
		panic("kernel pool: its bitmap does not fit at its start");
	limited_cap = (kpool.nfree - kpool.nfree / CONFIG_KMEM_RESERVE_DIV) * PAGE_SIZE;
	kip_set_kmem(size);
	kip_free = kip_kmem_free_word();
	publish();
}

word_t kmem_free_count(void) { return kpool.nfree; }
word_t kmem_total(void) { return kpool.nframes; }

void kmem_acct_init(struct kmem_acct *a, bool limited, word_t quota)
{
	a->used = 0;
	a->limited = limited;
	a->quota = quota ? quota : kpool.nframes / CONFIG_KMEM_QUOTA_DIV * PAGE_SIZE;
}

bool kmem_charge(struct kmem_acct *a, word_t bytes)
{
	if (!a)
		return true;
	if (a->limited) {
		if (bytes > a->quota - a->used || bytes > limited_cap - limited_used)
			return false;   /* used never exceeds quota; limited_used never exceeds the cap */
		limited_used += bytes;
	}
	a->used += bytes;
	return true;
}

void kmem_uncharge(struct kmem_acct *a, word_t bytes)
{
	if (!a)
		return;
	if (bytes > a->used)
		panic("kmem: account %p gives back %lu bytes, holds %lu", a, bytes, a->used);
	a->used -= bytes;
	if (a->limited)
		limited_used -= bytes;
}

/* The frames [p, p + n pages) were allocated: none of them is free and zeroed any more. */
static void forget_zeroed(paddr_t p, word_t n)
{
	for (int i = 0; i < nzeroed;)
		if (zeroed[i] >= p && zeroed[i] - p < n * PAGE_SIZE)
			zeroed[i] = zeroed[--nzeroed];
		else
			i++;
}

/* The most recently freed frame the pool still has free, claimed; 0 if none. */
static paddr_t take_warm(void)
{
	while (nwarm) {
		nwarm--;
		warm_top = (warm_top + WARM_MAX - 1) % WARM_MAX;
		paddr_t w = warm[warm_top];
		if (fpool_claim(&kpool, w)) {   /* fails if the pool handed it out since */
			forget_zeroed(w, 1);
			return w;
		}
	}
	return 0;
}

/*
 * n frames charged to a; *zero: whether they still need zeroing.  Zeroed
 * frames are kept for allocations that want zeroes (want_zero).
 */
static paddr_t alloc(struct kmem_acct *a, word_t n, bool want_zero, bool *zero)
{
	if (n > kpool.nframes || !kmem_charge(a, n * PAGE_SIZE))
		return 0;
	*zero = false;
	if (want_zero && n == 1 && nzeroed) {
		paddr_t z = zeroed[--nzeroed];
		if (fpool_claim(&kpool, z)) {
			publish();
			return z;
		}
	}
	paddr_t p = fpool_alloc(&kpool, n, 1);
	if (!p) {
		kmem_uncharge(a, n * PAGE_SIZE);
		return 0;
	}
	forget_zeroed(p, n);
	*zero = true;
	publish();
	return p;
}

paddr_t kmem_alloc(struct kmem_acct *a, word_t n)
{
	bool zero;
	paddr_t p = alloc(a, n, true, &zero);
	if (p && zero)
		arch_zero(phys_to_virt(p), n * PAGE_SIZE);
	return p;
}

/*
 * One frame, charged to a, from the warm ring; 0 if it has none the pool
 * still holds.  Out of alloc, whose zeroed path (kmem_alloc: page tables)
 * it made dearer there: 30 instructions more per one-page Map.
 */
static __attribute__((noinline)) paddr_t alloc_warm(struct kmem_acct *a)
{
	if (!kmem_charge(a, PAGE_SIZE))
		return 0;
	paddr_t w = take_warm();
	if (!w) {
		kmem_uncharge(a, PAGE_SIZE);
		return 0;
	}
	publish();
	return w;
}

paddr_t kmem_alloc_raw(struct kmem_acct *a, word_t n)
{
	bool zero;
	paddr_t w = n == 1 && nwarm ? alloc_warm(a) : 0;
	return w ? w : alloc(a, n, false, &zero);
}

static void free_frames(struct kmem_acct *a, paddr_t addr, word_t n)
{
	if (!fpool_free(&kpool, addr, n))
		panic("kmem_free: bad free of %lx (%lu frames)", addr, n);
	kmem_uncharge(a, n * PAGE_SIZE);
	publish();
}

/*
 * The ring before the free, so that the free is a tail call: inlined into
 * node_free (LTO), a push after the call kept addr in a callee-saved
 * register, one push and pop on every node free (2 instructions per page of
 * an unmap).  A bad free panics, so the ring never keeps one.
 */
void kmem_free(struct kmem_acct *a, paddr_t addr, word_t n)
{
	if (n == 1) {
		warm[warm_top] = addr;
		warm_top = (warm_top + 1) % WARM_MAX;
		nwarm += nwarm < WARM_MAX;
	}
	free_frames(a, addr, n);
}

/* Kept for kmem_alloc, not kmem_alloc_raw: zeroing a frame costs more than a cold one. */
void kmem_free_zeroed(struct kmem_acct *a, paddr_t addr)
{
	free_frames(a, addr, 1);
	if (nzeroed < ZEROED_MAX)
		zeroed[nzeroed++] = addr;
}

paddr_t frame_alloc_zeroed(word_t n) { return kmem_alloc(NULL, n); }
void frame_free(paddr_t addr, word_t n) { kmem_free(NULL, addr, n); }
