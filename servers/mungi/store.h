/* SPDX-License-Identifier: MIT */
/*
 * The page store: 4 KiB pages under 64-bit keys, the one interface through
 * which object pages leave memory and the object table is saved
 * (docs/mungi.md, "Persistence").  An object page's key is its virtual
 * address; the object table's pages have bit 63 set.  The server has an
 * in-memory implementation (pagestore_mem.c); a disk-backed store with
 * atomic checkpoints is meant to replace it behind this interface.
 */
#ifndef MUNGI_STORE_H
#define MUNGI_STORE_H

#include <stdint.h>

#define STORE_PAGE    4096
#define STORE_OT_KEY  (1UL << 63)       /* the object table's first page */

struct pagestore {
	/* 0, or -1 when the store is full (nothing is changed then) */
	int (*put)(void *ctx, uint64_t key, const void *page);
	/* 0 with the page copied out, or -1 when the key holds none */
	int (*get)(void *ctx, uint64_t key, void *page);
	/* 0, or -1 when the key holds none */
	int (*del)(void *ctx, uint64_t key);
	/* make everything put so far survive a crash together; 0 or -1 */
	int (*checkpoint)(void *ctx);
	void *ctx;
};

#endif
