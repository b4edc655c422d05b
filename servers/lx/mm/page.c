// SPDX-License-Identifier: MIT
// lx's page pool: all the memory sigma0 will give, mapped contiguously at
// POOL_BASE, handed out as 4 KiB pages with reference counts (pages shared
// copy-on-write between processes are freed by their last user).  Freed
// pages go on a doubly linked list (its links in the page itself), so that
// runs of contiguous pages for large blocks (pages_alloc) can be taken out
// of it once the never-used part of the pool is gone: before, the first
// time memory ran out left lx unable to allocate any run again.
#include "../lx.h"
#include "../../../lib/c/string.h"

#define POOL_BASE 0x0000100000000000UL

static u64 pool_end;                 /* POOL_BASE + bytes mapped */
static u64 bump;                     /* never handed out above this */
static u64 first;                    /* the first page handed out (the counts lie below) */
struct free_page { struct free_page *next, *prev; };
static struct free_page *free_list;
static size_t nfree;
uint16_t *page_refs;                 /* one per pool page */

/* Ask sigma0 for pages of 2^log2 bytes until it refuses; returns bytes got. */
static u64 grab(unsigned log2)
{
	u64 got = 0;
	for (;;) {
		L4_Word_t want = L4_FPAGE_MAKE(~0UL, log2, 7);
		L4_Word_t window = L4_FPAGE_MAKE(pool_end, log2, 0);
		if (pool_end & ((1UL << log2) - 1))
			return got;
		if (!pecan_sigma0_request(want, window))
			return got;
		pool_end += 1UL << log2;
		got += 1UL << log2;
	}
}

void pool_init(void)
{
	pool_end = POOL_BASE;
	for (unsigned log2 = 22; log2 >= 12; log2--)
		grab(log2);
	u64 pages = (pool_end - POOL_BASE) >> 12;
	bump = POOL_BASE;
	/* the reference counts live at the start of the pool itself */
	page_refs = (uint16_t *)bump;
	bump += (pages * sizeof(uint16_t) + LX_PAGE_SIZE - 1) & ~(LX_PAGE_SIZE - 1);
	memset(page_refs, 0, bump - POOL_BASE);
	first = bump;
	nfree = (pool_end - bump) >> 12;
}

u64 pool_bytes(void) { return pool_end - POOL_BASE; }
u64 pool_total_bytes(void) { return pool_end - POOL_BASE; }

bool page_in_pool(const void *p)
{
	return (u64)p >= POOL_BASE && (u64)p < pool_end;
}

static inline uint16_t *ref(const void *p)
{
	return &page_refs[((u64)p - POOL_BASE) >> 12];
}

static void unlink_free(struct free_page *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		free_list = f->next;
	if (f->next)
		f->next->prev = f->prev;
}

/* The page cache's reclaim (page_set_shrinker): called when the pool is empty. */
static bool (*shrinker)(void);

void page_set_shrinker(bool (*fn)(void))
{
	shrinker = fn;
}

static void *take(void)
{
	void *p;
	if (!free_list && bump >= pool_end && shrinker)
		shrinker();             /* clean cached file pages nobody maps go back */
	if (free_list) {
		p = free_list;
		unlink_free(free_list);
	} else if (bump < pool_end) {
		p = (void *)bump;
		bump += LX_PAGE_SIZE;
	} else {
		lx_exhausted(RES_PAGE_POOL);
		return NULL;
	}
	nfree--;
	return p;
}

/* 16-byte stores, eight a round: a first-touch fault zeroes a page, and this
 * takes about 350 instructions where `rep stosq` (memset) takes 512. */
static void zero_page(void *p)
{
	char *q = p, *end = q + LX_PAGE_SIZE;
	__asm__ volatile("pxor %%xmm0, %%xmm0\n"
			 "1: movdqa %%xmm0, (%0); movdqa %%xmm0, 16(%0); movdqa %%xmm0, 32(%0)\n"
			 "movdqa %%xmm0, 48(%0); movdqa %%xmm0, 64(%0); movdqa %%xmm0, 80(%0)\n"
			 "movdqa %%xmm0, 96(%0); movdqa %%xmm0, 112(%0)\n"
			 "addq $128, %0; cmpq %1, %0; jb 1b"
			 : "+r"(q) : "r"(end) : "xmm0", "memory", "cc");
}

void *page_alloc(void)
{
	void *p = take();
	if (!p)
		return NULL;
	zero_page(p);
	*ref(p) = 1;
	return p;
}

/* A page whose contents the caller overwrites at once. */
void *page_alloc_nozero(void)
{
	void *p = take();
	if (p)
		*ref(p) = 1;
	return p;
}

void page_get(void *p) { (*ref(p))++; }
unsigned page_refcount(const void *p) { return *ref(p); }

void page_free(void *p)
{
	if (!p)
		return;
	if (--*ref(p))
		return;
	struct free_page *f = p;
	f->prev = NULL;
	f->next = free_list;
	if (free_list)
		free_list->prev = f;
	free_list = f;
	nfree++;
}

size_t page_free_count(void) { return nfree; }

/*
 * The first run of n free pages below the bump line, taken off the free
 * list; NULL if there is none.  A walk over the reference counts: used only
 * for large blocks once the never-used part of the pool is spent.
 */
static void *run_from_free_list(size_t n)
{
	u64 len = 0;
	for (u64 a = first; a < bump; a += LX_PAGE_SIZE) {
		len = *ref((void *)a) ? 0 : len + 1;
		if (len < n)
			continue;
		char *run = (char *)a - ((n - 1) << 12);
		for (size_t k = 0; k < n; k++)
			unlink_free((struct free_page *)(run + (k << 12)));
		return run;
	}
	return NULL;
}

/* n contiguous pages: from the never-used part of the pool, else from freed pages. */
void *pages_alloc(size_t n)
{
	if (n > nfree)
		return NULL;
	void *p;
	if (bump + n * LX_PAGE_SIZE <= pool_end) {
		p = (void *)bump;
		bump += n * LX_PAGE_SIZE;
	} else if (!(p = run_from_free_list(n))) {
		lx_exhausted(RES_PAGE_POOL);
		return NULL;
	}
	nfree -= n;
	memset(p, 0, n * LX_PAGE_SIZE);
	for (size_t i = 0; i < n; i++)
		*ref((char *)p + i * LX_PAGE_SIZE) = 1;
	return p;
}

void pages_free(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		page_free((char *)p + i * LX_PAGE_SIZE);
}
