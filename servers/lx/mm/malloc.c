// SPDX-License-Identifier: MIT
/*
 * lx's general allocator (mm/mm.h).  Small blocks come from slabs: one page
 * per slab, a header at the page's start and blocks of one size class after
 * it; a slab goes back to page_alloc's pool when its last block is freed.
 * Larger blocks are runs of contiguous pages (pages_alloc) with the same
 * header at the run's start.  lx_free finds the header by rounding the
 * block's address down to its page, which holds for both kinds because a
 * large block starts in its run's first page.
 */
#include "mm.h"
#include "../../../lib/c/string.h"

#define SLAB_MAGIC  0x51ab51abu
#define LARGE_MAGIC 0x1a7e1a7eu

struct slab {
	uint32_t magic;
	uint32_t size;          /* block size; for a large block, its capacity */
	uint32_t inuse;         /* blocks handed out */
	uint32_t npages;        /* large blocks: the run's length */
	void *free;             /* free blocks of this slab, linked through their first word */
	struct slab *next, *prev;       /* the class's slabs that have a free block */
};

/* the header rounded up so blocks stay 16-byte aligned */
#define HDR ((sizeof(struct slab) + 15) & ~15UL)
/* the largest class still fits two blocks in a page */
static const uint32_t classes[] = {16, 32, 64, 128, 256, 512, 1024,
				   ((LX_PAGE_SIZE - HDR) / 2) & ~15UL};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static struct slab *partial[NCLASSES];  /* slabs with at least one free block */

static int class_of(size_t n)
{
	for (unsigned i = 0; i < NCLASSES; i++)
		if (n <= classes[i])
			return (int)i;
	return -1;
}

static struct slab *slab_of(void *p)
{
	return (struct slab *)((uintptr_t)p & ~(LX_PAGE_SIZE - 1));
}

static void list_remove(struct slab **head, struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		*head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->next = s->prev = NULL;
}

static void list_push(struct slab **head, struct slab *s)
{
	s->prev = NULL;
	s->next = *head;
	if (*head)
		(*head)->prev = s;
	*head = s;
}

static struct slab *slab_new(int c)
{
	struct slab *s = page_alloc();
	if (!s)
		return NULL;
	s->magic = SLAB_MAGIC;
	s->size = classes[c];
	char *b = (char *)s + HDR;
	char *end = (char *)s + LX_PAGE_SIZE;
	for (; b + s->size <= end; b += s->size) {
		*(void **)b = s->free;
		s->free = b;
	}
	list_push(&partial[c], s);
	return s;
}

static void *small_alloc(int c)
{
	struct slab *s = partial[c];
	if (!s && !(s = slab_new(c)))
		return NULL;
	void *p = s->free;
	s->free = *(void **)p;
	s->inuse++;
	if (!s->free)
		list_remove(&partial[c], s);
	return p;
}

static void *large_alloc(size_t n)
{
	if (n > (1UL << 40))
		return NULL;
	size_t np = (n + HDR + LX_PAGE_SIZE - 1) / LX_PAGE_SIZE;
	struct slab *s = pages_alloc(np);
	if (!s)
		return NULL;
	s->magic = LARGE_MAGIC;
	s->npages = (uint32_t)np;
	s->size = (uint32_t)(np * LX_PAGE_SIZE - HDR);
	return (char *)s + HDR;
}

void *lx_malloc(size_t n)
{
	int c = class_of(n ? n : 1);
	return c >= 0 ? small_alloc(c) : large_alloc(n);
}

void *lx_zalloc(size_t n)
{
	void *p = lx_malloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

/* The usable size of a block lx_malloc returned. */
static size_t block_size(void *p)
{
	return slab_of(p)->size;
}

void lx_free(void *p)
{
	if (!p)
		return;
	struct slab *s = slab_of(p);
	if (s->magic == LARGE_MAGIC) {
		pages_free(s, s->npages);
		return;
	}
	int c = class_of(s->size);
	if (!s->free)
		list_push(&partial[c], s);
	*(void **)p = s->free;
	s->free = p;
	if (--s->inuse == 0) {
		list_remove(&partial[c], s);
		s->magic = 0;
		page_free(s);
	}
}

void *lx_realloc(void *p, size_t n)
{
	if (!p)
		return lx_malloc(n);
	size_t have = block_size(p);
	if (n <= have && (class_of(have) < 0 || n > have / 2))
		return p;       /* fits, and shrinking would not free much */
	void *q = lx_malloc(n);
	if (!q)
		return NULL;    /* p stays valid, as realloc's contract says */
	memcpy(q, p, n < have ? n : have);
	lx_free(p);
	return q;
}

char *lx_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = lx_malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}
