// SPDX-License-Identifier: MIT
// The server's memory: pages from sigma0 as they are needed, mapped one
// after the other from POOL_BASE, as frames for object pages and, carved
// up, as the server's own records.  Taking memory only when it is needed
// keeps the kernel's mapping database small (deleting a space costs time
// in proportion to all mappings there are).
#include "mungi.h"

#define POOL_BASE 0x0000100000000000UL
#define GROW_LOG2 21                    /* 2 MiB at a time, smaller ones at the end */

static u64 pool_end, bump;
static void *free_frames;
static u64 nfree;
static bool exhausted;

/* One more piece from sigma0 at the pool's end; false when it has none left. */
static bool grow(void)
{
	for (unsigned log2 = GROW_LOG2; log2 >= 12 && !exhausted; log2--) {
		if (pool_end & ((1UL << log2) - 1))
			continue;
		L4_Word_t want = L4_FPAGE_MAKE(~0UL, log2, 7);
		if (pecan_sigma0_request(want, L4_FPAGE_MAKE(pool_end, log2, 0))) {
			pool_end += 1UL << log2;
			nfree += (1UL << log2) / PAGE;
			return true;
		}
	}
	exhausted = true;
	return false;
}

void pool_init(void)
{
	pool_end = bump = POOL_BASE;
	grow();
}

void *frame_alloc(void)
{
	void *f;
	if (free_frames) {
		f = free_frames;
		free_frames = *(void **)f;
	} else if (bump < pool_end || grow()) {
		f = (void *)bump;
		bump += PAGE;
	} else {
		return NULL;
	}
	nfree--;
	mzero(f, PAGE);
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

void mcopy(void *d, const void *s, u64 n)
{
	u64 q = n / 8, r = n % 8;
	__asm__ __volatile__("rep movsq; movq %3, %%rcx; rep movsb"
			     : "+D"(d), "+S"(s), "+c"(q) : "r"(r) : "memory");
}

void mzero(void *d, u64 n)
{
	u64 q = n / 8, r = n % 8;
	__asm__ __volatile__("rep stosq; movq %2, %%rcx; rep stosb"
			     : "+D"(d), "+c"(q) : "r"(r), "a"(0UL) : "memory");
}

/* Records: a frame at a time cut into records of one kind; they never go back to the pool. */
void *rec_alloc_raw(struct kind *k)
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
	k->live++;
	return p;
}

void *rec_alloc(struct kind *k)
{
	void *p = rec_alloc_raw(k);
	if (p)
		mzero(p, k->size);
	return p;
}

void rec_free(struct kind *k, void *p)
{
	*(void **)p = k->free;
	k->free = p;
	k->live--;
}
