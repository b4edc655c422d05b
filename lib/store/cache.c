// SPDX-License-Identifier: MIT
// The node cache: tree nodes by block number in a fixed array of slots with
// hash chains.  A node read from the device is checked (checksum from its
// parent, magic, its own block number, level, sorted keys, block numbers in
// range) before anything uses it, so the tree code trusts cached nodes.
// Dirty nodes are the ones changed since the last checkpoint (or the last
// spill); their block on the device is out of date and they stay until a
// checkpoint or a spill writes them.
#include "impl.h"

#define NONE (-1)

static struct node *node_at(struct store *s, int32_t i)
{
	return (struct node *)s->nodes + i;
}

static int32_t slot_of(struct store *s, const struct node *n)
{
	return (int32_t)(n - (const struct node *)s->nodes);
}

static uint32_t bucket(const struct store *s, uint64_t blk)
{
	return (uint32_t)((blk * 0x9e3779b97f4a7c15ULL) >> (64 - s->hash_bits));
}

static int32_t find(struct store *s, uint64_t blk)
{
	for (int32_t i = s->heads[bucket(s, blk)]; i != NONE; i = s->slots[i].next)
		if (s->slots[i].blk == blk)
			return i;
	return NONE;
}

static void unlink_slot(struct store *s, int32_t i)
{
	int32_t *p = &s->heads[bucket(s, s->slots[i].blk)];
	while (*p != i)
		p = &s->slots[*p].next;
	*p = s->slots[i].next;
}

static void link_slot(struct store *s, int32_t i, uint64_t blk)
{
	uint32_t h = bucket(s, blk);
	s->slots[i].blk = blk;
	s->slots[i].next = s->heads[h];
	s->heads[h] = i;
}

void cache_init(struct store *s)
{
	for (uint32_t i = 0; i < s->ncache; i++)
		s->slots[i] = (struct store_cslot){ .next = NONE };
	for (uint32_t h = 0; h < 1u << s->hash_bits; h++)
		s->heads[h] = NONE;
	s->ndirty = 0;
}

/* An empty slot, else the least recently used clean unpinned one (unlinked); NONE if all are busy. */
static int32_t victim(struct store *s)
{
	int32_t best = NONE;
	for (uint32_t i = 0; i < s->ncache; i++) {
		struct store_cslot *c = &s->slots[i];
		if (!c->valid)
			return (int32_t)i;
		if (!c->dirty && !c->pins && (best == NONE || c->last_use < s->slots[best].last_use))
			best = (int32_t)i;
	}
	if (best != NONE) {
		unlink_slot(s, best);
		s->slots[best].valid = 0;
	}
	return best;
}

/* Block numbers in range; keys strictly increasing (an inner node's first key is ignored). */
static int entries_ok(const struct store *s, const struct node *n)
{
	unsigned first_ordered = n->level ? 2 : 1;
	for (unsigned i = 0; i < n->count; i++) {
		if (n->e[i].blk < FIRST_BLOCK || n->e[i].blk >= s->nblocks)
			return 0;
		if (i >= first_ordered && n->e[i].key <= n->e[i - 1].key)
			return 0;
	}
	return 1;
}

/* Is n, read from block blk where a node of this level should be, a valid node? */
static int node_ok(const struct store *s, const struct node *n, uint64_t blk, unsigned level)
{
	return n->magic == NODE_MAGIC && n->self == blk && n->level == level &&
	       n->count >= 1 && n->count <= NODE_MAX && entries_ok(s, n);
}

/* The node at blk, read and checked against sum if it is not cached. */
struct node *cache_get(struct store *s, uint64_t blk, uint32_t sum, unsigned level, int *err)
{
	int32_t i = find(s, blk);
	if (i != NONE) {
		s->stats.cache_hits++;
		s->slots[i].last_use = ++s->tick;
		return node_at(s, i);
	}
	s->stats.cache_misses++;
	int32_t v = victim(s);
	if (v == NONE) {
		*err = STORE_ENOMEM;
		return NULL;
	}
	struct node *n = node_at(s, v);
	int r = dev_read_block(s, blk, n);
	if (r || store_sum32(n, sizeof(*n)) != sum || !node_ok(s, n, blk, level)) {
		*err = r ? r : STORE_EDAMAGED;
		return NULL;
	}
	link_slot(s, v, blk);
	s->slots[v] = (struct store_cslot){ blk, ++s->tick, s->slots[v].next, 0, 0, 1 };
	return n;
}

/* A new empty dirty node of this level in a newly allocated block. */
struct node *cache_new(struct store *s, unsigned level, uint64_t *blk, int *err)
{
	uint64_t b = space_alloc(s);
	if (!b) {
		*err = STORE_ENOSPC;
		return NULL;
	}
	int32_t v = victim(s);
	if (v == NONE) {
		space_release(s, b);
		*err = STORE_ENOMEM;
		return NULL;
	}
	struct node *n = node_at(s, v);
	*n = (struct node){ .magic = NODE_MAGIC, .level = (uint16_t)level, .self = b };
	link_slot(s, v, b);
	s->slots[v] = (struct store_cslot){ b, ++s->tick, s->slots[v].next, 0, 1, 1 };
	s->ndirty++;
	*blk = b;
	return n;
}

/* The cached node n moves to block blk (copy on write) and is dirty. */
int cache_relabel(struct store *s, struct node *n, uint64_t blk)
{
	int32_t i = slot_of(s, n);
	unlink_slot(s, i);
	link_slot(s, i, blk);
	cache_mark_dirty(s, n);
	n->self = blk;
	return STORE_OK;
}

void cache_drop(struct store *s, uint64_t blk)
{
	int32_t i = find(s, blk);
	if (i == NONE)
		return;
	unlink_slot(s, i);
	if (s->slots[i].dirty)
		s->ndirty--;
	s->slots[i] = (struct store_cslot){ .next = NONE };
}

void cache_mark_dirty(struct store *s, struct node *n)
{
	struct store_cslot *c = &s->slots[slot_of(s, n)];
	if (!c->dirty) {
		c->dirty = 1;
		s->ndirty++;
	}
}

/* The dirty node at blk, or NULL if blk is not a dirty node. */
struct node *cache_dirty(struct store *s, uint64_t blk)
{
	int32_t i = find(s, blk);
	return i != NONE && s->slots[i].dirty ? node_at(s, i) : NULL;
}

void cache_pin(struct store *s, struct node *n, int delta)
{
	s->slots[slot_of(s, n)].pins = (uint16_t)(s->slots[slot_of(s, n)].pins + delta);
}

void cache_all_clean(struct store *s)
{
	for (uint32_t i = 0; i < s->ncache; i++)
		s->slots[i].dirty = 0;
	s->ndirty = 0;
}
