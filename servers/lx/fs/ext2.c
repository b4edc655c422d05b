// SPDX-License-Identifier: MIT
/*
 * ext2 on the disk (lib/disk's driver): a standard revision-1 file system as
 * Debian's mke2fs -t ext2 makes it, read and written in place, checkable
 * with e2fsck.  Changes (block bitmaps, inodes, directories, the group
 * descriptors and the superblock's free counts, file data) go into a
 * write-back block cache and reach the disk at fsync, sync, unmount,
 * power-off, eviction or the periodic writeback ("the block cache"), in
 * no particular order: as on Linux's ext2, a crash between writebacks
 * leaves what e2fsck -fy repairs; fsync and sync also ask the drive to
 * flush its cache.  Everything read from the disk is checked before it is used: a
 * block number outside the file system, a directory entry that does not
 * fit, or an inode number out of range gives EIO, never a wild access.
 *
 * Not supported (the mount refuses them): incompatible features other than
 * filetype, read-only-compatible ones other than sparse_super and
 * large_file.  htree directories are treated as linear ones and lose their
 * index flag when changed, as Linux's ext2 without dir_index does.
 */
#include "../lx.h"
#include "../../../lib/c/string.h"
#include "../../../lib/disk/client.h"
#include "../../disk/disk.h"
#include <l4/disk.h>

#define EXT2_MAGIC      0xEF53
#define ROOT_INO        2
#define NDIR            12              /* direct pointers in i_block */
#define IND             12
#define DIND            13
#define TIND            14
#define FT_COMPAT_OK    0xffffffffu     /* compatible features never stop a mount */
#define FT_INCOMPAT_FILETYPE 0x2
#define FT_RO_SPARSE    0x1
#define FT_RO_LARGE     0x2
#define INDEX_FL        0x1000          /* an htree directory */
#define BC_HASH         1024            /* chains of the block cache */
#define WB_EXPIRE_US    30000000        /* dirty blocks are written within this (ext2_writeback) */
#define INODE_HASH      1024            /* chains of in-memory inodes */
#define FAST_LINK_MAX   60              /* targets shorter than i_block's bytes live there */

/* The on-disk superblock (the fields lx uses), at byte 1024. */
struct dsuper {
	u32 inodes_count, blocks_count, r_blocks_count, free_blocks, free_inodes;
	u32 first_data_block, log_block_size, log_frag_size, blocks_per_group, frags_per_group;
	u32 inodes_per_group, mtime, wtime;
	uint16_t mnt_count, max_mnt_count, magic, state, errors, minor_rev;
	u32 lastcheck, checkinterval, creator_os, rev_level;
	uint16_t def_resuid, def_resgid;
	u32 first_ino;
	uint16_t inode_size, block_group_nr;
	u32 feature_compat, feature_incompat, feature_ro_compat;
};

struct dgroup {                         /* a group descriptor: 32 bytes */
	u32 block_bitmap, inode_bitmap, inode_table;
	uint16_t free_blocks, free_inodes, used_dirs, pad;
	u32 reserved[3];
};

struct dinode {                         /* the first 128 bytes of an inode */
	uint16_t mode, uid;
	u32 size, atime, ctime, mtime, dtime;
	uint16_t gid, links;
	u32 blocks, flags, osd1;
	u32 block[15];
	u32 generation, file_acl, size_high, faddr;
	uint16_t blocks_hi, file_acl_high, uid_high, gid_high;
	u32 reserved2;
};

struct ddirent {
	u32 inode;
	uint16_t rec_len;
	uint8_t name_len, file_type;
	char name[];
};

struct ext2 {
	struct dsuper ds;
	uint8_t sb_raw[1024];           /* the whole superblock, written back as it was read */
	struct dgroup *groups;
	u32 ngroups, bs, ptrs;          /* block size; block numbers per block */
	u32 gdt_block;                  /* where the descriptors start */
	/* in-memory inodes by number (fs_priv->next links a chain): those in use, and
	 * unreferenced ones that keep cached pages (the page cache) */
	struct inode *incore[INODE_HASH];
	struct inode *lru, *lru_tail;   /* inodes with cached pages, least recently used first */
	/* the block cache (bc_*): entries 1..bc_max, LRU list bc_old..bc_new */
	struct bc_ent { u32 blk, hnext, prev, next; bool dirty; void *data; } *bc;
	u32 bc_max, bc_hash[BC_HASH], bc_old, bc_new, bc_free, bc_dirty;
	u64 dirty_since;                /* when the oldest unwritten change was made; 0: none */
	int wb_err;                     /* a failed writeback, for the next fsync or sync */
	u64 pc_pages, pc_max;           /* the page cache's pages, and its bound (pc_shrink) */
	void *scratch;                  /* one block for read-modify-write */
	/* the mount's check (check_all): in-memory truth over the on-disk bitmaps */
	uint8_t *claimed;               /* blocks in use: metadata or some live inode's */
	uint8_t *live;                  /* inodes in use */
	uint8_t *bad;                   /* inodes refused with EIO: their blocks or names clash */
	/* the name cache (names_*): what lookups and listings found, so that a
	 * path's walk does not scan each directory again */
	struct name_ent *names;         /* NAMES entries; NULL: no cache */
	u32 names_epoch;                /* entries of another epoch are void */
};

static bool bit(const uint8_t *m, u64 i)
{
	return m[i / 8] & (1 << (i % 8));
}

static void bit_set(uint8_t *m, u64 i, bool on)
{
	if (on)
		m[i / 8] |= (uint8_t)(1 << (i % 8));
	else
		m[i / 8] &= (uint8_t)~(1 << (i % 8));
}

/* The in-memory part of an ext2 inode (inode->fs_priv). */
struct einode {
	struct dinode d;
	struct inode *next;
	/* the page cache (a regular file's): pages[i] holds bytes [i, i + 1) pages of the
	 * file, | PC_DIRTY once a shared mapping may have written it; NULL: not cached */
	uintptr_t *pages;
	u64 npages;                     /* slots in pages[] */
	u64 cached;                     /* pages held */
	u64 ndirty;                     /* pages marked PC_DIRTY */
	struct inode *lru_prev, *lru_next;      /* fs->lru, while it has cached pages */
};
#define PC_DIRTY 1UL

static const struct fs_ops ext2_ops;
static bool disk_mounted;            /* a super of the disk exists (ext2_mount_disk) */

static struct ext2 *FS(struct inode *ip)
{
	return ip->sb->priv;
}

static struct dinode *DI(struct inode *ip)
{
	return &((struct einode *)ip->fs_priv)->d;
}

/* --- blocks on the disk, through a write-back block cache --- */

/*
 * The block cache (Linux's buffer cache): every block ext2 reads or writes
 * passes through fs->bc, so metadata (bitmaps, inodes, directories, indirect
 * blocks, descriptors, the superblock) and write()'s data are changed in
 * memory and marked dirty; the disk gets them at writeback: fsync/fdatasync
 * (which write every dirty block, as a journal commit would), sync/syncfs,
 * unmount, lx's power-off, when the cache needs room (the least recently
 * used block goes, written first if dirty), and WB_EXPIRE_US after a block
 * first became dirty (ext2_writeback: Linux's dirty_expire_centisecs is 30 s
 * too).  A failed write is logged and given to the next fsync or sync as
 * EIO (the block is dropped from the dirty set, as Linux does).  Entries
 * are numbered from 1 (0: none) so that a zeroed hash means empty; a freed
 * block's entry is forgotten (bc_forget: its contents no longer matter).
 * The cache holds at most bc_max blocks; the pool's shrinker takes clean
 * ones back (bc_reclaim).
 *
 * Block buffers are pool pages (a block is at most a page): lx_malloc would take
 * a run of two fresh pages for each, and runs are never reused (mm/page.c).
 */

static int disk_io(struct ext2 *fs, u32 blk, void *buf, bool write)
{
	u32 spb = fs->bs / 512;
	long r = write ? disk_write((u64)blk * spb, spb, buf) : disk_read((u64)blk * spb, spb, buf);
	if (r) {
		lx_log("lx: ext2: %s of block %u failed (%s)\n", write ? "write" : "read", blk,
		       disk_strerror(r));
		return -LX_EIO;
	}
	return 0;
}

static bool blk_valid(struct ext2 *fs, u64 blk)
{
	return blk >= fs->ds.first_data_block && blk < fs->ds.blocks_count;
}

/* Something became dirty: the periodic writeback gets a deadline if it had none. */
static void wb_arm(struct ext2 *fs)
{
	if (!fs->dirty_since) {
		u64 t = lx_now_us();
		fs->dirty_since = t ? t : 1;
		deadlines_changed();    /* ext2_next_writeback has a deadline now */
	}
}

static u32 *bc_chain(struct ext2 *fs, u32 blk)
{
	return &fs->bc_hash[blk % BC_HASH];
}

/* The entry holding blk, or 0. */
static u32 bc_find(struct ext2 *fs, u32 blk)
{
	for (u32 i = *bc_chain(fs, blk); i; i = fs->bc[i].hnext)
		if (fs->bc[i].blk == blk)
			return i;
	return 0;
}

static void bc_unlink(struct ext2 *fs, u32 i)
{
	struct bc_ent *e = &fs->bc[i];
	u32 *p = bc_chain(fs, e->blk);
	while (*p != i)
		p = &fs->bc[*p].hnext;
	*p = e->hnext;
	*(e->prev ? &fs->bc[e->prev].next : &fs->bc_old) = e->next;
	*(e->next ? &fs->bc[e->next].prev : &fs->bc_new) = e->prev;
}

/* Entry i becomes the most recently used (it holds a block, in its chain). */
static void bc_append(struct ext2 *fs, u32 i)
{
	struct bc_ent *e = &fs->bc[i];
	e->prev = fs->bc_new;
	e->next = 0;
	*(fs->bc_new ? &fs->bc[fs->bc_new].next : &fs->bc_old) = i;
	fs->bc_new = i;
}

static void bc_touch(struct ext2 *fs, u32 i)
{
	if (fs->bc_new == i)
		return;
	struct bc_ent *e = &fs->bc[i];
	*(e->prev ? &fs->bc[e->prev].next : &fs->bc_old) = e->next;
	fs->bc[e->next].prev = e->prev;         /* i is not the newest: e->next != 0 */
	bc_append(fs, i);
}

static void bc_clean(struct ext2 *fs, u32 i)
{
	if (fs->bc[i].dirty) {
		fs->bc[i].dirty = false;
		fs->bc_dirty--;
	}
}

/* Writes entry i to the disk if dirty; a failure waits in wb_err for fsync or sync. */
static void bc_write_out(struct ext2 *fs, u32 i)
{
	if (fs->bc[i].dirty && disk_io(fs, fs->bc[i].blk, fs->bc[i].data, true) < 0)
		fs->wb_err = -LX_EIO;
	bc_clean(fs, i);
}

/* Entry i goes to the free list (its page with it, unless `keep`). */
static void bc_release(struct ext2 *fs, u32 i, bool keep)
{
	bc_clean(fs, i);
	bc_unlink(fs, i);
	if (!keep && fs->bc[i].data) {
		page_free(fs->bc[i].data);
		fs->bc[i].data = NULL;
	}
	fs->bc[i].next = fs->bc_free;
	fs->bc_free = i;
}

/* An entry with a page to fill, in no chain: a free one, else the least
 * recently used block's (written back first); 0 with no memory and no entry. */
static u32 bc_take(struct ext2 *fs)
{
	u32 i = fs->bc_free;
	if (i) {
		fs->bc_free = fs->bc[i].next;   /* first: page_alloc's shrinker may free entries */
		if (fs->bc[i].data || (fs->bc[i].data = page_alloc()))
			return i;
		fs->bc[i].next = fs->bc_free;
		fs->bc_free = i;
	}
	if (!(i = fs->bc_old))
		return 0;
	bc_write_out(fs, i);
	bc_release(fs, i, true);
	fs->bc_free = fs->bc[i].next;
	return i;
}

/* The entry holding blk, read from the disk unless `fill` is false (the caller
 * overwrites it all); 0 with *err on a failed read, or 0 without memory. */
static u32 bc_get(struct ext2 *fs, u32 blk, bool fill, int *err)
{
	u32 i = bc_find(fs, blk);
	if (i) {
		bc_touch(fs, i);
		return i;
	}
	if (!(i = bc_take(fs)))
		return 0;
	if (fill && (*err = disk_io(fs, blk, fs->bc[i].data, false)) < 0) {
		fs->bc[i].next = fs->bc_free;
		fs->bc_free = i;
		return 0;
	}
	fs->bc[i].blk = blk;
	fs->bc[i].hnext = *bc_chain(fs, blk);
	*bc_chain(fs, blk) = i;
	bc_append(fs, i);
	return i;
}

/* blk was freed: its cached contents, dirty or not, no longer matter. */
static void bc_forget(struct ext2 *fs, u32 blk)
{
	u32 i = fs->bc ? bc_find(fs, blk) : 0;
	if (i)
		bc_release(fs, i, true);
}

/* Writes every dirty block, one request each; the first error since the last
 * writeback (also one an eviction met). */
static int bc_flush(struct ext2 *fs)
{
	for (u32 i = 1; fs->bc_dirty && i <= fs->bc_max; i++)
		bc_write_out(fs, i);
	int r = fs->wb_err;
	fs->wb_err = 0;
	return r;
}

/* The shrinker: clean blocks, least recently used first, give their pages back. */
static u64 bc_reclaim(struct ext2 *fs, u64 want)
{
	u64 n = 0;
	for (u32 i = fs->bc_old, next; i && n < want; i = next) {
		next = fs->bc[i].next;
		if (!fs->bc[i].dirty) {
			bc_release(fs, i, false);
			n++;
		}
	}
	return n;
}

/* The cache's entries, all free: an eighth of the pool at most (64 to 4,096 blocks). */
static bool bc_init(struct ext2 *fs)
{
	u64 n = pool_total_bytes() / LX_PAGE_SIZE / 8;
	fs->bc_max = n < 64 ? 64 : n > 4096 ? 4096 : (u32)n;
	if (!(fs->bc = lx_zalloc((fs->bc_max + 1) * sizeof(*fs->bc))))
		return false;
	for (u32 i = fs->bc_max; i >= 1; i--) {
		fs->bc[i].next = fs->bc_free;
		fs->bc_free = i;
	}
	return true;
}

/* Copy block blk into buf (fs->bs bytes). */
static int blk_read(struct ext2 *fs, u32 blk, void *buf)
{
	if (!blk_valid(fs, blk) && blk != 0)
		return -LX_EIO;
	int err = 0;
	u32 i = fs->bc ? bc_get(fs, blk, true, &err) : 0;
	if (err < 0)
		return err;
	if (!i)
		return disk_io(fs, blk, buf, false);    /* no memory for the cache */
	memcpy(buf, fs->bc[i].data, fs->bs);
	return 0;
}

/* Write buf as block blk: into the cache, dirty (straight to the disk without memory). */
static int blk_write(struct ext2 *fs, u32 blk, const void *buf)
{
	if (!blk_valid(fs, blk) && blk != 0)
		return -LX_EIO;
	int err = 0;
	u32 i = fs->bc ? bc_get(fs, blk, false, &err) : 0;
	if (!i)
		return disk_io(fs, blk, (void *)buf, true);
	memcpy(fs->bc[i].data, buf, fs->bs);
	if (!fs->bc[i].dirty) {
		fs->bc[i].dirty = true;
		fs->bc_dirty++;
		wb_arm(fs);
	}
	return 0;
}

static int blk_zero(struct ext2 *fs, u32 blk)
{
	memset(fs->scratch, 0, fs->bs);
	return blk_write(fs, blk, fs->scratch);
}

/* --- superblock and group descriptors --- */

static int super_write(struct ext2 *fs)
{
	memcpy(fs->sb_raw, &fs->ds, sizeof(fs->ds));
	u32 blk = 1024 / fs->bs, off = 1024 % fs->bs;
	int r = blk_read(fs, blk, fs->scratch);
	if (r < 0)
		return r;
	memcpy((char *)fs->scratch + off, fs->sb_raw, 1024);
	return blk_write(fs, blk, fs->scratch);
}

static int group_write(struct ext2 *fs, u32 g)
{
	u32 per = fs->bs / sizeof(struct dgroup), blk = fs->gdt_block + g / per;
	int r = blk_read(fs, blk, fs->scratch);
	if (r < 0)
		return r;
	memcpy((char *)fs->scratch + (g % per) * sizeof(struct dgroup), &fs->groups[g],
	       sizeof(struct dgroup));
	return blk_write(fs, blk, fs->scratch);
}

/* --- bitmaps: allocation of blocks and inodes --- */

/*
 * Finds a clear bit below n in the bitmap at blk whose object (number
 * first + i) the in-memory map `used` does not hold either, sets it and
 * writes the bitmap back; the map gets the bit too.
 */
static long bitmap_take(struct ext2 *fs, u32 blk, u32 n, uint8_t *used, u64 first)
{
	uint8_t *b = fs->scratch;
	int r = blk_read(fs, blk, b);
	if (r < 0)
		return r;
	for (u32 i = 0; i < n; i++) {
		u64 word;
		if (i % 64 == 0 && i + 64 <= n && (memcpy(&word, b + i / 8, 8), word == ~0ULL)) {
			i += 63;        /* 64 used on the disk: a full group costs n / 64 steps */
			continue;
		}
		if (!(b[i / 8] & (1 << (i % 8))) && !bit(used, first + i)) {
			bit_set(used, first + i, true);
			b[i / 8] |= (uint8_t)(1 << (i % 8));
			r = blk_write(fs, blk, b);
			return r < 0 ? r : (long)i;
		}
	}
	return -LX_ENOSPC;
}

/* Clears bit i of the bitmap at blk; EIO if it was clear (a damaged file system). */
static int bitmap_drop(struct ext2 *fs, u32 blk, u32 i)
{
	uint8_t *b = fs->scratch;
	int r = blk_read(fs, blk, b);
	if (r < 0)
		return r;
	if (!(b[i / 8] & (1 << (i % 8))))
		return -LX_EIO;
	b[i / 8] &= (uint8_t)~(1 << (i % 8));
	return blk_write(fs, blk, b);
}

static u32 group_blocks(struct ext2 *fs, u32 g)
{
	u32 first = fs->ds.first_data_block + g * fs->ds.blocks_per_group;
	u32 left = fs->ds.blocks_count - first;
	return left < fs->ds.blocks_per_group ? left : fs->ds.blocks_per_group;
}

/* A new block, zeroed on the disk if `zero`; its number in *out. */
static int block_alloc(struct ext2 *fs, u32 goal_group, bool zero, u32 *out)
{
	for (u32 k = 0; k < fs->ngroups; k++) {
		u32 g = (goal_group + k) % fs->ngroups;
		if (!fs->groups[g].free_blocks)
			continue;
		long i = bitmap_take(fs, fs->groups[g].block_bitmap, group_blocks(fs, g), fs->claimed,
				     fs->ds.first_data_block + (u64)g * fs->ds.blocks_per_group);
		if (i == -LX_ENOSPC)
			continue;
		if (i < 0)
			return (int)i;
		fs->groups[g].free_blocks--;
		fs->ds.free_blocks--;
		*out = fs->ds.first_data_block + g * fs->ds.blocks_per_group + (u32)i;
		int r = group_write(fs, g);
		if (!r)
			r = super_write(fs);
		if (!r && zero)
			r = blk_zero(fs, *out);
		return r;
	}
	return -LX_ENOSPC;
}

static int block_free(struct ext2 *fs, u32 blk)
{
	if (!blk_valid(fs, blk))
		return -LX_EIO;
	bit_set(fs->claimed, blk, false);
	bc_forget(fs, blk);
	u32 g = (blk - fs->ds.first_data_block) / fs->ds.blocks_per_group;
	int r = bitmap_drop(fs, fs->groups[g].block_bitmap,
			    (blk - fs->ds.first_data_block) % fs->ds.blocks_per_group);
	if (r < 0)
		return r;
	fs->groups[g].free_blocks++;
	fs->ds.free_blocks++;
	r = group_write(fs, g);
	return r ? r : super_write(fs);
}

static int inode_alloc(struct ext2 *fs, u32 goal_group, bool dir, u32 *out)
{
	for (u32 k = 0; k < fs->ngroups; k++) {
		u32 g = (goal_group + k) % fs->ngroups;
		if (!fs->groups[g].free_inodes)
			continue;
		long i = bitmap_take(fs, fs->groups[g].inode_bitmap, fs->ds.inodes_per_group, fs->live,
				     (u64)g * fs->ds.inodes_per_group + 1);
		if (i == -LX_ENOSPC)
			continue;
		if (i < 0)
			return (int)i;
		*out = g * fs->ds.inodes_per_group + (u32)i + 1;
		fs->groups[g].free_inodes--;
		fs->groups[g].used_dirs += dir;
		fs->ds.free_inodes--;
		int r = group_write(fs, g);
		return r ? r : super_write(fs);
	}
	return -LX_ENOSPC;
}

static int inode_free(struct ext2 *fs, u32 ino, bool dir)
{
	bit_set(fs->live, ino, false);
	fs->names_epoch += dir;                 /* the name cache: its number may name another */
	u32 g = (ino - 1) / fs->ds.inodes_per_group;
	int r = bitmap_drop(fs, fs->groups[g].inode_bitmap, (ino - 1) % fs->ds.inodes_per_group);
	if (r < 0)
		return r;
	fs->groups[g].free_inodes++;
	fs->groups[g].used_dirs -= dir && fs->groups[g].used_dirs;
	fs->ds.free_inodes++;
	r = group_write(fs, g);
	return r ? r : super_write(fs);
}

/* --- inodes --- */

/* Where inode ino lies: its block and the byte offset in it. */
static int inode_where(struct ext2 *fs, u64 ino, u32 *blk, u32 *off)
{
	if (ino < 1 || ino > fs->ds.inodes_count)
		return -LX_EIO;
	u32 g = (u32)(ino - 1) / fs->ds.inodes_per_group, idx = (u32)(ino - 1) % fs->ds.inodes_per_group;
	u64 byte = (u64)idx * fs->ds.inode_size;
	*blk = fs->groups[g].inode_table + (u32)(byte / fs->bs);
	*off = (u32)(byte % fs->bs);
	return 0;
}

static void now(struct lx_timespec *ts)
{
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
	if (fs_now)
		fs_now(ts);
}

/* The VFS fields into the record, and the record onto the disk. */
static int inode_write(struct inode *ip)
{
	struct ext2 *fs = FS(ip);
	struct dinode *d = DI(ip);
	d->mode = (uint16_t)ip->mode;
	d->uid = (uint16_t)ip->uid;
	d->uid_high = (uint16_t)(ip->uid >> 16);
	d->gid = (uint16_t)ip->gid;
	d->gid_high = (uint16_t)(ip->gid >> 16);
	d->links = (uint16_t)ip->nlink;
	d->size = (u32)ip->size;
	if (LX_S_ISREG(ip->mode))
		d->size_high = (u32)(ip->size >> 32);
	d->atime = (u32)ip->atime.tv_sec;
	d->mtime = (u32)ip->mtime.tv_sec;
	d->ctime = (u32)ip->ctime.tv_sec;
	u32 blk, off;
	int r = inode_where(fs, ip->ino, &blk, &off);
	if (!r)
		r = blk_read(fs, blk, fs->scratch);
	if (r < 0)
		return r;
	memcpy((char *)fs->scratch + off, d, sizeof(*d));
	return blk_write(fs, blk, fs->scratch);
}

/* Linux's device number encodings in i_block[0] (old) and i_block[1] (new). */
static u64 dev_decode(const struct dinode *d)
{
	if (d->block[0])
		return LX_MKDEV((d->block[0] >> 8) & 0xff, d->block[0] & 0xff);
	u32 n = d->block[1];
	return LX_MKDEV((n & 0xfff00) >> 8, (n & 0xff) | ((n >> 12) & 0xfff00));
}

static void dev_encode(struct dinode *d, u64 rdev)
{
	u32 major = (u32)(rdev >> 8) & 0xfff, minor = (u32)(rdev & 0xff) | (u32)((rdev >> 12) & ~0xffULL);
	if (major < 256 && minor < 256)
		d->block[0] = (major << 8) | minor;
	else
		d->block[1] = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
}

/* The VFS fields from a record read from the disk; EIO if the record is no inode. */
static int inode_fill(struct inode *ip, const struct dinode *d)
{
	u32 type = d->mode & LX_S_IFMT;
	if (type != LX_S_IFREG && type != LX_S_IFDIR && type != LX_S_IFLNK && type != LX_S_IFCHR &&
	    type != LX_S_IFBLK && type != LX_S_IFIFO && type != LX_S_IFSOCK)
		return -LX_EIO;
	if (d->links == 0)
		return -LX_EIO;         /* a name pointing to a free inode */
	ip->mode = d->mode;
	ip->uid = d->uid | ((u32)d->uid_high << 16);
	ip->gid = d->gid | ((u32)d->gid_high << 16);
	ip->nlink = d->links;
	ip->size = d->size | (type == LX_S_IFREG ? (u64)d->size_high << 32 : 0);
	ip->atime.tv_sec = d->atime;
	ip->mtime.tv_sec = d->mtime;
	ip->ctime.tv_sec = d->ctime;
	if (type == LX_S_IFCHR || type == LX_S_IFBLK)
		ip->rdev = dev_decode(d);
	return 0;
}

static struct inode *inode_mem(struct super *sb, u64 ino)
{
	struct inode *ip = lx_zalloc(sizeof(*ip));
	struct einode *e = lx_zalloc(sizeof(*e));
	if (!ip || !e) {
		lx_free(ip);
		lx_free(e);
		return NULL;
	}
	ip->sb = sb;
	ip->ino = ino;
	fs_get(ip);
	ip->fs_priv = e;
	struct ext2 *fs = sb->priv;
	e->next = fs->incore[ino % INODE_HASH];
	fs->incore[ino % INODE_HASH] = ip;
	return ip;
}

static void pc_drop(struct inode *ip, u64 idx);

/* Out of memory: its cached pages go too (mappings keep their own references). */
static void inode_forget(struct inode *ip)
{
	struct ext2 *fs = FS(ip);
	struct einode *e = ip->fs_priv;
	for (u64 i = 0; i < e->npages && e->cached; i++)
		pc_drop(ip, i);
	lx_free(e->pages);
	for (struct inode **pp = &fs->incore[ip->ino % INODE_HASH]; *pp;
	     pp = &((struct einode *)(*pp)->fs_priv)->next)
		if (*pp == ip) {
			*pp = ((struct einode *)ip->fs_priv)->next;
			break;
		}
	lx_free(ip->fs_priv);
	lx_free(ip);
}

/* Inode ino, one reference: the one in memory, or read from the disk. */
static int iget(struct super *sb, u64 ino, struct inode **out)
{
	struct ext2 *fs = sb->priv;
	for (struct inode *ip = fs->incore[ino % INODE_HASH]; ip;
	     ip = ((struct einode *)ip->fs_priv)->next)
		if (ip->ino == ino) {
			fs_get(ip);
			*out = ip;
			return 0;
		}
	u32 blk, off;
	int r = inode_where(fs, ino, &blk, &off);
	if (r == 0 && ((ino < fs->ds.first_ino && ino != ROOT_INO) || bit(fs->bad, ino)))
		r = -LX_EIO;            /* reserved inodes are no files; bad ones failed the check */
	if (r == 0)
		r = blk_read(fs, blk, fs->scratch);
	if (r < 0)
		return r;
	struct inode *ip = inode_mem(sb, ino);
	if (!ip)
		return -LX_ENOMEM;
	memcpy(DI(ip), (char *)fs->scratch + off, sizeof(struct dinode));
	if ((r = inode_fill(ip, DI(ip))) < 0) {
		lx_log("lx: ext2: inode %lu is damaged\n", ino);
		inode_forget(ip);
		return r;
	}
	*out = ip;
	return 0;
}

/* --- block maps: logical block of a file to disk block --- */

/* Pointer slot i of the indirect block blk: read, or (alloc) filled with a new block. */
static int ind_slot(struct inode *ip, u32 blk, u32 i, bool alloc, bool zero, u32 *out)
{
	struct ext2 *fs = FS(ip);
	u32 *p = page_alloc();
	if (!p)
		return -LX_ENOMEM;
	int r = blk_read(fs, blk, p);
	if (r == 0 && !p[i] && alloc) {
		r = block_alloc(fs, (u32)(ip->ino - 1) / fs->ds.inodes_per_group, zero, &p[i]);
		if (r == 0) {
			DI(ip)->blocks += fs->bs / 512;
			r = blk_write(fs, blk, p);
		}
	}
	*out = p[i];
	if (r == 0 && p[i] && !blk_valid(fs, p[i]))
		r = -LX_EIO;
	page_free(p);
	return r;
}

/* The disk block of logical block n of ip (0: a hole), allocated if `alloc`. */
static int bmap(struct inode *ip, u64 n, bool alloc, u32 *out)
{
	struct ext2 *fs = FS(ip);
	struct dinode *d = DI(ip);
	u32 grp = (u32)(ip->ino - 1) / fs->ds.inodes_per_group;
	u64 p1 = fs->ptrs, p2 = p1 * p1;
	int depth, top;
	if (n < NDIR) {
		depth = 0, top = (int)n;
	} else if ((n -= NDIR) < p1) {
		depth = 1, top = IND;
	} else if ((n -= p1) < p2) {
		depth = 2, top = DIND;
	} else if ((n -= p2) < p2 * p1) {
		depth = 3, top = TIND;
	} else {
		return -LX_EFBIG;
	}
	int r = 0;
	if (!d->block[top] && alloc) {
		r = block_alloc(fs, grp, depth > 0, &d->block[top]);
		if (r == 0)
			d->blocks += fs->bs / 512;
	}
	u32 b = d->block[top];
	if (r == 0 && b && !blk_valid(fs, b))
		r = -LX_EIO;
	for (int lvl = depth - 1; r == 0 && b && lvl >= 0; lvl--) {
		u64 span = lvl == 2 ? p2 : lvl == 1 ? p1 : 1;
		r = ind_slot(ip, b, (u32)(n / span), alloc, lvl > 0, &b);
		n %= span;
	}
	*out = r == 0 ? b : 0;
	return r;
}

/*
 * Frees what the pointer *p covers at and past logical block `from` (the
 * subtree of depth `depth` starts at logical block base); *p becomes 0 when
 * nothing is left under it.
 */
static int free_tree(struct inode *ip, u32 *p, int depth, u64 base, u64 from)
{
	struct ext2 *fs = FS(ip);
	u64 span = 1;
	for (int i = 0; i < depth; i++)
		span *= fs->ptrs;
	if (!*p || base + span <= from)
		return 0;
	int r = 0;
	if (depth > 0) {
		u32 *b = page_alloc();
		if (!b)
			return -LX_ENOMEM;
		bool any = false;
		r = blk_read(fs, *p, b);
		for (u32 i = 0; r == 0 && i < fs->ptrs; i++) {
			r = free_tree(ip, &b[i], depth - 1, base + i * (span / fs->ptrs), from);
			any |= b[i] != 0;
		}
		if (r == 0 && any)
			r = blk_write(fs, *p, b);
		page_free(b);
		if (r < 0 || any)
			return r;
	}
	r = block_free(fs, *p);
	*p = 0;
	DI(ip)->blocks -= DI(ip)->blocks >= fs->bs / 512 ? fs->bs / 512 : DI(ip)->blocks;
	return r;
}

/* Frees every block of ip at and past logical block from. */
static int free_from(struct inode *ip, u64 from)
{
	struct ext2 *fs = FS(ip);
	struct dinode *d = DI(ip);
	u64 p1 = fs->ptrs, base = NDIR;
	int r = 0;
	for (int i = 0; r == 0 && i < NDIR; i++)
		r = free_tree(ip, &d->block[i], 0, (u64)i, from);
	if (r == 0)
		r = free_tree(ip, &d->block[IND], 1, base, from);
	base += p1;
	if (r == 0)
		r = free_tree(ip, &d->block[DIND], 2, base, from);
	base += p1 * p1;
	if (r == 0)
		r = free_tree(ip, &d->block[TIND], 3, base, from);
	return r;
}

/* Is this a fast symbolic link (its target in i_block)? */
static bool fast_link(struct inode *ip)
{
	struct dinode *d = DI(ip);
	u32 acl_blocks = d->file_acl ? FS(ip)->bs / 512 : 0;
	return LX_S_ISLNK(ip->mode) && d->blocks == acl_blocks;
}

/* --- the page cache --- */

/*
 * A regular file's data lives in pool pages read once from the disk and
 * shared by everyone: processes map them (private mappings read-only until
 * their first store, shared ones writable), read() and write() copy from
 * and into them.  write() also copies into the touched blocks at once (the
 * block cache, which writes them back later), so that a full disk gives
 * ENOSPC to write() as on Linux; a shared mapping's stores reach the blocks
 * at pc_sync (fsync, msync, sync, the periodic writeback, unmount, and the
 * inode's last reference: a copy into the block cache, no disk I/O, so that
 * the shrinker may take the pages afterwards).  Holes read as zeros
 * and get their blocks at writeback.  An inode keeps its pages after its
 * last reference (it stays in memory with refs 0), so that the next
 * exec of a program or library finds them.  The cache holds at most
 * fs->pc_max pages (pc_shrink: clean pages no process maps, least recently
 * used file first), and gives such pages back when the pool runs dry
 * (pc_reclaim, mm/page.c's shrinker).
 */
static struct ext2 *pc_fs;              /* the mounted disk's, for pc_reclaim */

static struct einode *EI(struct inode *ip)
{
	return ip->fs_priv;
}

static uint8_t *pc_page(uintptr_t e)
{
	return (uint8_t *)(e & ~PC_DIRTY);
}

/* ip's cached page idx, or NULL. */
static uint8_t *pc_lookup(struct inode *ip, u64 idx)
{
	struct einode *e = EI(ip);
	return idx < e->npages ? pc_page(e->pages[idx]) : NULL;
}

/* Block blk into buf: from the block cache if it holds it (perhaps dirty),
 * else from the disk, uncached (file data has its page). */
static int blk_read_data(struct ext2 *fs, u32 blk, void *buf)
{
	if (!blk_valid(fs, blk))
		return -LX_EIO;
	u32 i = fs->bc ? bc_find(fs, blk) : 0;
	if (!i)
		return disk_io(fs, blk, buf, false);
	memcpy(buf, fs->bc[i].data, fs->bs);
	return 0;
}

/* Page idx of ip from its blocks into pg (zeroed): holes and bytes past EOF stay zero. */
static int pc_fill(struct inode *ip, u64 idx, uint8_t *pg)
{
	struct ext2 *fs = FS(ip);
	u32 per = (u32)(LX_PAGE_SIZE / fs->bs);
	for (u32 b = 0; b < per && (idx * per + b) * fs->bs < ip->size; b++) {
		u32 blk;
		int r = bmap(ip, idx * per + b, false, &blk);
		if (r == 0 && blk)
			r = blk_read_data(fs, blk, pg + b * fs->bs);
		if (r < 0)
			return r;
	}
	u64 start = idx * LX_PAGE_SIZE;
	if (ip->size - start < LX_PAGE_SIZE)
		memset(pg + (ip->size - start), 0, LX_PAGE_SIZE - (ip->size - start));
	return 0;
}

/* Slot idx of ip's pages[], grown to hold it; NULL without memory. */
static uintptr_t *pc_slot(struct inode *ip, u64 idx)
{
	struct einode *e = EI(ip);
	if (idx >= e->npages) {
		u64 n = e->npages ? e->npages : 16;
		while (n <= idx)
			n *= 2;
		uintptr_t *p = lx_realloc(e->pages, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + e->npages, 0, (n - e->npages) * sizeof(*p));
		e->pages = p;
		e->npages = n;
	}
	return &e->pages[idx];
}

static void lru_unlink(struct inode *ip)
{
	struct ext2 *fs = FS(ip);
	struct einode *e = EI(ip);
	*(e->lru_prev ? &EI(e->lru_prev)->lru_next : &fs->lru) = e->lru_next;
	*(e->lru_next ? &EI(e->lru_next)->lru_prev : &fs->lru_tail) = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

/* ip (with cached pages, or about to have one) becomes the most recently used. */
static void lru_touch(struct inode *ip)
{
	struct ext2 *fs = FS(ip);
	struct einode *e = EI(ip);
	if (fs->lru_tail == ip)
		return;
	if (e->lru_prev || fs->lru == ip)
		lru_unlink(ip);
	e->lru_prev = fs->lru_tail;
	*(fs->lru_tail ? &EI(fs->lru_tail)->lru_next : &fs->lru) = ip;
	fs->lru_tail = ip;
}

/* Drops ip's page idx (dirty or not): the cache's reference goes. */
static void pc_drop(struct inode *ip, u64 idx)
{
	struct einode *e = EI(ip);
	if (idx >= e->npages || !e->pages[idx])
		return;
	if (e->pages[idx] & PC_DIRTY)
		e->ndirty--;
	page_free(pc_page(e->pages[idx]));
	e->pages[idx] = 0;
	FS(ip)->pc_pages--;
	if (!--e->cached)
		lru_unlink(ip);
}

/* Drops ip's clean pages that nobody else holds (no mapping, no copy in progress); how many. */
static u64 pc_drop_clean(struct inode *ip)
{
	struct einode *e = EI(ip);
	u64 n = 0;
	for (u64 i = 0; i < e->npages && e->cached; i++) {
		uintptr_t p = e->pages[i];
		if (p && !(p & PC_DIRTY) && page_refcount(pc_page(p)) == 1) {
			pc_drop(ip, i);
			n++;
		}
	}
	return n;
}

/* Takes clean pages from the least recently used files (unreferenced ones
 * first) until at most `goal` are cached or none is left to take; `forget`:
 * unreferenced inodes left without pages go too (never from the shrinker: an
 * evict in progress holds one). */
static void pc_trim(struct ext2 *fs, struct inode *keep, u64 goal, bool forget)
{
	for (int any = 0; any < 2 && fs->pc_pages > goal; any++) {
		struct inode *next;
		for (struct inode *ip = fs->lru; ip && fs->pc_pages > goal; ip = next) {
			next = EI(ip)->lru_next;
			if (ip == keep || (!any && ip->refs))
				continue;
			pc_drop_clean(ip);
			if (forget && !ip->refs && !EI(ip)->cached)
				inode_forget(ip);
		}
	}
}

/* The cache is full: an eighth of it goes. */
static void pc_shrink(struct ext2 *fs, struct inode *keep)
{
	pc_trim(fs, keep, fs->pc_max - fs->pc_max / 8, true);
}

/* mm/page.c's shrinker: the pool is empty; a few hundred clean pages (cached
 * file pages first, then clean blocks) go back. */
static bool pc_reclaim(void)
{
	if (!pc_fs)
		return false;
	u64 before = pc_fs->pc_pages;
	if (before)
		pc_trim(pc_fs, NULL, before > 256 ? before - 256 : 0, false);
	return pc_fs->pc_pages < before || bc_reclaim(pc_fs, 256) > 0;
}

/* Page idx of ip, read from the disk the first time; NULL and *err without memory or on EIO. */
static uint8_t *pc_get(struct inode *ip, u64 idx, int *err)
{
	struct ext2 *fs = FS(ip);
	struct einode *e = EI(ip);
	uint8_t *pg = pc_lookup(ip, idx);
	if (pg) {
		lru_touch(ip);
		return pg;
	}
	if (fs->pc_pages >= fs->pc_max)
		pc_shrink(fs, ip);
	uintptr_t *slot = pc_slot(ip, idx);
	if (!slot || !(pg = page_alloc())) {
		*err = -LX_ENOMEM;
		return NULL;
	}
	if ((*err = pc_fill(ip, idx, pg)) < 0) {
		page_free(pg);
		return NULL;
	}
	e->pages[idx] = (uintptr_t)pg;
	e->cached++;
	fs->pc_pages++;
	lru_touch(ip);
	return pg;
}

/* Writes the blocks of cached page idx that hold its bytes [from, to), allocating holes.
 * The caller keeps the page from the shrinker (dirty, or a reference of its own). */
static int pc_write_blocks(struct inode *ip, u64 idx, u32 from, u32 to)
{
	struct ext2 *fs = FS(ip);
	uint8_t *pg = pc_lookup(ip, idx);
	u32 per = (u32)(LX_PAGE_SIZE / fs->bs);
	int r = 0;
	for (u32 b = from / fs->bs; r == 0 && b * fs->bs < to; b++) {
		u32 blk;
		if ((r = bmap(ip, idx * per + b, true, &blk)) == 0)
			r = blk_write(fs, blk, pg + b * fs->bs);
	}
	return r;
}

/* Writes dirty page idx back (its bytes within the file; the rest of the page
 * is zeroed first, as Linux does, so that a later growth reads zeros). */
static int pc_write_page(struct inode *ip, u64 idx)
{
	u64 start = idx * LX_PAGE_SIZE;
	if (start >= ip->size)
		return 0;
	u64 len = ip->size - start < LX_PAGE_SIZE ? ip->size - start : LX_PAGE_SIZE;
	memset(pc_lookup(ip, idx) + len, 0, LX_PAGE_SIZE - len);
	return pc_write_blocks(ip, idx, 0, (u32)len);
}

/* Writes ip's dirty pages back.  A page some space still maps stays dirty: a
 * shared mapping may store into it again without lx knowing. */
static int pc_sync(struct inode *ip)
{
	struct einode *e = EI(ip);
	int r = 0, w;
	bool wrote = false;
	for (u64 i = 0; i < e->npages && e->ndirty; i++) {
		if (!(e->pages[i] & PC_DIRTY))
			continue;
		if ((w = pc_write_page(ip, i)) < 0) {
			r = r ? r : w;
			continue;
		}
		wrote = true;
		if (page_refcount(pc_page(e->pages[i])) == 1) {
			e->pages[i] &= ~PC_DIRTY;
			e->ndirty--;
		}
	}
	if (wrote && (w = inode_write(ip)) < 0 && !r)
		r = w;
	return r;
}

/* The file shrinks to size: pages wholly past it go (mappings keep their own
 * references until vm_file_shrunk takes them), the one holding it loses its tail. */
static void pc_truncate(struct inode *ip, u64 size)
{
	struct einode *e = EI(ip);
	for (u64 i = (size + LX_PAGE_SIZE - 1) / LX_PAGE_SIZE; i < e->npages && e->cached; i++)
		pc_drop(ip, i);
	uint8_t *pg = size % LX_PAGE_SIZE ? pc_lookup(ip, size / LX_PAGE_SIZE) : NULL;
	if (pg)
		memset(pg + size % LX_PAGE_SIZE, 0, LX_PAGE_SIZE - size % LX_PAGE_SIZE);
}

/* Zeroes the cached bytes of [off, end) (a punched hole). */
static void pc_zero(struct inode *ip, u64 off, u64 end)
{
	while (off < end) {
		u64 in = off % LX_PAGE_SIZE, chunk = LX_PAGE_SIZE - in;
		chunk = chunk > end - off ? end - off : chunk;
		uint8_t *pg = pc_lookup(ip, off / LX_PAGE_SIZE);
		if (pg)
			memset(pg + in, 0, chunk);
		off += chunk;
	}
}

/* fs_ops.page: the cached page holding byte off (a hole's reads as zeros and gets
 * blocks at writeback, so `alloc` changes nothing); NULL past EOF or on failure. */
static void *ext2_page(struct inode *ip, u64 off, bool alloc)
{
	(void)alloc;
	int err;
	if (!LX_S_ISREG(ip->mode) || off >= ip->size)
		return NULL;
	return pc_get(ip, off / LX_PAGE_SIZE, &err);
}

/* fs_ops.page_dirty: a shared mapping may store into the page holding off. */
static void ext2_page_dirty(struct inode *ip, u64 off)
{
	struct einode *e = EI(ip);
	u64 idx = off / LX_PAGE_SIZE;
	if (idx < e->npages && e->pages[idx] && !(e->pages[idx] & PC_DIRTY)) {
		e->pages[idx] |= PC_DIRTY;
		e->ndirty++;
		wb_arm(FS(ip));
	}
}

/* --- file data --- */

/* Bytes of block n of ip from in, chunk long, into or out of buf. */
static int data_io(struct inode *ip, u64 n, u32 in, void *buf, u32 chunk, bool write)
{
	struct ext2 *fs = FS(ip);
	u32 blk;
	int r = bmap(ip, n, false, &blk);
	if (r < 0)
		return r;
	if (!write) {
		if (!blk)
			memset(buf, 0, chunk);
		else if ((r = blk_read(fs, blk, fs->scratch)) == 0)
			memcpy(buf, (char *)fs->scratch + in, chunk);
		return r;
	}
	bool fresh = !blk;      /* a new block holds old disk content: start from zeros */
	if (fresh && (r = bmap(ip, n, true, &blk)) < 0)
		return r;
	if (fresh)
		memset(fs->scratch, 0, fs->bs);
	else if (chunk < fs->bs && (r = blk_read(fs, blk, fs->scratch)) < 0)
		return r;
	memcpy((char *)fs->scratch + in, buf, chunk);
	return blk_write(fs, blk, fs->scratch);
}

static long ext2_rw(struct inode *ip, u64 off, void *buf, size_t n, bool write)
{
	struct ext2 *fs = FS(ip);
	size_t done = 0;
	int r = 0;
	while (done < n) {
		u64 at = off + done;
		u32 in = (u32)(at % fs->bs), chunk = fs->bs - in;
		if (chunk > n - done)
			chunk = (u32)(n - done);
		if ((r = data_io(ip, at / fs->bs, in, (char *)buf + done, chunk, write)) < 0)
			break;
		done += chunk;
	}
	return done ? (long)done : r;
}

/* read() of a regular file: through its cached pages (pc_get). */
static long pc_read(struct inode *ip, u64 off, void *buf, size_t n)
{
	size_t done = 0;
	int err = 0;
	while (done < n) {
		u64 at = off + done, in = at % LX_PAGE_SIZE, chunk = LX_PAGE_SIZE - in;
		chunk = chunk > n - done ? n - done : chunk;
		uint8_t *pg = pc_get(ip, at / LX_PAGE_SIZE, &err);
		if (!pg)
			break;
		memcpy((char *)buf + done, pg + in, chunk);
		done += chunk;
	}
	return done ? (long)done : err;
}

/* write() of a regular file: into its cached page where there is one, then
 * the touched blocks into the block cache (from the page); a page not cached
 * goes to its blocks directly (no mapping can hold it). */
static long pc_write(struct inode *ip, u64 off, const void *buf, size_t n)
{
	size_t done = 0;
	long r = 0;
	while (done < n) {
		u64 at = off + done, in = at % LX_PAGE_SIZE, chunk = LX_PAGE_SIZE - in;
		chunk = chunk > n - done ? n - done : chunk;
		uint8_t *pg = pc_lookup(ip, at / LX_PAGE_SIZE);
		if (pg) {
			page_get(pg);   /* bmap may allocate: the shrinker must not take it */
			memcpy(pg + in, (const char *)buf + done, chunk);
			r = pc_write_blocks(ip, at / LX_PAGE_SIZE, (u32)in, (u32)(in + chunk));
			page_free(pg);
			r = r < 0 ? r : (long)chunk;
		} else {
			r = ext2_rw(ip, at, (char *)buf + done, chunk, true);
		}
		if (r < 0)
			break;
		done += (size_t)r;
		if ((u64)r < chunk)
			break;
	}
	return done ? (long)done : r;
}

static long ext2_read(struct inode *ip, u64 off, void *buf, size_t n)
{
	if (LX_S_ISDIR(ip->mode))
		return -LX_EISDIR;
	if (!LX_S_ISREG(ip->mode))
		return -LX_EINVAL;
	if (off >= ip->size)
		return 0;
	if (n > ip->size - off)
		n = ip->size - off;
	return pc_read(ip, off, buf, n);
}

static long ext2_write(struct inode *ip, u64 off, const void *buf, size_t n)
{
	if (LX_S_ISDIR(ip->mode))
		return -LX_EISDIR;
	if (!LX_S_ISREG(ip->mode))
		return -LX_EINVAL;
	if (off > (1ULL << 40) || n > (1ULL << 40) - off)
		return -LX_EFBIG;
	if (off > ip->size)
		pc_truncate(ip, ip->size);      /* the bytes up to off read as zeros */
	long done = pc_write(ip, off, buf, n);
	if (done > 0 && off + (u64)done > ip->size)
		ip->size = off + (u64)done;
	if (done > 0) {
		now(&ip->mtime);
		ip->ctime = ip->mtime;
	}
	int r = inode_write(ip);        /* also after a failure: blocks may have been added */
	return done > 0 ? done : (done < 0 ? done : r);
}

/* Zero the rest of the block holding byte size (a later growth must read zeros). */
static int zero_tail(struct inode *ip, u64 size)
{
	struct ext2 *fs = FS(ip);
	u32 in = (u32)(size % fs->bs), blk;
	if (!in)
		return 0;
	int r = bmap(ip, size / fs->bs, false, &blk);
	if (r < 0 || !blk)
		return r;
	if ((r = blk_read(fs, blk, fs->scratch)) < 0)
		return r;
	memset((char *)fs->scratch + in, 0, fs->bs - in);
	return blk_write(fs, blk, fs->scratch);
}

static int ext2_truncate(struct inode *ip, u64 size)
{
	struct ext2 *fs = FS(ip);
	if (LX_S_ISDIR(ip->mode))
		return -LX_EISDIR;
	if (!LX_S_ISREG(ip->mode))
		return -LX_EINVAL;
	if (size > (1ULL << 40))
		return -LX_EFBIG;
	int r = 0;
	if (size < ip->size) {
		r = zero_tail(ip, size);
		if (r == 0)
			r = free_from(ip, (size + fs->bs - 1) / fs->bs);
	}
	pc_truncate(ip, size < ip->size ? size : ip->size);     /* past EOF: gone, or zeros */
	ip->size = size;
	now(&ip->mtime);
	ip->ctime = ip->mtime;
	int w = inode_write(ip);
	return r ? r : w;
}

/* Blocks for the holes of [off, end), zeroed (they must read as zeros). */
static int alloc_range(struct inode *ip, u64 off, u64 end)
{
	struct ext2 *fs = FS(ip);
	int r = 0;
	for (u64 n = off / fs->bs; r == 0 && n * fs->bs < end; n++) {
		u32 blk;
		if ((r = bmap(ip, n, false, &blk)) < 0 || blk)
			continue;
		if ((r = bmap(ip, n, true, &blk)) == 0)
			r = blk_zero(fs, blk);
	}
	return r;
}

/* Zeroes the allocated bytes of [off, end); holes stay holes, blocks stay allocated. */
static int zero_range(struct inode *ip, u64 off, u64 end)
{
	struct ext2 *fs = FS(ip);
	int r = 0;
	while (r == 0 && off < end) {
		u32 in = (u32)(off % fs->bs), chunk = fs->bs - in, blk;
		if (chunk > end - off)
			chunk = (u32)(end - off);
		if ((r = bmap(ip, off / fs->bs, false, &blk)) == 0 && blk &&
		    (r = blk_read(fs, blk, fs->scratch)) == 0) {
			memset((char *)fs->scratch + in, 0, chunk);
			r = blk_write(fs, blk, fs->scratch);
		}
		off += chunk;
	}
	return r;
}

/*
 * fallocate.  Linux's own ext2 driver refuses it (EOPNOTSUPP); lx's disk
 * root stands where Linux systems have ext4, so lx allocates as ext4 does,
 * within the file's size (blocks past i_size would be an e2fsck error in
 * ext2), and punches by zeroing the range's allocated bytes.
 */
static int ext2_allocate(struct inode *ip, int mode, u64 off, u64 len)
{
	if (!LX_S_ISREG(ip->mode))
		return LX_S_ISDIR(ip->mode) ? -LX_EISDIR : -LX_ENODEV;
	if (off > (1ULL << 40) || len > (1ULL << 40) - off)
		return -LX_EFBIG;
	u64 end = off + len, size = mode & LX_FALLOC_KEEP_SIZE ? ip->size : end > ip->size ? end : ip->size;
	int r = 0;
	if (end > size)
		end = size;
	if (off < end)
		r = mode & LX_FALLOC_PUNCH_HOLE ? zero_range(ip, off, end) : alloc_range(ip, off, end);
	if (off < end && (mode & LX_FALLOC_PUNCH_HOLE))
		pc_zero(ip, off, end);
	if (r == 0 && size > ip->size)
		pc_truncate(ip, ip->size);      /* the growth reads zeros */
	if (r == 0)
		ip->size = size;
	else if (size > ip->size)       /* no blocks may stay past i_size */
		free_from(ip, (ip->size + FS(ip)->bs - 1) / FS(ip)->bs);
	now(&ip->mtime);
	ip->ctime = ip->mtime;
	int w = inode_write(ip);        /* also after a failure: blocks may have been added */
	return r ? r : w;
}

static u64 ext2_blocks(const struct inode *ip)
{
	return DI((struct inode *)ip)->blocks;
}

/* --- directories --- */

static u32 rec_need(u32 name_len)
{
	return (8 + name_len + 3) & ~3u;
}

/* Is the entry at off in a block of size bs sound? */
static bool dirent_ok(struct ext2 *fs, const uint8_t *b, u32 off)
{
	const struct ddirent *e = (const void *)(b + off);
	if (off + 8 > fs->bs || e->rec_len < 8 || (e->rec_len & 3) || off + e->rec_len > fs->bs)
		return false;
	return !e->inode || (rec_need(e->name_len) <= e->rec_len && e->inode <= fs->ds.inodes_count);
}

/* Walks dir's entries: fn sees each (live or free) with its block's number and offset;
 * a non-zero return stops the walk and is returned (EIO for a damaged block). */
typedef int (*dirent_fn)(struct inode *dir, uint8_t *b, u32 blk, u32 off, void *arg);

static int dir_walk(struct inode *dir, dirent_fn fn, void *arg)
{
	struct ext2 *fs = FS(dir);
	uint8_t *b = page_alloc();
	if (!b)
		return -LX_ENOMEM;
	int r = 0;
	for (u64 n = 0; r == 0 && n < dir->size / fs->bs; n++) {
		u32 blk;
		r = bmap(dir, n, false, &blk);
		if (r == 0 && !blk)
			r = -LX_EIO;    /* directories have no holes */
		if (r == 0)
			r = blk_read(fs, blk, b);
		for (u32 off = 0; r == 0 && off < fs->bs; off += ((struct ddirent *)(b + off))->rec_len)
			r = dirent_ok(fs, b, off) ? fn(dir, b, blk, off, arg) : -LX_EIO;
	}
	page_free(b);
	return r;
}

/*
 * The name cache: (directory inode, name) -> inode number, 0 for a name
 * known to be absent, in sets of two by a hash of both; filled by lookups
 * and by the entries a listing passes (not a lookup's scan: scans of big
 * directories for names they lack would evict what is used).  Every change of a
 * directory's entries goes through dir_add, dir_remove or dir_retarget,
 * which drop the name's entry; a freed directory's number may come back as
 * another directory, so freeing one voids every entry (a new epoch).  Names
 * longer than NAME_CACHED are not kept.
 */
#define NAMES 4096
#define NAME_CACHED 38

struct name_ent {
	u32 dir, ino, epoch;
	uint8_t len;
	char name[NAME_CACHED + 1];
};

/* The set of two entries where name in dir may be (the most recently put first). */
static struct name_ent *name_set(struct ext2 *fs, u32 dir, const char *name, size_t len)
{
	if (!fs->names || len > NAME_CACHED)
		return NULL;
	u32 h = 2166136261u ^ dir;              /* FNV-1a over the number and the name */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return &fs->names[(h % (NAMES / 2)) * 2];
}

static bool name_is(const struct name_ent *e, struct ext2 *fs, u32 dir, const char *name,
		    size_t len)
{
	return e->epoch == fs->names_epoch && e->dir == dir && e->len == len &&
	       !memcmp(e->name, name, len);
}

/* The entry of name in dir, or NULL. */
static struct name_ent *name_find(struct ext2 *fs, u32 dir, const char *name, size_t len)
{
	struct name_ent *e = name_set(fs, dir, name, len);
	for (int i = 0; e && i < 2; i++)
		if (name_is(&e[i], fs, dir, name, len))
			return &e[i];
	return NULL;
}

/* True and *ino (0: absent) if the cache knows name in dir. */
static bool names_get(struct ext2 *fs, u32 dir, const char *name, size_t len, u32 *ino)
{
	struct name_ent *e = name_find(fs, dir, name, len);
	if (e)
		*ino = e->ino;
	return e != NULL;
}

/* name in dir is ino (0: absent): first in its set, the other entry kept second. */
static void names_put(struct ext2 *fs, u32 dir, const char *name, size_t len, u32 ino)
{
	struct name_ent *e = name_set(fs, dir, name, len);
	if (!e)
		return;
	if (!name_is(&e[0], fs, dir, name, len))
		e[1] = e[0];
	e[0] = (struct name_ent){ .dir = dir, .ino = ino, .epoch = fs->names_epoch,
				  .len = (uint8_t)len };
	memcpy(e[0].name, name, len);
}

/* name in dir is changing: forget what the cache knew of it. */
static void names_drop(struct ext2 *fs, u32 dir, const char *name, size_t len)
{
	struct name_ent *e = name_find(fs, dir, name, len);
	if (e)
		e->epoch = 0;
}

struct find { const char *name; size_t len; u32 ino, blk, off, prev; uint8_t type; };

static int find_fn(struct inode *dir, uint8_t *b, u32 blk, u32 off, void *arg)
{
	(void)dir;
	struct find *f = arg;
	struct ddirent *e = (void *)(b + off);
	if (off == 0 || f->blk != blk)
		f->prev = ~0u;
	if (e->inode && e->name_len == f->len && !memcmp(e->name, f->name, f->len)) {
		f->ino = e->inode;
		f->blk = blk;
		f->off = off;
		f->type = e->file_type;
		return 1;
	}
	f->blk = blk;
	f->prev = off;
	return 0;
}

/* The entry called name[0..len) in dir: 1 and *f filled, 0 if none, or -errno. */
static int dir_find(struct inode *dir, const char *name, size_t len, struct find *f)
{
	*f = (struct find){ .name = name, .len = len, .prev = ~0u, .blk = 0 };
	return dir_walk(dir, find_fn, f);
}

static int ext2_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	struct ext2 *fs = FS(dir);
	u32 ino;
	if (!names_get(fs, (u32)dir->ino, name, len, &ino)) {
		struct find f;
		int r = dir_find(dir, name, len, &f);
		if (r < 0)
			return r;
		ino = r ? f.ino : 0;
		names_put(fs, (u32)dir->ino, name, len, ino);
	}
	return ino ? iget(dir->sb, ino, out) : -LX_ENOENT;
}

static uint8_t ftype(u32 mode)
{
	static const uint8_t t[16] = { [LX_S_IFREG >> 12] = 1, [LX_S_IFDIR >> 12] = 2,
		[LX_S_IFCHR >> 12] = 3, [LX_S_IFBLK >> 12] = 4, [LX_S_IFIFO >> 12] = 5,
		[LX_S_IFSOCK >> 12] = 6, [LX_S_IFLNK >> 12] = 7 };
	return t[(mode & LX_S_IFMT) >> 12];
}

struct slot { u32 need, blk, off; bool found; };

static int slot_fn(struct inode *dir, uint8_t *b, u32 blk, u32 off, void *arg)
{
	(void)dir;
	struct slot *s = arg;
	struct ddirent *e = (void *)(b + off);
	u32 used = e->inode ? rec_need(e->name_len) : 0;
	if (e->rec_len - used >= s->need) {
		s->blk = blk;
		s->off = off;
		s->found = true;
		return 1;
	}
	return 0;
}

/* Writes a new entry into the free room of the entry at off in block b (blk). */
static int entry_put(struct inode *dir, uint8_t *b, u32 blk, u32 off, const char *name,
		     u32 ino, uint8_t type)
{
	struct ddirent *e = (void *)(b + off);
	if (e->inode) {
		u32 used = rec_need(e->name_len);
		struct ddirent *n = (void *)(b + off + used);
		n->rec_len = (uint16_t)(e->rec_len - used);
		e->rec_len = (uint16_t)used;
		e = n;
	}
	size_t len = strlen(name);
	e->inode = ino;
	e->name_len = (uint8_t)len;
	e->file_type = type;
	memcpy(e->name, name, len);
	return blk_write(FS(dir), blk, b);
}

/* A dir entry changed: mtime and ctime, the htree index dropped, the record written. */
static int dir_changed(struct inode *dir)
{
	now(&dir->mtime);
	dir->ctime = dir->mtime;
	DI(dir)->flags &= ~INDEX_FL;
	return inode_write(dir);
}

/* Adds name -> ino to dir: into free room of a block, or a new block at the end. */
static int dir_add(struct inode *dir, const char *name, u32 ino, uint8_t type)
{
	struct ext2 *fs = FS(dir);
	names_drop(fs, (u32)dir->ino, name, strlen(name));
	struct slot s = { .need = rec_need((u32)strlen(name)) };
	int r = dir_walk(dir, slot_fn, &s);
	uint8_t *b = page_alloc();
	if (r < 0 || !b) {
		page_free(b);
		return r < 0 ? r : -LX_ENOMEM;
	}
	if (s.found) {
		r = blk_read(fs, s.blk, b);
	} else {
		r = bmap(dir, dir->size / fs->bs, true, &s.blk);
		memset(b, 0, fs->bs);
		((struct ddirent *)b)->rec_len = (uint16_t)fs->bs;
		s.off = 0;
		if (r == 0)
			dir->size += fs->bs;
	}
	if (r == 0)
		r = entry_put(dir, b, s.blk, s.off, name, ino, type);
	page_free(b);
	int w = dir_changed(dir);
	return r ? r : w;
}

/* Removes the entry f found: merged into the one before it, or marked free. */
static int dir_remove(struct inode *dir, const struct find *f)
{
	struct ext2 *fs = FS(dir);
	names_drop(fs, (u32)dir->ino, f->name, f->len);
	uint8_t *b = page_alloc();
	if (!b)
		return -LX_ENOMEM;
	int r = blk_read(fs, f->blk, b);
	if (r == 0) {
		struct ddirent *e = (void *)(b + f->off);
		if (f->prev != ~0u)
			((struct ddirent *)(b + f->prev))->rec_len += e->rec_len;
		else
			e->inode = 0;
		r = blk_write(fs, f->blk, b);
	}
	page_free(b);
	int w = dir_changed(dir);
	return r ? r : w;
}

/* Points the entry f found at ino (rename over an existing name, or ".."). */
static int dir_retarget(struct inode *dir, const struct find *f, u32 ino, uint8_t type)
{
	struct ext2 *fs = FS(dir);
	names_drop(fs, (u32)dir->ino, f->name, f->len);
	uint8_t *b = page_alloc();
	if (!b)
		return -LX_ENOMEM;
	int r = blk_read(fs, f->blk, b);
	if (r == 0) {
		struct ddirent *e = (void *)(b + f->off);
		e->inode = ino;
		e->file_type = type;
		r = blk_write(fs, f->blk, b);
	}
	page_free(b);
	int w = dir_changed(dir);
	return r ? r : w;
}

static int empty_fn(struct inode *dir, uint8_t *b, u32 blk, u32 off, void *arg)
{
	(void)dir, (void)blk, (void)arg;
	struct ddirent *e = (void *)(b + off);
	if (!e->inode)
		return 0;
	bool dot = (e->name_len == 1 && e->name[0] == '.') ||
		   (e->name_len == 2 && e->name[0] == '.' && e->name[1] == '.');
	return dot ? 0 : 1;
}

/* 1 if dir has entries besides "." and "..", 0 if not, or -errno. */
static int dir_nonempty(struct inode *dir)
{
	return dir_walk(dir, empty_fn, NULL);
}

struct dents { uint64_t *pos; void *buf; size_t n, at; u64 base; bool full; };

static int dents_fn(struct inode *dir, uint8_t *b, u32 blk, u32 off, void *arg)
{
	(void)blk;
	struct dents *d = arg;
	struct ddirent *e = (void *)(b + off);
	if (off == 0)
		d->base += FS(dir)->bs;
	u64 here = d->base - FS(dir)->bs + off, next = here + e->rec_len;
	if (here < *d->pos || !e->inode)
		return 0;
	size_t rec = (offsetof(struct lx_dirent64, d_name) + e->name_len + 1 + 7) & ~7UL;
	if (d->at + rec > d->n) {
		d->full = true;
		return 1;
	}
	struct lx_dirent64 *o = (struct lx_dirent64 *)((char *)d->buf + d->at);
	memset(o, 0, rec);
	o->d_ino = e->inode;
	o->d_off = (int64_t)next;
	o->d_reclen = (uint16_t)rec;
	static const uint8_t dt[8] = { LX_DT_UNKNOWN, LX_DT_REG, LX_DT_DIR, LX_DT_CHR, LX_DT_BLK,
				       LX_DT_FIFO, LX_DT_SOCK, LX_DT_LNK };
	o->d_type = dt[e->file_type & 7];
	memcpy(o->d_name, e->name, e->name_len);
	d->at += rec;
	*d->pos = next;
	names_put(FS(dir), (u32)dir->ino, e->name, e->name_len, e->inode);   /* (ls -l looks next) */
	return 0;
}

/* Positions are byte offsets of entries in the directory. */
static long ext2_getdents(struct inode *dir, uint64_t *pos, void *buf, size_t n)
{
	if (dir->nlink == 0)
		return -LX_ENOENT;
	struct dents d = { pos, buf, n, 0, 0, false };
	int r = dir_walk(dir, dents_fn, &d);
	if (r < 0)
		return d.at ? (long)d.at : r;
	if (d.full && d.at == 0)
		return -LX_EINVAL;
	if (!d.full)
		*pos = dir->size;
	return (long)d.at;
}

/* --- names --- */

/* fs_new_name_ok's checks, and not taken. */
static int new_name_check(struct inode *dir, const char *name)
{
	size_t len = strlen(name);
	int r = fs_new_name_ok(dir, name, len);
	if (r < 0)
		return r;
	struct find f;
	r = dir_find(dir, name, len, &f);
	return r < 0 ? r : r ? -LX_EEXIST : 0;
}

/* A new inode of mode in dir's group: the record zeroed, links 0, times now. */
static int inode_new(struct inode *dir, u32 mode, struct inode **out)
{
	struct ext2 *fs = FS(dir);
	u32 ino;
	int r = inode_alloc(fs, (u32)(dir->ino - 1) / fs->ds.inodes_per_group, LX_S_ISDIR(mode), &ino);
	if (r < 0)
		return r;
	struct inode *ip = inode_mem(dir->sb, ino);
	if (!ip) {
		inode_free(fs, ino, LX_S_ISDIR(mode));
		return -LX_ENOMEM;
	}
	ip->mode = mode;
	fs_init_owner(ip, dir);
	now(&ip->mtime);
	ip->atime = ip->ctime = ip->mtime;
	*out = ip;
	return 0;
}

/* A new directory's first block: "." and "..". */
static int dir_init(struct inode *ip, struct inode *parent)
{
	struct ext2 *fs = FS(ip);
	u32 blk;
	int r = bmap(ip, 0, true, &blk);
	uint8_t *b = page_alloc();
	if (r < 0 || !b) {
		page_free(b);
		return r < 0 ? r : -LX_ENOMEM;
	}
	struct ddirent *dot = (void *)b, *dotdot = (void *)(b + 12);
	*dot = (struct ddirent){ (u32)ip->ino, 12, 1, 2 };
	dot->name[0] = '.';
	*dotdot = (struct ddirent){ (u32)parent->ino, (uint16_t)(fs->bs - 12), 2, 2 };
	dotdot->name[0] = dotdot->name[1] = '.';
	r = blk_write(fs, blk, b);
	page_free(b);
	ip->size = fs->bs;
	return r;
}

static int ext2_create(struct inode *dir, const char *name, uint32_t mode, uint64_t rdev,
		       struct inode **out)
{
	int r = new_name_check(dir, name);
	if (r < 0)
		return r;
	if ((mode & LX_S_IFMT) == 0 || LX_S_ISLNK(mode) || !ftype(mode))
		return -LX_EINVAL;
	struct inode *ip;
	if ((r = inode_new(dir, mode, &ip)) < 0)
		return r;
	bool isdir = LX_S_ISDIR(mode);
	ip->nlink = isdir ? 2 : 1;
	if (LX_S_ISCHR(mode) || (mode & LX_S_IFMT) == LX_S_IFBLK) {
		ip->rdev = rdev;
		dev_encode(DI(ip), rdev);
	}
	if (isdir)
		r = dir_init(ip, dir);
	if (r == 0)
		r = inode_write(ip);
	if (r == 0)
		r = dir_add(dir, name, (u32)ip->ino, ftype(mode));
	if (r == 0 && isdir) {
		dir->nlink++;
		r = inode_write(dir);
	}
	if (r < 0) {
		ip->nlink = 0;          /* evict gives its blocks and number back */
		fs_put(ip);
		return r;
	}
	if (out)
		*out = ip;
	else
		fs_put(ip);
	return 0;
}

/* fs_link checked the target: not a directory, still linked. */
static int ext2_link(struct inode *dir, const char *name, struct inode *target)
{
	if (target->nlink >= 65000)
		return -LX_EMLINK;
	int r = new_name_check(dir, name);
	if (r == 0)
		r = dir_add(dir, name, (u32)target->ino, ftype(target->mode));
	if (r < 0)
		return r;
	target->nlink++;
	now(&target->ctime);
	return inode_write(target);
}

static int ext2_symlink(struct inode *dir, const char *name, const char *target)
{
	size_t tlen = strlen(target);
	if (tlen == 0)
		return -LX_ENOENT;
	if (tlen >= LX_PATH_MAX || tlen >= FS(dir)->bs)
		return -LX_ENAMETOOLONG;
	int r = new_name_check(dir, name);
	struct inode *ip;
	if (r < 0 || (r = inode_new(dir, LX_S_IFLNK | 0777, &ip)) < 0)
		return r;
	ip->nlink = 1;
	ip->size = tlen;
	if (tlen < FAST_LINK_MAX)
		memcpy(DI(ip)->block, target, tlen);
	else
		r = ext2_rw(ip, 0, (void *)target, tlen, true) == (long)tlen ? 0 : -LX_ENOSPC;
	if (r == 0)
		r = inode_write(ip);
	if (r == 0)
		r = dir_add(dir, name, (u32)ip->ino, ftype(LX_S_IFLNK));
	if (r < 0)
		ip->nlink = 0;
	fs_put(ip);
	return r;
}

static long ext2_readlink(struct inode *ip, char *buf, size_t n)
{
	if (ip->size >= LX_PATH_MAX || ip->size > FS(ip)->bs)
		return -LX_EIO;
	if (n > ip->size)
		n = ip->size;
	if (fast_link(ip)) {
		if (ip->size >= FAST_LINK_MAX)
			return -LX_EIO;
		memcpy(buf, DI(ip)->block, n);
		return (long)n;
	}
	return ext2_rw(ip, 0, buf, n, false);
}

/* dir's entry name, which must exist: *f and the inode (a reference). */
static int entry_get(struct inode *dir, const char *name, struct find *f, struct inode **ip)
{
	size_t len = strlen(name);
	if (!LX_S_ISDIR(dir->mode))
		return -LX_ENOTDIR;
	if (len > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	int r = dir_find(dir, name, len, f);
	if (r <= 0)
		return r ? r : -LX_ENOENT;
	return iget(dir->sb, f->ino, ip);
}

static int ext2_unlink(struct inode *dir, const char *name)
{
	size_t len = strlen(name);
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return LX_S_ISDIR(dir->mode) ? -LX_EISDIR : -LX_ENOTDIR;
	struct find f;
	struct inode *ip;
	int r = entry_get(dir, name, &f, &ip);
	if (r < 0)
		return r;
	if (LX_S_ISDIR(ip->mode))
		r = -LX_EISDIR;
	else if ((r = dir_remove(dir, &f)) == 0) {
		ip->nlink--;
		now(&ip->ctime);
		r = inode_write(ip);
	}
	fs_put(ip);
	return r;
}

static int ext2_rmdir(struct inode *dir, const char *name)
{
	size_t len = strlen(name);
	if (len == 0)
		return -LX_EBUSY;
	if (len == 1 && name[0] == '.')
		return -LX_EINVAL;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return -LX_ENOTEMPTY;
	struct find f;
	struct inode *ip;
	int r = entry_get(dir, name, &f, &ip);
	if (r < 0)
		return r;
	if (!LX_S_ISDIR(ip->mode))
		r = -LX_ENOTDIR;
	else if ((r = dir_nonempty(ip)) > 0)
		r = -LX_ENOTEMPTY;
	else if (r == 0 && (r = dir_remove(dir, &f)) == 0) {
		ip->nlink = 0;
		dir->nlink--;
		r = inode_write(dir);
	}
	fs_put(ip);
	return r;
}

/* Whether directory d is a or lies below it (walking ".." up to the root). */
static int below(struct inode *d, struct inode *a)
{
	struct inode *cur = d, *up;
	fs_get(cur);
	int r = 0;
	for (int depth = 0; r == 0; depth++) {
		if (cur == a) {
			r = 1;
			break;
		}
		if (cur->ino == ROOT_INO || depth > 4096)
			break;
		struct find f;
		r = dir_find(cur, "..", 2, &f);
		r = r <= 0 ? (r ? r : -LX_EIO) : iget(cur->sb, f.ino, &up);
		if (r == 0) {
			fs_put(cur);
			cur = up;
		}
	}
	fs_put(cur);
	return r;
}

static int rename_check(struct inode *src, struct inode *dst, struct inode *ndir)
{
	bool sdir = LX_S_ISDIR(src->mode);
	int r = sdir ? below(ndir, src) : 0;
	if (r != 0)
		return r > 0 ? -LX_EINVAL : r;
	if (!dst)
		return 0;
	if (sdir && !LX_S_ISDIR(dst->mode))
		return -LX_ENOTDIR;
	if (!sdir && LX_S_ISDIR(dst->mode))
		return -LX_EISDIR;
	if (sdir && (r = dir_nonempty(dst)) != 0)
		return r > 0 ? -LX_ENOTEMPTY : r;
	return 0;
}

/* The renamed directory src moved from odir to ndir: its ".." and both link counts. */
static int reparent(struct inode *src, struct inode *odir, struct inode *ndir)
{
	struct find f;
	int r = dir_find(src, "..", 2, &f);
	if (r <= 0)
		return r ? r : -LX_EIO;
	if ((r = dir_retarget(src, &f, (u32)ndir->ino, 2)) < 0)
		return r;
	odir->nlink--;
	ndir->nlink++;
	r = inode_write(odir);
	return r ? r : inode_write(ndir);
}

/* The file dst lost the name it had (rename over it). */
static int replaced(struct inode *dst, struct inode *ndir)
{
	if (LX_S_ISDIR(dst->mode)) {
		dst->nlink = 0;
		ndir->nlink--;
		return inode_write(ndir);
	}
	dst->nlink--;
	now(&dst->ctime);
	return inode_write(dst);
}

static int rename_do(struct inode *odir, struct find *of, struct inode *src, struct inode *ndir,
		     const char *nname, struct inode *dst, struct find *nf)
{
	int r = dst ? dir_retarget(ndir, nf, (u32)src->ino, ftype(src->mode))
		    : dir_add(ndir, nname, (u32)src->ino, ftype(src->mode));
	if (r < 0)
		return r;
	/* ndir's change may have moved odir's entry (same directory): find it again */
	struct find f2;
	r = dir_find(odir, of->name, of->len, &f2);
	if (r == 1 && f2.ino == src->ino)
		r = dir_remove(odir, &f2);
	else
		r = r < 0 ? r : -LX_EIO;
	if (r == 0 && LX_S_ISDIR(src->mode) && odir != ndir)
		r = reparent(src, odir, ndir);
	if (r == 0 && dst)
		r = replaced(dst, ndir);
	now(&src->ctime);
	int w = inode_write(src);
	return r ? r : w;
}

static int ext2_rename(struct inode *odir, const char *oname, struct inode *ndir, const char *nname)
{
	size_t olen = strlen(oname), nlen = strlen(nname);
	bool odot = olen <= 2 && oname[0] == '.' && (olen == 1 || oname[1] == '.');
	bool ndot = nlen <= 2 && nname[0] == '.' && (nlen == 1 || nname[1] == '.');
	if (!LX_S_ISDIR(ndir->mode))
		return -LX_ENOTDIR;
	if (olen == 0 || nlen == 0 || odot || ndot)
		return olen && nlen ? -LX_EBUSY : -LX_ENOENT;
	if (nlen > LX_NAME_MAX)
		return -LX_ENAMETOOLONG;
	if (ndir->nlink == 0)
		return -LX_ENOENT;
	struct find of, nf;
	struct inode *src, *dst = NULL;
	int r = entry_get(odir, oname, &of, &src);
	if (r < 0)
		return r;
	r = dir_find(ndir, nname, nlen, &nf);
	if (r > 0)
		r = iget(ndir->sb, nf.ino, &dst);
	if (r == 0 && dst != src)
		r = rename_check(src, dst, ndir);
	if (r == 0 && dst != src)
		r = rename_do(odir, &of, src, ndir, nname, dst, &nf);
	fs_put(dst);
	fs_put(src);
	return r;
}

/* --- the rest of the table --- */

static int ext2_setattr(struct inode *ip)
{
	return inode_write(ip);
}

/* The file's dirty pages into its blocks, then every dirty block to the disk
 * (its data, its inode and whatever metadata finds it: more than Linux's
 * ext2 writes, as much as a journal commit), then the drive's cache. */
static int ext2_fsync(struct inode *ip)
{
	int r = LX_S_ISREG(ip->mode) ? pc_sync(ip) : 0;
	int w = bc_flush(FS(ip));
	r = r ? r : w;
	return disk_flush() ? -LX_EIO : r;
}

/* Every inode's dirty pages, every dirty block, the drive's cache.  Pages a
 * shared mapping still maps stay dirty (pc_sync): the next writeback is armed. */
static int ext2_sync_fs(struct ext2 *fs)
{
	int r = 0;
	bool mapped = false;
	for (int h = 0; h < INODE_HASH; h++)
		for (struct inode *ip = fs->incore[h]; ip; ip = EI(ip)->next) {
			int w = EI(ip)->ndirty ? pc_sync(ip) : 0;
			r = r ? r : w;
			mapped |= EI(ip)->ndirty != 0;
		}
	int w = bc_flush(fs);
	r = r ? r : w;
	fs->dirty_since = 0;
	if (mapped)
		wb_arm(fs);
	return disk_flush() ? -LX_EIO : r;
}

static int ext2_sync(struct super *sb)
{
	return ext2_sync_fs(sb->priv);
}

/* The periodic writeback's deadline (µs; 0: nothing dirty): WB_EXPIRE_US after
 * the oldest change (a dirtied block or a page a shared mapping dirtied) not yet
 * written back. */
u64 ext2_next_writeback(void)
{
	return pc_fs && pc_fs->dirty_since ? pc_fs->dirty_since + WB_EXPIRE_US : 0;
}

/* The deadline passed: everything dirty goes to the disk; an error waits for fsync. */
void ext2_writeback(u64 now)
{
	if (!pc_fs || !pc_fs->dirty_since || now < pc_fs->dirty_since + WB_EXPIRE_US)
		return;
	int r = ext2_sync_fs(pc_fs);
	if (r < 0 && !pc_fs->wb_err)
		pc_fs->wb_err = r;
	deadlines_changed();
}

/* The last reference: an inode without names gives its blocks and number back. */
static void ext2_evict(struct inode *ip)
{
	struct ext2 *fs = FS(ip);
	if (ip->nlink == 0 && ip->ino != ROOT_INO) {
		bool dir = LX_S_ISDIR(ip->mode);
		bool blocks = LX_S_ISREG(ip->mode) || dir || (LX_S_ISLNK(ip->mode) && !fast_link(ip));
		int r = blocks ? free_from(ip, 0) : 0;  /* devices keep their number in i_block */
		now(&ip->ctime);
		DI(ip)->dtime = (u32)ip->ctime.tv_sec;
		ip->size = 0;
		if (r == 0)
			r = inode_write(ip);
		if (r == 0)
			r = inode_free(fs, (u32)ip->ino, dir);
		if (r < 0)
			lx_log("lx: ext2: inode %lu not freed (error %d)\n", ip->ino, r);
		inode_forget(ip);
		return;
	}
	int r = EI(ip)->ndirty ? pc_sync(ip) : 0;
	if (r < 0)
		lx_log("lx: ext2: inode %lu: a shared mapping's pages not written (error %d)\n",
		       ip->ino, r);
	if (!EI(ip)->cached)
		inode_forget(ip);       /* else it stays, unreferenced, with its pages (pc_trim) */
}

static void ext2_free(struct ext2 *fs);

/* umount2: nothing is referenced but the root (vfs/namei.c checked); the disk is free again. */
static void ext2_kill(struct super *sb)
{
	struct ext2 *fs = sb->priv;
	for (int h = 0; h < INODE_HASH; h++)
		while (fs->incore[h])
			inode_forget(fs->incore[h]);
	pc_fs = NULL;
	ext2_free(fs);
	sb->priv = NULL;
	disk_mounted = false;
}

static const struct fs_ops ext2_ops = {
	.lookup = ext2_lookup, .create = ext2_create, .link = ext2_link, .symlink = ext2_symlink,
	.unlink = ext2_unlink, .rmdir = ext2_rmdir, .rename = ext2_rename,
	.readlink = ext2_readlink, .read = ext2_read, .write = ext2_write,
	.truncate = ext2_truncate, .getdents = ext2_getdents, .blocks = ext2_blocks,
	.setattr = ext2_setattr, .fsync = ext2_fsync, .evict = ext2_evict, .sync = ext2_sync,
	.allocate = ext2_allocate, .kill = ext2_kill, .page = ext2_page,
	.page_dirty = ext2_page_dirty,
};

/* --- the mount's check: who owns which block, and who names which inode --- */

/*
 * What e2fsck's passes 1, 2 and 4 check, done once at mount so that a
 * damaged image cannot show one file's data as another's: every block a
 * live inode names lies in the file system, is named once, not by the
 * metadata, and is in use in its bitmap; every live inode is named by as
 * many directory entries as it has links, and is in use in its bitmap.  An
 * inode that breaks a rule is refused (EIO), and so is every inode it
 * clashes with.  The in-memory maps of used blocks and inodes it leaves
 * behind also keep allocation away from anything in use, whatever the
 * on-disk bitmaps say.
 */
struct scan {
	struct ext2 *fs;
	u32 *owner;                     /* per block: 0 free, META, or the inode naming it */
	uint16_t *names;                /* per inode: directory entries naming it */
	struct dinode *rec;             /* per inode: its record */
};
#define META 0xffffffffu

static void refuse(struct scan *sc, u32 ino)
{
	if (ino && ino != META)
		bit_set(sc->fs->bad, ino, true);
}

/* Block b is named by owner (an inode or META): a clash refuses both. */
static int claim(struct scan *sc, u64 b, u32 owner)
{
	if (!blk_valid(sc->fs, b)) {
		refuse(sc, owner);
		return owner == META ? -LX_EINVAL : 0;
	}
	if (sc->owner[b]) {             /* metadata over metadata: no file system lx can use */
		refuse(sc, owner);
		refuse(sc, sc->owner[b]);
		return owner == META ? -LX_EINVAL : 0;
	}
	sc->owner[b] = owner;
	bit_set(sc->fs->claimed, b, true);
	return 0;
}

static bool has_super(u32 g)
{
	if (g <= 1)
		return true;
	for (u32 p = 3; p <= 7; p += 2) {
		u64 x = p;
		while (x < g)
			x *= p;
		if (x == g)
			return true;
	}
	return false;
}

/* The superblocks, descriptors, bitmaps and inode tables: META's. */
static int claim_meta(struct scan *sc)
{
	struct ext2 *fs = sc->fs;
	u32 per = fs->bs / sizeof(struct dgroup), gdt = (fs->ngroups + per - 1) / per;
	u32 itb = (fs->ds.inodes_per_group * fs->ds.inode_size + fs->bs - 1) / fs->bs;
	int r = 0;
	for (u32 g = 0; r == 0 && g < fs->ngroups; g++) {
		u64 base = fs->ds.first_data_block + (u64)g * fs->ds.blocks_per_group;
		bool sup = !(fs->ds.feature_ro_compat & FT_RO_SPARSE) || has_super(g);
		for (u32 i = 0; r == 0 && sup && i <= gdt; i++)
			r = claim(sc, base + i, META);
		struct dgroup *d = &fs->groups[g];
		if (r == 0)
			r = claim(sc, d->block_bitmap, META);
		if (r == 0)
			r = claim(sc, d->inode_bitmap, META);
		for (u32 i = 0; r == 0 && i < itb; i++)
			r = claim(sc, (u64)d->inode_table + i, META);
	}
	return r;
}

/* Claims the tree under pointer b (depth 0: a data block) for ino. */
static int claim_tree(struct scan *sc, u32 b, int depth, u32 ino)
{
	if (!b)
		return 0;
	int r = claim(sc, b, ino);
	if (r < 0 || depth == 0 || bit(sc->fs->bad, ino))
		return r;
	u32 *p = page_alloc();
	if (!p)
		return -LX_ENOMEM;
	r = blk_read(sc->fs, b, p);
	for (u32 i = 0; r == 0 && i < sc->fs->ptrs && !bit(sc->fs->bad, ino); i++)
		r = claim_tree(sc, p[i], depth - 1, ino);
	page_free(p);
	return r;
}

static bool rec_live(const struct dinode *d)
{
	return d->links && !d->dtime;
}

/* Does this record keep block pointers in i_block (not a device, fast link or FIFO)? */
static bool rec_has_blocks(const struct dinode *d, u32 bs)
{
	u32 t = d->mode & LX_S_IFMT, acl = d->file_acl ? bs / 512 : 0;
	return t == LX_S_IFREG || t == LX_S_IFDIR || (t == LX_S_IFLNK && d->blocks != acl);
}

/* Pass 1: every live inode's records read, its blocks claimed. */
static int scan_inodes(struct scan *sc)
{
	struct ext2 *fs = sc->fs;
	int r = 0;
	for (u32 ino = 1; r == 0 && ino <= fs->ds.inodes_count; ino++) {
		u32 blk, off;
		r = inode_where(fs, ino, &blk, &off);
		if (r == 0 && (off == 0 || ino == 1))
			r = blk_read(fs, blk, fs->scratch);
		if (r < 0)
			break;
		struct dinode *d = &sc->rec[ino];
		memcpy(d, (char *)fs->scratch + off, sizeof(*d));
		if (!rec_live(d) || (ino < fs->ds.first_ino && ino != ROOT_INO && ino != 7))
			continue;
		bit_set(fs->live, ino, true);   /* (extended-attribute blocks may be shared: unchecked) */
		for (int i = 0; r == 0 && i < 15 && rec_has_blocks(d, fs->bs); i++)
			r = claim_tree(sc, d->block[i], i < NDIR ? 0 : i - NDIR + 1, ino);
	}
	return r;
}

/* Pass 2: directory entries counted per inode they name. */
static int count_fn(struct inode *dir, uint8_t *b, u32 blk, u32 off, void *arg)
{
	(void)dir, (void)blk;
	struct scan *sc = arg;
	struct ddirent *e = (void *)(b + off);
	if (e->inode && sc->names[e->inode] < 0xffff)
		sc->names[e->inode]++;
	return 0;
}

static int scan_dirs(struct scan *sc, struct super *sb)
{
	for (u32 ino = 1; ino <= sc->fs->ds.inodes_count; ino++) {
		struct inode *ip;
		if (!bit(sc->fs->live, ino) || !LX_S_ISDIR(sc->rec[ino].mode) || bit(sc->fs->bad, ino) ||
		    iget(sb, ino, &ip) < 0)
			continue;
		if (dir_walk(ip, count_fn, sc) < 0)
			refuse(sc, ino);
		fs_put(ip);
	}
	return 0;
}

/* Pass 4 and the bitmaps: links against names, claims against the bitmaps. */
static int scan_counts(struct scan *sc)
{
	struct ext2 *fs = sc->fs;
	for (u32 ino = fs->ds.first_ino; ino <= fs->ds.inodes_count; ino++)
		if (bit(fs->live, ino) && sc->names[ino] != sc->rec[ino].links)
			refuse(sc, ino);
	uint8_t *b = fs->scratch;
	for (u32 g = 0; g < fs->ngroups; g++) {
		u64 first = fs->ds.first_data_block + (u64)g * fs->ds.blocks_per_group;
		int r = blk_read(fs, fs->groups[g].block_bitmap, b);
		for (u32 i = 0; r == 0 && i < group_blocks(fs, g); i++)
			if (sc->owner[first + i] && !bit(b, i)) {
				if (sc->owner[first + i] == META)
					return -LX_EINVAL;
				refuse(sc, sc->owner[first + i]);
			}
		if (r == 0)
			r = blk_read(fs, fs->groups[g].inode_bitmap, b);
		for (u32 i = 0; r == 0 && i < fs->ds.inodes_per_group; i++)
			if (bit(fs->live, (u64)g * fs->ds.inodes_per_group + i + 1) && !bit(b, i))
				refuse(sc, g * fs->ds.inodes_per_group + i + 1);
		if (r < 0)
			return r;
	}
	return 0;
}

static int check_all(struct super *sb)
{
	struct ext2 *fs = sb->priv;
	u64 nb = fs->ds.blocks_count, ni = (u64)fs->ds.inodes_count + 1;
	struct scan sc = { fs, lx_zalloc(nb * sizeof(u32)), lx_zalloc(ni * sizeof(uint16_t)),
			   lx_zalloc(ni * sizeof(struct dinode)) };
	fs->claimed = lx_zalloc(nb / 8 + 1);
	fs->live = lx_zalloc(ni / 8 + 1);
	fs->bad = lx_zalloc(ni / 8 + 1);
	int r = sc.owner && sc.names && sc.rec && fs->claimed && fs->live && fs->bad ? 0 : -LX_ENOMEM;
	if (r == 0)
		r = claim_meta(&sc);
	if (r == 0)
		r = scan_inodes(&sc);
	if (r == 0)
		r = scan_dirs(&sc, sb);
	if (r == 0)
		r = scan_counts(&sc);
	u32 nbad = 0;
	for (u64 i = 1; r == 0 && i < ni; i++)
		nbad += bit(fs->bad, i);
	if (nbad)
		lx_log("lx: ext2: %u damaged inodes refused (EIO); e2fsck can repair them\n", nbad);
	lx_free(sc.owner);
	lx_free(sc.names);
	lx_free(sc.rec);
	return r;
}

/* --- mounting --- */

/* The superblock's values are sane and its features ones lx handles. */
static int super_check(struct ext2 *fs)
{
	struct dsuper *s = &fs->ds;
	if (s->magic != EXT2_MAGIC || s->log_block_size > 2 || s->rev_level != 1)
		return -LX_EINVAL;
	if (s->feature_incompat & ~FT_INCOMPAT_FILETYPE)
		return -LX_EINVAL;
	if (s->feature_ro_compat & ~(u32)(FT_RO_SPARSE | FT_RO_LARGE))
		return -LX_EINVAL;
	fs->bs = 1024u << s->log_block_size;
	fs->ptrs = fs->bs / 4;
	if (s->blocks_per_group == 0 || s->blocks_per_group > fs->bs * 8 ||
	    s->inodes_per_group == 0 || s->inodes_per_group > fs->bs * 8 ||
	    s->inode_size < 128 || s->inode_size > fs->bs || (s->inode_size & (s->inode_size - 1)) ||
	    s->first_data_block != (fs->bs == 1024) || s->blocks_count <= s->first_data_block ||
	    s->first_ino < 11)
		return -LX_EINVAL;
	fs->ngroups = (s->blocks_count - s->first_data_block + s->blocks_per_group - 1) /
		      s->blocks_per_group;
	if ((u64)fs->ngroups * s->inodes_per_group != s->inodes_count ||
	    s->free_blocks > s->blocks_count || s->free_inodes > s->inodes_count)
		return -LX_EINVAL;
	fs->gdt_block = s->first_data_block + 1;
	return 0;
}

/* The group descriptors: every bitmap and inode table inside the file system. */
static int groups_read(struct ext2 *fs)
{
	u32 per = fs->bs / sizeof(struct dgroup);
	u32 nblk = (fs->ngroups + per - 1) / per;
	fs->groups = lx_malloc((size_t)nblk * fs->bs);
	if (!fs->groups)
		return -LX_ENOMEM;
	for (u32 i = 0; i < nblk; i++) {
		int r = blk_read(fs, fs->gdt_block + i, (char *)fs->groups + (size_t)i * fs->bs);
		if (r < 0)
			return r;
	}
	u32 itb = (fs->ds.inodes_per_group * fs->ds.inode_size + fs->bs - 1) / fs->bs;
	for (u32 g = 0; g < fs->ngroups; g++) {
		struct dgroup *d = &fs->groups[g];
		if (!blk_valid(fs, d->block_bitmap) || !blk_valid(fs, d->inode_bitmap) ||
		    !blk_valid(fs, d->inode_table) || !blk_valid(fs, (u64)d->inode_table + itb - 1))
			return -LX_EINVAL;
	}
	return 0;
}

static int super_read(struct ext2 *fs)
{
	uint8_t *b = lx_malloc(4096);
	if (!b)
		return -LX_ENOMEM;
	long r = disk_read(0, 8, b);            /* the first 4 KiB hold it whatever the block size */
	if (r == 0) {
		memcpy(fs->sb_raw, b + 1024, 1024);
		memcpy(&fs->ds, fs->sb_raw, sizeof(fs->ds));
	}
	lx_free(b);
	return r ? -LX_EIO : super_check(fs);
}

static void ext2_free(struct ext2 *fs)
{
	for (u32 i = 1; fs->bc && i <= fs->bc_max; i++)
		if (fs->bc[i].data)
			page_free(fs->bc[i].data);
	lx_free(fs->bc);
	lx_free(fs->groups);
	if (fs->scratch)
		page_free(fs->scratch);
	lx_free(fs->claimed);
	lx_free(fs->live);
	lx_free(fs->bad);
	lx_free(fs->names);
	lx_free(fs);
}

/* The disk driver, started by the first mount (its ports and thread are taken once). */
static bool disk_started_ok(void)
{
	static int started;             /* 0: not tried; 1: running; -1: failed */
	if (!started)
		started = disk_start(l4_global_id(l4_thread_no(lx_id) + 5, 1)) ? 1 : -1;
	return started > 0;
}

struct super *ext2_mount_disk(int *err)
{
	u64 sectors;
	if (disk_mounted) {
		*err = -LX_EBUSY;       /* one mount of the disk at a time (docs/lx.md) */
		return NULL;
	}
	long d = disk_started_ok() ? disk_info(&sectors, NULL) : -DISK_ERR_NODISK;
	struct ext2 *fs = d ? NULL : lx_zalloc(sizeof(*fs));
	struct super *sb = fs ? vfs_super_new(&ext2_ops, "ext2") : NULL;
	int r = d ? -LX_ENODEV : !sb ? -LX_ENOMEM : super_read(fs);
	if (r == 0 && (u64)fs->ds.blocks_count * (fs->bs / 512) > sectors)
		r = -LX_EINVAL;         /* the file system is bigger than the disk */
	if (r == 0)
		r = (fs->scratch = page_alloc()) && bc_init(fs) ? groups_read(fs) : -LX_ENOMEM;
	if (r == 0) {
		sb->priv = fs;
		r = check_all(sb);
	}
	if (r == 0) {
		fs->names = lx_zalloc(NAMES * sizeof(struct name_ent));   /* none: no cache */
		fs->names_epoch = 1;
	}
	if (r == 0)
		r = iget(sb, ROOT_INO, &sb->root);
	if (r == 0 && !LX_S_ISDIR(sb->root->mode))
		r = -LX_EINVAL;
	if (r < 0) {
		if (fs)
			ext2_free(fs);
		lx_free(sb);
		*err = r;
		return NULL;
	}
	disk_mounted = true;
	fs->pc_max = pool_total_bytes() / LX_PAGE_SIZE / 4;
	pc_fs = fs;
	page_set_shrinker(pc_reclaim);
	lx_log("lx: ext2 on the disk: %u blocks of %u bytes, %u free; %u inodes, %u free\n",
	       fs->ds.blocks_count, fs->bs, fs->ds.free_blocks, fs->ds.inodes_count,
	       fs->ds.free_inodes);
	return sb;
}
