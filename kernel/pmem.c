// SPDX-License-Identifier: MIT
// Range arithmetic over physical memory maps; pure, tested on the host.
#include "pmem.h"

bool pmem_add(struct mem_map *m, u64 base, u64 end, u32 type)
{
	if (end <= base || m->n >= CONFIG_MAX_MEM_RANGES)
		return false;
	m->r[m->n++] = (struct mem_range){ base, end, type };
	return true;
}

static bool overlaps(const struct mem_range *r, u64 base, u64 end)
{
	return base < r->end && end > r->base;
}

/* Atomic: if splitting would overflow the table, nothing changes. */
bool pmem_remove(struct mem_map *m, u64 base, u64 end)
{
	if (end <= base)
		return true;
	int splits = 0;
	for (int i = 0; i < m->n; i++)
		splits += base > m->r[i].base && end < m->r[i].end;
	if (m->n + splits > CONFIG_MAX_MEM_RANGES)
		return false;
	for (int i = 0; i < m->n; i++) {
		struct mem_range *r = &m->r[i];
		if (!overlaps(r, base, end))
			continue;
		if (base > r->base && end < r->end) {      /* hole in the middle: split */
			m->r[m->n++] = (struct mem_range){ end, r->end, r->type };
			r->end = base;
		} else if (base > r->base) {
			r->end = base;
		} else if (end < r->end) {
			r->base = end;
		} else {                                    /* fully covered: drop */
			m->r[i--] = m->r[--m->n];
		}
	}
	return true;
}

static bool before(const struct mem_range *a, const struct mem_range *b, bool by_type)
{
	if (by_type && a->type != b->type)
		return a->type < b->type;
	return a->base < b->base;
}

static void sort(struct mem_map *m, bool by_type)
{
	for (int i = 1; i < m->n; i++)              /* insertion sort: tables are small */
		for (int j = i; j > 0 && before(&m->r[j], &m->r[j - 1], by_type); j--) {
			struct mem_range t = m->r[j];
			m->r[j] = m->r[j - 1];
			m->r[j - 1] = t;
		}
}

/* Sorted by type then base, same-type neighbours are the only merge candidates. */
void pmem_normalize(struct mem_map *m)
{
	sort(m, true);
	int out = 0;
	for (int i = 0; i < m->n; i++) {
		struct mem_range *prev = out ? &m->r[out - 1] : NULL;
		if (prev && prev->type == m->r[i].type && m->r[i].base <= prev->end) {
			if (m->r[i].end > prev->end)
				prev->end = m->r[i].end;
		} else {
			m->r[out++] = m->r[i];
		}
	}
	m->n = out;
	sort(m, false);
}

/* Page rounding that saturates instead of wrapping past 2^64. */
static u64 page_up(u64 x)
{
	return x > ~0UL - (PAGE_SIZE - 1) ? ~0UL : ALIGN_UP(x, PAGE_SIZE);
}

bool pmem_usable(const struct mem_map *fw, struct mem_map *out)
{
	out->n = 0;
	for (int i = 0; i < fw->n; i++) {
		u64 b = page_up(fw->r[i].base), e = ALIGN_DOWN(fw->r[i].end, PAGE_SIZE);
		if (fw->r[i].type == MEM_RAM && b < e && !pmem_add(out, b, e, MEM_RAM))
			return false;
	}
	for (int i = 0; i < fw->n; i++)
		if (fw->r[i].type != MEM_RAM &&
		    !pmem_remove(out, ALIGN_DOWN(fw->r[i].base, PAGE_SIZE), page_up(fw->r[i].end)))
			return false;
	pmem_normalize(out);
	return true;
}

bool pmem_find_top(const struct mem_map *m, u64 size, u64 align, u64 limit, u64 *out)
{
	bool found = false;
	for (int i = 0; i < m->n; i++) {
		u64 end = m->r[i].end < limit ? m->r[i].end : limit;
		if (end < size || end - size < m->r[i].base)
			continue;
		u64 cand = ALIGN_DOWN(end - size, align);
		if (cand >= m->r[i].base && (!found || cand > *out)) {
			*out = cand;
			found = true;
		}
	}
	return found;
}

bool pmem_find_low(const struct mem_map *m, u64 size, u64 align, u64 limit, u64 *out)
{
	u64 best = ~0UL;
	bool found = false;
	for (int i = 0; i < m->n; i++) {
		u64 end = m->r[i].end < limit ? m->r[i].end : limit;
		u64 cand = ALIGN_UP(m->r[i].base, align);
		if (cand < m->r[i].base || cand > end || end - cand < size)
			continue;           /* the rounding wrapped, or the block does not fit */
		if (cand <= best) {
			best = cand;
			found = true;
		}
	}
	if (found)
		*out = best;
	return found;
}

bool pmem_contains(const struct mem_map *m, u64 base, u64 end)
{
	for (int i = 0; i < m->n; i++)
		if (base >= m->r[i].base && end <= m->r[i].end && base < end)
			return true;
	return false;
}

bool pmem_overlaps(const struct mem_map *m, u64 base, u64 end)
{
	for (int i = 0; i < m->n; i++)
		if (base < end && overlaps(&m->r[i], base, end))
			return true;
	return false;
}

u64 pmem_top(const struct mem_map *m)
{
	u64 top = 0;
	for (int i = 0; i < m->n; i++)
		if (m->r[i].end > top)
			top = m->r[i].end;
	return top;
}
