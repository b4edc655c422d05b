// SPDX-License-Identifier: MIT
// The costs of Mungi's persistence (docs/mungi.md, "Persistence"), booted
// twice on one disk image by bench/mungi/persist.sh: phase=write measures a
// checkpoint with nothing dirty and the extra cost of each dirty page;
// phase=read (the next boot) the first touch of a page that comes back from
// the disk, against the first touch of a new object's page.  Guest
// instructions (rdtsc under icount).  The disk driver polls while QEMU
// writes and syncs the image, so each figure also comes as `.work`: the
// total less the driver's polling ticks (MUNGI_STAT_DISK_POLL_TICKS), which
// repeats where the total follows the host's I/O.
#include "../../lib/mungi/mungi.h"
#include "../../lib/c/stdio.h"
#include "../../lib/c/string.h"
#include "../../lib/fmt/fmt.h"

#define PAGES  256
#define ROUNDS 4
#define PG     4096

static struct mungi_bootinfo *boot;

static inline mw_t now(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (mw_t)hi << 32 | lo;
}

static mw_t poll_ticks(void)
{
	mw_t s[MUNGI_NSTATS];
	return mungi_stats(s) ? 0 : s[MUNGI_STAT_DISK_POLL_TICKS];
}

/* A span of time: instructions in all and the part the disk driver spent polling. */
struct span { mw_t total, polling; };

static struct span since(struct span start)
{
	return (struct span){ now() - start.total, poll_ticks() - start.polling };
}

static struct span start(void)
{
	mw_t p = poll_ticks();
	return (struct span){ now(), p };
}

static void result(const char *name, mw_t total, mw_t n)
{
	mw_t tenths = total * 10 / n;
	printf("RESULT name=%s system=mungi value=%lu.%lu unit=instructions method=icount\n", name, tenths / 10,
	       tenths % 10);
}

static void results(const char *name, struct span s, mw_t n)
{
	char work[64];
	result(name, s.total, n);
	snfmt(work, sizeof(work), "%s.work", name);
	result(work, s.total - s.polling, n);
}

static int checkpoint(struct span *s)
{
	mw_t pages;
	struct span t = start();
	if (mungi_checkpoint(&boot->bank, &pages)) {
		printf("mpbench: a checkpoint failed\n");
		return 0;
	}
	struct span d = since(t);
	s->total += d.total;
	s->polling += d.polling;
	return 1;
}

static void dirty(mw_t base, mw_t round)
{
	for (mw_t i = 0; i < PAGES; i++)
		*(volatile mw_t *)(base + i * PG) = round * 1000 + i;
}

static int write_phase(void)
{
	struct mungi_cap o;
	if (mungi_obj_create(PAGES, NULL, MUNGI_OBJ_SURVIVES, &o))
		return 1;
	mungi_clist_add(mungi_own_clist(), &o);
	struct span empty = { 0, 0 }, full = { 0, 0 }, warm = { 0, 0 };
	dirty(o.base, 0);
	if (!checkpoint(&warm) || !checkpoint(&warm))
		return 1;
	for (mw_t r = 1; r <= ROUNDS; r++) {
		if (!checkpoint(&empty))
			return 1;
		dirty(o.base, r);
		if (!checkpoint(&full))
			return 1;
	}
	results("mungi.checkpoint_empty", empty, ROUNDS);
	struct span extra = { full.total - empty.total, full.polling - empty.polling };
	results("mungi.checkpoint_page", extra, ROUNDS * PAGES);
	printf("MPBENCH o=%lx:%lx\n", o.base, o.password);
	return 0;
}

/* First touch of every page of [base, base + PAGES pages), with a check of what it holds. */
static struct span touch_all(mw_t base, mw_t want_round)
{
	struct span t = start();
	mw_t bad = 0;
	for (mw_t i = 0; i < PAGES; i++)
		bad += *(volatile mw_t *)(base + i * PG) != (want_round ? want_round * 1000 + i : 0);
	struct span d = since(t);
	if (bad)
		printf("mpbench: %lu pages hold the wrong data\n", bad);
	return d;
}

static int read_phase(void)
{
	struct mungi_cap c = mungi_cap_parse(mungi_arg(boot->args, "o"));
	mungi_clist_add(mungi_own_clist(), &c);
	results("mungi.persisted_first_touch", touch_all(c.base, ROUNDS), PAGES);
	mw_t fresh = mungi_new(PAGES, NULL);
	results("mungi.new_first_touch", touch_all(fresh, 0), PAGES);
	return 0;
}

long mungi_main(mw_t arg)
{
	boot = (struct mungi_bootinfo *)arg;
	int err = *mungi_arg(boot->args, "phase") == 'w' ? write_phase() : read_phase();
	if (!err)
		printf("mpbench: done\n");
	return err;
}
