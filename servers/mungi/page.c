// SPDX-License-Identifier: MIT
// Resident object pages: each page of the single address space that has a
// frame (or is mapped onto another page) has a record, found by address.
// Pages leave memory only through the page store.
#include "mungi.h"
#include "../../lib/c/string.h"

#define HASH_BITS 16
static struct page *bucket[1UL << HASH_BITS];
static struct kind page_kind = { sizeof(struct page), NULL, 0, "page" };

static inline struct page **slot(u64 va)
{
	return &bucket[((va >> 12) * 0x9e3779b97f4a7c15UL) >> (64 - HASH_BITS)];
}

struct page *page_find(u64 va)
{
	for (struct page *p = *slot(va); p; p = p->hnext)
		if (p->va == va)
			return p;
	return NULL;
}

/* Aliases whose target has no record yet: linked to it when it gets one. */
static struct page *orphans;

static void adopt(struct page *p)
{
	for (struct page **pp = &orphans; *pp;) {
		struct page *a = *pp;
		if (a->target == p->va) {
			*pp = a->anext;
			a->anext = p->aliases;
			p->aliases = a;
		} else {
			pp = &a->anext;
		}
	}
}

static struct page *page_new(u64 va)
{
	struct page *p = rec_alloc(&page_kind);
	if (!p)
		return NULL;
	p->va = va;
	p->hnext = *slot(va);
	*slot(va) = p;
	adopt(p);
	struct mobj *m = (struct mobj *)ot_lookup(&ot, va);
	if (m)
		m->resident++;
	return p;
}

struct page *page_materialise(u64 va)
{
	void *f = frame_alloc();
	if (!f)
		return NULL;
	struct page *p = page_new(va);
	if (!p) {
		frame_free(f);
		return NULL;
	}
	if (!memstore.get(memstore.ctx, va, f))
		memstore.del(memstore.ctx, va);
	p->frame = f;
	return p;
}

struct page *page_alias(u64 va, u64 target, u32 rights)
{
	struct page *t = page_find(target), *p = page_new(va);
	if (!p)
		return NULL;
	p->target = target;
	p->rights = rights;
	struct page **list = t ? &t->aliases : &orphans;
	p->anext = *list;
	*list = p;
	return p;
}

/* --- unmapping from every task: the server's frames are the roots of all their mappings --- */

static unsigned nflush;

static void unmap_flush(void)
{
	if (nflush)
		L4_Unmap(nflush - 1);
	nflush = 0;
}

static void unmap_frame(void *f)
{
	mr_set((int)nflush++, L4_FPAGE_MAKE((u64)f, 12, 7));
	if (nflush == 64)
		unmap_flush();
}

static void unlink_hash(struct page *p)
{
	for (struct page **pp = slot(p->va); *pp; pp = &(*pp)->hnext)
		if (*pp == p) {
			*pp = p->hnext;
			break;
		}
	struct mobj *m = (struct mobj *)ot_lookup(&ot, p->va);
	if (m && m->resident)
		m->resident--;
}

/* Remove p from the alias list of the page it is mapped to. */
static void unlink_alias(struct page *p)
{
	struct page *t = page_find(p->target);
	for (struct page **pp = t ? &t->aliases : &orphans; *pp; pp = &(*pp)->anext)
		if (*pp == p) {
			*pp = p->anext;
			return;
		}
}

static void *frame_of(u64 va);

/*
 * Forget p, and every page mapped onto it (seed 002, Figure 3: a mapping
 * is lost when its source page becomes non-resident).  Tasks got every
 * mapping of a chain from the frame at its end, so that frame is unmapped.
 */
static void forget(struct page *p, bool keep)
{
	void *f = frame_of(p->va);
	if (f) {
		unmap_frame(f);
		unmap_flush();
	}
	if (p->frame) {
		if (keep && memstore.put(memstore.ctx, p->va, p->frame))
			printf("mungi: page store full: page %lx lost\n", p->va);
		frame_free(p->frame);
	} else if (p->target) {
		unlink_alias(p);
	}
	while (p->aliases) {
		struct page *a = p->aliases;
		p->aliases = a->anext;
		a->target = 0;
		forget(a, false);
	}
	unlink_hash(p);
	rec_free(&page_kind, p);
}

void page_drop(u64 va, bool keep)
{
	struct page *p = page_find(va);
	if (p)
		forget(p, keep);
}

void pages_drop_range(u64 base, u64 end)
{
	struct mobj *m = (struct mobj *)ot_lookup(&ot, base);
	for (u64 va = base; va < end && (!m || m->resident); va += PAGE)
		page_drop(va, false);
	if (memstore_pages())
		for (u64 va = base; va < end; va += PAGE)
			memstore.del(memstore.ctx, va);
}

void unmap_range(u64 base, u64 end)
{
	struct mobj *m = (struct mobj *)ot_lookup(&ot, base);
	for (u64 va = base; va < end && (!m || m->resident); va += PAGE) {
		struct page *p = page_find(va);
		if (p && p->frame)
			unmap_frame(p->frame);
	}
	unmap_flush();
}

/* --- the server's own access to object memory --- */

/* The frame holding va's data now (following mappings), or NULL when it is not resident. */
static void *frame_of(u64 va)
{
	for (int depth = 0; depth < MAX_ALIAS_DEPTH; depth++) {
		struct page *p = page_find(va);
		if (!p || p->frame)
			return p ? p->frame : NULL;
		va = p->target;
	}
	return NULL;
}

bool vm_read(u64 addr, void *buf, u64 n)
{
	static char tmp[PAGE];
	while (n) {
		u64 va = addr & PAGE_MASK, off = addr - va, chunk = PAGE - off < n ? PAGE - off : n;
		char *f = frame_of(va);
		if (f)
			mcopy(buf, f + off, chunk);
		else if (!memstore.get(memstore.ctx, va, tmp))
			mcopy(buf, tmp + off, chunk);
		else
			mzero(buf, chunk);
		buf = (char *)buf + chunk;
		addr += chunk;
		n -= chunk;
	}
	return true;
}

bool vm_write(u64 addr, const void *buf, u64 n)
{
	while (n) {
		u64 va = addr & PAGE_MASK, off = addr - va, chunk = PAGE - off < n ? PAGE - off : n;
		char *f = frame_of(va);
		if (!f) {
			struct page *p = page_find(va) ? NULL : page_materialise(va);
			if (!p)
				return false;
			f = p->frame;
		}
		mcopy(f + off, buf, chunk);
		buf = (const char *)buf + chunk;
		addr += chunk;
		n -= chunk;
	}
	return true;
}

void pages_init(void)
{
	mzero(bucket, sizeof(bucket));
}
