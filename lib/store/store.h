/* SPDX-License-Identifier: MIT */
/*
 * A checkpointed page store over a block device (docs/store.md): 4 KiB
 * pages under 64-bit keys, a small root record for the client's own
 * metadata, and checkpoints that make every change since the previous one
 * durable at once.  Opening a store recovers exactly its last completed
 * checkpoint, whatever a crash cut off.  Pure C over struct store_dev, so
 * it runs in a Pecan task over the disk driver and on the host over a RAM
 * device; it allocates nothing itself (the client gives it its memory).
 */
#ifndef PECAN_STORE_H
#define PECAN_STORE_H

#include <stdint.h>
#include <stddef.h>

#define STORE_PAGE       4096u
#define STORE_SECTOR     512u
#define STORE_ROOT_MAX   256u      /* bytes of the client's root record */
#define STORE_MIN_CACHE  32u       /* fewest tree nodes the cache may hold */

/* Results: 0 or one of these (store_strerror names them). */
enum store_err {
	STORE_OK       = 0,
	STORE_ENOENT   = -1,   /* no page under that key (or no key at or after it) */
	STORE_ENOSPC   = -2,   /* the device is full; nothing was changed */
	STORE_ENOMEM   = -3,   /* more tree nodes changed than the cache holds: spill or checkpoint first */
	STORE_EIO      = -4,   /* the device failed a read, write or flush */
	STORE_EINVAL   = -5,   /* a bad argument: memory too small, record too long, device too small */
	STORE_ENOSTORE = -6,   /* no valid superblock: not a store (or both superblocks damaged) */
	STORE_EBROKEN  = -7,   /* a superblock write failed: the store must be opened again */
	STORE_EDAMAGED = -8,   /* what the device returned fails its checksum or structure checks */
};

/*
 * The block device, in 512-byte sectors.  read and write return 0 or a
 * negative error; a write that returned 0 is on the device as far as a
 * later read is concerned; flush returns once everything written before it
 * is durable.  The store relies on nothing else: multi-sector writes may
 * tear and writes between flushes may land in any order.
 */
struct store_dev {
	void *ctx;
	uint64_t sectors;
	int (*read)(void *ctx, uint64_t lba, uint32_t count, void *buf);
	int (*write)(void *ctx, uint64_t lba, uint32_t count, const void *buf);
	int (*flush)(void *ctx);
};

struct store_stats {
	uint64_t reads, writes, flushes;      /* device calls */
	uint64_t cache_hits, cache_misses;    /* tree node lookups */
	uint64_t spills;
};

struct store_cslot;

/* An open store; all fields are private to lib/store. */
struct store {
	const struct store_dev *dev;
	uint64_t nblocks;            /* 4 KiB blocks the store covers */
	uint64_t seq;                /* the checkpoint the store is at (last completed one) */
	int slot;                    /* the superblock slot (0, 1) that holds it */
	int broken;
	int fell_back;               /* opened at the checkpoint before the newest, which is damaged */
	uint64_t root;               /* root node's block, 0 when the tree is empty */
	uint32_t height;             /* tree levels: 0 empty, 1 the root is a leaf */
	uint32_t root_sum;           /* checksum of the root node while it is clean */
	uint64_t keys;
	uint32_t rec_len;
	uint8_t rec[STORE_ROOT_MAX];
	/* block states, one bit per block (lib/store/space.c) */
	uint64_t *used, *fresh, *pending, *retired;
	uint64_t nwords, nfree, cursor;
	/* the node cache (lib/store/cache.c) */
	struct store_cslot *slots;
	int32_t *heads;
	void *nodes;
	uint8_t *sector;             /* a 512-byte scratch buffer */
	uint32_t ncache, hash_bits, ndirty;
	/* Entries a node takes before it splits (a node below a quarter merges
	 * with a neighbour when together they fit three quarters).  store_open
	 * sets the most a node holds; host tests lower it to grow deep trees. */
	uint32_t fanout;
	uint64_t tick;
	struct store_stats stats;
};

struct store_info {
	uint64_t seq, keys;
	uint64_t blocks, free_blocks, reserve;
	uint32_t height, dirty_nodes, cache_nodes;
	int fell_back;               /* the newest checkpoint was damaged; this is the one before */
};

/* Bytes of memory store_open needs for this device and a cache of cache_nodes tree nodes. */
size_t store_mem_size(uint64_t sectors, uint32_t cache_nodes);
/* Make an empty store on dev (checkpoint 1, empty root record); what was there is lost. */
int store_format(const struct store_dev *dev);
/*
 * Open the store on dev at its last completed checkpoint, with mem (size
 * bytes, 8-byte aligned, store_mem_size(dev->sectors, cache_nodes) at
 * least) as its memory.  Reads every tree node of the last two checkpoints
 * to find the blocks in use.  Changes made but not checkpointed before a
 * crash or a close are gone.
 */
int store_open(struct store *s, const struct store_dev *dev, void *mem, size_t size,
	       uint32_t cache_nodes);

/* Copy the page under key into page (STORE_PAGE bytes). */
int store_get(struct store *s, uint64_t key, void *page);
/* Store page (STORE_PAGE bytes) under key, replacing what was there. */
int store_put(struct store *s, uint64_t key, const void *page);
int store_delete(struct store *s, uint64_t key);
/* The smallest key >= from in *key, or STORE_ENOENT when there is none. */
int store_next(struct store *s, uint64_t from, uint64_t *key);
/* Set the root record (len <= STORE_ROOT_MAX); it is part of the next checkpoint. */
int store_set_root(struct store *s, const void *rec, uint32_t len);
/* Copy the root record (at most max bytes) into rec; returns its length. */
uint32_t store_root(const struct store *s, void *rec, uint32_t max);
/*
 * Make every put, delete and root record change since the last checkpoint
 * durable, all at once: after a crash at any point the store opens at
 * either the previous checkpoint or this one.  On STORE_EIO before the
 * superblock write the changes stay pending and the call may be repeated.
 */
int store_checkpoint(struct store *s);

/*
 * Write every tree node changed since the last checkpoint or spill to its
 * new block, so the cache may drop it: after STORE_ENOMEM, a spill makes
 * room for more changes without a checkpoint.  Nothing becomes durable:
 * the changes still become part of the store only at the next checkpoint,
 * all at once, and a crash before it recovers the last one.
 */
int store_spill(struct store *s);

void store_get_info(const struct store *s, struct store_info *info);
const char *store_strerror(int err);

#endif
