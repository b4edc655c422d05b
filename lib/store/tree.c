// SPDX-License-Identifier: MIT
// The copy-on-write B+-tree from keys to data blocks.  A node that belongs
// to the last checkpoint is never changed in place: the first change since
// the checkpoint copies it to a fresh block (and its parent, up to the root,
// which then points to the copy).  Fresh nodes are changed in place until
// the checkpoint writes them, children before parents, each parent entry
// holding its child's checksum, the superblock the root's.
#include "impl.h"
#include "../c/string.h"

/* The nodes from the root (level height - 1) down to a leaf, and the entry taken at each. */
struct path {
	struct node *n[MAX_HEIGHT];
	int idx[MAX_HEIGHT];
};

/* The largest i >= lo with e[i].key <= key, or lo - 1 (lo = 1 in inner nodes: entry 0 is -infinity). */
static int search(const struct node *n, uint64_t key, int lo)
{
	int hi = n->count - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (n->e[mid].key <= key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return hi;
}

static void put_entry(struct node *n, int pos, struct entry e)
{
	memmove(&n->e[pos + 1], &n->e[pos], (size_t)(n->count - pos) * sizeof(e));
	n->e[pos] = e;
	n->count++;
}

static void remove_entry(struct node *n, int pos)
{
	memmove(&n->e[pos], &n->e[pos + 1], (size_t)(n->count - pos - 1) * sizeof(n->e[0]));
	n->count--;
}

static void free_node(struct store *s, uint64_t blk)
{
	cache_drop(s, blk);
	space_release(s, blk);
}

int tree_lookup(struct store *s, uint64_t key, struct entry *out)
{
	uint64_t blk = s->root;
	uint32_t sum = s->root_sum;
	for (int level = (int)s->height - 1; level >= 0; level--) {
		int err;
		struct node *n = cache_get(s, blk, sum, (unsigned)level, &err);
		if (!n)
			return err;
		int i = search(n, key, level ? 1 : 0);
		if (level == 0) {
			if (i < 0 || n->e[i].key != key)
				return STORE_ENOENT;
			*out = n->e[i];
			return STORE_OK;
		}
		blk = n->e[i].blk;
		sum = n->e[i].sum;
	}
	return STORE_ENOENT;
}

/*
 * The node at *blk, copied to a new block unless it is fresh; *blk follows
 * the copy.  Either way it is dirty: a fresh node store_spill wrote out is
 * clean in the cache until it changes again.
 */
static struct node *cow(struct store *s, uint64_t *blk, uint32_t sum, unsigned level, int *err)
{
	struct node *n = cache_get(s, *blk, sum, level, err);
	if (n && bit_get(s->fresh, *blk))
		cache_mark_dirty(s, n);
	if (!n || bit_get(s->fresh, *blk))
		return n;
	uint64_t copy = space_alloc(s);
	if (!copy) {
		*err = STORE_ENOSPC;
		return NULL;
	}
	space_release(s, *blk);
	cache_relabel(s, n, copy);
	*blk = copy;
	return n;
}

/* Make every node on key's path fresh (a failure leaves copies with the same contents). */
static int cow_path(struct store *s, uint64_t key, struct path *p)
{
	int err;
	uint64_t blk = s->root;
	struct node *n = cow(s, &blk, s->root_sum, s->height - 1, &err);
	if (!n)
		return err;
	s->root = blk;
	for (unsigned level = s->height - 1; level > 0; level--) {
		p->n[level] = n;
		int i = p->idx[level] = search(n, key, 1);
		blk = n->e[i].blk;
		struct node *child = cow(s, &blk, n->e[i].sum, level - 1, &err);
		if (!child)
			return err;
		n->e[i].blk = (uint32_t)blk;
		n = child;
	}
	p->n[0] = n;
	return STORE_OK;
}

/* Insert e at pos of the path's node at level, splitting full nodes upwards. */
static int insert(struct store *s, struct path *p, unsigned level, int pos, struct entry e)
{
	struct node *n = p->n[level];
	if (n->count < s->fanout) {
		put_entry(n, pos, e);
		return STORE_OK;
	}
	int err;
	uint64_t rblk;
	struct node *r = cache_new(s, level, &rblk, &err);
	if (!r)
		return err;
	/* appending (ascending keys): keep the left node full instead of half */
	int keep = pos == n->count ? n->count : (n->count + 1) / 2;
	r->count = (uint16_t)(n->count - keep);
	memcpy(r->e, &n->e[keep], r->count * sizeof(r->e[0]));
	n->count = (uint16_t)keep;
	if (pos < keep)
		put_entry(n, pos, e);
	else
		put_entry(r, pos - keep, e);
	struct entry sep = { r->e[0].key, (uint32_t)rblk, 0 };
	if (level + 1 < s->height)
		return insert(s, p, level + 1, p->idx[level + 1] + 1, sep);
	uint64_t nblk;
	struct node *root = cache_new(s, level + 1, &nblk, &err);
	if (!root)
		return err;
	root->e[0] = (struct entry){ n->e[0].key, (uint32_t)s->root, 0 };
	root->e[1] = sep;
	root->count = 2;
	s->root = nblk;
	s->height++;
	return STORE_OK;
}

/*
 * key -> (blk, sum); *old gets the data block it replaces (0 for a new key).
 * The caller has checked that blocks and cache slots suffice for a copied
 * path and a split at every level, so nothing fails halfway.
 */
int tree_set(struct store *s, uint64_t key, uint32_t blk, uint32_t sum, uint64_t *old)
{
	int err;
	struct path p;
	*old = 0;
	if (!s->height) {
		uint64_t rblk;
		if (!cache_new(s, 0, &rblk, &err))
			return err;
		s->root = rblk;
		s->height = 1;
	}
	if ((err = cow_path(s, key, &p)))
		return err;
	struct node *leaf = p.n[0];
	int i = search(leaf, key, 0);
	if (i >= 0 && leaf->e[i].key == key) {
		*old = leaf->e[i].blk;
		leaf->e[i].blk = blk;
		leaf->e[i].sum = sum;
		return STORE_OK;
	}
	return insert(s, &p, 0, i + 1, (struct entry){ key, blk, sum });
}

/* dst takes src's entries; sep is the parent's lower bound for src (inner nodes need it). */
static void append(struct node *dst, const struct node *src, uint64_t sep)
{
	memcpy(&dst->e[dst->count], src->e, src->count * sizeof(src->e[0]));
	if (dst->level)
		dst->e[dst->count].key = sep;
	dst->count = (uint16_t)(dst->count + src->count);
}

/* Merge n, parent's fresh child i, with a neighbour if both fit one node: 1 merged, 0 not. */
static int merge(struct store *s, struct node *parent, int i, struct node *n)
{
	int err, j = i + 1 < parent->count ? i + 1 : i - 1;
	unsigned level = n->level;
	struct node *sib = cache_get(s, parent->e[j].blk, parent->e[j].sum, level, &err);
	if (!sib || n->count + sib->count > s->fanout * 3 / 4)
		return 0;
	if (j > i) {
		append(n, sib, parent->e[j].key);
		free_node(s, parent->e[j].blk);
		remove_entry(parent, j);
		return 1;
	}
	uint64_t blk = parent->e[j].blk;       /* the left neighbour survives: copy it */
	if (!(sib = cow(s, &blk, parent->e[j].sum, level, &err)))
		return 0;
	parent->e[j].blk = (uint32_t)blk;
	append(sib, n, parent->e[i].key);
	free_node(s, parent->e[i].blk);
	remove_entry(parent, i);
	return 1;
}

/*
 * After a removal from the leaf, bottom up: drop emptied nodes, merge small
 * ones.  A failed read of a neighbour just ends it: the tree stays valid,
 * only less compact.
 */
static void rebalance(struct store *s, struct path *p)
{
	for (unsigned level = 0; level + 1 < s->height; level++) {
		struct node *n = p->n[level], *parent = p->n[level + 1];
		int i = p->idx[level + 1];
		if (n->count == 0) {
			free_node(s, parent->e[i].blk);
			remove_entry(parent, i);
		} else if (n->count >= s->fanout / 4 || parent->count < 2 || !merge(s, parent, i, n)) {
			return;
		}
	}
}

/* A root with one child gives way to it; an empty root leaves an empty tree. */
static void shrink_root(struct store *s)
{
	for (;;) {
		struct node *root = s->height ? cache_dirty(s, s->root) : NULL;
		if (!root || (root->count > 1) || (s->height == 1 && root->count == 1))
			return;
		uint64_t old = s->root;
		if (root->count == 0) {
			s->root = 0;
			s->height = 0;
		} else {
			s->root = root->e[0].blk;
			s->root_sum = root->e[0].sum;
			s->height--;
		}
		free_node(s, old);
	}
}

/* Remove key; *old gets its data block.  The caller has checked room as for tree_set. */
int tree_remove(struct store *s, uint64_t key, uint64_t *old)
{
	struct path p;
	int err = cow_path(s, key, &p);
	if (err)
		return err;
	struct node *leaf = p.n[0];
	int i = search(leaf, key, 0);
	if (i < 0 || leaf->e[i].key != key)
		return STORE_ENOENT;
	*old = leaf->e[i].blk;
	remove_entry(leaf, i);
	rebalance(s, &p);
	shrink_root(s);
	return STORE_OK;
}

static int next_in(struct store *s, uint64_t blk, uint32_t sum, unsigned level, uint64_t from,
		   uint64_t *key)
{
	int err;
	struct node *n = cache_get(s, blk, sum, level, &err);
	if (!n)
		return err;
	if (level == 0) {
		int i = search(n, from, 0);
		if (i < 0 || n->e[i].key != from)
			i++;
		if (i >= n->count)
			return STORE_ENOENT;
		*key = n->e[i].key;
		return STORE_OK;
	}
	cache_pin(s, n, 1);
	err = STORE_ENOENT;
	for (int i = search(n, from, 1); i < n->count && err == STORE_ENOENT; i++)
		err = next_in(s, n->e[i].blk, n->e[i].sum, level - 1, from, key);
	cache_pin(s, n, -1);
	return err;
}

int tree_next(struct store *s, uint64_t from, uint64_t *key)
{
	return s->height ? next_in(s, s->root, s->root_sum, s->height - 1, from, key) : STORE_ENOENT;
}

/* Write the dirty node n (block blk) after its dirty children; *sum gets its checksum. */
static int write_dirty(struct store *s, struct node *n, uint64_t blk, uint32_t *sum)
{
	for (unsigned i = 0; n->level && i < n->count; i++) {
		struct node *child = cache_dirty(s, n->e[i].blk);
		int err = child ? write_dirty(s, child, n->e[i].blk, &n->e[i].sum) : STORE_OK;
		if (err)
			return err;
	}
	*sum = store_sum32(n, sizeof(*n));
	return dev_write_block(s, blk, n);
}

/* Write every changed node; afterwards s->root_sum is the root's checksum. */
int tree_finalize(struct store *s)
{
	struct node *root = s->height ? cache_dirty(s, s->root) : NULL;
	return root ? write_dirty(s, root, s->root, &s->root_sum) : STORE_OK;
}

static int mark_block(uint64_t *mark, const uint64_t *skip, uint64_t blk, int *shared)
{
	*shared = skip && bit_get(skip, blk);
	if (*shared)
		return STORE_OK;
	if (bit_get(mark, blk))
		return STORE_EDAMAGED;           /* referenced twice */
	bit_set(mark, blk);
	return STORE_OK;
}

static int walk(struct store *s, uint64_t blk, uint32_t sum, unsigned level, uint64_t *mark,
		const uint64_t *skip)
{
	int err, shared;
	if ((err = mark_block(mark, skip, blk, &shared)) || shared)
		return err;
	struct node *n = cache_get(s, blk, sum, level, &err);
	if (!n)
		return err;
	cache_pin(s, n, 1);
	for (unsigned i = 0; i < n->count && !err; i++)
		err = level ? walk(s, n->e[i].blk, n->e[i].sum, level - 1, mark, skip)
			    : mark_block(mark, skip, n->e[i].blk, &shared);
	cache_pin(s, n, -1);
	return err;
}

/*
 * Set in mark every block of the tree at root, reading and checking every
 * node.  Subtrees whose root is in skip belong to a tree walked before
 * (blocks are never rewritten while a kept checkpoint uses them) and are
 * not read again.
 */
int tree_walk(struct store *s, uint64_t root, uint32_t sum, uint32_t height, uint64_t *mark,
	      const uint64_t *skip)
{
	return height ? walk(s, root, sum, height - 1, mark, skip) : STORE_OK;
}
