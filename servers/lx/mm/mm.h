/* SPDX-License-Identifier: MIT */
/*
 * lx's own memory: 4 KiB pages it got from sigma0 (page_alloc) and a
 * general allocator on top of them (lx_malloc).  Both return NULL when
 * memory is exhausted; callers turn that into ENOMEM for the one asking.
 * In the host tests (PECAN_HOST_TEST) pages come from the host's heap.
 */
#ifndef LX_MEM_H
#define LX_MEM_H

#include <stddef.h>
#include <stdint.h>

#define LX_PAGE_SIZE 4096UL

void *page_alloc(void);            /* a zeroed page, or NULL */
void page_free(void *page);
size_t page_free_count(void);      /* pages still available */
/* n contiguous zeroed pages, or NULL (lx_malloc's large blocks); freed with the same n */
void *pages_alloc(size_t n);
void pages_free(void *p, size_t n);

void *lx_malloc(size_t n);         /* 16-byte aligned, or NULL */
void *lx_zalloc(size_t n);         /* zeroed */
void *lx_realloc(void *p, size_t n);
void lx_free(void *p);             /* NULL is fine */
char *lx_strdup(const char *s);

#endif
