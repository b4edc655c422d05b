/* SPDX-License-Identifier: MIT */
/* lib/store's private layout and the interfaces between its files (docs/store.md). */
#ifndef PECAN_STORE_IMPL_H
#define PECAN_STORE_IMPL_H

#include "store.h"

#define BLOCK_SECTORS   (STORE_PAGE / STORE_SECTOR)
#define MAX_BLOCKS      0xffffffffULL   /* block numbers are 32 bits in tree entries */
#define FIRST_BLOCK     2               /* blocks 0 and 1 hold the two superblocks */
#define NODE_MAX        255             /* entries a tree node has room for */
#define MAX_HEIGHT      12
/* Blocks puts leave free so that deletes, which copy their path first, still work. */
#define RESERVE_BLOCKS  (2 * MAX_HEIGHT + 8)
#define NODE_MAGIC      0x45444f4eu     /* "NODE" */

/*
 * A tree entry.  In a leaf: key -> data block and the data's checksum.
 * In an inner node: child block and its checksum; key is a lower bound of
 * every key below that child (ignored for entry 0), and the keys below
 * child i are < key of entry i + 1.
 */
struct entry {
	uint64_t key;
	uint32_t blk;
	uint32_t sum;
};

/* A tree node fills one block.  level 0 is a leaf; self is its own block number. */
struct node {
	uint32_t magic;
	uint16_t level;
	uint16_t count;
	uint64_t self;
	struct entry e[NODE_MAX];
};

_Static_assert(sizeof(struct node) == STORE_PAGE, "a node is one block");

/* sum.c */
uint64_t store_hash(const void *p, size_t bytes);
uint32_t store_sum32(const void *p, size_t bytes);

/* space.c: block states.  used: referenced by a kept checkpoint or allocated
 * since; fresh: allocated since the last checkpoint; pending: referenced by
 * the last checkpoint but no longer by the tree; retired: referenced only by
 * the checkpoint before the last one. */
static inline int bit_get(const uint64_t *map, uint64_t b) { return (map[b / 64] >> (b % 64)) & 1; }
static inline void bit_set(uint64_t *map, uint64_t b) { map[b / 64] |= 1ULL << (b % 64); }
static inline void bit_clear(uint64_t *map, uint64_t b) { map[b / 64] &= ~(1ULL << (b % 64)); }
uint64_t space_alloc(struct store *s);
void space_release(struct store *s, uint64_t blk);
void space_commit(struct store *s);
void space_reset(struct store *s);
void space_count_free(struct store *s);

/* cache.c: tree nodes by block number.  Dirty nodes (fresh ones changed
 * since they were last written) stay until a checkpoint or a spill writes
 * them; pinned nodes are never evicted. */
struct store_cslot {
	uint64_t blk;
	uint64_t last_use;
	int32_t next;            /* hash chain; -1 ends it */
	uint16_t pins;
	uint8_t dirty, valid;
};
void cache_init(struct store *s);
struct node *cache_get(struct store *s, uint64_t blk, uint32_t sum, unsigned level, int *err);
struct node *cache_new(struct store *s, unsigned level, uint64_t *blk, int *err);
int cache_relabel(struct store *s, struct node *n, uint64_t blk);
/* A fresh node changes again after a spill wrote it. */
void cache_mark_dirty(struct store *s, struct node *n);
void cache_drop(struct store *s, uint64_t blk);
struct node *cache_dirty(struct store *s, uint64_t blk);
void cache_pin(struct store *s, struct node *n, int delta);
void cache_all_clean(struct store *s);

/* store.c: the device in blocks */
int dev_read_block(struct store *s, uint64_t blk, void *buf);
int dev_write_block(struct store *s, uint64_t blk, const void *buf);

/* tree.c */
int tree_lookup(struct store *s, uint64_t key, struct entry *out);
int tree_set(struct store *s, uint64_t key, uint32_t blk, uint32_t sum, uint64_t *old);
int tree_remove(struct store *s, uint64_t key, uint64_t *old);
int tree_next(struct store *s, uint64_t from, uint64_t *key);
int tree_finalize(struct store *s);
int tree_walk(struct store *s, uint64_t root, uint32_t sum, uint32_t height, uint64_t *mark,
	      const uint64_t *skip);

#endif
