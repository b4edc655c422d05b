// SPDX-License-Identifier: MIT
// The store's public operations, its superblocks and checkpoints
// (docs/store.md).  Two superblock slots, blocks 0 and 1, each one sector
// with a sequence number and a checksum; a checkpoint writes the changed
// tree nodes, flushes, writes the superblock into the slot not holding the
// last checkpoint and flushes again.  The newest valid superblock is the
// store.
#include "impl.h"
#include "../c/string.h"

#define SB_MAGIC   0x5254534e41434550ULL    /* "PECANSTR" */
#define SB_VERSION 1
#define MIN_BLOCKS 64                       /* 256 KiB */

struct superblock {
	uint64_t magic;
	uint32_t version, size;
	uint64_t seq, nblocks, root, keys;
	uint32_t height, root_sum, rec_len, pad;
	uint8_t rec[STORE_ROOT_MAX];
	uint64_t sum;                       /* store_hash of everything before it */
};

_Static_assert(sizeof(struct superblock) <= STORE_SECTOR, "a superblock is one sector");

static uint64_t blocks_of(uint64_t sectors)
{
	uint64_t b = sectors / BLOCK_SECTORS;
	return b > MAX_BLOCKS ? MAX_BLOCKS : b;
}

static uint32_t hash_bits_for(uint32_t cache_nodes)
{
	uint32_t bits = 1;
	while ((1u << bits) < 2 * cache_nodes)
		bits++;
	return bits;
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

size_t store_mem_size(uint64_t sectors, uint32_t cache_nodes)
{
	uint64_t words = (blocks_of(sectors) + 63) / 64;
	return 4 * words * 8 + round8(cache_nodes * sizeof(struct store_cslot)) +
	       round8((sizeof(int32_t) << hash_bits_for(cache_nodes))) + STORE_SECTOR +
	       (size_t)cache_nodes * sizeof(struct node);
}

/* Lay out the bitmaps, the cache and the scratch sector in mem (sized by store_mem_size). */
static void carve(struct store *s, uint8_t *mem, uint64_t dev_blocks)
{
	uint64_t words = (dev_blocks + 63) / 64;
	uint64_t **maps[] = { &s->used, &s->fresh, &s->pending, &s->retired };
	for (int i = 0; i < 4; i++, mem += words * 8)
		*maps[i] = (uint64_t *)mem;
	s->slots = (struct store_cslot *)mem;
	mem += round8(s->ncache * sizeof(struct store_cslot));
	s->heads = (int32_t *)mem;
	mem += round8(sizeof(int32_t) << s->hash_bits);
	s->sector = mem;
	s->nodes = mem + STORE_SECTOR;
}

int dev_read_block(struct store *s, uint64_t blk, void *buf)
{
	s->stats.reads++;
	return s->dev->read(s->dev->ctx, blk * BLOCK_SECTORS, BLOCK_SECTORS, buf) ? STORE_EIO : STORE_OK;
}

int dev_write_block(struct store *s, uint64_t blk, const void *buf)
{
	s->stats.writes++;
	return s->dev->write(s->dev->ctx, blk * BLOCK_SECTORS, BLOCK_SECTORS, buf) ? STORE_EIO : STORE_OK;
}

static int dev_flush(struct store *s)
{
	s->stats.flushes++;
	return s->dev->flush(s->dev->ctx) ? STORE_EIO : STORE_OK;
}

static void sb_seal(struct superblock *sb)
{
	sb->magic = SB_MAGIC;
	sb->version = SB_VERSION;
	sb->size = sizeof(*sb);
	sb->sum = store_hash(sb, __builtin_offsetof(struct superblock, sum));
}

/* Write sb into slot's sector through the sector buffer buf. */
static int sb_write(const struct store_dev *dev, int slot, const struct superblock *sb, uint8_t *buf)
{
	memset(buf, 0, STORE_SECTOR);
	memcpy(buf, sb, sizeof(*sb));
	return dev->write(dev->ctx, (uint64_t)slot * BLOCK_SECTORS, 1, buf) ? STORE_EIO : STORE_OK;
}

static int sb_valid(const struct superblock *sb, uint64_t dev_blocks)
{
	return sb->magic == SB_MAGIC && sb->version == SB_VERSION && sb->size == sizeof(*sb) &&
	       sb->sum == store_hash(sb, __builtin_offsetof(struct superblock, sum)) &&
	       sb->nblocks >= MIN_BLOCKS && sb->nblocks <= dev_blocks &&
	       sb->height <= MAX_HEIGHT && (sb->height == 0) == (sb->root == 0) &&
	       (sb->root == 0 || (sb->root >= FIRST_BLOCK && sb->root < sb->nblocks)) &&
	       sb->rec_len <= STORE_ROOT_MAX;
}

/* Read slot's superblock: 1 valid, 0 not a valid superblock, STORE_EIO unreadable. */
static int sb_read(struct store *s, int slot, struct superblock *sb, uint64_t dev_blocks)
{
	s->stats.reads++;
	if (s->dev->read(s->dev->ctx, (uint64_t)slot * BLOCK_SECTORS, 1, s->sector))
		return STORE_EIO;
	memcpy(sb, s->sector, sizeof(*sb));
	return sb_valid(sb, dev_blocks);
}

int store_format(const struct store_dev *dev)
{
	uint64_t blocks = blocks_of(dev->sectors);
	uint8_t buf[STORE_SECTOR] __attribute__((aligned(8)));
	if (blocks < MIN_BLOCKS)
		return STORE_EINVAL;
	struct superblock sb = { .seq = 1, .nblocks = blocks };
	sb_seal(&sb);
	/* the old slot 1 goes first, so no older store's superblock outlives this one */
	struct superblock none = { 0 };
	if (sb_write(dev, 1, &none, buf) || dev->flush(dev->ctx) ||
	    sb_write(dev, 0, &sb, buf) || dev->flush(dev->ctx))
		return STORE_EIO;
	return STORE_OK;
}

/* Take sb (from slot) as the store's state and mark its tree's blocks used. */
static int load(struct store *s, const struct superblock *sb, int slot)
{
	s->nblocks = sb->nblocks;
	s->nwords = (sb->nblocks + 63) / 64;
	s->seq = sb->seq;
	s->slot = slot;
	s->root = sb->root;
	s->height = sb->height;
	s->root_sum = sb->root_sum;
	s->keys = sb->keys;
	s->rec_len = sb->rec_len;
	memcpy(s->rec, sb->rec, sizeof(s->rec));
	space_reset(s);
	cache_init(s);
	return tree_walk(s, s->root, s->root_sum, s->height, s->used, NULL);
}

/* Keep the blocks of the checkpoint before the loaded one (retired), if it is intact. */
static void keep_older(struct store *s, const struct superblock *sb)
{
	if (sb->nblocks != s->nblocks || sb->seq >= s->seq ||
	    tree_walk(s, sb->root, sb->root_sum, sb->height, s->retired, s->used)) {
		for (uint64_t w = 0; w < s->nwords; w++)
			s->retired[w] = 0;
		return;
	}
	for (uint64_t w = 0; w < s->nwords; w++)
		s->used[w] |= s->retired[w];
}

/* Which slot to load: the valid one with the higher sequence number (-1: none). */
static int newest(const int valid[2], const struct superblock sb[2])
{
	if (valid[0] == 1 && valid[1] == 1)
		return sb[1].seq > sb[0].seq;
	return valid[0] == 1 ? 0 : valid[1] == 1 ? 1 : -1;
}

static int open_slots(struct store *s, uint64_t dev_blocks)
{
	struct superblock sb[2];
	int valid[2];
	for (int k = 0; k < 2; k++)
		valid[k] = sb_read(s, k, &sb[k], dev_blocks);
	if (valid[0] == STORE_EIO || valid[1] == STORE_EIO)
		return STORE_EIO;                    /* not knowing which is newer, open neither */
	int first = newest(valid, sb);
	if (first < 0)
		return STORE_ENOSTORE;
	int other = !first, err = load(s, &sb[first], first);
	if (err == STORE_EDAMAGED && valid[other] == 1) {
		s->fell_back = 1;                    /* the newest tree is damaged: the one before */
		return load(s, &sb[other], other);
	}
	if (!err && valid[other] == 1)
		keep_older(s, &sb[other]);
	return err;
}

int store_open(struct store *s, const struct store_dev *dev, void *mem, size_t size,
	       uint32_t cache_nodes)
{
	uint64_t dev_blocks = blocks_of(dev->sectors);
	if (cache_nodes < STORE_MIN_CACHE || ((uintptr_t)mem & 7) ||
	    size < store_mem_size(dev->sectors, cache_nodes) || dev_blocks < MIN_BLOCKS)
		return STORE_EINVAL;
	*s = (struct store){ .dev = dev, .ncache = cache_nodes, .hash_bits = hash_bits_for(cache_nodes),
			     .fanout = NODE_MAX };
	carve(s, mem, dev_blocks);
	int err = open_slots(s, dev_blocks);
	if (err)
		return err;
	space_count_free(s);
	return STORE_OK;
}

static int changeable(const struct store *s)
{
	return s->dev && !s->broken;
}

int store_get(struct store *s, uint64_t key, void *page)
{
	struct entry e;
	int err = s->dev ? tree_lookup(s, key, &e) : STORE_EINVAL;
	if (err || (err = dev_read_block(s, e.blk, page)))
		return err;
	return store_sum32(page, STORE_PAGE) == e.sum ? STORE_OK : STORE_EDAMAGED;
}

/* The data goes to a new block first; the tree changes only once it is written. */
int store_put(struct store *s, uint64_t key, const void *page)
{
	if (!changeable(s))
		return s->dev ? STORE_EBROKEN : STORE_EINVAL;
	uint32_t h = s->height;
	if (h >= MAX_HEIGHT || s->nfree < 2 * h + 3 + RESERVE_BLOCKS)
		return STORE_ENOSPC;
	if (s->ndirty + 2 * h + 4 > s->ncache)
		return STORE_ENOMEM;
	uint64_t blk = space_alloc(s), old = 0;
	int err = dev_write_block(s, blk, page);
	if (!err)
		err = tree_set(s, key, (uint32_t)blk, store_sum32(page, STORE_PAGE), &old);
	if (err) {
		space_release(s, blk);
		return err;
	}
	if (old)
		space_release(s, old);
	else
		s->keys++;
	return STORE_OK;
}

/* Deletes may use the reserve that puts leave: they copy their path before freeing anything. */
int store_delete(struct store *s, uint64_t key)
{
	if (!changeable(s))
		return s->dev ? STORE_EBROKEN : STORE_EINVAL;
	struct entry e;
	int err = tree_lookup(s, key, &e);
	if (err)
		return err;
	uint32_t h = s->height;
	if (s->nfree < 2 * h)
		return STORE_ENOSPC;
	if (s->ndirty + 2 * h + 2 > s->ncache)
		return STORE_ENOMEM;
	uint64_t old;
	if ((err = tree_remove(s, key, &old)))
		return err;
	space_release(s, old);
	s->keys--;
	return STORE_OK;
}

int store_next(struct store *s, uint64_t from, uint64_t *key)
{
	return s->dev ? tree_next(s, from, key) : STORE_EINVAL;
}

int store_set_root(struct store *s, const void *rec, uint32_t len)
{
	if (!changeable(s) || len > STORE_ROOT_MAX)
		return !changeable(s) && s->dev ? STORE_EBROKEN : STORE_EINVAL;
	memset(s->rec, 0, sizeof(s->rec));
	memcpy(s->rec, rec, len);
	s->rec_len = len;
	return STORE_OK;
}

uint32_t store_root(const struct store *s, void *rec, uint32_t max)
{
	uint32_t n = s->rec_len < max ? s->rec_len : max;
	memcpy(rec, s->rec, n);
	return s->rec_len;
}

/*
 * Crash consistency: every block the new tree uses beyond the old one was
 * free in both kept checkpoints and is written before the first flush; the
 * superblock goes after it, into the slot of the older checkpoint, so the
 * last checkpoint stays intact until the new superblock is durable.
 */
int store_checkpoint(struct store *s)
{
	if (!changeable(s))
		return s->dev ? STORE_EBROKEN : STORE_EINVAL;
	int err = tree_finalize(s);
	if (err || (err = dev_flush(s)))
		return err;
	struct superblock sb = { .seq = s->seq + 1, .nblocks = s->nblocks, .root = s->root,
				 .keys = s->keys, .height = s->height, .root_sum = s->root_sum,
				 .rec_len = s->rec_len };
	memcpy(sb.rec, s->rec, sizeof(sb.rec));
	sb_seal(&sb);
	s->stats.writes++;
	err = sb_write(s->dev, !s->slot, &sb, s->sector);
	if (err || (err = dev_flush(s))) {
		s->broken = 1;                  /* which superblock the disk holds is unknown now */
		return err;
	}
	s->seq++;
	s->slot = !s->slot;
	space_commit(s);
	cache_all_clean(s);
	return STORE_OK;
}

/*
 * The changed nodes go to their fresh blocks, which no kept checkpoint
 * references, so a crash still finds the last checkpoint intact; nothing
 * is flushed and the superblock stays as it is.
 */
int store_spill(struct store *s)
{
	if (!changeable(s))
		return s->dev ? STORE_EBROKEN : STORE_EINVAL;
	int err = tree_finalize(s);
	if (err)
		return err;
	s->stats.spills++;
	cache_all_clean(s);
	return STORE_OK;
}

void store_get_info(const struct store *s, struct store_info *info)
{
	*info = (struct store_info){ s->seq, s->keys, s->nblocks, s->nfree, RESERVE_BLOCKS,
				     s->height, s->ndirty, s->ncache, s->fell_back };
}

const char *store_strerror(int err)
{
	static const char *const names[] = {
		"ok", "no such key", "the device is full", "too many changes: checkpoint first",
		"I/O error or bad checksum", "invalid argument", "no valid store on the device",
		"a checkpoint failed: open the store again", "damaged data on the device",
	};
	return err <= 0 && err >= STORE_EDAMAGED ? names[-err] : "unknown error";
}
