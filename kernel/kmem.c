// SPDX-License-Identifier: MIT
// The kernel's own frame pool, carved out of RAM at boot and reported Reserved to sigma0.
#include "frame.h"
#include "config.h"
#include "printk.h"
#include <arch.h>

static struct frame_pool kpool;
static u64 kpool_bitmap[FRAME_BITMAP_WORDS(CONFIG_KMEM_SIZE / PAGE_SIZE)];

void kmem_init(paddr_t base, word_t size)
{
	fpool_init(&kpool, base, size / PAGE_SIZE, kpool_bitmap);
}

paddr_t frame_alloc_zeroed(word_t n)
{
	paddr_t p = fpool_alloc(&kpool, n, 1);
	if (p) {
		u64 *v = phys_to_virt(p);
		for (word_t i = 0; i < n * PAGE_SIZE / 8; i++)
			v[i] = 0;
	}
	return p;
}

void frame_free(paddr_t addr, word_t n)
{
	if (!fpool_free(&kpool, addr, n))
		panic("frame_free: bad free of %lx (%lu frames)", addr, n);
}

word_t kmem_free_count(void)
{
	return kpool.nfree;
}

word_t kmem_total(void)
{
	return kpool.nframes;
}
