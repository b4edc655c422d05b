// SPDX-License-Identifier: MIT
// The object table's B+-tree: separators route to the child whose keys are
// >= them, leaves hold the values and are linked both ways, so floor and
// ceiling lookups never need a second descent.
#include "btree.h"

#define BT_MAX_HEIGHT 20                /* fan-out >= BT_MIN + 1 makes 2^64 keys fit in 16 */

void bt_init(struct btree *t, struct bt_node *(*alloc)(void *), void (*release)(void *, struct bt_node *),
	     void *ctx)
{
	t->root = NULL;
	t->height = 0;
	t->count = 0;
	t->alloc = alloc;
	t->release = release;
	t->ctx = ctx;
}

/* The first index whose key is > key. */
static unsigned upper(const struct bt_node *n, uint64_t key)
{
	unsigned lo = 0, hi = n->n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (n->key[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first index whose key is >= key. */
static unsigned lower(const struct bt_node *n, uint64_t key)
{
	unsigned lo = 0, hi = n->n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (n->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct bt_node *leaf_for(const struct btree *t, uint64_t key)
{
	struct bt_node *n = t->root;
	while (n && !n->leaf)
		n = n->child[upper(n, key)];
	return n;
}

void *bt_find(const struct btree *t, uint64_t key)
{
	struct bt_node *n = leaf_for(t, key);
	if (!n)
		return NULL;
	unsigned i = lower(n, key);
	return i < n->n && n->key[i] == key ? n->val[i] : NULL;
}

bool bt_replace(struct btree *t, uint64_t key, void *val)
{
	struct bt_node *n = leaf_for(t, key);
	if (!n)
		return false;
	unsigned i = lower(n, key);
	if (i == n->n || n->key[i] != key)
		return false;
	n->val[i] = val;
	return true;
}

bool bt_floor(const struct btree *t, uint64_t key, uint64_t *found, void **val)
{
	struct bt_node *n = leaf_for(t, key);
	if (!n)
		return false;
	unsigned i = upper(n, key);
	if (i == 0) {
		/* everything left of this leaf is below the separator we passed, so <= key */
		n = n->prev;
		if (!n)
			return false;
		i = n->n;
	}
	*found = n->key[i - 1];
	*val = n->val[i - 1];
	return true;
}

bool bt_ceil(const struct btree *t, uint64_t key, uint64_t *found, void **val)
{
	struct bt_node *n = leaf_for(t, key);
	if (!n)
		return false;
	unsigned i = lower(n, key);
	if (i == n->n) {
		n = n->next;
		if (!n)
			return false;
		i = 0;
	}
	*found = n->key[i];
	*val = n->val[i];
	return true;
}

/* --- insertion --- */

struct spares {
	struct bt_node *node[BT_MAX_HEIGHT + 1];
	unsigned n;
};

static struct bt_node *spare(struct spares *s, bool leaf)
{
	struct bt_node *n = s->node[--s->n];
	n->n = 0;
	n->leaf = leaf;
	n->prev = n->next = NULL;
	return n;
}

/* Put (key, val) at index i of a leaf with room. */
static void leaf_put(struct bt_node *n, unsigned i, uint64_t key, void *val)
{
	for (unsigned j = n->n; j > i; j--) {
		n->key[j] = n->key[j - 1];
		n->val[j] = n->val[j - 1];
	}
	n->key[i] = key;
	n->val[i] = val;
	n->n++;
}

/* Put separator key and its right child at index i of an internal node with room. */
static void node_put(struct bt_node *n, unsigned i, uint64_t key, struct bt_node *right)
{
	for (unsigned j = n->n; j > i; j--) {
		n->key[j] = n->key[j - 1];
		n->child[j + 1] = n->child[j];
	}
	n->key[i] = key;
	n->child[i + 1] = right;
	n->n++;
}

/* A full leaf gains (key, val) at i: its upper half moves to a new right leaf. */
static struct bt_node *leaf_split(struct bt_node *n, unsigned i, uint64_t key, void *val, struct spares *s)
{
	struct bt_node *r = spare(s, true);
	unsigned keep = (BT_MAX + 1) / 2;
	if (i < keep) {
		/* the new entry stays left: one more moves right */
		for (unsigned j = keep - 1; j < BT_MAX; j++) {
			r->key[r->n] = n->key[j];
			r->val[r->n++] = n->val[j];
		}
		n->n = keep - 1;
		leaf_put(n, i, key, val);
	} else {
		for (unsigned j = keep; j < BT_MAX; j++) {
			r->key[r->n] = n->key[j];
			r->val[r->n++] = n->val[j];
		}
		n->n = keep;
		leaf_put(r, i - keep, key, val);
	}
	r->next = n->next;
	r->prev = n;
	if (n->next)
		n->next->prev = r;
	n->next = r;
	return r;
}

/* A full internal node gains (key, right) at i: returns the new right node, *sep the key moving up. */
static struct bt_node *node_split(struct bt_node *n, unsigned i, uint64_t key, struct bt_node *right,
				  struct spares *s, uint64_t *sep)
{
	uint64_t k[BT_MAX + 1];
	struct bt_node *c[BT_MAX + 2];
	unsigned m = 0;
	c[0] = n->child[0];
	for (unsigned j = 0; j < BT_MAX; j++) {
		if (j == i) {
			k[m] = key;
			c[++m] = right;
		}
		k[m] = n->key[j];
		c[++m] = n->child[j + 1];
	}
	if (i == BT_MAX) {
		k[m] = key;
		c[++m] = right;
	}
	unsigned mid = (BT_MAX + 1) / 2;
	struct bt_node *r = spare(s, false);
	n->n = (uint16_t)mid;
	for (unsigned j = 0; j < mid; j++) {
		n->key[j] = k[j];
		n->child[j] = c[j];
	}
	n->child[mid] = c[mid];
	*sep = k[mid];
	for (unsigned j = mid + 1; j <= BT_MAX; j++) {
		r->key[r->n] = k[j];
		r->child[r->n++] = c[j];
	}
	r->child[r->n] = c[BT_MAX + 1];
	return r;
}

/* Insert below n; a split hands its new right node (and separator) up. */
static struct bt_node *ins(struct bt_node *n, uint64_t key, void *val, struct spares *s, uint64_t *sep)
{
	if (n->leaf) {
		unsigned i = lower(n, key);
		if (n->n < BT_MAX) {
			leaf_put(n, i, key, val);
			return NULL;
		}
		struct bt_node *r = leaf_split(n, i, key, val, s);
		*sep = r->key[0];
		return r;
	}
	unsigned i = upper(n, key);
	uint64_t csep;
	struct bt_node *cr = ins(n->child[i], key, val, s, &csep);
	if (!cr)
		return NULL;
	if (n->n < BT_MAX) {
		node_put(n, i, csep, cr);
		return NULL;
	}
	return node_split(n, i, csep, cr, s, sep);
}

int bt_insert(struct btree *t, uint64_t key, void *val)
{
	if (bt_find(t, key))
		return -1;
	/* every node a split might need is had first, so a failure changes nothing */
	struct spares s = { .n = 0 };
	while (s.n < t->height + 1) {
		struct bt_node *n = t->alloc(t->ctx);
		if (!n) {
			while (s.n)
				t->release(t->ctx, s.node[--s.n]);
			return -1;
		}
		s.node[s.n++] = n;
	}
	if (!t->root) {
		t->root = spare(&s, true);
		t->height = 1;
	}
	uint64_t sep;
	struct bt_node *r = ins(t->root, key, val, &s, &sep);
	if (r) {
		struct bt_node *root = spare(&s, false);
		root->n = 1;
		root->key[0] = sep;
		root->child[0] = t->root;
		root->child[1] = r;
		t->root = root;
		t->height++;
	}
	while (s.n)
		t->release(t->ctx, s.node[--s.n]);
	t->count++;
	return 0;
}

/* --- removal --- */

static void leaf_take(struct bt_node *n, unsigned i)
{
	for (unsigned j = i; j + 1 < n->n; j++) {
		n->key[j] = n->key[j + 1];
		n->val[j] = n->val[j + 1];
	}
	n->n--;
}

/* Key i and child i + 1 leave internal node n. */
static void node_take(struct bt_node *n, unsigned i)
{
	for (unsigned j = i; j + 1 < n->n; j++) {
		n->key[j] = n->key[j + 1];
		n->child[j + 1] = n->child[j + 2];
	}
	n->n--;
}

static void borrow_left(struct bt_node *p, unsigned i)
{
	struct bt_node *c = p->child[i], *l = p->child[i - 1];
	if (c->leaf) {
		leaf_put(c, 0, l->key[l->n - 1], l->val[l->n - 1]);
		l->n--;
		p->key[i - 1] = c->key[0];
		return;
	}
	for (unsigned j = c->n; j > 0; j--) {
		c->key[j] = c->key[j - 1];
		c->child[j + 1] = c->child[j];
	}
	c->child[1] = c->child[0];
	c->key[0] = p->key[i - 1];
	c->child[0] = l->child[l->n];
	c->n++;
	p->key[i - 1] = l->key[l->n - 1];
	l->n--;
}

static void borrow_right(struct bt_node *p, unsigned i)
{
	struct bt_node *c = p->child[i], *r = p->child[i + 1];
	if (c->leaf) {
		c->key[c->n] = r->key[0];
		c->val[c->n++] = r->val[0];
		leaf_take(r, 0);
		p->key[i] = r->key[0];
		return;
	}
	c->key[c->n] = p->key[i];
	c->child[c->n + 1] = r->child[0];
	c->n++;
	p->key[i] = r->key[0];
	r->child[0] = r->child[1];
	node_take(r, 0);
}

/* Children j and j + 1 of p become one. */
static void merge(struct btree *t, struct bt_node *p, unsigned j)
{
	struct bt_node *l = p->child[j], *r = p->child[j + 1];
	if (l->leaf) {
		for (unsigned k = 0; k < r->n; k++) {
			l->key[l->n] = r->key[k];
			l->val[l->n++] = r->val[k];
		}
		l->next = r->next;
		if (r->next)
			r->next->prev = l;
	} else {
		l->key[l->n] = p->key[j];
		l->child[l->n + 1] = r->child[0];
		l->n++;
		for (unsigned k = 0; k < r->n; k++) {
			l->key[l->n] = r->key[k];
			l->child[l->n + 1] = r->child[k + 1];
			l->n++;
		}
	}
	node_take(p, j);
	t->release(t->ctx, r);
}

/* Child i of p has fallen below BT_MIN: borrow from a sibling or merge with one. */
static void refill(struct btree *t, struct bt_node *p, unsigned i)
{
	if (i > 0 && p->child[i - 1]->n > BT_MIN)
		borrow_left(p, i);
	else if (i < p->n && p->child[i + 1]->n > BT_MIN)
		borrow_right(p, i);
	else if (i > 0)
		merge(t, p, i - 1);
	else
		merge(t, p, i);
}

static void *del(struct btree *t, struct bt_node *n, uint64_t key)
{
	if (n->leaf) {
		unsigned i = lower(n, key);
		if (i == n->n || n->key[i] != key)
			return NULL;
		void *v = n->val[i];
		leaf_take(n, i);
		return v;
	}
	unsigned i = upper(n, key);
	void *v = del(t, n->child[i], key);
	if (v && n->child[i]->n < BT_MIN)
		refill(t, n, i);
	return v;
}

void *bt_remove(struct btree *t, uint64_t key)
{
	if (!t->root)
		return NULL;
	void *v = del(t, t->root, key);
	if (!v)
		return NULL;
	t->count--;
	struct bt_node *r = t->root;
	if (!r->leaf && r->n == 0) {
		t->root = r->child[0];
		t->height--;
		t->release(t->ctx, r);
	} else if (r->leaf && r->n == 0) {
		t->root = NULL;
		t->height = 0;
		t->release(t->ctx, r);
	}
	return v;
}

static void clear(struct btree *t, struct bt_node *n)
{
	if (!n->leaf)
		for (unsigned i = 0; i <= n->n; i++)
			clear(t, n->child[i]);
	t->release(t->ctx, n);
}

void bt_clear(struct btree *t)
{
	if (t->root)
		clear(t, t->root);
	t->root = NULL;
	t->height = 0;
	t->count = 0;
}

/* --- checking --- */

struct walk {
	const struct bt_node *last_leaf;
	uint64_t entries;
	const char *err;
};

/* Keys of the subtree at n lie in [lo, hi) (has_lo/has_hi: bounded). */
static void check(const struct bt_node *n, unsigned depth, unsigned height, bool is_root, bool has_lo,
		  uint64_t lo, bool has_hi, uint64_t hi, struct walk *w)
{
	if (w->err)
		return;
	if (n->n > BT_MAX || (!is_root && n->n < BT_MIN) || (is_root && !n->leaf && n->n < 1)) {
		w->err = "node fill out of bounds";
		return;
	}
	for (unsigned i = 0; i < n->n; i++) {
		if ((i && n->key[i - 1] >= n->key[i]) || (has_lo && n->key[i] < lo) || (has_hi && n->key[i] >= hi)) {
			w->err = "keys out of order or outside the separators";
			return;
		}
	}
	if (n->leaf) {
		if (depth != height)
			w->err = "leaves at different depths";
		else if (n->prev != w->last_leaf || (w->last_leaf && w->last_leaf->next != n))
			w->err = "leaf links broken";
		w->last_leaf = n;
		w->entries += n->n;
		return;
	}
	for (unsigned i = 0; i <= n->n; i++)
		check(n->child[i], depth + 1, height, false, i ? true : has_lo, i ? n->key[i - 1] : lo,
		      i < n->n ? true : has_hi, i < n->n ? n->key[i] : hi, w);
}

const char *bt_check(const struct btree *t)
{
	if (!t->root)
		return t->count || t->height ? "empty tree with a count or height" : NULL;
	struct walk w = { NULL, 0, NULL };
	check(t->root, 1, t->height, true, false, 0, false, 0, &w);
	if (!w.err && w.last_leaf && w.last_leaf->next)
		w.err = "the last leaf has a successor";
	if (!w.err && w.entries != t->count)
		w.err = "count differs from the entries";
	return w.err;
}
