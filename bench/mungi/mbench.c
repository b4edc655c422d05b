// SPDX-License-Identifier: MIT
// Seed 002's benchmarks on Pecan's Mungi layer, as the first task of a user
// image: Table 1's operations, and OO1 (bench/oo1/oo1.h) in one task
// (variant=single) and with the database in its own protection domain called
// by PDX, with the client's user procedure called back by a nested PDX
// (variant=pdx), the client also confined (variant=pdx_restricted).  Each
// OO1 run is preceded by a warm-up run, as the seed measured with hot caches.
// Figures are guest instructions under icount (docs/bench-method.md).
#include "../../lib/mungi/mungi.h"
#include "../../lib/c/stdio.h"
#include "../../lib/fmt/fmt.h"
#include "../oo1/oo1.h"

static struct mungi_bootinfo *boot;
static struct mungi_cap image_code, image_data;

static inline mw_t now(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (mw_t)hi << 32 | lo;
}

static void result(const char *name, const char *params, mw_t total, mw_t n)
{
	mw_t tenths = total * 10 / n;
	printf("RESULT name=%s system=mungi%s%s value=%lu.%lu unit=instructions method=icount\n", name,
	       *params ? " " : "", params, tenths / 10, tenths % 10);
}

static struct mungi_cap with_rights(mw_t base, mw_t rights)
{
	mw_t pw = 0;
	if (mungi_cap_register(base, 0, rights, &pw))
		printf("mbench: cannot register a password for %lx\n", base);
	return (struct mungi_cap){ base, pw };
}

static struct mungi_cap clist_of(const struct mungi_cap *caps, int n)
{
	mw_t base = mungi_new(1, 0);
	mungi_clist_init(base, 1);
	for (int i = 0; i < n; i++)
		mungi_clist_add(base, &caps[i]);
	return with_rights(base, MUNGI_R);
}

static struct mungi_cap pdx_capability(const mw_t *entries, int n, const struct mungi_cap *clist)
{
	mw_t pw = 0;
	mungi_pdx_register(boot->text_owner.base, 0, MUNGI_PDX, entries, (mw_t)n, clist, &pw);
	return (struct mungi_cap){ boot->text_owner.base, pw };
}

/* --- Table 1 --- */

#define N 1000

static void null_syscall(void)
{
	mungi_null();
	mw_t t0 = now();
	for (int i = 0; i < N; i++)
		mungi_null();
	result("mungi.null_syscall", "", now() - t0, N);
}

static void sleeper(mw_t arg)
{
	for (;;)
		L4_Sleep(arg);
}

static void threads(void)
{
	mw_t create = 0, delete = 0, tid;
	for (int i = 0; i <= N / 4; i++) {
		mw_t t0 = now();
		mungi_thread_create(sleeper, 1000000, &tid);
		mw_t t1 = now();
		mungi_thread_kill(tid);
		mw_t t2 = now();
		if (i) {                /* the first is the warm-up */
			create += t1 - t0;
			delete += t2 - t1;
		}
	}
	result("mungi.thread_create", "", create, N / 4);
	result("mungi.thread_delete", "", delete, N / 4);
	result("mungi.thread_create_delete", "", create + delete, N / 4);
}

static long task_sleeper(mw_t arg)
{
	for (;;)
		L4_Sleep(arg);
	return 0;
}

static void tasks(void)
{
	mw_t create = 0, delete = 0, task;
	for (int i = 0; i <= N / 10; i++) {
		mw_t t0 = now();
		mungi_task_create(task_sleeper, 1000000, 0, 0, &task);
		mw_t t1 = now();
		mungi_task_kill(task);
		mungi_task_wait(task, 0);
		mw_t t2 = now();
		if (i) {
			create += t1 - t0;
			delete += t2 - t1;
		}
	}
	result("mungi.task_create", "", create, N / 10);
	result("mungi.task_delete", "", delete, N / 10);
	result("mungi.task_create_delete", "", create + delete, N / 10);
}

/* An object of two pages: create, first touch (validation and map), a further page (map), delete. */
static void objects(void)
{
	mw_t create = 0, touch = 0, map = 0, delete = 0;
	for (int i = 0; i <= N; i++) {
		mw_t t0 = now();
		mw_t base = mungi_new(2, 0);
		mw_t t1 = now();
		*(volatile char *)base = 1;
		mw_t t2 = now();
		*(volatile char *)(base + 4096) = 1;
		mw_t t3 = now();
		mungi_free(base);
		mw_t t4 = now();
		if (i) {
			create += t1 - t0;
			touch += t2 - t1;
			map += t3 - t2;
			delete += t4 - t3;
		}
	}
	result("mungi.obj_create", "", create, N);
	result("mungi.obj_touch", "", touch, N);
	result("mungi.page_map", "", map, N);
	result("mungi.obj_delete", "", delete, N);
	result("mungi.obj_create_touch_delete", "", create + touch + delete, N);
}

static struct mungi_ret null_pdx(mw_t a, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	return (struct mungi_ret){ a + b + c + d + e + f, 0 };
}

struct pdx_args { mw_t confined; };

/* Repeated PDX calls to a null procedure: extending the caller's APD, and with an empty APD. */
static long pdx_bench(mw_t arg)
{
	const char *params = arg ? "restricted=1" : "";
	struct mungi_ret r;
	for (int kind = 0; kind < 2; kind++) {
		mw_t (*call)(mw_t, mw_t, mw_t, mw_t, mw_t, mw_t, mw_t, struct mungi_ret *) =
			kind ? mungi_pdx_empty : mungi_pdx;
		if (call((mw_t)null_pdx, 1, 2, 3, 4, 5, 6, &r) || r.r0 != 21) {
			printf("mbench: a PDX call failed\n");
			return 1;
		}
		mw_t t0 = now();
		for (int i = 0; i < N; i++)
			call((mw_t)null_pdx, 1, 2, 3, 4, 5, 6, &r);
		result(kind ? "mungi.pdx_empty" : "mungi.pdx", params, now() - t0, N);
	}
	return 0;
}

/* Run fn(arg) in a task whose APD is the read-only image and one Clist of caps. */
static long in_task(long (*fn)(mw_t), mw_t arg, const struct mungi_cap *caps, int n, mw_t flags)
{
	struct mungi_cap apd[2] = { boot->image_ro, clist_of(caps, n) };
	mw_t h, task;
	long status = -1;
	if (mungi_apd_make(apd, 2, &h) || mungi_task_create(fn, arg, h, flags, &task) ||
	    mungi_task_wait(task, &status))
		printf("mbench: cannot run a task\n");
	return status;
}

/* --- OO1 --- */

static struct oo1_db *db;               /* written once by the first task */
static volatile uint64_t seen;

static void visit(void *ctx, uint32_t id, int32_t x, int32_t y, uint64_t type)
{
	(void)ctx;
	seen += id ^ (uint32_t)x ^ (uint32_t)y ^ type;
}

/* The client's user procedure, called back by the database with an empty APD. */
static struct mungi_ret oo1_user(mw_t id, mw_t x, mw_t y, mw_t type, mw_t e, mw_t f)
{
	(void)e, (void)f;
	return (struct mungi_ret){ id ^ x ^ y ^ type, 0 };
}

/*
 * In the database's domain: each part goes to the client's procedure by a
 * nested PDX call.  (The image's data is read-only here: nothing is kept.)
 */
static void pdx_visit(void *ctx, uint32_t id, int32_t x, int32_t y, uint64_t type)
{
	if (mungi_pdx_empty((mw_t)ctx, id, (mw_t)x, (mw_t)y, type, 0, 0, 0))
		printf("mbench: a call back to the client failed\n");
}

static struct mungi_ret db_lookup(mw_t id, mw_t user, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	return (struct mungi_ret){ oo1_lookup(db, (uint32_t)id, pdx_visit, (void *)user), 0 };
}

static struct mungi_ret db_traverse(mw_t id, mw_t reverse, mw_t depth, mw_t user, mw_t e, mw_t f)
{
	(void)e, (void)f;
	return (struct mungi_ret){ oo1_traverse(db, (uint32_t)id, (int)depth, (int)reverse, pdx_visit, (void *)user), 0 };
}

static struct mungi_ret db_new(mw_t a, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	return (struct mungi_ret){ oo1_new_part(db), 0 };
}

static struct mungi_ret db_connect(mw_t from, mw_t to, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	return (struct mungi_ret){ (mw_t)oo1_connect(db, (uint32_t)from, (uint32_t)to), 0 };
}

static uint32_t local_lookup(uint32_t id) { return oo1_lookup(db, id, visit, 0); }
static uint32_t local_traverse(uint32_t id, int rev, int depth) { return oo1_traverse(db, id, depth, rev, visit, 0); }
static uint32_t local_new(void) { return oo1_new_part(db); }
static void local_connect(uint32_t f, uint32_t t) { oo1_connect(db, f, t); }
static const struct oo1_ops local = { local_lookup, local_traverse, local_new, local_connect };

static uint32_t pdx_call(mw_t entry, mw_t a, mw_t b, mw_t c, mw_t d)
{
	struct mungi_ret r = { 0, 0 };
	if (mungi_pdx(entry, a, b, c, d, 0, 0, &r))
		printf("mbench: a PDX call to the database failed\n");
	return (uint32_t)r.r0;
}

static uint32_t pdx_lookup(uint32_t id) { return pdx_call((mw_t)db_lookup, id, (mw_t)oo1_user, 0, 0); }
static uint32_t pdx_traverse(uint32_t id, int rev, int depth)
{
	return pdx_call((mw_t)db_traverse, id, (mw_t)rev, (mw_t)depth, (mw_t)oo1_user);
}
static uint32_t pdx_new(void) { return pdx_call((mw_t)db_new, 0, 0, 0, 0); }
static void pdx_connect(uint32_t f, uint32_t t) { pdx_call((mw_t)db_connect, f, t, 0, 0); }
static const struct oo1_ops remote = { pdx_lookup, pdx_traverse, pdx_new, pdx_connect };

static void report(const char *variant, const char *name, mw_t value)
{
	char params[48];
	snfmt(params, sizeof(params), "variant=%s", variant);
	result(name, params, value, 1);
}

static uint64_t clock(void)
{
	return now();
}

/* The same operations, random numbers and order as bench/posix/oo1.c; no figures for variant NULL. */
static void oo1_run(const struct oo1_ops *ops, const char *variant)
{
	struct oo1_times t = oo1_measure(ops, OO1_LOOKUPS, OO1_INSERTS, OO1_DEPTH, clock);
	if (!variant)
		return;
	report(variant, "oo1.lookup", t.lookup);
	report(variant, "oo1.forward", t.forward);
	report(variant, "oo1.reverse", t.reverse);
	report(variant, "oo1.insert", t.insert);
	report(variant, "oo1.total", t.lookup + t.forward + t.reverse + t.insert);
}

/*
 * Let the server's housekeeping catch up: deleted objects' ranges come off
 * the stale list dt after their deletion, and returning a thousand of them
 * at one tick would land in whatever is being measured then.
 */
static void settle(void)
{
	L4_Sleep(3 * boot->dt_us);
}

static long oo1_client(mw_t confined)
{
	oo1_run(&remote, 0);            /* the seed's figures are with hot caches: a warm-up first */
	oo1_run(&remote, confined ? "pdx_restricted" : "pdx");
	return 0;
}

static void oo1(void)
{
	mw_t pages = (sizeof(struct oo1_db) + 4095) / 4096;
	struct mungi_cap owner;
	db = (struct oo1_db *)mungi_new(pages, &owner);
	oo1_build(db, OO1_PARTS, 0x5eed);
	settle();
	oo1_run(&local, 0);
	oo1_run(&local, "single");
	/* the database in its own domain: a PDX capability whose Clist holds it; the client cannot touch it */
	mw_t dbe[4] = { (mw_t)db_lookup, (mw_t)db_traverse, (mw_t)db_new, (mw_t)db_connect }, ue = (mw_t)oo1_user;
	struct mungi_cap dbcl[3] = { with_rights(owner.base, MUNGI_R | MUNGI_W), image_code, image_data };
	struct mungi_cap dbc = clist_of(dbcl, 3), uc = clist_of(dbcl + 1, 2);
	struct mungi_cap client[3] = { pdx_capability(dbe, 4, &dbc), pdx_capability(&ue, 1, &uc), { 0, 0 } };
	for (mw_t confined = 0; confined < 2; confined++) {
		oo1_build(db, OO1_PARTS, 0x5eed);
		settle();
		in_task(oo1_client, confined, client, 2, confined ? MUNGI_TASK_CONFINED : 0);
	}
}

long mungi_main(mw_t arg)
{
	struct mungi_self self;
	boot = (struct mungi_bootinfo *)arg;
	if (mungi_self(&self))
		return 2;
	mungi_clist_add(self.clist, &boot->text_owner);
	mungi_clist_add(self.clist, &boot->data_owner);
	image_code = with_rights(boot->text_owner.base, MUNGI_R | MUNGI_X);
	image_data = with_rights(boot->data_owner.base, MUNGI_R);
	null_syscall();
	threads();
	tasks();
	objects();
	mw_t e = (mw_t)null_pdx;
	struct mungi_cap cl[2] = { image_code, image_data };
	struct mungi_cap nc = clist_of(cl, 2), pdx = pdx_capability(&e, 1, &nc);
	mungi_clist_add(self.clist, &pdx);
	settle();
	pdx_bench(0);
	in_task(pdx_bench, 1, &pdx, 1, MUNGI_TASK_CONFINED);
	oo1();
	printf("mbench: done\n");
	return 0;
}
