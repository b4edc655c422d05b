// SPDX-License-Identifier: MIT
// Bitmap frame pool: first fit from a rotating hint, aligned contiguous runs.
#include "frame.h"

static bool bit_get(const u64 *bm, word_t i) { return bm[i / 64] >> (i % 64) & 1; }
static void bit_set(u64 *bm, word_t i) { bm[i / 64] |= 1UL << (i % 64); }
static void bit_clear(u64 *bm, word_t i) { bm[i / 64] &= ~(1UL << (i % 64)); }

void fpool_init(struct frame_pool *p, paddr_t base, word_t nframes, u64 *bitmap)
{
	p->base = base;
	p->nframes = nframes;
	p->nfree = nframes;
	p->hint = 0;
	p->bitmap = bitmap;
	for (word_t i = 0; i < FRAME_BITMAP_WORDS(nframes); i++)
		bitmap[i] = 0;
	if (base == 0 && nframes) {     /* 0 means "no frame": never hand out physical 0 */
		bit_set(bitmap, 0);
		p->nfree--;
	}
}

/* First index >= i whose physical frame number is a multiple of align. */
static word_t align_index(const struct frame_pool *p, word_t i, word_t align)
{
	word_t pfn = p->base / PAGE_SIZE;
	return ALIGN_UP(pfn + i, align) - pfn;
}

/* Index of the first used frame in [start, start+n), or start+n if all are free. */
static word_t first_used(const struct frame_pool *p, word_t start, word_t n)
{
	for (word_t i = start; i < start + n; i++)
		if (bit_get(p->bitmap, i))
			return i;
	return start + n;
}

static bool search(struct frame_pool *p, word_t from, word_t to, word_t n,
		   word_t align, word_t *found)
{
	word_t i = align_index(p, from, align);
	while (i + n <= to) {
		word_t used = first_used(p, i, n);
		if (used == i + n) {
			*found = i;
			return true;
		}
		i = align_index(p, used + 1, align);
	}
	return false;
}

paddr_t fpool_alloc(struct frame_pool *p, word_t n, word_t align)
{
	word_t i;
	if (n == 0 || n > p->nfree || align == 0 || (align & (align - 1)))
		return 0;
	if (!search(p, p->hint, p->nframes, n, align, &i) &&
	    !search(p, 0, p->nframes, n, align, &i))
		return 0;
	for (word_t k = i; k < i + n; k++)
		bit_set(p->bitmap, k);
	p->nfree -= n;
	p->hint = i + n < p->nframes ? i + n : 0;
	return p->base + i * PAGE_SIZE;
}

bool fpool_claim(struct frame_pool *p, paddr_t addr)
{
	if (addr < p->base || (addr - p->base) % PAGE_SIZE)
		return false;
	word_t i = (addr - p->base) / PAGE_SIZE;
	if (i >= p->nframes || bit_get(p->bitmap, i))
		return false;
	bit_set(p->bitmap, i);
	p->nfree--;
	return true;
}

bool fpool_free(struct frame_pool *p, paddr_t addr, word_t n)
{
	if (addr < p->base || (addr - p->base) % PAGE_SIZE)
		return false;
	word_t i = (addr - p->base) / PAGE_SIZE;
	if (n == 0 || i >= p->nframes || n > p->nframes - i)
		return false;
	for (word_t k = i; k < i + n; k++)
		if (!bit_get(p->bitmap, k))
			return false;
	for (word_t k = i; k < i + n; k++)
		bit_clear(p->bitmap, k);
	p->nfree += n;
	return true;
}
