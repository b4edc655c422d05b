// SPDX-License-Identifier: MIT
// The page store kept in the server's own memory, used when no disk is
// attached (pagestore_disk.c is the other).  Its "checkpoint" does nothing:
// nothing here survives a reboot.
#include "mungi.h"
#include "../../lib/c/string.h"

#define SHASH_BITS 12

struct stored {
	u64 key;
	void *data;
	struct stored *next;
};

static struct stored *sbucket[1UL << SHASH_BITS];
static struct kind stored_kind = { sizeof(struct stored), NULL, 0, "stored page" };
static u64 nstored;

static struct stored **sslot(u64 key)
{
	return &sbucket[(key * 0x9e3779b97f4a7c15UL) >> (64 - SHASH_BITS)];
}

static struct stored **lookup(u64 key)
{
	struct stored **pp = sslot(key);
	while (*pp && (*pp)->key != key)
		pp = &(*pp)->next;
	return pp;
}

static int mem_put(void *ctx, u64 key, const void *page)
{
	(void)ctx;
	struct stored **pp = lookup(key), *s = *pp;
	if (!s) {
		s = rec_alloc(&stored_kind);
		void *d = s ? frame_alloc() : NULL;
		if (!d) {
			if (s)
				rec_free(&stored_kind, s);
			return MUNGI_ENOSPC;
		}
		s->key = key;
		s->data = d;
		s->next = *sslot(key);
		*sslot(key) = s;
		nstored++;
	}
	mcopy(s->data, page, PAGE);
	return 0;
}

static int mem_get(void *ctx, u64 key, void *page)
{
	(void)ctx;
	struct stored *s = *lookup(key);
	if (!s)
		return -1;
	mcopy(page, s->data, PAGE);
	return 0;
}

static int mem_del(void *ctx, u64 key)
{
	(void)ctx;
	struct stored **pp = lookup(key), *s = *pp;
	if (!s)
		return -1;
	*pp = s->next;
	frame_free(s->data);
	rec_free(&stored_kind, s);
	nstored--;
	return 0;
}

static void mem_del_range(void *ctx, u64 lo, u64 hi)
{
	for (u64 key = lo; key < hi && nstored; key += PAGE)
		mem_del(ctx, key);
}

static int mem_checkpoint(void *ctx)
{
	(void)ctx;
	return 0;
}

const struct pagestore memstore = { mem_put, mem_get, mem_del, mem_del_range, mem_checkpoint, NULL };
