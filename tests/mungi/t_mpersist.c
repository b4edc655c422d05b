// SPDX-License-Identifier: MIT
// Mungi's orthogonal persistence (docs/mungi.md, "Persistence"), booted
// several times against one disk image by tests/system/test_mpersist.py.
// The server's command line picks the cases (mode=write runs write.*, ...);
// a boot hands what the next one needs (bases and passwords) to the host in
// an MPERSIST line, as a user would write a capability down, and the host
// passes it on in the next boot's command line.
#include "../../lib/mungi/mungi.h"
#include "../../lib/test/test.h"
#include "../../lib/c/stdio.h"
#include "../../lib/c/string.h"

#define PG 4096
#define G_PAGES 10
#define V_A0 0xa0a0a0a0a0a0a0a0UL       /* A's page 0 at the first checkpoint */
#define V_A2 0xa2a2a2a2a2a2a2a2UL       /* A's page 2 at the last checkpoint */
#define B_TEXT "what the checkpoint kept"
#define H_PAGES (1UL << 20)              /* a 4 GiB object: few of its pages resident */

static struct mungi_bootinfo *boot;

static const char *arg(const char *name)
{
	return mungi_arg(boot->args, name);
}

/* name=BASE or name=BASE:PASSWORD from the command line. */
static struct mungi_cap cap_arg(const char *name)
{
	return mungi_cap_parse(arg(name));
}

static mw_t survivor(mw_t pages, const struct mungi_cap *account, struct mungi_cap *owner)
{
	if (mungi_obj_create(pages, account, MUNGI_OBJ_SURVIVES, owner))
		return 0;
	mungi_clist_add(mungi_own_clist(), owner);
	return owner->base;
}

static mw_t checkpoint(void)
{
	mw_t pages = 0, err = mungi_checkpoint(&boot->bank, &pages);
	return err ? 0 : pages;
}

/* --- boot 1 --- */

TEST_CASE("write.objects", "objects, data, passwords and an account, two checkpoints (the second catching a write to a page already mapped), then changes never checkpointed")
{
	struct mungi_cap a, b, d, e, f, g, h, u, r;
	mw_t n = 0;
	EXPECT(survivor(3, NULL, &a) && survivor(1, NULL, &b) && survivor(1, NULL, &d) && survivor(G_PAGES, NULL, &g),
	       "create");
	struct mungi_cap c;
	EXPECT(mungi_new(1, &c), "C, on this task's kill list");
	*(volatile mw_t *)a.base = V_A0;
	*(volatile mw_t *)(a.base + 2 * PG) = 1;
	memcpy((char *)b.base + 100, B_TEXT, sizeof(B_TEXT));
	*(volatile mw_t *)c.base = 0xc;
	EXPECT(!mungi_cap_register(a.base, 0, MUNGI_R, &r.password), "register");
	r.base = a.base;
	EXPECT(!mungi_acct_create(&boot->bank, 5000, &u) && survivor(2, &u, &f), "an account and an object charged to it");
	*(volatile mw_t *)(f.base + PG) = 0xf;
	EXPECT(survivor(H_PAGES, NULL, &h), "H");
	*(volatile mw_t *)(h.base + (H_PAGES - 1) * PG) = 0x4848;
	*(volatile mw_t *)(h.base + 70000 * PG) = 0x4849;
	EXPECT(!mungi_obj_delete(d.base), "delete D before the checkpoint");
	mw_t p1 = checkpoint();
	EXPECT(p1 > 5, "first checkpoint: %lu pages", p1);

	/* a page mapped writable since the first checkpoint changes: the next one must store it */
	*(volatile mw_t *)(a.base + 2 * PG) = V_A2;
	mw_t p2 = checkpoint(), p3 = checkpoint();
	for (int i = 0; i < G_PAGES; i++)
		*(volatile mw_t *)(g.base + (mw_t)i * PG) = 0x6000 + (mw_t)i;
	mw_t p4 = checkpoint();
	EXPECT(p2 && p3 && p4 == p3 + G_PAGES, "dirty pages only: %lu, %lu, then %lu after writing %d pages",
	       p2, p3, p4, G_PAGES);

	/* none of this is checkpointed */
	*(volatile mw_t *)a.base = 0xbad;
	memcpy((char *)b.base + 100, "lost", 5);
	EXPECT(survivor(1, NULL, &e), "E");
	EXPECT(!mungi_cap_revoke(a.base, r.password), "revoke");
	EXPECT(!mungi_cap_register(a.base, 0, MUNGI_R, &n), "register");
	printf("MPERSIST a=%lx:%lx r=%lx n=%lx b=%lx:%lx f=%lx:%lx g=%lx:%lx u=%lx:%lx c=%lx:%lx d=%lx:%lx e=%lx:%lx h=%lx:%lx k=%lx\n",
	       a.base, a.password, r.password, n, b.base, b.password, f.base, f.password, g.base, g.password,
	       u.base, u.password, c.base, c.password, d.base, d.password, e.base, e.password, h.base, h.password, boot->bank.base);
}

/* --- boot 2 --- */

static struct mungi_cap A, B, F, G, H, U;

static void caps_from_args(void)
{
	A = cap_arg("a"), B = cap_arg("b"), F = cap_arg("f"), G = cap_arg("g"), H = cap_arg("h"), U = cap_arg("u");
	const struct mungi_cap *own[] = { &A, &B, &F, &G, &H, &U };
	for (int i = 0; i < 6; i++)
		mungi_clist_add(mungi_own_clist(), own[i]);
}

TEST_CASE("check.data", "every object of the last checkpoint is back at its address with the data of that checkpoint")
{
	caps_from_args();
	mw_t base = 0, pages = 0, rights = 0;
	EXPECT(!mungi_obj_info(A.base, &base, &pages, &rights) && base == A.base && pages == 3 &&
	       rights == MUNGI_OWNER, "A: base %lx pages %lu rights %lx", base, pages, rights);
	EXPECT(*(volatile mw_t *)A.base == V_A0, "A page 0: %lx", *(volatile mw_t *)A.base);
	EXPECT(*(volatile mw_t *)(A.base + PG) == 0, "A page 1 (never written): %lx", *(volatile mw_t *)(A.base + PG));
	EXPECT(*(volatile mw_t *)(A.base + 2 * PG) == V_A2, "A page 2 (written after the first checkpoint): %lx",
	       *(volatile mw_t *)(A.base + 2 * PG));
	EXPECT(!strcmp((char *)B.base + 100, B_TEXT), "B: %.30s", (char *)B.base + 100);
	EXPECT(*(volatile mw_t *)(F.base + PG) == 0xf, "F");
	EXPECT(*(volatile mw_t *)(H.base + (H_PAGES - 1) * PG) == 0x4848 &&
	       *(volatile mw_t *)(H.base + 70000 * PG) == 0x4849 && *(volatile mw_t *)(H.base + PG) == 0,
	       "H, a 4 GiB object with three pages touched");
	for (int i = 0; i < G_PAGES; i++)
		EXPECT(*(volatile mw_t *)(G.base + (mw_t)i * PG) == 0x6000 + (mw_t)i, "G page %d", i);
}

/* A child given the one capability cap: 1 if it can read A, 2 if it can write it. */
static long probe_child(mw_t arg)
{
	return (mungi_probe(arg, 'r') ? 0 : 1) | (mungi_probe(arg + 8, 'w') ? 0 : 2);
}

/* What a task whose APD holds only (base, password) can do at base: 1 read, 2 write. */
static long access_with(mw_t base, mw_t password)
{
	struct mungi_cap cl = { 0, 0 }, cap = { base, password };
	mw_t clist = mungi_new(1, &cl), h = 0, task = 0, pw = 0;
	long status = -1;
	mungi_clist_init(clist, 1);
	mungi_clist_add(clist, &cap);
	mungi_cap_register(clist, 0, MUNGI_R, &pw);
	struct mungi_cap apd[2] = { boot->image_ro, { clist, pw } };
	if (mungi_apd_make(apd, 2, &h) || mungi_task_create(probe_child, base, h, 0, &task) ||
	    mungi_task_wait(task, &status))
		status = -1;
	mungi_free(clist);
	return status;
}

TEST_CASE("check.capabilities", "passwords and rights are those of the checkpoint: a read-only password revoked after it still reads and cannot write, one registered after it and a forged one give nothing")
{
	long r;
	EXPECT((r = access_with(A.base, cap_arg("r").base)) == 1, "the read-only password: %ld", r);
	EXPECT((r = access_with(A.base, cap_arg("n").base)) == 0, "a password registered after the checkpoint: %ld", r);
	EXPECT((r = access_with(A.base, A.password ^ 1)) == 0, "a forged password: %ld", r);
	EXPECT((r = access_with(A.base, A.password)) == 3, "the owner password: %ld", r);
}

TEST_CASE("check.gone", "objects deleted before the checkpoint, created after it, or on a dead task's kill list are gone: their owner capabilities give nothing (their addresses may hold new objects)")
{
	const char *names[] = { "c", "d", "e" };
	for (int i = 0; i < 3; i++) {
		struct mungi_cap c = cap_arg(names[i]);
		long r = access_with(c.base, c.password);
		EXPECT(r == 0, "%s's owner capability still gives %ld", names[i], r);
	}
}

TEST_CASE("check.bank", "the bank and accounts come back: the same bank, an account's balance and the pages charged to it")
{
	long balance = 0;
	mw_t pages = 0;
	EXPECT(boot->bank.base == cap_arg("k").base, "the bank moved: %lx", boot->bank.base);
	EXPECT(!mungi_acct_info(&U, &balance, &pages) && balance == 5000 && pages == 2, "balance %ld, %lu pages",
	       balance, pages);
	struct mungi_cap acct;
	EXPECT(!mungi_acct_create(&boot->bank, 1, &acct), "the recovered bank's owner capability works");
}

TEST_CASE("check.addresses", "new objects never land on a recovered object's range")
{
	const struct mungi_cap *kept[] = { &A, &B, &F, &G, &H };
	mw_t sizes[] = { 1, 3, 10, 1 }, made[4];
	for (int i = 0; i < 4; i++) {
		made[i] = mungi_new(sizes[i], NULL);
		EXPECT(made[i], "create %d", i);
		for (int k = 0; k < 5; k++) {
			mw_t base = 0, pages = 0, rights = 0;
			EXPECT(mungi_obj_info(kept[k]->base, &base, &pages, &rights) == 0 && pages,
			       "recovered object %lx: no range to compare with", kept[k]->base);
			EXPECT(made[i] + sizes[i] * PG <= base || made[i] >= base + pages * PG,
			       "new object %lx overlaps %lx", made[i], base);
		}
	}
	for (int i = 0; i < 4; i++)
		mungi_free(made[i]);
	*(volatile mw_t *)(A.base + PG) = 0x1;
	EXPECT(checkpoint(), "a checkpoint after recovery");
}

/* --- a full disk: boot 1 checkpoints X, then a checkpoint that cannot fit --- */

#define X_VALUE 0x5151UL
#define Y_PAGES 700

TEST_CASE("full.enospc", "a checkpoint that does not fit the disk fails with MUNGI_ENOSPC; the server and tasks go on")
{
	struct mungi_cap x, y;
	EXPECT(survivor(4, NULL, &x), "X");
	*(volatile mw_t *)(x.base + PG) = X_VALUE;
	EXPECT(checkpoint(), "the first checkpoint");
	EXPECT(survivor(Y_PAGES, NULL, &y), "Y");
	for (mw_t i = 0; i < Y_PAGES; i++)
		*(volatile mw_t *)(y.base + i * PG) = i + 1;
	mw_t pages = 0;
	EXPECT(mungi_checkpoint(&boot->bank, &pages) == MUNGI_ENOSPC, "a checkpoint too big for the disk");
	EXPECT(mungi_null() == 0 && *(volatile mw_t *)(x.base + PG) == X_VALUE, "the server goes on");
	mw_t z = mungi_new(1, NULL);
	EXPECT(z && mungi_probe(z, 'w') == 0 && *(volatile mw_t *)(y.base + 5 * PG) == 6, "objects still work");
	*(volatile mw_t *)(x.base + PG) = 0xbad;
	printf("MPERSIST x=%lx:%lx y=%lx:%lx\n", x.base, x.password, y.base, y.password);
}

TEST_CASE("fullcheck.previous", "after the failed checkpoint the disk holds the one before, intact, and takes new checkpoints")
{
	struct mungi_cap x = cap_arg("x");
	mungi_clist_add(mungi_own_clist(), &x);
	mw_t base = 0, pages = 0, rights = 0;
	EXPECT(!mungi_obj_info(x.base, &base, &pages, &rights) && *(volatile mw_t *)(x.base + PG) == X_VALUE,
	       "X at the checkpoint before");
	struct mungi_cap y = cap_arg("y");
	EXPECT(access_with(y.base, y.password) == 0, "Y's owner capability still works");
	*(volatile mw_t *)(x.base + PG) = 2;
	EXPECT(checkpoint(), "a checkpoint now");
}

/* --- a kill inside a checkpoint: generation 1 checkpointed, generation 2's checkpoint killed (server option kill_at=2.W) --- */

#define P_PAGES 8

/* Generation g: every page of P holds g in every word we look at, and Q_g exists. */
static void generation(mw_t p, mw_t g)
{
	for (mw_t i = 0; i < P_PAGES; i++)
		for (mw_t w = 0; w < PG / 8; w += 64)
			((volatile mw_t *)(p + i * PG))[w] = g;
}

TEST_CASE("kill.run", "generation 1 checkpointed, generation 2 (P rewritten, Q2 made) checkpointed while the host kills QEMU")
{
	struct mungi_cap p, q1, q2;
	EXPECT(survivor(P_PAGES, NULL, &p) && survivor(1, NULL, &q1), "P, Q1");
	generation(p.base, 1);
	EXPECT(checkpoint(), "generation 1");
	EXPECT(survivor(1, NULL, &q2), "Q2");
	generation(p.base, 2);
	printf("MPERSIST p=%lx:%lx q1=%lx:%lx q2=%lx:%lx\n", p.base, p.password, q1.base, q1.password, q2.base,
	       q2.password);
	checkpoint();                   /* the server stops inside it; the host kills QEMU */
	EXPECT(0, "the checkpoint was not stopped");
}

TEST_CASE("kcheck.consistent", "after the kill, P holds one generation in every page and exactly that generation's objects exist")
{
	struct mungi_cap p = cap_arg("p"), q[2] = { cap_arg("q1"), cap_arg("q2") };
	mungi_clist_add(mungi_own_clist(), &p);
	mw_t g = *(volatile mw_t *)p.base;
	EXPECT(g == 1 || g == 2, "P page 0 holds %lx", g);
	for (mw_t i = 0; i < P_PAGES; i++)
		for (mw_t w = 0; w < PG / 8; w += 64)
			EXPECT(((volatile mw_t *)(p.base + i * PG))[w] == g, "P page %lu word %lu: %lx, page 0 says %lu",
			       i, w, ((volatile mw_t *)(p.base + i * PG))[w], g);
	long r1 = access_with(q[0].base, q[0].password), r2 = access_with(q[1].base, q[1].password);
	EXPECT(r1 == 3 && r2 == (g == 2 ? 3 : 0), "generation %lu: Q1 gives %ld, Q2 %ld", g, r1, r2);
	printf("MPERSIST-FOUND generation=%lu\n", g);
}

/* --- periodic checkpoints: the server runs with ckpt_ms=100 --- */

#define PERIOD_VALUE 0x7777UL

TEST_CASE("period.write", "with periodic checkpoints, data written and left for a few periods is on the disk without a checkpoint request")
{
	struct mungi_cap p;
	EXPECT(survivor(2, NULL, &p), "P");
	*(volatile mw_t *)(p.base + PG) = PERIOD_VALUE;
	for (mw_t t0 = L4_SystemClock(); L4_SystemClock() - t0 < 500000;)
		;
	printf("MPERSIST p=%lx:%lx\n", p.base, p.password);
}

TEST_CASE("pcheck.found", "the next boot finds what a periodic checkpoint wrote")
{
	struct mungi_cap p = cap_arg("p");
	mungi_clist_add(mungi_own_clist(), &p);
	EXPECT(*(volatile mw_t *)(p.base + PG) == PERIOD_VALUE, "P page 1: %lx", *(volatile mw_t *)(p.base + PG));
}

long mungi_main(mw_t bootinfo)
{
	boot = (struct mungi_bootinfo *)bootinfo;
	if (boot->magic != MUNGI_BOOT_MAGIC)
		return 2;
	char mode[16];
	const char *m = arg("mode");
	unsigned i = 0;
	while (m[i] && m[i] != ' ' && i < sizeof(mode) - 2)
		mode[i] = m[i], i++;
	mode[i++] = '.';
	mode[i] = 0;
	return test_run_matching(mode) ? 1 : 0;
}
