/* SPDX-License-Identifier: MIT */
/*
 * OO1, the object operations benchmark of Cattell and Skeen, as seed 002
 * ran it (its appendix): the "small" database of 20,000 parts with three
 * connections each (90% to a part within 1% of its id), lookup of 1,000
 * random parts, forward and reverse traversal to depth 7 from a random part,
 * and insertion of 100 parts connected to 3 random parts each.  A user
 * procedure is called for every part returned.  Everything stays in memory;
 * the benchmark has its own random numbers and memory management, so every
 * system performs exactly the same operations.
 *
 * Header-only: the Linux programs (bench/posix/oo1.c, musl) and the Mungi
 * image (bench/mungi) include the same database code.
 */
#ifndef OO1_H
#define OO1_H

#include <stdint.h>

#define OO1_PARTS       20000
#define OO1_LOOKUPS     1000
#define OO1_DEPTH       7
#define OO1_INSERTS     100
#define OO1_TRAVERSALS  3           /* traversals averaged, each from its own random part */
#define OO1_FORWARD     3280        /* parts a forward traversal visits: 1 + 3 + ... + 3^7 */
#define OO1_MAX_PARTS   (OO1_PARTS + OO1_INSERTS * 4)
#define OO1_TYPE        10

struct oo1_part {
	uint32_t id;
	char type[OO1_TYPE];
	int32_t x, y;
	uint64_t build;
	uint32_t out[3];                /* connections from this part */
	uint32_t in;                    /* the first connection to it (0: none) */
};

struct oo1_conn {
	uint32_t from, to;
	char type[OO1_TYPE];
	int32_t length;
	uint32_t next_in;               /* the next connection to the same part */
};

struct oo1_db {
	uint32_t nparts, nconns;
	uint64_t rng;
	struct oo1_part part[OO1_MAX_PARTS + 1];        /* by id; 0 unused */
	struct oo1_conn conn[3 * OO1_MAX_PARTS + 1];    /* 0 unused */
};

/* The user procedure: one returned part, by value. */
typedef void (*oo1_visit)(void *ctx, uint32_t id, int32_t x, int32_t y, uint64_t type);

static inline uint64_t oo1_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline uint64_t oo1_type_word(const char *t)
{
	uint64_t w = 0;
	for (int i = 0; i < 8; i++)
		w |= (uint64_t)(uint8_t)t[i] << (8 * i);
	return w;
}

static inline void oo1_fill_type(uint64_t *rng, char *t)
{
	static const char *const types[] = { "part-type0", "part-type1", "part-type2", "part-type3",
					     "part-type4", "part-type5", "part-type6", "part-type7",
					     "part-type8", "part-type9" };
	const char *s = types[oo1_random(rng) % 10];
	for (int i = 0; i < OO1_TYPE; i++)
		t[i] = s[i];
}

/* A new part with random attributes; its id (0: the database is full). */
static inline uint32_t oo1_new_part(struct oo1_db *db)
{
	if (db->nparts >= OO1_MAX_PARTS)
		return 0;
	uint32_t id = ++db->nparts;
	struct oo1_part *p = &db->part[id];
	p->id = id;
	oo1_fill_type(&db->rng, p->type);
	p->x = (int32_t)(oo1_random(&db->rng) % 100000);
	p->y = (int32_t)(oo1_random(&db->rng) % 100000);
	p->build = oo1_random(&db->rng) % (10UL * 365 * 86400);
	p->out[0] = p->out[1] = p->out[2] = 0;
	p->in = 0;
	return id;
}

/* Connect from to to (its next free outgoing slot); 0, or -1 when it has three. */
static inline int oo1_connect(struct oo1_db *db, uint32_t from, uint32_t to)
{
	struct oo1_part *f = &db->part[from];
	int slot = !f->out[0] ? 0 : !f->out[1] ? 1 : !f->out[2] ? 2 : -1;
	if (slot < 0 || from == 0 || to == 0 || from > db->nparts || to > db->nparts)
		return -1;
	uint32_t c = ++db->nconns;
	struct oo1_conn *k = &db->conn[c];
	k->from = from;
	k->to = to;
	oo1_fill_type(&db->rng, k->type);
	k->length = (int32_t)(oo1_random(&db->rng) % 1000);
	k->next_in = db->part[to].in;
	db->part[to].in = c;
	f->out[slot] = c;
	return 0;
}

/* OO1's connection rule: 90% to a part within 1% of the ids around it, else any part. */
static inline uint32_t oo1_target(struct oo1_db *db, uint32_t from, uint32_t n)
{
	uint64_t r = oo1_random(&db->rng);
	if (r % 10 == 9)
		return 1 + (uint32_t)(oo1_random(&db->rng) % n);
	uint32_t near = n / 100 ? n / 100 : 1;
	int64_t t = (int64_t)from - near + (int64_t)(oo1_random(&db->rng) % (2 * near + 1));
	return t < 1 ? (uint32_t)(t + n) : t > n ? (uint32_t)(t - n) : (uint32_t)t;
}

/* Build the database: n parts, then three connections from each. */
static inline void oo1_build(struct oo1_db *db, uint32_t n, uint64_t seed)
{
	db->nparts = db->nconns = 0;
	db->rng = seed;
	for (uint32_t i = 0; i < n; i++)
		oo1_new_part(db);
	for (uint32_t id = 1; id <= n; id++)
		for (int k = 0; k < 3; k++)
			oo1_connect(db, id, oo1_target(db, id, n));
}

/* Look a part up and hand it to the user procedure; 1, or 0 if there is no such part. */
static inline uint32_t oo1_lookup(struct oo1_db *db, uint32_t id, oo1_visit visit, void *ctx)
{
	if (id == 0 || id > db->nparts)
		return 0;
	struct oo1_part *p = &db->part[id];
	visit(ctx, p->id, p->x, p->y, oo1_type_word(p->type));
	return 1;
}

/* Every part reachable within depth connections (forward, or reverse along incoming ones), each
 * visit handed to the user procedure; the number of visits (repeats counted). */
static inline uint32_t oo1_traverse(struct oo1_db *db, uint32_t id, int depth, int reverse, oo1_visit visit,
				    void *ctx)
{
	struct oo1_part *p = &db->part[id];
	uint32_t n = 1;
	visit(ctx, p->id, p->x, p->y, oo1_type_word(p->type));
	if (depth == 0)
		return n;
	if (!reverse) {
		for (int k = 0; k < 3; k++)
			if (p->out[k])
				n += oo1_traverse(db, db->conn[p->out[k]].to, depth - 1, 0, visit, ctx);
	} else {
		for (uint32_t c = p->in; c; c = db->conn[c].next_in)
			n += oo1_traverse(db, db->conn[c].from, depth - 1, 1, visit, ctx);
	}
	return n;
}

/* How a client reaches the database: in its own domain, or across domains. */
struct oo1_ops {
	uint32_t (*lookup)(uint32_t id);
	uint32_t (*traverse)(uint32_t id, int reverse, int depth);
	uint32_t (*new_part)(void);
	void (*connect)(uint32_t from, uint32_t to);
};

/* Guest instructions: lookup per 1,000 lookups, traversals per OO1_FORWARD parts, insert per 100 parts. */
struct oo1_times { uint64_t lookup, forward, reverse, insert; };

/*
 * The benchmark: `lookups` random lookups, OO1_TRAVERSALS traversals each
 * way to `depth`, `inserts` new parts connected to 3 random parts, with the
 * same random numbers on every system; clock() reads guest instructions.
 */
static inline struct oo1_times oo1_measure(const struct oo1_ops *ops, long lookups, long inserts, int depth,
					   uint64_t (*clock)(void))
{
	struct oo1_times t;
	uint64_t rng = 0x0011223344556677UL, t0 = clock(), parts = 0;
	for (long i = 0; i < lookups; i++)
		ops->lookup(1 + (uint32_t)(oo1_random(&rng) % OO1_PARTS));
	t.lookup = (clock() - t0) * OO1_LOOKUPS / (uint64_t)lookups;
	for (int rev = 0; rev < 2; rev++) {
		t0 = clock();
		parts = 0;
		for (int i = 0; i < OO1_TRAVERSALS; i++)
			parts += ops->traverse(1 + (uint32_t)(oo1_random(&rng) % OO1_PARTS), rev, depth);
		uint64_t v = (clock() - t0) * OO1_FORWARD / (parts ? parts : 1);
		*(rev ? &t.reverse : &t.forward) = v;
	}
	t0 = clock();
	for (long i = 0; i < inserts; i++) {
		uint32_t id = ops->new_part();
		for (int k = 0; k < 3; k++)
			ops->connect(id, 1 + (uint32_t)(oo1_random(&rng) % OO1_PARTS));
	}
	t.insert = (clock() - t0) * OO1_INSERTS / (uint64_t)inserts;
	return t;
}

#endif
