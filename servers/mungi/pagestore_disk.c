// SPDX-License-Identifier: MIT
// The page store on disk: lib/store over the user-level disk driver, when
// a disk is attached (docs/mungi.md, "Persistence").  A checkpoint puts
// every dirty object page and the object table, then commits them at once;
// a blank disk is formatted, anything else that is not Mungi's store is
// refused untouched.  Without a disk the server keeps the in-memory store
// and says so.
#include "mungi.h"
#include "../../lib/store/store.h"
#include "../../lib/disk/client.h"
#include "../disk/disk.h"
#include <l4/disk.h>

#define CACHE_NODES 64                  /* tree nodes cached; more changes are spilled */
#define MAX_SECTORS (1UL << 19)         /* 256 MiB: the store covers at most this much of a disk */
#define ROOT_MAGIC  0x31535070676e754dUL        /* "MungPS1": the root record of a Mungi store */

const struct pagestore *pstore = &memstore;

/* The root record: what says a store holds Mungi's checkpoints. */
struct root_rec {
	u64 magic;
	u64 checkpoints;                /* completed Mungi checkpoints on this disk */
};

static struct store st;
static struct store_dev disk_dev, dev;
static u64 mem[(MAX_SECTORS / 8 / 8 / 8) * 4 + CACHE_NODES * 512 + 2048];
static struct root_rec root;
static bool recovered;

/* --- kill points for the tests: kill_at=K.W stops before device write W (s: the superblock, f: after it) of checkpoint K --- */

static u64 kill_cp, kill_write, cp_count, cp_writes;
static bool in_checkpoint;
static char kill_what;

static void stop_here(const char *what)
{
	printf("KILL-POINT %s checkpoint=%lu write=%lu\n", what, cp_count, cp_writes);
	for (;;)
		L4_Sleep(1000000);
}

static bool armed(void)
{
	return in_checkpoint && kill_cp && cp_count == kill_cp;
}

static int kp_write(void *ctx, uint64_t lba, uint32_t count, const void *buf)
{
	bool super = count == 1 && (lba == 0 || lba == STORE_PAGE / STORE_SECTOR);
	cp_writes++;
	if (armed() && ((kill_what == 'n' && cp_writes == kill_write) || (kill_what == 's' && super)))
		stop_here(super ? "superblock" : "write");
	int err = disk_dev.write(ctx, lba, count, buf);
	if (armed() && kill_what == 'f' && super)
		stop_here("after-superblock");
	return err;
}

static void kill_option(const char *args)
{
	const char *s = server_option(args, "kill_at");
	for (; s && *s >= '0' && *s <= '9'; s++)
		kill_cp = kill_cp * 10 + (u64)(*s - '0');
	if (!s || *s != '.')
		return;
	kill_what = s[1] >= '0' && s[1] <= '9' ? 'n' : s[1];
	for (s++; *s >= '0' && *s <= '9'; s++)
		kill_write = kill_write * 10 + (u64)(*s - '0');
}

/* --- the pagestore interface over lib/store --- */

static int error(int err)
{
	return err == STORE_ENOSPC ? MUNGI_ENOSPC : err == STORE_ENOENT ? MUNGI_ENOENT : MUNGI_EIO;
}

/* A change the cache cannot hold: write the changed nodes out (still uncommitted), try again. */
static int spilling(int err)
{
	return err == STORE_ENOMEM && store_spill(&st) == STORE_OK;
}

static int disk_put(void *ctx, u64 key, const void *page)
{
	(void)ctx;
	int err;
	while ((err = store_put(&st, key, page)) && spilling(err))
		;
	return err ? error(err) : 0;
}

static int disk_get(void *ctx, u64 key, void *page)
{
	(void)ctx;
	int err = store_get(&st, key, page);
	if (err && err != STORE_ENOENT) {
		printf("mungi: page %lx cannot be read from the disk: %s\n", key, store_strerror(err));
		mzero(page, PAGE);
	}
	return err ? error(err) : 0;
}

static int disk_del(void *ctx, u64 key)
{
	(void)ctx;
	int err;
	while ((err = store_delete(&st, key)) && spilling(err))
		;
	return err ? error(err) : 0;
}

static void disk_del_range(void *ctx, u64 lo, u64 hi)
{
	u64 key;
	while (store_next(&st, lo, &key) == STORE_OK && key < hi && !disk_del(ctx, key))
		lo = key + 1;
}

static int disk_checkpoint(void *ctx)
{
	(void)ctx;
	root.magic = ROOT_MAGIC;
	root.checkpoints++;
	int err = store_set_root(&st, &root, sizeof(root));
	if (!err)
		err = store_checkpoint(&st);
	if (err) {
		root.checkpoints--;
		printf("mungi: checkpoint failed: %s\n", store_strerror(err));
	}
	return err ? error(err) : 0;
}

static const struct pagestore diskstore = { disk_put, disk_get, disk_del, disk_del_range, disk_checkpoint, NULL };

/* --- start-up --- */

/* Are the two superblock slots all zeros (a disk never written)? */
static bool blank(void)
{
	static u64 sector[STORE_SECTOR / 8];
	for (u64 lba = 0; lba <= STORE_PAGE / STORE_SECTOR; lba += STORE_PAGE / STORE_SECTOR) {
		if (disk_read(lba, 1, sector))
			return false;
		for (unsigned i = 0; i < STORE_SECTOR / 8; i++)
			if (sector[i])
				return false;
	}
	return true;
}

/*
 * Open the store; a blank disk, or any disk with format_disk=1, is formatted
 * first.  Anything else that is not a store is refused: it may be a store
 * whose both superblocks are damaged, or someone's data.
 */
static int open_disk(u64 sectors, bool format)
{
	disk_store_dev(&disk_dev, sectors);
	dev = disk_dev;
	dev.write = kp_write;
	if (store_mem_size(sectors, CACHE_NODES) > sizeof(mem))
		return STORE_EINVAL;
	int err = format ? STORE_ENOSTORE : store_open(&st, &dev, mem, sizeof(mem), CACHE_NODES);
	if (err == STORE_ENOSTORE && (format || blank())) {
		printf("mungi: formatting the disk\n");
		if (!(err = store_format(&dev)))
			err = store_open(&st, &dev, mem, sizeof(mem), CACHE_NODES);
	}
	return err;
}

void pstore_init(const char *args)
{
	u64 sectors = 0;
	long derr = disk_start(l4_global_id(l4_thread_no(mungi_id) + 3, 1)) ? disk_info(&sectors, NULL)
									    : -DISK_ERR_NODISK;
	if (derr) {
		printf("mungi: no disk (%s): objects live in memory, nothing survives a reboot\n",
		       disk_strerror(derr));
		return;
	}
	kill_option(args);
	u64 used = sectors < MAX_SECTORS ? sectors : MAX_SECTORS;
	bool format = server_option(args, "format_disk") != NULL;
	int err = open_disk(used, format);
	if (err)
		mungi_panic("mungi: the disk holds no page store Mungi can use (%s); nothing was written. "
			    "format_disk=1 formats it\n", store_strerror(err));
	struct store_info info;
	store_get_info(&st, &info);
	recovered = store_root(&st, &root, sizeof(root)) == sizeof(root) && root.magic == ROOT_MAGIC;
	if (!recovered && info.keys)
		mungi_panic("mungi: the disk's page store holds %lu pages that are not Mungi's; nothing was "
			    "written. format_disk=1 formats it\n", info.keys);
	if (!recovered)
		root = (struct root_rec){ ROOT_MAGIC, 0 };
	pstore = &diskstore;
	printf("mungi: page store on disk: %lu of %lu MiB, %s (store checkpoint %lu, %lu pages)\n",
	       used / 2048, sectors / 2048,
	       recovered ? "recovering the last checkpoint" : "no checkpoint of Mungi's yet", info.seq,
	       info.keys);
}

bool pstore_recovered(void)
{
	return recovered;
}

void pstore_disk_wait(u64 *polls, u64 *ticks)
{
	struct disk_wait w;
	if (pstore == &diskstore && !disk_info(NULL, &w))
		*polls = w.polls, *ticks = w.ticks;
}

/* --- a checkpoint --- */

/* Objects of one boot only (the image, its Clists, the boot information) are not kept. */
static bool kept(const struct ot_obj *o)
{
	return !(o->flags & (OT_FIXED | OT_BOOT));
}

long pstore_checkpoint(void)
{
	long pages = 0, n;
	in_checkpoint = true;
	cp_count++;
	cp_writes = 0;
	for (struct ot_obj *o = ot_next(&ot, 0); o; o = ot_next(&ot, o->base + 1))
		if (kept(o) && (n = pages_sync(o)) < 0)
			goto out;
		else if (kept(o))
			pages += n;
	n = ot_save(&ot, pstore);
	if (n < 0) {
		n = -MUNGI_ENOSPC;
		goto out;
	}
	pages += n;
	/* table pages beyond this table's end are an older, longer table's */
	for (u64 key = STORE_OT_KEY + (u64)n; !pstore->del(pstore->ctx, key); key++)
		;
	int err = pstore->checkpoint(pstore->ctx);
	n = err ? -err : pages;
out:
	in_checkpoint = false;
	return n;
}
