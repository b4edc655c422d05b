// SPDX-License-Identifier: MIT
// Mapping database: derivation trees of 4 KiB mappings, indexed by a chained hash of (space, vaddr).
#include "mdb.h"

_Static_assert(sizeof(struct mdb_node) == 80, "a node is 80 bytes: 51 to a frame");

#define PAGE_OFFSET (PAGE_SIZE - 1)

static word_t node_va(const struct mdb_node *n) { return n->va_rights & PAGE_MASK; }
static unsigned node_rights(const struct mdb_node *n) { return n->va_rights & PAGE_OFFSET; }

static void set_rights(struct mdb_node *n, unsigned rights)
{
	n->va_rights = node_va(n) | rights;
}

/* Rights left after revoking some; 0 when R goes, since then the mapping goes. */
static unsigned reduce(unsigned rights, unsigned revoke)
{
	unsigned left = rights & ~revoke;
	return left & MDB_R ? left : 0;
}

/* --- the index --- */

/*
 * The page number spreads a space's consecutive pages over consecutive
 * buckets; the space adds its own well-mixed offset (the high bits of a
 * product), so that spaces do not pile up in the same buckets.
 */
static word_t bucket_of(const struct mdb *m, const void *space, word_t va)
{
	word_t h = va / PAGE_SIZE + (((word_t)space >> 4) * 0x9e3779b97f4a7c15UL >> 32);
	return h & (m->nbuckets - 1);
}

static struct mdb_node *find(const struct mdb *m, const void *space, word_t va)
{
	struct mdb_node *n = m->buckets[bucket_of(m, space, va)];
	while (n && !(n->space == space && node_va(n) == va))
		n = n->hnext;
	return n;
}

static void index_add(struct mdb *m, struct mdb_node *n)
{
	struct mdb_node **b = &m->buckets[bucket_of(m, n->space, node_va(n))];
	n->hnext = *b;
	*b = n;
}

static void index_del(struct mdb *m, struct mdb_node *n)
{
	struct mdb_node **p = &m->buckets[bucket_of(m, n->space, node_va(n))];
	while (*p != n)
		p = &(*p)->hnext;
	*p = n->hnext;
}

/* --- the space lists --- */

static struct mdb_node **space_list(const void *space)
{
	return &((struct mdb_space *)space)->nodes;
}

static void space_add(struct mdb_node *n)
{
	struct mdb_node **l = space_list(n->space);
	n->sprev = NULL;
	n->snext = *l;
	if (*l)
		(*l)->sprev = n;
	*l = n;
}

static void space_del(struct mdb_node *n)
{
	if (n->sprev)
		n->sprev->snext = n->snext;
	else
		*space_list(n->space) = n->snext;
	if (n->snext)
		n->snext->sprev = n->sprev;
}

/* --- tree links --- */

static void link_child(struct mdb_node *parent, struct mdb_node *n)
{
	n->parent = parent;
	n->prev = NULL;
	n->next = parent->child;
	if (parent->child)
		parent->child->prev = n;
	parent->child = n;
}

/* Take n (with its subtree) out of its parent's child list; n->parent stays. */
static void unlink_child(struct mdb_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else if (n->parent)
		n->parent->child = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->prev = n->next = NULL;
}

/* True if a is n or one of n's ancestors. */
static bool derives_from(const struct mdb_node *n, const struct mdb_node *a)
{
	for (; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

/* The node after n's subtree in a preorder walk of top's subtree; NULL when done. */
static struct mdb_node *next_after(struct mdb_node *n, const struct mdb_node *top)
{
	for (; n != top; n = n->parent)
		if (n->next)
			return n->next;
	return NULL;
}

/* --- allocation and removal --- */

static struct mdb_node *node_new(struct mdb *m, const void *space, word_t va, paddr_t pa,
				 unsigned rights)
{
	struct mdb_node *n = m->ops.alloc(m->ops.ctx, space);
	if (!n)
		return NULL;
	n->space = space;               /* the links are set by whoever places it */
	n->va_rights = va | rights;
	n->paddr = pa;
	n->parent = n->child = n->prev = n->next = NULL;
	space_add(n);
	m->count++;
	return n;
}

/* Tell the user n's rights change to `rights`; returns n's status. */
static unsigned update(struct mdb *m, struct mdb_node *n, unsigned rights)
{
	return m->ops.update(m->ops.ctx, n->space, node_va(n), node_rights(n), rights);
}

/* Take a leaf out of the tree, the index and its space, and free it; no update. */
static void drop_leaf(struct mdb *m, struct mdb_node *n)
{
	if (n->parent)
		unlink_child(n);
	index_del(m, n);
	space_del(n);
	m->ops.free(m->ops.ctx, n);
	m->count--;
}

/* Remove a leaf that is the first child of its parent (or a detached root). */
static unsigned free_leaf(struct mdb *m, struct mdb_node *n)
{
	unsigned status = update(m, n, 0);
	drop_leaf(m, n);
	return status;
}

/*
 * Remove n and everything derived from it, leaves first, without recursion:
 * descend along first children to a leaf, free it, resume at its parent.
 * Each node is descended through once and freed once: O(subtree).
 * With a budget, stop (false) once *budget nodes went: the tree is then
 * consistent, n still in it with what is left below it, so a later call
 * finishes the job.  True when n is gone.
 */
static bool remove_subtree_some(struct mdb *m, struct mdb_node *n, unsigned *status,
				word_t *budget)
{
	for (struct mdb_node *x = n;;) {
		while (x->child)
			x = x->child;
		struct mdb_node *p = x->parent;
		*status |= free_leaf(m, x);     /* x is its parent's first child, or n */
		if (x == n)
			return true;
		if (budget && !--*budget)
			return false;
		x = p;
	}
}

static unsigned remove_subtree(struct mdb *m, struct mdb_node *n)
{
	unsigned status = 0;
	remove_subtree_some(m, n, &status, NULL);
	return status;
}

/*
 * Revoke `revoke` from every descendant of top (not top itself); a node
 * left without R goes with its subtree. update is called for every node
 * whose rights change and, with `all`, for every descendant, to collect
 * each one's status (unmap). Iterative preorder walk.  A budget bounds the
 * nodes removed (not those only reduced): false if it ran out first.
 */
static bool revoke_below_some(struct mdb *m, struct mdb_node *top, unsigned revoke, bool all,
			      unsigned *status, word_t *budget)
{
	struct mdb_node *n = top->child;
	while (n) {
		unsigned left = reduce(node_rights(n), revoke);
		if (!left) {
			struct mdb_node *next = next_after(n, top);
			if (!n->child)
				*status |= free_leaf(m, n);     /* the common case, without the walk's frame */
			else if (!remove_subtree_some(m, n, status, budget))
				return false;
			if (budget && !--*budget)
				return !next;           /* a later call starts from top again */
			n = next;
			continue;
		}
		if (all || left != node_rights(n))
			*status |= update(m, n, left);
		set_rights(n, left);
		n = n->child ? n->child : next_after(n, top);
	}
	return true;
}

static unsigned revoke_below(struct mdb *m, struct mdb_node *top, unsigned revoke, bool all)
{
	unsigned status = 0;
	revoke_below_some(m, top, revoke, all, &status, NULL);
	return status;
}

/* --- argument checks --- */

static bool place_ok(const void *space, word_t va)
{
	return space && !(va & PAGE_OFFSET);
}

static bool rights_ok(unsigned rights) { return !(rights & ~MDB_RWX); }

/*
 * Common checks of map and grant: the source exists, the target is neither
 * it nor an ancestor, rights survive the intersection. Sets *src, *dst
 * (the target's current mapping or NULL; dst NULL: not looked up) and
 * *rights (the new node's).
 */
static enum mdb_err decode_move(struct mdb *m, const void *from, word_t fva, const void *to,
				word_t tva, unsigned *rights, struct mdb_node **src,
				struct mdb_node **dst)
{
	if (!place_ok(from, fva) || !place_ok(to, tva) || !rights_ok(*rights))
		return MDB_ERR_ARG;
	*src = find(m, from, fva);
	if (!*src)
		return MDB_ERR_NOT_MAPPED;
	if (from == to && fva == tva)
		return MDB_ERR_SELF;
	*rights &= node_rights(*src);
	if (!*rights)
		return MDB_ERR_RIGHTS;
	*rights |= MDB_R;               /* a present x86 page is readable; src has R */
	if (!dst)
		return MDB_OK;          /* the caller knows nothing is there */
	*dst = find(m, to, tva);
	if (*dst && derives_from(*src, *dst))
		return MDB_ERR_CYCLE;
	return MDB_OK;
}

/* --- operations --- */

bool mdb_init(struct mdb *m, const struct mdb_ops *ops, struct mdb_node **buckets,
	      word_t nbuckets)
{
	if (!nbuckets || (nbuckets & (nbuckets - 1)))
		return false;
	*m = (struct mdb){ .ops = *ops, .buckets = buckets, .nbuckets = nbuckets };
	for (word_t i = 0; i < nbuckets; i++)
		buckets[i] = NULL;
	return true;
}

enum mdb_err mdb_insert_root(struct mdb *m, const void *space, word_t vaddr,
			     paddr_t paddr, unsigned rights)
{
	if (!place_ok(space, vaddr) || (paddr & PAGE_OFFSET) || !rights_ok(rights) ||
	    !(rights & MDB_R))
		return MDB_ERR_ARG;
	if (find(m, space, vaddr))
		return MDB_ERR_EXISTS;
	struct mdb_node *n = node_new(m, space, vaddr, paddr, rights);
	if (!n)
		return MDB_ERR_NOMEM;
	index_add(m, n);
	return MDB_OK;
}

struct mdb_node *mdb_source(const struct mdb *m, const void *from, word_t fva, const void *to,
			    word_t tva, unsigned *rights, paddr_t *paddr)
{
	if (!place_ok(from, fva) || !place_ok(to, tva) || !rights_ok(*rights) ||
	    (from == to && fva == tva))
		return NULL;
	struct mdb_node *src = find(m, from, fva);
	if (!src || !(*rights &= node_rights(src)))
		return NULL;
	*rights |= MDB_R;
	*paddr = src->paddr;
	return src;
}

/* A new leaf n under src at (to, tva), which has no mapping. */
static void add_child(struct mdb *m, struct mdb_node *src, struct mdb_node *n, const void *to,
		      word_t tva, unsigned rights)
{
	n->space = to;
	n->va_rights = tva | rights;
	n->paddr = src->paddr;
	n->child = NULL;
	space_add(n);
	m->count++;
	link_child(src, n);
	index_add(m, n);
}

void mdb_add_child(struct mdb *m, struct mdb_node *src, void *node, const void *to, word_t tva,
		   unsigned rights)
{
	add_child(m, src, node, to, tva, rights);
}

/* mdb_map_known's case `empty`: a new leaf under the source, nothing to replace. */
static enum mdb_err map_empty(struct mdb *m, const void *from, word_t fva, const void *to,
			      word_t tva, unsigned rights, paddr_t *paddr, unsigned *got)
{
	if (!place_ok(from, fva) || !place_ok(to, tva) || !rights_ok(rights))
		return MDB_ERR_ARG;
	struct mdb_node *src = find(m, from, fva);
	if (!src)
		return MDB_ERR_NOT_MAPPED;
	if (from == to && fva == tva)
		return MDB_ERR_SELF;
	rights &= node_rights(src);
	if (!rights)
		return MDB_ERR_RIGHTS;
	rights |= MDB_R;
	struct mdb_node *n = m->ops.alloc(m->ops.ctx, to);
	if (!n)
		return MDB_ERR_NOMEM;
	add_child(m, src, n, to, tva, rights);
	*paddr = src->paddr;
	*got = rights;
	return MDB_OK;
}

enum mdb_err mdb_map_known(struct mdb *m, const void *from, word_t fva, const void *to,
			   word_t tva, unsigned rights, bool empty, paddr_t *paddr, unsigned *got)
{
	paddr_t pa_ignored;
	unsigned got_ignored;
	if (empty)
		return map_empty(m, from, fva, to, tva, rights, paddr ? paddr : &pa_ignored,
				 got ? got : &got_ignored);
	struct mdb_node *src, *dst = NULL;
	enum mdb_err e = decode_move(m, from, fva, to, tva, &rights, &src, empty ? NULL : &dst);
	if (e)
		return e;
	if (paddr)
		*paddr = src->paddr;
	if (!empty && dst && dst->parent == src) {   /* same frame from the same source: upgrade */
		set_rights(dst, node_rights(dst) | rights);
		if (got)
			*got = node_rights(dst);
		return MDB_OK;
	}
	struct mdb_node *n = node_new(m, to, tva, src->paddr, rights);
	if (!n)
		return MDB_ERR_NOMEM;
	if (!empty && dst)
		remove_subtree(m, dst);         /* cannot reach src: dst is no ancestor */
	link_child(src, n);
	index_add(m, n);
	if (got)
		*got = rights;
	return MDB_OK;
}

enum mdb_err mdb_map(struct mdb *m, const void *from, word_t fva,
		     const void *to, word_t tva, unsigned rights)
{
	return mdb_map_known(m, from, fva, to, tva, rights, false, NULL, NULL);
}

enum mdb_err mdb_grant(struct mdb *m, const void *from, word_t fva,
		       const void *to, word_t tva, unsigned rights)
{
	struct mdb_node *src, *dst;
	enum mdb_err e = decode_move(m, from, fva, to, tva, &rights, &src, &dst);
	if (e)
		return e;
	if (dst)
		remove_subtree(m, dst);
	if (node_rights(src) & ~rights)         /* else the walk would change nothing */
		revoke_below(m, src, node_rights(src) & ~rights, false);
	index_del(m, src);
	space_del(src);
	src->space = to;
	src->va_rights = tva | rights;
	index_add(m, src);
	space_add(src);
	return MDB_OK;
}

/* mdb_unmap's work; adds the status collected to *status. */
static enum mdb_err unmap(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
			  bool flush, unsigned *status, word_t *budget)
{
	if (!place_ok(space, vaddr) || !rights_ok(rights))
		return MDB_ERR_ARG;
	struct mdb_node *n = find(m, space, vaddr);
	if (!n)
		return MDB_ERR_NOT_MAPPED;
	if (!revoke_below_some(m, n, rights, true, status, budget))
		return MDB_AGAIN;
	unsigned left = flush ? reduce(node_rights(n), rights) : node_rights(n);
	if (!left) {
		*status |= remove_subtree(m, n);    /* a leaf now: R was revoked, the children went above */
		return MDB_OK;
	}
	*status |= update(m, n, left);
	set_rights(n, left);
	return MDB_OK;
}

enum mdb_err mdb_unmap_own(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
			   bool flush, unsigned *status, word_t budget, unsigned *left)
{
	if (!place_ok(space, vaddr) || !rights_ok(rights))
		return MDB_ERR_ARG;
	struct mdb_node *n = find(m, space, vaddr);
	if (!n)
		return MDB_ERR_NOT_MAPPED;
	struct mdb_node *c = n->child;
	if (c && !c->child && !c->next && !reduce(node_rights(c), rights)) {
		*status |= update(m, c, 0);     /* one derived mapping, and it goes: no walk */
		n->child = NULL;
		c->parent = NULL;
		drop_leaf(m, c);
	} else if (c && !revoke_below_some(m, n, rights, true, status, budget ? &budget : NULL)) {
		return MDB_AGAIN;
	}
	*left = flush ? reduce(node_rights(n), rights) : node_rights(n);
	if (!*left)
		drop_leaf(m, n);        /* R was revoked, so its children went above */
	else if (*left != node_rights(n))
		set_rights(n, *left);
	return MDB_OK;
}

enum mdb_err mdb_unmap(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
		       bool flush, unsigned *status)
{
	unsigned st = 0;
	enum mdb_err e = unmap(m, space, vaddr, rights, flush, &st, NULL);
	if (status)
		*status = st;
	return e;
}

enum mdb_err mdb_unmap_some(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
			    bool flush, unsigned *status, word_t budget)
{
	unsigned st = 0;
	enum mdb_err e = unmap(m, space, vaddr, rights, flush, &st, budget ? &budget : NULL);
	if (status)
		*status |= st;
	return e;
}

bool mdb_lookup(const struct mdb *m, const void *space, word_t vaddr, paddr_t *paddr,
		unsigned *rights)
{
	const struct mdb_node *n = find(m, space, vaddr & PAGE_MASK);
	if (!n)
		return false;
	if (paddr)
		*paddr = n->paddr;
	if (rights)
		*rights = node_rights(n);
	return true;
}

/*
 * The space's first node goes with everything derived from it, until none
 * is left; a removal may free nodes of the space anywhere in its list, so
 * each step starts at its head again.
 */
bool mdb_remove_space_some(struct mdb *m, const void *space, word_t budget)
{
	unsigned status = 0;
	for (struct mdb_node *n; (n = *space_list(space));)
		if (!remove_subtree_some(m, n, &status, budget ? &budget : NULL) ||
		    (budget && !--budget))
			return !*space_list(space);
	return true;
}

word_t mdb_remove_space(struct mdb *m, const void *space)
{
	word_t before = m->count;
	mdb_remove_space_some(m, space, 0);
	return before - m->count;
}

word_t mdb_count(const struct mdb *m) { return m->count; }

const char *mdb_each(const struct mdb *m,
		     const char *(*fn)(void *ctx, const void *space, word_t vaddr, paddr_t paddr,
				       unsigned rights),
		     void *ctx)
{
	for (word_t b = 0; b < m->nbuckets; b++)
		for (const struct mdb_node *n = m->buckets[b]; n; n = n->hnext) {
			const char *why = fn(ctx, n->space, node_va(n), n->paddr, node_rights(n));
			if (why)
				return why;
		}
	return NULL;
}

/* --- consistency check --- */

/* The links around n that n itself vouches for; NULL if they agree. */
static const char *check_links(const struct mdb *m, const struct mdb_node *n)
{
	const struct mdb_node *p = n->parent;
	if (n->prev && (n->prev->next != n || n->prev->parent != p))
		return "mdb: sibling links disagree";
	if (n->next && (n->next->prev != n || n->next->parent != p))
		return "mdb: sibling links disagree";
	if (!n->prev && (p ? p->child != n : n->next != NULL))
		return "mdb: first child not its parent's child";
	if (n->child && (n->child->parent != n || n->child->prev))
		return "mdb: child's parent link wrong";
	if (p && find(m, p->space, node_va(p)) != p)
		return "mdb: parent not in the index";
	if (n->snext && (n->snext->sprev != n || n->snext->space != n->space))
		return "mdb: space list links disagree";
	if (n->sprev ? n->sprev->snext != n : *space_list(n->space) != n)
		return "mdb: node missing from its space's list";
	return NULL;
}

/* n's own fields, its place in the index, its rights against its parent. */
static const char *check_node(const struct mdb *m, const struct mdb_node *n, word_t b)
{
	unsigned r = node_rights(n);
	if (!n->space || bucket_of(m, n->space, node_va(n)) != b)
		return "mdb: node in the wrong bucket";
	if (find(m, n->space, node_va(n)) != n)
		return "mdb: two nodes for one place";
	if (!(r & MDB_R) || !rights_ok(r) || (n->paddr & PAGE_OFFSET))
		return "mdb: bad rights or unaligned physical address";
	if (n->parent && (r & ~node_rights(n->parent)))
		return "mdb: child has a right its parent lacks";
	if (n->parent && n->paddr != n->parent->paddr)
		return "mdb: child maps another frame than its parent";
	return check_links(m, n);
}

/* True if n's parent chain ends within `limit` steps (no cycle). */
static bool reaches_root(const struct mdb_node *n, word_t limit)
{
	for (word_t i = 0; n; n = n->parent, i++)
		if (i > limit)
			return false;
	return true;
}

const char *mdb_check(const struct mdb *m)
{
	word_t seen = 0;
	for (word_t b = 0; b < m->nbuckets; b++) {
		for (const struct mdb_node *n = m->buckets[b]; n; n = n->hnext) {
			if (++seen > m->count)
				return "mdb: more nodes in the index than allocated";
			const char *why = check_node(m, n, b);
			if (why)
				return why;
			if (!reaches_root(n, m->count))
				return "mdb: cycle in the parent links";
		}
	}
	return seen == m->count ? NULL : "mdb: fewer nodes in the index than allocated";
}
