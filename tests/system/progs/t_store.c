// SPDX-License-Identifier: MIT
// The disk driver and the page store on a disk image, over several boots
// (tests/system/test_store.py).  The root task's arguments choose the boot:
//   mode=write sectors=N  driver cases; a store with generation 1 checkpointed
//                         and generation 2's changes made but not checkpointed
//   mode=check sectors=N  the next boot on that image: exactly generation 1; a full disk
//   mode=nodisk           no disk attached: clear errors
//   mode=big sectors=N    a disk past 2^28 sectors: LBA48
//   mode=kill at=POINT    recover generation G (format a blank disk), make G + 1,
//                         start G + 2 and stop at POINT for the host's SIGKILL
//   mode=recover          recover and check only
// A generation g is a pure function of g (which keys, which page contents),
// so a boot can check any generation it recovers, whatever came before.
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"
#include "../../../lib/c/string.h"
#include "../../../lib/fmt/fmt.h"
#include "../../../lib/drivers/client.h"
#include "../../../lib/disk/client.h"
#include "../../../lib/store/store.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../lib/c/portio.h"
#include "../../../servers/drivers/drivers.h"
#include "../../../servers/disk/disk.h"
#include <l4/disk.h>
#include <l4/drivers.h>

#define CACHE  64
#define NKEYS  320
#define UNMAPPED ((void *)0x7ff000000000UL)

static char args[200];
static uint64_t mem[(CACHE * STORE_PAGE + 16384) / 8];
static struct store st;
static struct store_dev disk_dev, dev;
static uint64_t page[512], got[512];
static uint8_t big[DISK_MAX_SECTORS * DISK_SECTOR] __attribute__((aligned(16)));
static uint8_t back[DISK_MAX_SECTORS * DISK_SECTOR] __attribute__((aligned(16)));
static char why[160];

/* --- arguments --- */

static const char *arg(const char *name)
{
	size_t n = strlen(name);
	for (const char *p = args; *p; p++)
		if ((p == args || p[-1] == ' ') && !memcmp(p, name, n) && p[n] == '=')
			return p + n + 1;
	return "";
}

static int arg_is(const char *name, const char *value)
{
	const char *v = arg(name);
	size_t n = strlen(value);
	return !memcmp(v, value, n) && (v[n] == 0 || v[n] == ' ');
}

static uint64_t arg_num(const char *name)
{
	uint64_t v = 0;
	for (const char *p = arg(name); *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* --- generations --- */

static uint64_t key_of(int i)
{
	return i < 256 ? 0x40000ULL + (uint64_t)i : 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
}

static int present(uint32_t g, int i)
{
	return g > 0 && (i * 7 + (int)g) % 5 != 0;
}

/* Keys change at different rates: every generation, every second, every third. */
static uint32_t version(uint32_t g, int i)
{
	return g / (1 + (uint32_t)i % 3);
}

static void fill(uint64_t *p, uint64_t key, uint64_t v)
{
	p[0] = key;
	p[1] = v;
	for (int i = 2; i < 512; i++)
		p[i] = key * 0x632be59bd9b4e019ULL + v * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
}

struct record {
	char magic[8];
	uint32_t gen;
};

/* Generation g's changes over g - 1, not checkpointed. */
static int apply_gen(uint32_t g)
{
	for (int i = 0, err; i < NKEYS; i++) {
		int was = present(g - 1, i), is = present(g, i);
		if (is && (!was || version(g - 1, i) != version(g, i))) {
			fill(page, key_of(i), version(g, i));
			err = store_put(&st, key_of(i), page);
		} else if (was && !is) {
			err = store_delete(&st, key_of(i));
		} else {
			err = 0;
		}
		if (err)
			return snfmt(why, sizeof(why), "key %d: %s", i, store_strerror(err)), err;
	}
	struct record r = { "pecangen", g };
	return store_set_root(&st, &r, sizeof(r));
}

static uint32_t recorded_gen(void)
{
	struct record r = { "", 0 };
	uint32_t len = store_root(&st, &r, sizeof(r));
	return len == sizeof(r) && !memcmp(r.magic, "pecangen", 8) ? r.gen : 0;
}

static int key_index(uint64_t key)
{
	for (int i = 0; i < NKEYS; i++)
		if (key_of(i) == key)
			return i;
	return -1;
}

/* Does the store hold exactly generation g? (why says how not) */
static int holds_gen(uint32_t g)
{
	uint64_t k = 0;
	int n = 0, want = 0, err;
	for (int i = 0; i < NKEYS; i++)
		want += present(g, i);
	while ((err = store_next(&st, k, &k)) == STORE_OK) {
		int i = key_index(k);
		if (i < 0 || !present(g, i))
			return snfmt(why, sizeof(why), "key %lx is no key of generation %u", k, g), 0;
		if ((err = store_get(&st, k, got)))
			return snfmt(why, sizeof(why), "get %lx: %s", k, store_strerror(err)), 0;
		fill(page, k, version(g, i));
		if (memcmp(page, got, STORE_PAGE))
			return snfmt(why, sizeof(why), "key %lx: data of version %lu, want %u", k, got[1],
				     version(g, i)), 0;
		n++;
		if (k++ == ~0ULL)
			break;
	}
	if (err != STORE_OK && err != STORE_ENOENT)
		return snfmt(why, sizeof(why), "next: %s", store_strerror(err)), 0;
	if (n != want || recorded_gen() != g)
		return snfmt(why, sizeof(why), "%d keys, want %d; record says generation %u, want %u", n, want,
			     recorded_gen(), g), 0;
	return 1;
}

/* --- the disk and the store --- */

static int started;

static int start(void)
{
	if (!started) {
		L4_Word_t n = l4_thread_no(L4_MyGlobalId());
		started = drivers_start(l4_global_id(n + 1, 1), l4_global_id(n + 2, 1)) &&
			  disk_start(l4_global_id(n + 3, 1));
	}
	return started;
}

static int open_store(void)
{
	uint64_t sectors = 0;
	disk_info(&sectors, NULL);
	disk_store_dev(&disk_dev, sectors);
	dev.sectors = sectors;
	if (store_mem_size(sectors, CACHE) > sizeof(mem))
		return STORE_EINVAL;
	return store_open(&st, &dev, mem, sizeof(mem), CACHE);
}

/* --- the kill points: a block device over the disk that stops before or after a chosen write --- */

static struct {
	int armed, in_checkpoint;
	long data_writes, node_writes;
	uint32_t gen;
} kp;

static void stop_here(const char *what)
{
	printf("KILL-POINT %s gen=%u\n", what, kp.gen);
	for (;;)
		L4_Sleep(1000000);
}

static int is_superblock(uint64_t lba, uint32_t count)
{
	return count == 1 && (lba == 0 || lba == STORE_PAGE / STORE_SECTOR);
}

static int kp_write(void *ctx, uint64_t lba, uint32_t count, const void *buf)
{
	int super = is_superblock(lba, count);
	long *n = kp.in_checkpoint ? &kp.node_writes : &kp.data_writes;
	if (kp.armed && !super && ++*n == (long)arg_num(kp.in_checkpoint ? "node" : "put"))
		stop_here(kp.in_checkpoint ? "node" : "put");
	if (kp.armed && super && arg_is("at", "super"))
		stop_here("super");
	int r = disk_dev.write(ctx, lba, count, buf);
	if (kp.armed && super && arg_is("at", "flushed"))
		stop_here("flushed");
	return r;
}

static int kp_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	return disk_dev.read(ctx, lba, count, buf);
}

static int kp_flush(void *ctx)
{
	return disk_dev.flush(ctx);
}

static int make_gen(uint32_t g)
{
	int err = apply_gen(g);
	kp.in_checkpoint = 1;
	if (!err)
		err = store_checkpoint(&st);
	kp.in_checkpoint = 0;
	return err;
}

/* Open (formatting a blank disk if allowed) and check; the generation found, or -1. */
static long recover(int may_format)
{
	int err = open_store();
	if (err == STORE_ENOSTORE && may_format) {
		if ((err = store_format(&dev)) || (err = open_store()))
			return printf("STORE RECOVERED FAIL format: %s\n", store_strerror(err)), -1;
	} else if (err) {
		return printf("STORE RECOVERED FAIL open: %s\n", store_strerror(err)), -1;
	}
	struct store_info info;
	store_get_info(&st, &info);
	uint32_t g = recorded_gen();
	if (!holds_gen(g))
		return printf("STORE RECOVERED FAIL gen=%u: %s\n", g, why), -1;
	printf("STORE RECOVERED gen=%u keys=%lu seq=%lu fell_back=%d ok\n", g, info.keys, info.seq,
	       info.fell_back);
	return g;
}

/* One boot of the kill test (see the top of the file). */
static int kill_boot(void)
{
	long g = recover(arg_is("format", "1"));
	if (g < 0 || arg_is("mode", "recover"))
		return g < 0;
	int err = make_gen((uint32_t)g + 1);
	if (err)
		return printf("STORE GEN %ld FAIL %s\n", g + 1, store_strerror(err)), 1;
	printf("STORE GEN %ld DONE\n", g + 1);
	kp = (typeof(kp)){ .armed = 1, .gen = (uint32_t)g + 2 };
	printf("STORE GEN %ld BEGIN\n", g + 2);
	err = make_gen((uint32_t)g + 2);
	printf("STORE GEN %ld %s\n", g + 2, err ? store_strerror(err) : "DONE");
	kp.armed = 0;
	stop_here("none");                /* the host kills us here if the point never came */
	return 1;
}

/* --- driver cases (first boot) --- */

static void pattern(uint8_t *p, uint64_t lba, uint32_t count, uint32_t seed)
{
	for (uint32_t i = 0; i < count * DISK_SECTOR; i++)
		p[i] = (uint8_t)((lba * 131 + i * 7 + seed * 29) ^ (i >> 9));
}

/* Write patterns at each (lba, count) of spots (which must not overlap), flush, read all back; 0 or the first bad spot + 1. */
static int round_trips(const uint64_t (*spots)[2], int n)
{
	for (int i = 0; i < n; i++) {
		pattern(big, spots[i][0], (uint32_t)spots[i][1], 1);
		if (disk_write(spots[i][0], (uint32_t)spots[i][1], big))
			return i + 1;
	}
	if (disk_flush())
		return n;
	for (int i = 0; i < n; i++) {
		memset(back, 0, sizeof(back));
		pattern(big, spots[i][0], (uint32_t)spots[i][1], 1);
		if (disk_read(spots[i][0], (uint32_t)spots[i][1], back) ||
		    memcmp(big, back, spots[i][1] * DISK_SECTOR))
			return i + 1;
	}
	return 0;
}

TEST_CASE("write.info", "the driver finds the disk attached and reports its size")
{
	EXPECT(start(), "drivers did not start");
	uint64_t sectors = 0;
	long err = disk_info(&sectors, NULL);
	EXPECT(!err, "info: %s", disk_strerror(err));
	EXPECT(sectors == arg_num("sectors"), "%lu sectors, the image has %lu", sectors, arg_num("sectors"));
}

TEST_CASE("write.roundtrip", "what is written reads back, at the first and last sectors, in bursts of 1..128 sectors")
{
	uint64_t n = arg_num("sectors");
	const uint64_t spots[][2] = { { 0, 1 }, { 1, 7 }, { 9, 16 }, { 25, 17 }, { 42, 33 }, { 100, 128 },
				      { n - 129, 128 }, { n - 1, 1 } };
	int bad = round_trips(spots, 8);
	EXPECT(!bad, "sectors %lu+%lu", spots[bad - 1][0], spots[bad - 1][1]);
}

TEST_CASE("write.range", "requests past the disk's end, of 0 or too many sectors, or wrapping around: DISK_ERR_RANGE")
{
	uint64_t n = arg_num("sectors");
	static const uint64_t bad[][2] = { { 0, 0 }, { ~0ULL, 1 }, { ~0ULL - 3, 8 }, { 1ULL << 63, 1 } };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT(disk_read(bad[i][0], (uint32_t)bad[i][1], back) == -DISK_ERR_RANGE, "read %lu+%lu", bad[i][0], bad[i][1]);
		EXPECT(disk_write(bad[i][0], (uint32_t)bad[i][1], big) == -DISK_ERR_RANGE, "write %lu+%lu", bad[i][0], bad[i][1]);
	}
	EXPECT(disk_read(n, 1, back) == -DISK_ERR_RANGE && disk_write(n - 1, 2, big) == -DISK_ERR_RANGE, "at the end");
	EXPECT(disk_read(0, DISK_MAX_SECTORS + 1, back) == -DISK_ERR_RANGE, "a read of too many sectors");
	/* a write of too many sectors does not even reach the driver: its buffer takes no more */
	EXPECT(disk_write(0, DISK_MAX_SECTORS + 1, big) == -DISK_ERR_IPC &&
	       L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_OVERFLOW, "a write of too many sectors: %lx", L4_ErrorCode());
	EXPECT(disk_read(n - 1, 1, back) == 0, "the last sector is no longer readable");
}

TEST_CASE("write.bad_requests", "unknown labels, a string that does not match the count, bad and short buffers: errors, the driver goes on")
{
	L4_SetMR(0, L4_TAG_MAKE(0x3f, 0, 0));
	L4_MsgTag_t tag = L4_Call(pecan_disk);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_MR(1) == DRIVER_ERR_REQUEST,
	       "unknown label: tag %lx", tag);
	L4_SetMR(0, L4_TAG_MAKE(DISK_READ, 1, 0));
	L4_SetMR(1, 0);
	tag = L4_Call(pecan_disk);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_MR(1) == DRIVER_ERR_REQUEST,
	       "a READ without its count: tag %lx", tag);
	L4_SetMR(0, L4_TAG_MAKE(DISK_WRITE, 2, 2));
	L4_SetMR(1, 0);
	L4_SetMR(2, 2);
	L4_SetMR(3, L4_STRING_MAKE(DISK_SECTOR, 1, 0, 0));   /* one sector for a count of two */
	L4_SetMR(4, (L4_Word_t)big);
	tag = L4_Call(pecan_disk);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_MR(1) == DISK_ERR_BUFFER,
	       "a short string: tag %lx", tag);
	EXPECT(disk_read(0, 1, UNMAPPED) == -DISK_ERR_IPC, "read into an unmapped buffer");
	EXPECT(disk_write(0, 1, UNMAPPED) == -DISK_ERR_IPC, "write from an unmapped buffer");
	EXPECT(disk_read(0, 1, (void *)0xffffffff80100000UL) == -DISK_ERR_IPC, "read into kernel memory");
	L4_SetBR(0, L4_ACCEPT_STRINGS);                      /* room for one sector, two asked */
	L4_SetBR(1, L4_STRING_MAKE(DISK_SECTOR, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)back);
	L4_SetMR(0, L4_TAG_MAKE(DISK_READ, 2, 0));
	L4_SetMR(1, 0);
	L4_SetMR(2, 2);
	EXPECT(L4_IpcFailed(L4_Call(pecan_disk)), "a read into a short buffer succeeded");
	L4_SetBR(0, 0);
	pattern(big, 0, 1, 1);
	EXPECT(disk_read(0, 1, back) == 0 && !memcmp(big, back, DISK_SECTOR), "the driver is broken afterwards");
}

TEST_CASE("write.store", "format a store on the disk, checkpoint generation 1, make generation 2's changes without a checkpoint")
{
	dev = (struct store_dev){ 0, 0, kp_read, kp_write, kp_flush };
	int err = open_store();
	EXPECT(err == STORE_ENOSTORE, "a fresh image opened as a store: %s", store_strerror(err));
	EXPECT(!(err = store_format(&dev)) && !(err = open_store()), "format, open: %s", store_strerror(err));
	EXPECT(holds_gen(0), "a new store: %s", why);
	EXPECT(!(err = make_gen(1)), "generation 1: %s (%s)", store_strerror(err), why);
	EXPECT(holds_gen(1), "after the checkpoint: %s", why);
	EXPECT(!(err = apply_gen(2)), "generation 2: %s", why);
	EXPECT(holds_gen(2), "generation 2 before a checkpoint: %s", why);
}

TEST_CASE("big.lba48", "a disk past 128 GiB: its full size, and round trips below, across and far above sector 2^28 (LBA48 commands)")
{
	uint64_t n = arg_num("sectors"), sectors = 0, b = 1ULL << 28;
	long err = disk_info(&sectors, NULL);
	EXPECT(!err && sectors == n, "%lu sectors (%s), the image has %lu", sectors, disk_strerror(err), n);
	const uint64_t spots[][2] = { { b - 24, 16 }, { b - 5, 9 }, { b + 4, 3 }, { n / 2 + 7, 33 }, { n - 128, 128 } };
	int bad = round_trips(spots, 5);
	EXPECT(!bad, "sectors %lu+%lu", spots[bad - 1][0], spots[bad - 1][1]);
}

/* --- the second boot --- */

TEST_CASE("check.store", "the second boot finds exactly generation 1: everything checkpointed, nothing after")
{
	EXPECT(start(), "drivers did not start");
	dev = (struct store_dev){ 0, 0, kp_read, kp_write, kp_flush };
	int err = open_store();
	EXPECT(!err, "open: %s", store_strerror(err));
	EXPECT(holds_gen(1), "%s", why);
}

static int fill_key(int j)
{
	fill(page, 0x800000ULL + (uint64_t)j, 0xf00d);
	return store_put(&st, 0x800000ULL + (uint64_t)j, page);
}

TEST_CASE("check.full_disk", "puts until the disk is full: ENOSPC, nothing lost; checkpoint, reopen; deletes give the space back")
{
	int j, err = 0;
	for (j = 0; j < 4096 && !(err = fill_key(j)); j++)
		;
	EXPECT(err == STORE_ENOSPC, "put %d: %s", j, store_strerror(err));
	EXPECT(j > 100, "only %d pages fit", j);
	EXPECT(fill_key(j) == STORE_ENOSPC, "a second try");
	EXPECT(!(err = store_checkpoint(&st)) && !(err = open_store()), "checkpoint, reopen: %s", store_strerror(err));
	for (int i = 0; i < j; i++) {
		fill(page, 0x800000ULL + (uint64_t)i, 0xf00d);
		EXPECT(store_get(&st, 0x800000ULL + (uint64_t)i, got) == 0 && !memcmp(page, got, STORE_PAGE),
		       "filled page %d", i);
		EXPECT(store_delete(&st, 0x800000ULL + (uint64_t)i) == 0, "delete %d", i);
	}
	EXPECT(holds_gen(1), "generation 1 after the fill: %s", why);
	EXPECT(!store_checkpoint(&st) && !store_checkpoint(&st), "checkpoints");
	EXPECT(!(err = fill_key(0)) && !(err = store_checkpoint(&st)), "no room after deleting: %s", store_strerror(err));
}

/* --- no disk --- */

TEST_CASE("nodisk.errors", "without a disk every request says so, and the store cannot be formatted or opened")
{
	EXPECT(start(), "drivers did not start");
	uint64_t sectors;
	EXPECT(disk_info(&sectors, NULL) == -DISK_ERR_NODISK, "info");
	EXPECT(disk_read(0, 1, back) == -DISK_ERR_NODISK, "read");
	EXPECT(disk_write(0, 1, big) == -DISK_ERR_NODISK, "write");
	EXPECT(disk_flush() == -DISK_ERR_NODISK, "flush");
	disk_store_dev(&dev, 1 << 16);            /* as if there were a 32 MiB disk */
	EXPECT(store_format(&dev) == STORE_EIO, "format");
	EXPECT(store_open(&st, &dev, mem, sizeof(mem), CACHE) == STORE_EIO, "open");
}

/* What another thread of this task (another owner to sigma0) gets for I/O fpage requests. */
static volatile L4_Word_t io_got[6], io_done;

static L4_Word_t ask_ports(L4_Word_t first, L4_Word_t log2)
{
	return pecan_sigma0_request(L4_IO_FPAGE(first, log2, 7), L4_COMPLETE_SPACE);
}

static void other_owner(void)
{
	io_got[0] = ask_ports(0x1f0, 3);          /* the disk driver's */
	io_got[1] = ask_ports(0x3f8, 3);          /* COM1, the root task's from boot */
	io_got[2] = ask_ports(0x170, 3);          /* the secondary IDE channel: free */
	io_got[3] = inb(0x177) + 1UL;             /* usable at once (a fault would stop us here) */
	io_got[4] = ask_ports(0, 17);             /* more ports than there are */
	io_got[5] = ask_ports(0x171, 3);          /* not aligned to its size */
	io_done = 1;
	tt_park();
}

TEST_CASE("nodisk.sigma0_ports", "sigma0 hands out each port once, like memory: another owner is refused the driver's and the serial ports")
{
	L4_ThreadId_t t = tt_id(0, 1);
	/* sigma0 serves only the threads the root task names (docs/architecture.md, "Trust model") */
	EXPECT(pecan_sigma0_admit(l4_thread_no(t), 1), "sigma0 did not admit the thread");
	EXPECT(tt_start_local(t, other_owner), "start a thread");
	TT_WAIT(io_done, 2000);
	tt_kill(t);
	EXPECT(io_done, "the thread did not finish (an I/O fault?)");
	EXPECT(io_got[0] == 0 && io_got[1] == 0, "another owner got ports already given: %lx %lx", io_got[0], io_got[1]);
	EXPECT(io_got[2] == L4_IO_FPAGE(0x170, 3, 7) && io_got[3], "free ports: %lx", io_got[2]);
	EXPECT(io_got[4] == 0 && io_got[5] == 0, "bad I/O fpages were granted: %lx %lx", io_got[4], io_got[5]);
	EXPECT(ask_ports(0x1f0, 3) == L4_IO_FPAGE(0x1f0, 3, 7), "the owner asking again is refused");
}

int main(void)
{
	int failed;
	pecan_boot_args(args, sizeof(args));
	if (!start()) {
		printf("t_store: the drivers did not start\n");
		pecan_kdb_power_off(2);
	}
	if (arg_is("mode", "kill") || arg_is("mode", "recover")) {
		dev = (struct store_dev){ 0, 0, kp_read, kp_write, kp_flush };
		failed = kill_boot();
	} else {
		char prefix[16];
		const char *mode = arg("mode");
		unsigned n = 0;
		while (mode[n] && mode[n] != ' ' && n < sizeof(prefix) - 2)
			prefix[n] = mode[n], n++;
		prefix[n] = '.', prefix[n + 1] = 0;       /* "write." runs the write.* cases */
		failed = test_run_matching(prefix);
	}
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
