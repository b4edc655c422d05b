// SPDX-License-Identifier: MIT
// Storage costs for the Mungi tables (docs/store.md): the page store's put,
// checkpoint and get over a RAM block device in this task (the store's own
// work) and over the disk driver (driver IPC, ATA PIO, and the polling that
// waits for QEMU's writes to reach the image), and the driver's raw sector
// reads, writes and flushes.  Guest instructions (rdtsc under icount);
// booted with a disk image attached (make bench-store).  How long the
// driver polls depends on the host's I/O, so disk figures come in three:
// the total, `.work` (the total less the driver's polling: repeatable) and
// `.polls` (status reads per operation).
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/c/string.h"
#include "../../lib/fmt/fmt.h"
#include "../../lib/disk/client.h"
#include "../../lib/store/store.h"
#include "../../servers/disk/disk.h"
#include <l4/disk.h>

#define PAGES      256                     /* pages per round: 1 MiB */
#define CACHE      64
#define RAM_BLOCKS 1024                    /* a 4 MiB RAM disk */
#define RAW_OPS    64

static uint64_t mem[(CACHE * STORE_PAGE + 16384) / 8];
static uint8_t ram[RAM_BLOCKS * STORE_PAGE] __attribute__((aligned(16)));
static uint64_t page[512];
static uint8_t sectors_buf[8 * DISK_SECTOR] __attribute__((aligned(16)));
static struct store st;

static inline L4_Word_t rdtsc(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

static void result(const char *name, const char *params, L4_Word_t value, const char *unit)
{
	printf("RESULT name=%s %s value=%lu unit=%s method=icount\n", name, params, value, unit);
}

/* Bytes per guest second (10^9 instructions) at `instr` instructions per page, in MB. */
static L4_Word_t mb_per_s(L4_Word_t instr)
{
	return instr ? STORE_PAGE * 1000UL / instr : 0;
}

/* A word copy: lib/c's byte-at-a-time memcpy would outweigh the store's own work. */
static void copy_words(void *d, const void *s, size_t bytes)
{
	size_t n = bytes / 8;
	__asm__ __volatile__("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static int ram_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	(void)ctx;
	copy_words(buf, ram + lba * STORE_SECTOR, (size_t)count * STORE_SECTOR);
	return 0;
}

static int ram_write(void *ctx, uint64_t lba, uint32_t count, const void *buf)
{
	(void)ctx;
	copy_words(ram + lba * STORE_SECTOR, buf, (size_t)count * STORE_SECTOR);
	return 0;
}

static int ram_flush(void *ctx)
{
	(void)ctx;
	return 0;
}

/* A point in time and the driver's waiting so far. */
struct mark {
	L4_Word_t tsc;
	struct disk_wait wait;
};

static struct mark start(void)
{
	struct mark m = { 0, { 0, 0 } };
	if (pecan_disk)
		disk_info(NULL, &m.wait);
	m.tsc = rdtsc();
	return m;
}

static struct mark stop(void)
{
	struct mark m = { rdtsc(), { 0, 0 } };
	if (pecan_disk)
		disk_info(NULL, &m.wait);
	return m;
}

/* Per operation over n: the total; for the disk also .work (less polling) and .polls. */
static void report(const char *name, const char *params, L4_Word_t n, struct mark a, struct mark b,
		   int disk)
{
	char sub[48];
	L4_Word_t total = (b.tsc - a.tsc) / n, wait = (b.wait.ticks - a.wait.ticks) / n;
	result(name, params, total, "instructions");
	if (!disk)
		return;
	snfmt(sub, sizeof(sub), "%s.work", name);
	result(sub, params, total - wait, "instructions");
	snfmt(sub, sizeof(sub), "%s.polls", name);
	result(sub, params, (b.wait.polls - a.wait.polls) / n, "count");
}

static int put_all(uint32_t round)
{
	for (uint64_t k = 0; k < PAGES; k++) {
		page[0] = k;
		page[1] = round;
		int err = store_put(&st, 0x40000 + k, page);
		if (err)
			return printf("storebench: put: %s\n", store_strerror(err)), err;
	}
	return 0;
}

/* One device: a round untimed, then put, checkpoint and get rounds timed. */
static int store_rounds(const struct store_dev *dev, const char *name)
{
	char params[64];
	int err = store_format(dev);
	if (err || (err = store_open(&st, dev, mem, sizeof(mem), CACHE)) || (err = put_all(0)) ||
	    (err = store_checkpoint(&st)))
		return printf("storebench: %s: %s\n", name, store_strerror(err)), 1;
	int disk = dev->ctx != ram;
	struct mark m0 = start();
	if (put_all(1))
		return 1;
	struct mark m1 = stop(), m2 = start();
	if ((err = store_checkpoint(&st)))
		return printf("storebench: checkpoint: %s\n", store_strerror(err)), 1;
	struct mark m3 = stop(), m4 = start();
	for (uint64_t k = 0; k < PAGES; k++)
		if ((err = store_get(&st, 0x40000 + k, page)) || page[1] != 1)
			return printf("storebench: get: %s\n", store_strerror(err)), 1;
	struct mark m5 = stop();
	snfmt(params, sizeof(params), "pages=%u device=%s", PAGES, name);
	report("store.put", params, PAGES, m0, m1, disk);
	report("store.checkpoint", params, 1, m2, m3, disk);
	report("store.get", params, PAGES, m4, m5, disk);
	L4_Word_t per_page = (m1.tsc - m0.tsc + m3.tsc - m2.tsc) / PAGES;
	result("store.put_checkpoint_bw", params, mb_per_s(per_page), "MB_per_s");
	result("store.get_bw", params, mb_per_s((m5.tsc - m4.tsc) / PAGES), "MB_per_s");
	return 0;
}

static long raw_write(int i)
{
	return disk_write((uint64_t)i * 8, 8, sectors_buf);
}

static long raw_read(int i)
{
	return disk_read((uint64_t)i * 8, 8, sectors_buf);
}

static long raw_flush(int i)
{
	(void)i;
	return disk_flush();
}

/* The driver alone: RAW_OPS writes and reads of 8 sectors (one page), and flushes. */
static int raw_rounds(void)
{
	static const struct {
		const char *name, *params;
		long (*op)(int i);
	} ops[] = { { "disk.write", "sectors=8", raw_write }, { "disk.read", "sectors=8", raw_read },
		    { "disk.flush", "sectors=0", raw_flush } };
	for (unsigned k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		struct mark a = start();
		for (int i = 0; i < RAW_OPS; i++)
			if (ops[k].op(i))
				return printf("storebench: %s failed\n", ops[k].name), 1;
		report(ops[k].name, ops[k].params, RAW_OPS, a, stop(), 1);
	}
	return 0;
}

int main(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	uint64_t sectors = 0;
	struct store_dev ram_dev = { ram, RAM_BLOCKS * (STORE_PAGE / STORE_SECTOR), ram_read, ram_write, ram_flush };
	struct store_dev disk;
	/* the RAM device first: before any waiting for the disk, its figures repeat exactly */
	if (store_rounds(&ram_dev, "ram"))
		return 1;
	if (!disk_start(l4_global_id(l4_thread_no(me) + 3, 1)) || disk_info(&sectors, NULL))
		return printf("storebench: no disk (boot with tools/run --disk)\n"), 1;
	disk_store_dev(&disk, sectors);
	if (raw_rounds() || store_rounds(&disk, "disk"))
		return 1;
	printf("storebench: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
