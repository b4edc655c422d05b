// SPDX-License-Identifier: MIT
// Object address allocation: free extents keyed by their end, so handing out
// the front of an extent only changes its value; the stale list delays reuse.
#include "addr.h"

#define PAGES(n) ((void *)(uintptr_t)(n))
#define NPAGES(v) ((uint64_t)(uintptr_t)(v))

int addr_init(struct addr_space *a, uint64_t base, uint64_t npages, uint64_t dt,
	      struct bt_node *(*node_alloc)(void *), void (*node_free)(void *, struct bt_node *),
	      struct stale *(*stale_alloc)(void *), void (*stale_free)(void *, struct stale *), void *ctx)
{
	bt_init(&a->free, node_alloc, node_free, ctx);
	a->stale = a->stale_tail = NULL;
	a->dt = dt;
	a->free_pages = npages;
	a->stale_pages = 0;
	a->stale_alloc = stale_alloc;
	a->stale_free = stale_free;
	a->ctx = ctx;
	return bt_insert(&a->free, base + npages * ADDR_PAGE, PAGES(npages));
}

uint64_t addr_alloc(struct addr_space *a, uint64_t npages)
{
	uint64_t end = 0, key = 0;
	void *v;
	if (!npages)
		return 0;
	while (bt_ceil(&a->free, key, &end, &v)) {
		uint64_t n = NPAGES(v), start = end - n * ADDR_PAGE;
		if (n >= npages) {
			if (n == npages)
				bt_remove(&a->free, end);
			else
				bt_replace(&a->free, end, PAGES(n - npages));
			a->free_pages -= npages;
			return start;
		}
		key = end + 1;
	}
	return 0;
}

int addr_reserve(struct addr_space *a, uint64_t base, uint64_t npages)
{
	uint64_t end, top = base + npages * ADDR_PAGE;
	void *v;
	if (!npages || top < base || !bt_ceil(&a->free, base + 1, &end, &v))
		return -1;
	uint64_t start = end - NPAGES(v) * ADDR_PAGE;
	if (start > base || end < top)
		return -1;
	if (start < base && bt_insert(&a->free, base, PAGES((base - start) / ADDR_PAGE)))
		return -1;
	if (end == top)
		bt_remove(&a->free, end);
	else
		bt_replace(&a->free, end, PAGES((end - top) / ADDR_PAGE));
	a->free_pages -= npages;
	return 0;
}

/* [base, base + npages) joins the free extents, merged with its neighbours. */
static int give_back(struct addr_space *a, uint64_t base, uint64_t npages)
{
	uint64_t top = base + npages * ADDR_PAGE, rend;
	void *left = bt_find(&a->free, base), *right;
	bool has_right = bt_ceil(&a->free, top + 1, &rend, &right) &&
			 rend - NPAGES(right) * ADDR_PAGE == top;
	if (has_right) {
		bt_replace(&a->free, rend, PAGES(NPAGES(right) + npages + NPAGES(left)));
	} else {
		if (bt_insert(&a->free, top, PAGES(npages + NPAGES(left))))
			return -1;
	}
	if (left)
		bt_remove(&a->free, base);
	a->free_pages += npages;
	return 0;
}

int addr_add(struct addr_space *a, uint64_t base, uint64_t npages)
{
	return give_back(a, base, npages);
}

int addr_release(struct addr_space *a, uint64_t base, uint64_t npages, uint64_t now)
{
	struct stale *s = a->stale_alloc(a->ctx);
	if (!s)
		return -1;
	s->base = base;
	s->npages = npages;
	s->release = now;
	s->next = NULL;
	if (a->stale_tail)
		a->stale_tail->next = s;
	else
		a->stale = s;
	a->stale_tail = s;
	a->stale_pages += npages;
	return 0;
}

void addr_reap(struct addr_space *a, uint64_t now, uint64_t max)
{
	struct stale *s;
	while (max-- && (s = a->stale) && now - s->release >= a->dt && now >= s->release) {
		if (give_back(a, s->base, s->npages))
			return;                 /* no memory now: it stays stale, tried again later */
		a->stale = s->next;
		if (!a->stale)
			a->stale_tail = NULL;
		a->stale_pages -= s->npages;
		a->stale_free(a->ctx, s);
	}
}

uint64_t addr_extents(const struct addr_space *a)
{
	return a->free.count;
}
