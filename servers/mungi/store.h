/* SPDX-License-Identifier: MIT */
/*
 * The page store: 4 KiB pages under 64-bit keys, the one interface through
 * which object pages leave memory and the object table is saved
 * (docs/mungi.md, "Persistence").  An object page's key is its virtual
 * address; the object table's pages have bit 63 set.  Two implementations:
 * in the server's memory (pagestore_mem.c; nothing survives a reboot) and
 * lib/store over the disk driver (pagestore_disk.c; atomic checkpoints).
 */
#ifndef MUNGI_STORE_H
#define MUNGI_STORE_H

#include <stdint.h>

#define STORE_PAGE    4096u         /* as lib/store/store.h has it */
#define STORE_OT_KEY  (1UL << 63)       /* the object table's first page */

/*
 * Errors are MUNGI_E* codes (positive): MUNGI_ENOSPC when the store is
 * full (nothing is changed then), MUNGI_EIO when the device failed.
 */
struct pagestore {
	/* 0 or an error */
	int (*put)(void *ctx, uint64_t key, const void *page);
	/* 0 with the page copied out, or nonzero when the key holds none (page untouched) */
	int (*get)(void *ctx, uint64_t key, void *page);
	/* 0, or nonzero when the key holds none */
	int (*del)(void *ctx, uint64_t key);
	/* every key in [lo, hi) deleted */
	void (*del_range)(void *ctx, uint64_t lo, uint64_t hi);
	/* make everything put and deleted so far survive a crash together; 0 or an error */
	int (*checkpoint)(void *ctx);
	void *ctx;
};

#endif
