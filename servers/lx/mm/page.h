/* SPDX-License-Identifier: MIT */
/* lx's page pool beyond mm/mm.h: reference counts for pages shared between processes. */
#ifndef LX_PAGE_H
#define LX_PAGE_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

void pool_init(void);
uint64_t pool_bytes(void);
uint64_t pool_total_bytes(void);
bool page_in_pool(const void *p);
void *page_alloc_nozero(void);
void page_get(void *p);              /* one more user; page_free drops one */
unsigned page_refcount(const void *p);

#endif
/* also in mm/mm.h once the allocator lands; repeated declarations agree */
void *pages_alloc(size_t n);
void pages_free(void *p, size_t n);
