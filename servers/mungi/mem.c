// SPDX-License-Identifier: MIT
// The server's memory: every page sigma0 will give, mapped at POOL_BASE, as
// frames for object pages and, carved up, as the server's own records.
#include "mungi.h"
#include "../../lib/c/string.h"

#define POOL_BASE 0x0000100000000000UL

static u64 pool_end, bump;
static void *free_frames;
static u64 nfree;

/* Ask sigma0 for pages of 2^log2 bytes until it refuses. */
static void grab(unsigned log2)
{
	while (!(pool_end & ((1UL << log2) - 1))) {
		L4_Word_t want = L4_FPAGE_MAKE(~0UL, log2, 7);
		if (!pecan_sigma0_request(want, L4_FPAGE_MAKE(pool_end, log2, 0)))
			return;
		pool_end += 1UL << log2;
	}
}

void pool_init(void)
{
	pool_end = bump = POOL_BASE;
	for (unsigned log2 = 22; log2 >= 12; log2--)
		grab(log2);
	nfree = (pool_end - bump) / PAGE;
}

void *frame_alloc(void)
{
	void *f;
	if (free_frames) {
		f = free_frames;
		free_frames = *(void **)f;
	} else if (bump < pool_end) {
		f = (void *)bump;
		bump += PAGE;
	} else {
		return NULL;
	}
	nfree--;
	memset(f, 0, PAGE);
	return f;
}

void frame_free(void *f)
{
	*(void **)f = free_frames;
	free_frames = f;
	nfree++;
}

u64 frames_free(void)
{
	return nfree;
}

/* Records: a frame at a time cut into records of one kind; they never go back to the pool. */
void *rec_alloc(struct kind *k)
{
	if (!k->free) {
		char *f = frame_alloc();
		if (!f)
			return NULL;
		for (unsigned off = 0; off + k->size <= PAGE; off += k->size) {
			*(void **)(f + off) = k->free;
			k->free = f + off;
		}
	}
	void *p = k->free;
	k->free = *(void **)p;
	memset(p, 0, k->size);
	k->live++;
	return p;
}

void rec_free(struct kind *k, void *p)
{
	*(void **)p = k->free;
	k->free = p;
	k->live--;
}
