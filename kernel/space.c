// SPDX-License-Identifier: MIT
// Address spaces.  Mapping policy (map/grant/unmap, the mapping database) comes later.
#include "space.h"
#include "frame.h"
#include "kip.h"
#include <arch.h>

struct space *space_create(word_t kip_base, word_t utcb_base, word_t utcb_size)
{
	paddr_t obj = frame_alloc_zeroed(1);
	if (!obj)
		return NULL;
	struct space *s = phys_to_virt(obj);
	s->root = arch_space_create();
	if (!s->root || !arch_map(s->root, kip_base, kip_phys(), MAP_R)) {
		frame_free(obj, 1);    /* a root table left behind is reclaimed with spaces later */
		return NULL;
	}
	s->kip_base = kip_base;
	s->utcb_base = utcb_base;
	s->utcb_size = utcb_size;
	return s;
}

bool space_map(struct space *s, word_t va, paddr_t pa, unsigned rights)
{
	return arch_map(s->root, va, pa, rights);
}

void *space_kaddr(struct space *s, word_t va, unsigned rights)
{
	paddr_t pa;
	unsigned have;
	if (!arch_lookup(s->root, va, &pa, &have) || (have & rights) != rights)
		return NULL;
	return phys_to_virt(pa);
}

bool space_read(struct space *s, word_t va, void *buf, size_t n)
{
	u8 *out = buf;
	while (n) {
		const u8 *src = space_kaddr(s, va, MAP_R);
		if (!src)
			return false;
		size_t chunk = PAGE_SIZE - (va & ~PAGE_MASK);
		if (chunk > n)
			chunk = n;
		for (size_t i = 0; i < chunk; i++)
			out[i] = src[i];
		out += chunk;
		va += chunk;
		n -= chunk;
	}
	return true;
}
