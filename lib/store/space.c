// SPDX-License-Identifier: MIT
// Which blocks are free.  A block referenced by either of the two newest
// checkpoints is never written: the newest is what a crash recovers, the one
// before is what opening falls back to if the newest superblock or tree is
// damaged.  So a block the tree lets go of is reusable at once only if it
// was allocated since the last checkpoint; otherwise it waits two
// checkpoints (pending, then retired).
#include "impl.h"

/* Bits set in w (by hand: user programs link without libgcc's __popcountdi2). */
static uint64_t popcount(uint64_t w)
{
	w -= (w >> 1) & 0x5555555555555555ULL;
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (w * 0x0101010101010101ULL) >> 56;
}

void space_count_free(struct store *s)
{
	uint64_t used = 0;
	for (uint64_t w = 0; w < s->nwords; w++)
		used += popcount(s->used[w]);
	s->nfree = s->nblocks - used;
}

/* Nothing fresh, pending or retired; the superblocks and the tail past nblocks in use. */
void space_reset(struct store *s)
{
	for (uint64_t w = 0; w < s->nwords; w++)
		s->used[w] = s->fresh[w] = s->pending[w] = s->retired[w] = 0;
	for (uint64_t b = s->nblocks; b < s->nwords * 64; b++)
		bit_set(s->used, b);
	bit_set(s->used, 0);
	bit_set(s->used, 1);
	s->cursor = FIRST_BLOCK;
}

/* A free block, now used and fresh, or 0 when there is none. */
uint64_t space_alloc(struct store *s)
{
	if (!s->nfree)
		return 0;
	uint64_t w = s->cursor / 64;
	for (uint64_t i = 0; i <= s->nwords; i++, w = (w + 1) % s->nwords) {
		if (s->used[w] == ~0ULL)
			continue;
		uint64_t b = w * 64 + (uint64_t)__builtin_ctzll(~s->used[w]);
		bit_set(s->used, b);
		bit_set(s->fresh, b);
		s->nfree--;
		s->cursor = b + 1 < s->nblocks ? b + 1 : FIRST_BLOCK;
		cache_drop(s, b);        /* a stale copy of what the block held before */
		return b;
	}
	return 0;
}

void space_release(struct store *s, uint64_t blk)
{
	if (bit_get(s->fresh, blk)) {
		bit_clear(s->fresh, blk);
		bit_clear(s->used, blk);
		s->nfree++;
	} else {
		bit_set(s->pending, blk);
	}
}

/* A checkpoint completed: the one before the last is gone from the disk. */
void space_commit(struct store *s)
{
	for (uint64_t w = 0; w < s->nwords; w++) {
		s->used[w] &= ~s->retired[w];
		s->nfree += popcount(s->retired[w]);
		s->retired[w] = s->pending[w];
		s->pending[w] = 0;
		s->fresh[w] = 0;
	}
}
