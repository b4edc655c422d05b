/* SPDX-License-Identifier: MIT */
/*
 * A B+-tree from 64-bit keys to pointers: the index of the Mungi object
 * table (seed 002, "Object table").  Pure: nodes come from the caller's
 * allocator, so the host tests run it against a reference model.
 */
#ifndef MUNGI_BTREE_H
#define MUNGI_BTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BT_MAX 32                       /* keys per node */
#define BT_MIN (BT_MAX / 2)             /* keys per node but the root, at least */

struct bt_node {
	uint16_t n;
	bool leaf;
	uint64_t key[BT_MAX];
	union {
		void *val[BT_MAX];              /* leaves */
		struct bt_node *child[BT_MAX + 1];
	};
	struct bt_node *prev, *next;        /* leaves, in key order */
};

struct btree {
	struct bt_node *root;               /* NULL while empty */
	unsigned height;                    /* 1: the root is a leaf */
	uint64_t count;
	/* every node comes from alloc (NULL: out of memory) and goes back to release */
	struct bt_node *(*alloc)(void *ctx);
	void (*release)(void *ctx, struct bt_node *n);
	void *ctx;
};

/* An empty tree whose nodes come from alloc and go back to release. */
void bt_init(struct btree *t, struct bt_node *(*alloc)(void *), void (*release)(void *, struct bt_node *),
	     void *ctx);
/* 0, or -1 when key is there already or no node could be had (the tree is unchanged). */
int bt_insert(struct btree *t, uint64_t key, void *val);
/* The value removed, or NULL when key was not there. */
void *bt_remove(struct btree *t, uint64_t key);
void *bt_find(const struct btree *t, uint64_t key);
/* Give an existing key a new value (no node is needed); false when key is not there. */
bool bt_replace(struct btree *t, uint64_t key, void *val);
/* The entry with the greatest key <= key: true with *found and *val set, or false. */
bool bt_floor(const struct btree *t, uint64_t key, uint64_t *found, void **val);
/* The entry with the least key >= key. */
bool bt_ceil(const struct btree *t, uint64_t key, uint64_t *found, void **val);
/* Every node back to the allocator; the tree is empty after. */
void bt_clear(struct btree *t);
/* Structural check (sorted keys, fill, equal depth, separators, leaf links): NULL or what is wrong. */
const char *bt_check(const struct btree *t);

#endif
