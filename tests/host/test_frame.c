// SPDX-License-Identifier: MIT
// Host tests of the bitmap frame pool (fpool_* in kernel/frame.c).
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "frame.h"
#include "../../lib/test/test.h"

#define POOL_BASE 0x10000000UL  /* 256 MiB: index alignment == physical alignment */
#define NFRAMES   100           /* not a multiple of 64: exercises the bitmap tail */

static struct frame_pool pool;
static u64 bitmap[FRAME_BITMAP_WORDS(NFRAMES) + 1];

static void setup(word_t nframes)
{
	bitmap[FRAME_BITMAP_WORDS(nframes)] = 0x5a5a5a5a5a5a5a5aUL;   /* guard word */
	fpool_init(&pool, POOL_BASE, nframes, bitmap);
}

static bool in_pool(paddr_t a, word_t n)
{
	return a >= POOL_BASE && a % PAGE_SIZE == 0 &&
	       (a - POOL_BASE) / PAGE_SIZE + n <= pool.nframes;
}

static word_t index_of(paddr_t a) { return (a - POOL_BASE) / PAGE_SIZE; }

/* Snapshot of the pool's state, to check that a refused call changed nothing. */
struct snap {
	struct frame_pool p;
	u64 bm[FRAME_BITMAP_WORDS(NFRAMES) + 1];
};

static struct snap snapshot(void)
{
	struct snap s = { .p = pool };
	memcpy(s.bm, bitmap, sizeof(bitmap));
	return s;
}

static bool unchanged(const struct snap *s)
{
	return s->p.base == pool.base && s->p.nframes == pool.nframes && s->p.nfree == pool.nfree &&
	       s->p.hint == pool.hint && s->p.bitmap == pool.bitmap &&
	       memcmp(s->bm, bitmap, sizeof(bitmap)) == 0;
}

TEST_CASE("frame.init", "a new pool has every frame free and a clear bitmap") {
	memset(bitmap, 0xff, sizeof(bitmap));
	fpool_init(&pool, POOL_BASE, NFRAMES, bitmap);
	EXPECT(pool.nframes == NFRAMES && pool.nfree == NFRAMES, "nframes %lu nfree %lu",
	       pool.nframes, pool.nfree);
	for (word_t i = 0; i < FRAME_BITMAP_WORDS(NFRAMES); i++)
		EXPECT(bitmap[i] == 0, "bitmap word %lu = %lx", i, bitmap[i]);
	EXPECT(bitmap[FRAME_BITMAP_WORDS(NFRAMES)] == ~0UL, "init wrote past the bitmap");
}

TEST_CASE("frame.alloc_distinct", "single-frame allocations are distinct, page aligned and inside the pool") {
	setup(NFRAMES);
	bool seen[NFRAMES] = { 0 };
	for (int k = 0; k < NFRAMES; k++) {
		paddr_t a = fpool_alloc(&pool, 1, 1);
		EXPECT(a != 0, "allocation %d failed with %lu free", k, pool.nfree);
		EXPECT(in_pool(a, 1), "allocation %d: %lx outside the pool or misaligned", k, a);
		EXPECT(!seen[index_of(a)], "frame %lx handed out twice", a);
		seen[index_of(a)] = true;
		EXPECT(pool.nfree == (word_t)(NFRAMES - k - 1), "nfree %lu after %d allocations", pool.nfree, k + 1);
	}
}

TEST_CASE("frame.exhaustion", "an exhausted pool returns 0 and nfree stays 0") {
	setup(NFRAMES);
	for (int k = 0; k < NFRAMES; k++)
		EXPECT(fpool_alloc(&pool, 1, 1), "allocation %d failed", k);
	struct snap s = snapshot();
	EXPECT(fpool_alloc(&pool, 1, 1) == 0, "allocation from an empty pool succeeded");
	EXPECT(fpool_alloc(&pool, 3, 1) == 0, "multi-frame allocation from an empty pool succeeded");
	EXPECT(pool.nfree == 0, "nfree %lu", pool.nfree);
	EXPECT(unchanged(&s), "failed allocation changed the pool");
	EXPECT(bitmap[FRAME_BITMAP_WORDS(NFRAMES)] == 0x5a5a5a5a5a5a5a5aUL, "bitmap overrun");
}

TEST_CASE("frame.alloc_too_big", "a request larger than the free frames or the pool fails without change") {
	setup(NFRAMES);
	struct snap s = snapshot();
	EXPECT(fpool_alloc(&pool, NFRAMES + 1, 1) == 0, "allocation larger than the pool succeeded");
	EXPECT(unchanged(&s), "pool changed");
	paddr_t u = fpool_alloc(&pool, 3, 1);
	s = snapshot();
	EXPECT(u && fpool_alloc(&pool, NFRAMES - 2, 1) == 0, "allocation larger than the free frames succeeded");
	EXPECT(unchanged(&s), "pool changed");
	EXPECT(fpool_free(&pool, u, 3), "free");
	paddr_t a = fpool_alloc(&pool, NFRAMES, 1);
	EXPECT(a == POOL_BASE, "whole-pool allocation gave %lx", a);
	EXPECT(pool.nfree == 0, "nfree %lu", pool.nfree);
}

TEST_CASE("frame.alloc_fragmented", "a multi-frame request fails when free frames exist but no run is long enough") {
	setup(8);
	for (int k = 0; k < 8; k++)
		fpool_alloc(&pool, 1, 1);
	for (paddr_t a = POOL_BASE; a < POOL_BASE + 8 * PAGE_SIZE; a += 2 * PAGE_SIZE)
		EXPECT(fpool_free(&pool, a, 1), "free of %lx failed", a);
	EXPECT(pool.nfree == 4, "nfree %lu", pool.nfree);
	EXPECT(fpool_alloc(&pool, 2, 1) == 0, "two contiguous frames found in a checkerboard");
	EXPECT(pool.nfree == 4, "failed allocation changed nfree to %lu", pool.nfree);
	paddr_t a = fpool_alloc(&pool, 1, 1);
	EXPECT(a && index_of(a) % 2 == 0, "single frame %lx", a);
}

TEST_CASE("frame.alloc_bad_args", "zero frames, zero or non-power-of-two alignment are refused") {
	setup(NFRAMES);
	struct snap s = snapshot();
	EXPECT(fpool_alloc(&pool, 0, 1) == 0, "zero frames allocated");
	EXPECT(fpool_alloc(&pool, 1, 0) == 0, "alignment 0 accepted");
	EXPECT(fpool_alloc(&pool, 1, 3) == 0, "alignment 3 accepted");
	EXPECT(fpool_alloc(&pool, 2, 6) == 0, "alignment 6 accepted");
	EXPECT(unchanged(&s), "refused allocation changed the pool");
}

TEST_CASE("frame.alloc_aligned", "aligned multi-frame allocations respect alignment and are contiguous") {
	setup(NFRAMES);
	EXPECT(fpool_alloc(&pool, 1, 1) == POOL_BASE, "first frame not at the base");
	paddr_t a = fpool_alloc(&pool, 3, 8);
	EXPECT(a && in_pool(a, 3) && index_of(a) % 8 == 0, "3 frames aligned 8: %lx", a);
	paddr_t b = fpool_alloc(&pool, 16, 16);
	EXPECT(b && in_pool(b, 16) && index_of(b) % 16 == 0, "16 frames aligned 16: %lx", b);
	EXPECT(b >= a + 3 * PAGE_SIZE || b + 16 * PAGE_SIZE <= a, "overlap %lx %lx", a, b);
	paddr_t c = fpool_alloc(&pool, 2, 64);
	EXPECT(c == POOL_BASE + 64 * PAGE_SIZE, "2 frames aligned 64: %lx", c);
	EXPECT(pool.nfree == NFRAMES - 1 - 3 - 16 - 2, "nfree %lu", pool.nfree);
	/* the only multiple of 128 inside a 100-frame pool is frame 0, in use */
	EXPECT(fpool_alloc(&pool, 4, 128) == 0, "alignment 128 cannot fit in 100 frames");
}

TEST_CASE("frame.aligned_wraps", "an aligned search from a late hint wraps round to the start") {
	setup(NFRAMES);
	paddr_t a = fpool_alloc(&pool, 90, 1);
	EXPECT(a == POOL_BASE, "first block %lx", a);
	EXPECT(fpool_free(&pool, POOL_BASE + 32 * PAGE_SIZE, 32), "free failed");
	paddr_t b = fpool_alloc(&pool, 32, 32);
	EXPECT(b == POOL_BASE + 32 * PAGE_SIZE, "wrapped aligned allocation at %lx", b);
}

TEST_CASE("frame.free_realloc", "a freed frame is free again and is handed out again") {
	setup(NFRAMES);
	paddr_t f[NFRAMES];
	for (int k = 0; k < NFRAMES; k++)
		f[k] = fpool_alloc(&pool, 1, 1);
	EXPECT(fpool_free(&pool, f[37], 1), "free failed");
	EXPECT(pool.nfree == 1, "nfree %lu", pool.nfree);
	paddr_t a = fpool_alloc(&pool, 1, 1);
	EXPECT(a == f[37], "realloc gave %lx, freed %lx", a, f[37]);
	EXPECT(fpool_free(&pool, POOL_BASE + 10 * PAGE_SIZE, 5), "multi-frame free failed");
	EXPECT(pool.nfree == 5, "nfree %lu", pool.nfree);
	a = fpool_alloc(&pool, 5, 1);
	EXPECT(a == POOL_BASE + 10 * PAGE_SIZE, "5-frame realloc gave %lx", a);
}

TEST_CASE("frame.free_partial", "part of an allocation can be freed and reused") {
	setup(NFRAMES);
	paddr_t a = fpool_alloc(&pool, 8, 1);
	EXPECT(fpool_free(&pool, a + 2 * PAGE_SIZE, 3), "free of the middle failed");
	EXPECT(fpool_free(&pool, a, 2), "free of the start failed");
	EXPECT(!fpool_free(&pool, a, 1), "double free of the start accepted");
	EXPECT(fpool_free(&pool, a + 5 * PAGE_SIZE, 3), "free of the rest failed");
	EXPECT(pool.nfree == NFRAMES, "nfree %lu", pool.nfree);
}

TEST_CASE("frame.free_outside", "freeing frames outside the pool fails and changes nothing") {
	setup(NFRAMES);
	for (int k = 0; k < NFRAMES; k++)
		fpool_alloc(&pool, 1, 1);
	struct snap s = snapshot();
	EXPECT(!fpool_free(&pool, POOL_BASE - PAGE_SIZE, 1), "frame below the pool");
	EXPECT(!fpool_free(&pool, POOL_BASE - PAGE_SIZE, 2), "run starting below the pool");
	EXPECT(!fpool_free(&pool, 0, 1), "address 0");
	EXPECT(!fpool_free(&pool, POOL_BASE + NFRAMES * PAGE_SIZE, 1), "frame just past the pool");
	EXPECT(!fpool_free(&pool, POOL_BASE + (NFRAMES - 2) * PAGE_SIZE, 3), "run past the end");
	EXPECT(!fpool_free(&pool, POOL_BASE + PAGE_SIZE, ~0UL), "huge count");
	EXPECT(!fpool_free(&pool, ~0UL & PAGE_MASK, 1), "top of the address space");
	EXPECT(unchanged(&s), "a refused free changed the pool");
}

TEST_CASE("frame.free_misaligned", "freeing a misaligned address or zero frames fails and changes nothing") {
	setup(NFRAMES);
	for (int k = 0; k < NFRAMES; k++)
		fpool_alloc(&pool, 1, 1);
	struct snap s = snapshot();
	EXPECT(!fpool_free(&pool, POOL_BASE + 0x800, 1), "misaligned by half a page");
	EXPECT(!fpool_free(&pool, POOL_BASE + 5 * PAGE_SIZE + 8, 1), "misaligned by 8");
	EXPECT(!fpool_free(&pool, POOL_BASE, 0), "zero frames");
	EXPECT(unchanged(&s), "a refused free changed the pool");
}

TEST_CASE("frame.free_already_free", "freeing free frames, wholly or partly, fails and changes nothing") {
	setup(NFRAMES);
	paddr_t a = fpool_alloc(&pool, 4, 1);
	paddr_t b = fpool_alloc(&pool, 4, 1);
	EXPECT(fpool_free(&pool, a, 4), "first free failed");
	struct snap s = snapshot();
	EXPECT(!fpool_free(&pool, a, 4), "double free accepted");
	EXPECT(!fpool_free(&pool, a + PAGE_SIZE, 1), "free of one free frame accepted");
	EXPECT(!fpool_free(&pool, a + 2 * PAGE_SIZE, 4), "run half free, half used accepted");
	EXPECT(!fpool_free(&pool, b + 2 * PAGE_SIZE, 4), "run half used, half free accepted");
	EXPECT(!fpool_free(&pool, POOL_BASE + 50 * PAGE_SIZE, 1), "never-allocated frame accepted");
	EXPECT(unchanged(&s), "a refused free changed the pool");
	EXPECT(pool.nfree == NFRAMES - 4, "nfree %lu", pool.nfree);
}

TEST_CASE("frame.refused_free_harmless", "after refused frees, the pool hands out exactly its free frames, none twice") {
	setup(NFRAMES);
	paddr_t a = fpool_alloc(&pool, 10, 1);
	fpool_free(&pool, a + 3 * PAGE_SIZE, 2);
	fpool_free(&pool, a + 3 * PAGE_SIZE, 2);          /* refused: double free */
	fpool_free(&pool, a + 0x100, 1);                  /* refused: misaligned */
	fpool_free(&pool, POOL_BASE + NFRAMES * PAGE_SIZE, 1);   /* refused: outside */
	fpool_free(&pool, a + 4 * PAGE_SIZE, 3);          /* refused: partly free */
	bool used[NFRAMES] = { 0 };
	for (int k = 0; k < 10; k++)
		used[k] = k < 3 || k >= 5;
	word_t got = 0;
	for (paddr_t f; (f = fpool_alloc(&pool, 1, 1)); got++) {
		EXPECT(in_pool(f, 1) && !used[index_of(f)], "frame %lx handed out while in use", f);
		used[index_of(f)] = true;
	}
	EXPECT(got == NFRAMES - 8, "%lu frames handed out, expected %d", got, NFRAMES - 8);
	EXPECT(pool.nfree == 0, "nfree %lu", pool.nfree);
}

/* --- randomized alloc/free against a per-frame owner model --- */

#define RFRAMES 200

static u64 rng_state;
static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

struct live { paddr_t at; word_t n; };

/* True if the model has an aligned run of n free frames. */
static bool model_fits(const int *owner, word_t n, word_t align)
{
	for (word_t i = 0; i + n <= RFRAMES; i += align) {
		word_t k = 0;
		while (k < n && owner[i + k] < 0)
			k++;
		if (k == n)
			return true;
	}
	return false;
}

static char why[160];

static bool random_run(u64 seed, int ops)
{
	static u64 bm[FRAME_BITMAP_WORDS(RFRAMES)];
	static struct live live[RFRAMES];
	static int owner[RFRAMES];                 /* index into live[], -1 when free */
	struct frame_pool p;
	int nlive = 0;
	word_t nused = 0;
	rng_state = seed;
	fpool_init(&p, POOL_BASE, RFRAMES, bm);
	for (int i = 0; i < RFRAMES; i++)
		owner[i] = -1;
	for (int op = 0; op < ops; op++) {
		u64 r = rng() % 8;
		if (r < 4 || nlive == 0) {                           /* allocate */
			word_t n = 1 + rng() % (r == 0 ? 24 : 6), align = 1UL << rng() % 6;
			paddr_t a = fpool_alloc(&p, n, align);
			if (!a) {
				if (model_fits(owner, n, align)) {
					snprintf(why, sizeof(why), "op %d: alloc(%lu, %lu) failed but a run is free", op, n, align);
					return false;
				}
				continue;
			}
			word_t i = (a - POOL_BASE) / PAGE_SIZE;
			if (a < POOL_BASE || (a - POOL_BASE) % (align * PAGE_SIZE) || i + n > RFRAMES) {
				snprintf(why, sizeof(why), "op %d: alloc(%lu, %lu) = %lx misplaced", op, n, align, a);
				return false;
			}
			for (word_t k = i; k < i + n; k++) {
				if (owner[k] >= 0) {
					snprintf(why, sizeof(why), "op %d: alloc(%lu) = %lx overlaps a live block at %lx",
						 op, n, a, live[owner[k]].at);
					return false;
				}
				owner[k] = nlive;
			}
			live[nlive++] = (struct live){ a, n };
			nused += n;
		} else if (r < 7) {                                  /* free a live block */
			int v = (int)(rng() % nlive);
			struct live l = live[v];
			if (!fpool_free(&p, l.at, l.n)) {
				snprintf(why, sizeof(why), "op %d: free(%lx, %lu) of a live block failed", op, l.at, l.n);
				return false;
			}
			for (word_t k = 0; k < l.n; k++)
				owner[(l.at - POOL_BASE) / PAGE_SIZE + k] = -1;
			live[v] = live[--nlive];
			for (word_t k = 0; v < nlive && k < live[v].n; k++)
				owner[(live[v].at - POOL_BASE) / PAGE_SIZE + k] = v;
			nused -= l.n;
		} else {                                             /* free something already free */
			word_t i = rng() % RFRAMES, n = 1 + rng() % 4;
			bool any_free = i + n > RFRAMES;
			for (word_t k = i; k < i + n && k < RFRAMES; k++)
				any_free |= owner[k] < 0;
			if (any_free && fpool_free(&p, POOL_BASE + i * PAGE_SIZE, n)) {
				snprintf(why, sizeof(why), "op %d: free(frame %lu, %lu) of free frames accepted", op, i, n);
				return false;
			}
		}
		if (p.nfree != RFRAMES - nused) {
			snprintf(why, sizeof(why), "op %d: nfree %lu, model %lu", op, p.nfree, RFRAMES - nused);
			return false;
		}
	}
	return true;
}

TEST_CASE("frame.random_vs_model", "random alloc(n, align)/free (fixed seed) never overlap and keep nfree exact") {
	EXPECT(random_run(0x243f6a8885a308d3UL, 6000), "%s", why);
	EXPECT(random_run(0x13198a2e03707344UL, 6000), "%s", why);
}

TEST_CASE("frame.align_physical", "alignment is of the physical address even when the pool base is not aligned") {
	fpool_init(&pool, 0x10003000UL, NFRAMES, bitmap);
	for (int k = 0; k < 4; k++) {
		paddr_t a = fpool_alloc(&pool, 2, 8);
		EXPECT(a && a % (8 * PAGE_SIZE) == 0, "allocation %d at %lx, not 32 KiB aligned", k, a);
		EXPECT(a >= 0x10003000UL && a + 2 * PAGE_SIZE <= 0x10003000UL + NFRAMES * PAGE_SIZE,
		       "allocation %lx outside the pool", a);
	}
}

TEST_CASE("frame.claim", "claim takes exactly a free frame of the pool; used or outside ones change nothing") {
	setup(NFRAMES);
	paddr_t a = POOL_BASE + 5 * PAGE_SIZE;
	EXPECT(fpool_claim(&pool, a) && pool.nfree == NFRAMES - 1, "free frame: nfree %lu", pool.nfree);
	struct snap s = snapshot();
	EXPECT(!fpool_claim(&pool, a) && unchanged(&s), "claimed twice");
	EXPECT(!fpool_claim(&pool, POOL_BASE - PAGE_SIZE) && unchanged(&s), "below the pool");
	EXPECT(!fpool_claim(&pool, POOL_BASE + NFRAMES * PAGE_SIZE) && unchanged(&s), "past the pool");
	EXPECT(!fpool_claim(&pool, a + 8) && unchanged(&s), "unaligned");
	EXPECT(fpool_free(&pool, a, 1) && pool.nfree == NFRAMES, "free it again");
	paddr_t b = fpool_alloc(&pool, 1, 1);
	EXPECT(b && fpool_claim(&pool, b) == false, "an allocated frame cannot be claimed");
}

TEST_CASE("frame.base_zero", "a pool at physical 0 never hands out frame 0, which means failure") {
	fpool_init(&pool, 0, 8, bitmap);
	EXPECT(pool.nfree == 7, "nfree %lu", pool.nfree);
	for (int k = 0; k < 7; k++) {
		paddr_t a = fpool_alloc(&pool, 1, 1);
		EXPECT(a != 0 && a < 8 * PAGE_SIZE, "allocation %d gave %lx", k, a);
	}
	EXPECT(fpool_alloc(&pool, 1, 1) == 0, "an eighth frame from a pool of 7 usable");
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
