// SPDX-License-Identifier: MIT
// The Mungi layer's in-guest tests (docs/testing.md): this image's first task
// runs every case; children are Mungi tasks made with the APDs a case needs,
// and report back through their exit status and objects they may write.
#include "../../lib/mungi/mungi.h"
#include "../../lib/test/test.h"
#include "../../lib/c/stdio.h"
#include "../../lib/c/string.h"

static struct mungi_bootinfo *boot;
static mw_t my_clist;

/* --- helpers --- */

static mw_t now_us(void)
{
	return L4_SystemClock();
}

/* A Clist object holding caps[0..n); its read-only capability. */
static struct mungi_cap clist_of(const struct mungi_cap *caps, int n)
{
	struct mungi_cap c = { 0, 0 };
	mw_t base = mungi_new(1, &c);
	mungi_clist_init(base);
	for (int i = 0; i < n; i++)
		mungi_clist_add(base, &caps[i]);
	mw_t pw = 0;
	mungi_cap_register(base, 0, MUNGI_R, &pw);
	return (struct mungi_cap){ base, pw };
}

/* A capability with just these rights for an object we own. */
static struct mungi_cap with_rights(mw_t base, mw_t rights)
{
	mw_t pw = 0;
	mungi_cap_register(base, 0, rights, &pw);
	return (struct mungi_cap){ base, pw };
}

/* Start fn(arg) as a task whose APD is the read-only image and the Clists given. */
static mw_t spawn(long (*fn)(mw_t), mw_t arg, const struct mungi_cap *clists, int n, mw_t flags)
{
	struct mungi_cap apd[8] = { boot->image_ro };
	for (int i = 0; i < n; i++)
		apd[i + 1] = clists[i];
	mw_t h = 0, task = 0;
	if (mungi_apd_make(apd, (mw_t)n + 1, &h) || mungi_task_create(fn, arg, h, flags, &task))
		return 0;
	return task;
}

static long join(mw_t task)
{
	long status = -1000;
	mw_t err = mungi_task_wait(task, &status);
	return err ? -2000 - (long)err : status;
}

static mw_t stat(int which)
{
	mw_t s[MUNGI_NSTATS];
	return mungi_stats(s) ? ~0UL : s[which];
}

/* x86 code for "mov $42, %eax; ret". */
static const unsigned char ret42[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 };

/* --- objects --- */

TEST_CASE("obj.create_touch_delete", "an object is created, written, read back and deleted; afterwards it cannot be touched")
{
	struct mungi_cap c;
	mw_t base = mungi_new(4, &c);
	EXPECT(base, "mungi_new failed");
	volatile unsigned long *p = (volatile unsigned long *)base;
	p[0] = 0x1234;
	p[1000] = 0x5678;
	EXPECT(p[0] == 0x1234 && p[1000] == 0x5678, "read back %lx %lx", p[0], p[1000]);
	EXPECT(mungi_free(base) == 0, "delete");
	EXPECT(mungi_probe(base, 'r') == -1, "the deleted object could still be read");
	mw_t b, pages, rights;
	EXPECT(mungi_obj_info(base, &b, &pages, &rights) == MUNGI_ENOENT, "the object table still has it");
}

static long same_address_child(mw_t arg)
{
	volatile mw_t *p = (volatile mw_t *)arg;
	if (p[0] != 0xfeed || p[0] != *(volatile mw_t *)arg)
		return 1;
	p[1] = arg;                     /* a pointer means the same thing in every task */
	return 0;
}

TEST_CASE("obj.same_address", "a child task sees an object at the same address with the same data, and its writes reach us")
{
	mw_t base = mungi_new(1, NULL);
	volatile mw_t *p = (volatile mw_t *)base;
	p[0] = 0xfeed;
	mw_t task = 0;
	EXPECT(!mungi_task_create(same_address_child, base, 0, 0, &task), "task create");
	long st = join(task);
	EXPECT(st == 0 && p[1] == base, "child status %ld, wrote %lx", st, p[1]);
	mungi_free(base);
}

/* --- protection --- */

struct prot_args {
	mw_t obj, code;                 /* a data object and a code object (ret42) */
	long results[8];
};

/* Probe each access; results[] gets 0 or -1 per probe, and the delete's error. */
static long prot_child(mw_t arg)
{
	struct prot_args *a = (struct prot_args *)arg;
	a->results[0] = mungi_probe(a->obj, 'r');
	a->results[1] = mungi_probe(a->obj + 8, 'w');
	a->results[2] = mungi_probe(a->code, 'x');
	a->results[3] = (long)mungi_obj_delete(a->obj);
	return 0;
}

/* Run prot_child with a Clist of the args object (RW) and caps; fill want from the results. */
static long prot_run(struct prot_args *a, mw_t args_base, const struct mungi_cap *caps, int n)
{
	struct mungi_cap all[4] = { with_rights(args_base, MUNGI_R | MUNGI_W) };
	for (int i = 0; i < n; i++)
		all[i + 1] = caps[i];
	struct mungi_cap cl = clist_of(all, n + 1);
	for (int i = 0; i < 8; i++)
		a->results[i] = 99;
	long st = join(spawn(prot_child, (mw_t)a, &cl, 1, 0));
	mungi_free(cl.base);
	return st;
}

TEST_CASE("prot.no_capability", "a task without a capability for an object can neither read, write, execute nor delete it")
{
	mw_t args = mungi_new(1, NULL), obj = mungi_new(1, NULL), code = mungi_new(1, NULL);
	struct prot_args *a = (struct prot_args *)args;
	memcpy((void *)code, ret42, sizeof(ret42));
	a->obj = obj;
	a->code = code;
	long st = prot_run(a, args, NULL, 0);
	EXPECT(st == 0, "child status %ld", st);
	EXPECT(a->results[0] == -1 && a->results[1] == -1 && a->results[2] == -1,
	       "r/w/x probes %ld %ld %ld", a->results[0], a->results[1], a->results[2]);
	EXPECT(a->results[3] == MUNGI_EPERM, "delete gave %ld", a->results[3]);
	EXPECT(*(volatile unsigned char *)(obj + 8) == 0, "the write reached the object");
	mungi_free(args);
	mungi_free(obj);
	mungi_free(code);
}

TEST_CASE("prot.wrong_password", "a capability with the right base but a wrong password confers nothing")
{
	mw_t args = mungi_new(1, NULL), obj = mungi_new(1, NULL), code = mungi_new(1, NULL);
	struct prot_args *a = (struct prot_args *)args;
	a->obj = obj;
	a->code = code;
	struct mungi_cap good = with_rights(obj, MUNGI_OWNER);
	struct mungi_cap wrong[2] = { { obj, good.password ^ 1 }, { code, 12345 } };
	long st = prot_run(a, args, wrong, 2);
	EXPECT(st == 0, "child status %ld", st);
	EXPECT(a->results[0] == -1 && a->results[1] == -1 && a->results[2] == -1 && a->results[3] == MUNGI_EPERM,
	       "with wrong passwords: %ld %ld %ld %ld", a->results[0], a->results[1], a->results[2], a->results[3]);
	struct mungi_cap right[1] = { good };
	st = prot_run(a, args, right, 1);
	EXPECT(st == 0 && a->results[0] == 0 && a->results[1] == 0 && a->results[3] == 0,
	       "with the password itself: %ld %ld %ld", a->results[0], a->results[1], a->results[3]);
	mungi_free(args);
	mungi_free(code);
	mungi_free(obj);
}

TEST_CASE("prot.rights", "each right is enforced for its kind of access: R reads, W writes, X executes, D deletes")
{
	mw_t args = mungi_new(1, NULL), obj = mungi_new(1, NULL), code = mungi_new(1, NULL);
	struct prot_args *a = (struct prot_args *)args;
	memcpy((void *)code, ret42, sizeof(ret42));
	a->obj = obj;
	a->code = code;
	struct mungi_cap r[2] = { with_rights(obj, MUNGI_R), with_rights(code, MUNGI_R) };
	long st = prot_run(a, args, r, 2);
	EXPECT(st == 0 && a->results[0] == 0 && a->results[1] == -1 && a->results[2] == -1 &&
	       a->results[3] == MUNGI_EPERM, "R only: read %ld write %ld execute %ld delete %ld",
	       a->results[0], a->results[1], a->results[2], a->results[3]);
	struct mungi_cap w[2] = { with_rights(obj, MUNGI_W), with_rights(code, MUNGI_X) };
	st = prot_run(a, args, w, 2);
	EXPECT(st == 0 && a->results[0] == -1 && a->results[1] == 0 && a->results[2] == 0 &&
	       a->results[3] == MUNGI_EPERM, "W and X: read %ld write %ld execute %ld delete %ld",
	       a->results[0], a->results[1], a->results[2], a->results[3]);
	EXPECT(*(volatile unsigned char *)(obj + 8) == 0x5a, "the child's write did not arrive");
	struct mungi_cap d[1] = { with_rights(obj, MUNGI_D) };
	st = prot_run(a, args, d, 1);
	EXPECT(st == 0 && a->results[0] == -1 && a->results[3] == 0, "D: read %ld delete %ld", a->results[0],
	       a->results[3]);
	EXPECT(mungi_probe(obj, 'r') == -1, "the object deleted with D is still there");
	mungi_clist_remove(my_clist, obj);
	mungi_free(args);
	mungi_free(code);
}

/* --- revocation, the validation cache, the stale list --- */

struct watch_args {
	mw_t obj;
	volatile mw_t reads, first_fault, stop;
};

/* Read the object every 200 us until a read faults; record when. */
static long watcher(mw_t arg)
{
	struct watch_args *a = (struct watch_args *)arg;
	while (!a->stop) {
		if (mungi_probe(a->obj, 'r')) {
			a->first_fault = now_us();
			return 0;
		}
		a->reads++;
		L4_Sleep(200);
	}
	return 1;
}

TEST_CASE("revoke.within_dt", "after its password is revoked a capability stops working within dt (plus a tick), in a task that holds a mapping")
{
	mw_t dt = mungi_dt_us(), args = mungi_new(1, NULL), obj = mungi_new(1, NULL);
	struct watch_args *a = (struct watch_args *)args;
	a->obj = obj;
	struct mungi_cap caps[2] = { with_rights(args, MUNGI_R | MUNGI_W), with_rights(obj, MUNGI_R) };
	struct mungi_cap cl = clist_of(caps, 2);
	mw_t task = spawn(watcher, args, &cl, 1, 0);
	EXPECT(task, "spawn");
	for (int i = 0; i < 2000 && a->reads < 20; i++)
		L4_Sleep(1000);
	EXPECT(a->reads >= 20 && !a->first_fault, "the watcher read %lu times before the revocation", a->reads);
	mw_t revoked = now_us();
	EXPECT(mungi_cap_revoke(obj, caps[1].password) == 0, "revoke");
	for (int i = 0; i < 20 && !a->first_fault; i++)
		L4_Sleep(dt / 10);
	a->stop = 1;
	long st = join(task);
	EXPECT(st == 0 && a->first_fault, "the watcher never faulted (status %ld)", st);
	mw_t late = a->first_fault - revoked;
	EXPECT(late <= dt + dt / 4 + 20000, "the revocation took %lu us, dt is %lu", late, dt);
	mungi_free(cl.base);
	mungi_free(obj);
	mungi_free(args);
}

TEST_CASE("stale.no_reuse", "a deleted object's addresses are not given out again for dt, so no cached validation can reach a new object there; then they are")
{
	mw_t dt = mungi_dt_us();
	struct mungi_cap old;
	mw_t base = mungi_new(3, &old);
	mw_t deleted = now_us();
	EXPECT(mungi_free(base) == 0, "delete");
	mw_t got[8];
	int reused = 0;
	for (int i = 0; i < 8; i++) {
		got[i] = mungi_new(3, NULL);
		reused |= got[i] == base;
	}
	EXPECT(!reused || now_us() - deleted >= dt, "address %lx reused after %lu us", base, now_us() - deleted);
	for (int i = 0; i < 8; i++)
		mungi_free(got[i]);
	L4_Sleep(dt + dt / 2);
	mw_t again = mungi_new(3, NULL);
	EXPECT(again == base, "not reused after dt: got %lx, the old range was %lx", again, base);
	struct mungi_cap probe[1] = { old };
	mw_t args = mungi_new(1, NULL), code = mungi_new(1, NULL);
	struct prot_args *a = (struct prot_args *)args;
	a->obj = again;
	a->code = code;
	long st = prot_run(a, args, probe, 1);
	EXPECT(st == 0 && a->results[0] == -1 && a->results[1] == -1 && a->results[3] == MUNGI_EPERM,
	       "the old capability reaches the new object: %ld %ld %ld", a->results[0], a->results[1], a->results[3]);
	mungi_free(again);
	mungi_free(args);
	mungi_free(code);
}

static long clist_user(mw_t arg)
{
	mw_t slot;
	if (mungi_apd_add((const struct mungi_cap *)(arg + 256), &slot))
		return 1;
	return watcher(arg);
}

TEST_CASE("apd.clist_revalidated", "a Clist in an APD whose capability is revoked is dropped within dt, and what it gave access to goes with it")
{
	mw_t dt = mungi_dt_us(), args = mungi_new(1, NULL), obj = mungi_new(1, NULL);
	struct watch_args *a = (struct watch_args *)args;
	a->obj = obj;
	struct mungi_cap inner = with_rights(obj, MUNGI_R);
	struct mungi_cap c = clist_of(&inner, 1);
	*(struct mungi_cap *)(args + 256) = c;
	struct mungi_cap caps[1] = { with_rights(args, MUNGI_R | MUNGI_W) };
	struct mungi_cap cl = clist_of(caps, 1);
	mw_t task = spawn(clist_user, args, &cl, 1, 0);
	for (int i = 0; i < 2000 && a->reads < 20 && !a->first_fault; i++)
		L4_Sleep(1000);
	EXPECT(a->reads >= 20 && !a->first_fault, "reads %lu before the revocation", a->reads);
	mw_t revoked = now_us();
	EXPECT(mungi_cap_revoke(c.base, c.password) == 0, "revoke the Clist's capability");
	for (int i = 0; i < 30 && !a->first_fault; i++)
		L4_Sleep(dt / 10);
	a->stop = 1;
	long st = join(task);
	EXPECT(st == 0 && a->first_fault && a->first_fault - revoked <= 2 * dt + 20000,
	       "status %ld, fault %lu us after the revocation (dt %lu)", st,
	       a->first_fault ? a->first_fault - revoked : 0, dt);
	mungi_free(cl.base);
	mungi_free(c.base);
	mungi_free(obj);
	mungi_free(args);
}

long mungi_main(mw_t arg)
{
	struct mungi_self self;
	boot = (struct mungi_bootinfo *)arg;
	if (boot->magic != MUNGI_BOOT_MAGIC || mungi_self(&self))
		return 2;
	my_clist = self.clist;
	return test_run_all() ? 1 : 0;
}
