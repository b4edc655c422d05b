/* SPDX-License-Identifier: MIT */
/* The mapping database: which 4 KiB mapping derives from which (pure, host-tested). */
#ifndef PECAN_MDB_H
#define PECAN_MDB_H

#include "types.h"

/*
 * Every mapping (space, vaddr) -> (paddr, rights) is a node of a derivation
 * tree. Roots are sigma0's mappings of physical memory (mdb_insert_root);
 * mdb_map adds a child, mdb_grant moves a node to another place keeping its
 * parent and children, mdb_unmap revokes rights from a node's descendants.
 *
 * Invariants (mdb_check verifies them):
 *   - (space, vaddr) names at most one node; every node is in the index;
 *   - a node has the R right (on x86 a present page is readable, so a
 *     mapping that loses R is gone) and no right its parent lacks;
 *   - a node maps the same physical page as its parent;
 *   - parent and child links agree, and the trees have no cycles.
 *
 * Costs (n: nodes in one hash chain, about count/nbuckets; d: depth of a
 * node in its tree; s: nodes in the subtree an operation removes or revokes):
 *   lookup, insert_root       O(n)
 *   map, grant                O(n + d), plus s for a mapping they replace
 *   unmap, unmap_own          O(n + s·n)   (each removed node leaves its chain)
 *   remove_space              O(removed·n)
 *   check                     O(count · (n + d)), debugging only
 * No operation recurses: derivation depth is chosen by user code.
 */

/* Rights, as in an L4 fpage. */
#define MDB_R 4u
#define MDB_W 2u
#define MDB_X 1u
#define MDB_RWX 7u

enum mdb_err {
	MDB_OK = 0,
	MDB_ERR_ARG,            /* address not page aligned, rights beyond rwx, NULL space */
	MDB_ERR_NOT_MAPPED,     /* the source (or the page to unmap) has no mapping */
	MDB_ERR_EXISTS,         /* insert_root: the place is already mapped */
	MDB_ERR_RIGHTS,         /* map/grant: no right left after intersecting with the source's */
	MDB_ERR_SELF,           /* map/grant onto the source's own place */
	MDB_ERR_CYCLE,          /* map/grant onto a mapping the source derives from */
	MDB_ERR_NOMEM,          /* ops.alloc returned NULL */
	MDB_AGAIN,              /* mdb_unmap_some: stopped at its budget; call again */
};

/*
 * One mapping; fields are private to mdb.c. 80 bytes, so a 4 KiB frame
 * holds 51 nodes. The low 12 bits of va_rights hold the rights.
 */
struct mdb_node {
	const void *space;
	word_t va_rights;
	paddr_t paddr;
	struct mdb_node *parent, *child;        /* child: first of a list */
	struct mdb_node *prev, *next;           /* siblings */
	struct mdb_node *hnext;                 /* index chain */
	struct mdb_node *snext, *sprev;         /* the space's nodes */
};

/*
 * A space, as the mdb sees it.  The objects the user passes as spaces
 * (const void *) must begin with one of these (the kernel's struct space
 * does): the mdb keeps each space's nodes on a list there, so that removing
 * a space costs what the space holds, not what the database holds.  Zero it
 * before the space gets its first mapping.
 */
struct mdb_space {
	struct mdb_node *nodes;
};

/*
 * What the module needs from its user. None of these may call into the mdb.
 *   alloc: one node of sizeof(struct mdb_node) bytes, 8-byte aligned, or
 *     NULL; space is the place it will be in, so the user can charge it.
 *   free: gives back a node alloc handed out.
 *   update: the mapping (space, vaddr) goes from old_rights to new_rights
 *     (0: it is gone); the user changes its page table to match and returns
 *     the accessed status the page table holds for it (MDB_R referenced,
 *     MDB_W written, MDB_X executed), resetting that status. Called for
 *     every mapping an operation changes as a side effect (revocation,
 *     replacement, space deletion) and, by unmap, also with old == new for
 *     visited mappings whose rights stay, just to collect their status.
 *     The mapping an operation itself creates, upgrades or moves is the
 *     caller's to write (it has the result in hand).
 */
struct mdb_ops {
	void *(*alloc)(void *ctx, const void *space);
	void (*free)(void *ctx, void *node);
	unsigned (*update)(void *ctx, const void *space, word_t vaddr,
			   unsigned old_rights, unsigned new_rights);
	void *ctx;
};

struct mdb {
	struct mdb_ops ops;
	struct mdb_node **buckets;
	word_t nbuckets;        /* a power of two */
	word_t count;           /* nodes allocated and not yet freed */
};

/* False (and nothing set up) unless nbuckets is a power of two. Clears buckets. */
bool mdb_init(struct mdb *m, const struct mdb_ops *ops, struct mdb_node **buckets,
	      word_t nbuckets);

/* A root mapping (no parent): sigma0's memory. rights must include R. */
enum mdb_err mdb_insert_root(struct mdb *m, const void *space, word_t vaddr,
			     paddr_t paddr, unsigned rights);

/*
 * mdb_map for a caller that knows more: with `empty`, (to, tva) is known to
 * have no mapping (the kernel's page table has no entry there), so it is not
 * looked up.  On success *paddr and *got (may be NULL) get the frame and the
 * rights (to, tva) now has.
 */
enum mdb_err mdb_map_known(struct mdb *m, const void *from, word_t fva, const void *to,
			   word_t tva, unsigned rights, bool empty, paddr_t *paddr, unsigned *got);

/*
 * mdb_map_known with `empty` in two halves, for a caller that maps a run of
 * pages and writes its page tables in between (nothing else may change the
 * mdb between the two).  mdb_source: the node of (from, fva) and the frame
 * and rights (∩ the source's, plus R) a child of it at (to, tva) gets, or
 * NULL with nothing changed where mdb_map_known would fail (no source, no
 * right left, the source's own place).  mdb_add_child: node, from ops.alloc
 * for `to`, becomes that child; (to, tva) must have no mapping.
 */
struct mdb_node *mdb_source(const struct mdb *m, const void *from, word_t fva, const void *to,
			    word_t tva, unsigned *rights, paddr_t *paddr);
void mdb_add_child(struct mdb *m, struct mdb_node *src, void *node, const void *to, word_t tva,
		   unsigned rights);

/*
 * Map (from, fva) to (to, tva) with rights ∩ the source's, plus R.
 * If (to, tva) is already mapped:
 *   - a direct child of the source (so the same page): its rights grow by
 *     the new ones and nothing else changes (L4 X.2: mapping over an
 *     existing mapping of the same frame only upgrades);
 *   - the source or one of its ancestors: MDB_ERR_SELF or MDB_ERR_CYCLE,
 *     since replacing it would revoke the source itself;
 *   - anything else: it and everything derived from it are unmapped
 *     (update with new_rights 0, status discarded), then the new child is
 *     inserted. This includes a deeper descendant of the source: upgrading
 *     it in place could give it rights its own parent lacks.
 * Allocates at most one node, before changing anything: on MDB_ERR_NOMEM
 * (and on any error) nothing has changed and update was not called.
 */
enum mdb_err mdb_map(struct mdb *m, const void *from, word_t fva,
		     const void *to, word_t tva, unsigned rights);

/*
 * Move the mapping (from, fva) to (to, tva), its rights cut to rights ∩ its
 * own, plus R; it keeps its parent and its children, and rights the node
 * lost are revoked from its descendants (update called for those whose
 * rights change; their status is discarded). Whatever (to, tva)
 * held is unmapped with its subtree as in mdb_map, unless it is the source
 * or an ancestor (MDB_ERR_SELF, MDB_ERR_CYCLE). Never allocates; on an
 * error nothing has changed. The caller clears its page-table entry for
 * (from, fva) and writes the one for (to, tva).
 */
enum mdb_err mdb_grant(struct mdb *m, const void *from, word_t fva,
		       const void *to, word_t tva, unsigned rights);

/*
 * Revoke rights from every mapping derived from (space, vaddr), and, with
 * flush, from that mapping too. A mapping left without R is removed with
 * its whole subtree. *status (may be NULL) gets the OR of the accessed
 * status of the mapping and all its descendants that update reported
 * (rights 0 is a pure status query). MDB_ERR_NOT_MAPPED (status 0) if
 * the place has no mapping.
 */
enum mdb_err mdb_unmap(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
		       bool flush, unsigned *status);

/*
 * mdb_unmap in steps: it stops with MDB_AGAIN once it has removed about
 * `budget` nodes (0: no limit), leaving the database consistent; calling
 * it again with the same arguments goes on (the removed nodes are simply
 * gone).  The status collected is ORed into *status (may be NULL; not reset), so the
 * caller accumulates it over the steps.  Only removals count against the
 * budget: a revocation that keeps nodes (no R revoked) walks them all.
 */
enum mdb_err mdb_unmap_some(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
			    bool flush, unsigned *status, word_t budget);

/*
 * mdb_unmap_some (budget: a count of removals, 0: no limit) for a caller
 * that walks its own page table and writes the entry of (space, vaddr)
 * itself, as map and grant leave the mapping they make to the caller:
 * the mappings derived from it are revoked (and their status ORed into
 * *status) exactly as by mdb_unmap, but update is not called for the
 * mapping itself.  On MDB_OK *left holds the rights it has now (0: it is
 * gone); the caller sets its entry to them and adds the entry's status.
 */
enum mdb_err mdb_unmap_own(struct mdb *m, const void *space, word_t vaddr, unsigned rights,
			   bool flush, unsigned *status, word_t budget, unsigned *left);

/* True if the page holding (space, vaddr) is mapped (any vaddr in it, as a fault
 * address); *paddr and *rights (either may be NULL) say how. */
bool mdb_lookup(const struct mdb *m, const void *space, word_t vaddr, paddr_t *paddr,
		unsigned *rights);

/*
 * A space is deleted: every mapping it holds goes, and with it everything
 * derived from it in any space (as if the space had flushed its whole
 * address space; L4 revokes what a dead space mapped onward). Its own
 * mappings' parents are untouched. Returns the number of nodes removed.
 */
word_t mdb_remove_space(struct mdb *m, const void *space);

/*
 * mdb_remove_space in steps of about `budget` nodes removed (0: no limit):
 * false if it stopped early; call again until true.  The space must not
 * get new mappings in between.
 */
bool mdb_remove_space_some(struct mdb *m, const void *space, word_t budget);

/* Number of mappings (nodes) in the database. */
word_t mdb_count(const struct mdb *m);

/*
 * Call fn for every mapping, in no particular order, until it returns
 * non-NULL; returns that (NULL if fn never did).  fn may not change the mdb.
 */
const char *mdb_each(const struct mdb *m,
		     const char *(*fn)(void *ctx, const void *space, word_t vaddr, paddr_t paddr,
				       unsigned rights),
		     void *ctx);

/* Debug walk of every invariant above; NULL if consistent, else what is wrong. */
const char *mdb_check(const struct mdb *m);

#endif
