/* SPDX-License-Identifier: MIT */
/*
 * The object table (seed 002, "Object table"): one descriptor per object,
 * indexed by base address in a B+-tree, holding the object's passwords with
 * their rights (and, for PDX capabilities, entry points and a Clist), its
 * bank account, its pager.  Pure (no L4): the host tests check it and its
 * (de)serialisation into page-store pages.
 */
#ifndef MUNGI_OT_H
#define MUNGI_OT_H

#include "btree.h"
#include "store.h"
#include <mungi/protocol.h>

#define OT_MAX_PASSWORDS 16

/* Object flags. */
#define OT_SURVIVES 0x1         /* off its creator's kill list */
#define OT_ACCOUNT  0x2         /* a bank account: balance and charged_pages mean something */
#define OT_BANK     0x4         /* the bank: its owner may create accounts and read the table */
#define OT_FIXED    0x8         /* placed at a fixed address (the user image) */
#define OT_BOOT     0x10        /* made for one boot (the image's Clists, the boot information): not kept */
#define OT_SYSACCT  0x20        /* the account the first task is given, kept across reboots */

struct ot_pw {
	uint64_t password;
	uint32_t rights;                /* MUNGI_R ... MUNGI_PDX */
	uint32_t nentries;              /* PDX: valid entry points */
	uint64_t entry[MUNGI_MAX_ENTRIES];
	uint64_t clist_base, clist_pw;  /* PDX: the Clist that extends the caller's APD */
	struct ot_pw *next;
};

struct ot_obj {
	uint64_t base, npages;
	uint64_t flags;
	uint64_t gen;                   /* changes whenever a password is revoked */
	uint64_t account;               /* base of the account charged for it (0: the system's) */
	uint64_t pager;                 /* PDX entry of its user-level pager; 0: the default pager */
	uint64_t pager_pw;              /* the PDX password the pager was registered with */
	int64_t balance;                /* accounts */
	uint64_t charged_pages;         /* accounts: pages of the objects charged to it */
	uint64_t creator;               /* task id whose kill list holds it; 0: none */
	unsigned npw;
	struct ot_pw *pw;
};

struct ot {
	struct btree index;             /* base -> struct ot_obj */
	uint64_t objects;
	/* descriptors and password records come from the owner of the table */
	struct ot_obj *(*obj_alloc)(void *ctx);
	void (*obj_free)(void *ctx, struct ot_obj *o);
	struct ot_pw *(*pw_alloc)(void *ctx);
	void (*pw_free)(void *ctx, struct ot_pw *p);
	void *ctx;
};

void ot_init(struct ot *ot, struct bt_node *(*node_alloc)(void *), void (*node_free)(void *, struct bt_node *),
	     struct ot_obj *(*obj_alloc)(void *), void (*obj_free)(void *, struct ot_obj *),
	     struct ot_pw *(*pw_alloc)(void *), void (*pw_free)(void *, struct ot_pw *), void *ctx);
/* The object whose pages contain addr, or NULL. */
struct ot_obj *ot_lookup(const struct ot *ot, uint64_t addr);
/* Enter a descriptor (base and npages set); 0, or -1 if it overlaps one or memory is short. */
int ot_insert(struct ot *ot, struct ot_obj *o);
/* Take the descriptor at base out of the table (its passwords stay with it); NULL if none. */
struct ot_obj *ot_remove(struct ot *ot, uint64_t base);
/* A descriptor taken out goes back to its allocator with its passwords. */
void ot_destroy(struct ot *ot, struct ot_obj *o);
/* The first object at or above addr, or NULL. */
struct ot_obj *ot_next(const struct ot *ot, uint64_t addr);

/* The record of one password of o, or NULL (0 is never a password). */
struct ot_pw *ot_pw_find(const struct ot_obj *o, uint64_t password);
/* The rights a capability (o's base, password) confers: 0 for none. */
uint32_t ot_rights(const struct ot_obj *o, uint64_t password);
/*
 * Register a password with rights (and, for MUNGI_PDX, entries and a
 * Clist); MUNGI_EOK, or MUNGI_EEXIST / MUNGI_EINVAL / MUNGI_ENOMEM.
 */
int ot_pw_add(struct ot *ot, struct ot_obj *o, uint64_t password, uint32_t rights, const uint64_t *entry,
	      unsigned nentries, uint64_t clist_base, uint64_t clist_pw);
/* Revoke a password: MUNGI_EOK (gen changes) or MUNGI_ENOENT. */
int ot_pw_revoke(struct ot *ot, struct ot_obj *o, uint64_t password);

/*
 * Write every descriptor into the store at STORE_OT_KEY and the keys
 * after it (records never straddle a page); returns the pages written, or
 * -1 when the store refused one.  ot_load rebuilds an empty table from
 * them: 0, or -1 on a malformed or missing page (the table is then empty).
 */
long ot_save(const struct ot *ot, const struct pagestore *ps);
int ot_load(struct ot *ot, const struct pagestore *ps);

#endif
