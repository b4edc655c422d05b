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
static struct mungi_cap image_code, image_data;        /* RX and R capabilities for the image */

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
	mungi_clist_init(base, 1);
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

/* An argument object with a data object and a code object (ret42) for prot_child. */
static struct prot_args *prot_setup(void)
{
	struct prot_args *a = (struct prot_args *)mungi_new(1, NULL);
	a->obj = mungi_new(1, NULL);
	a->code = mungi_new(1, NULL);
	memcpy((void *)a->code, ret42, sizeof(ret42));
	return a;
}

static void prot_teardown(struct prot_args *a)
{
	mungi_free(a->obj);
	mungi_free(a->code);
	mungi_free((mw_t)a);
}

TEST_CASE("prot.no_capability", "a task without a capability for an object can neither read, write, execute nor delete it")
{
	struct prot_args *a = prot_setup();
	mw_t obj = a->obj;
	long st = prot_run(a, (mw_t)a, NULL, 0);
	EXPECT(st == 0, "child status %ld", st);
	EXPECT(a->results[0] == -1 && a->results[1] == -1 && a->results[2] == -1,
	       "r/w/x probes %ld %ld %ld", a->results[0], a->results[1], a->results[2]);
	EXPECT(a->results[3] == MUNGI_EPERM, "delete gave %ld", a->results[3]);
	EXPECT(*(volatile unsigned char *)(obj + 8) == 0, "the write reached the object");
	prot_teardown(a);
}

TEST_CASE("prot.wrong_password", "a capability with the right base but a wrong password confers nothing")
{
	struct prot_args *a = prot_setup();
	mw_t args = (mw_t)a;
	struct mungi_cap good = with_rights(a->obj, MUNGI_OWNER);
	struct mungi_cap wrong[2] = { { a->obj, good.password ^ 1 }, { a->code, 12345 } };
	long st = prot_run(a, args, wrong, 2);
	EXPECT(st == 0, "child status %ld", st);
	EXPECT(a->results[0] == -1 && a->results[1] == -1 && a->results[2] == -1 && a->results[3] == MUNGI_EPERM,
	       "with wrong passwords: %ld %ld %ld %ld", a->results[0], a->results[1], a->results[2], a->results[3]);
	struct mungi_cap right[1] = { good };
	st = prot_run(a, args, right, 1);
	EXPECT(st == 0 && a->results[0] == 0 && a->results[1] == 0 && a->results[3] == 0,
	       "with the password itself: %ld %ld %ld", a->results[0], a->results[1], a->results[3]);
	mungi_clist_remove(my_clist, a->obj);          /* the child deleted it */
	a->obj = mungi_new(1, NULL);
	prot_teardown(a);
}

TEST_CASE("prot.rights", "each right is enforced for its kind of access: R reads, W writes, X executes, D deletes")
{
	struct prot_args *a = prot_setup();
	mw_t args = (mw_t)a, obj = a->obj, code = a->code;
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
	a->obj = mungi_new(1, NULL);
	prot_teardown(a);
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
	/* dt and a tick (dt / 4) of the guest's clock, which test_mungi.py and
	 * test_smp.py run under icount: it counts instructions, so no stall of the
	 * host enters the figure (without icount, a stall of QEMU's thread moves the
	 * guest's clock on by as much) */
	mw_t late = a->first_fault - revoked;
	EXPECT(late <= dt + dt / 4, "the revocation took %lu us, dt is %lu", late, dt);
	mungi_free(cl.base);
	mungi_free(obj);
	mungi_free(args);
}

TEST_CASE("stale.no_reuse", "a deleted object's addresses are not given out again for dt, so no cached validation can reach a new object there; then they are")
{
	mw_t dt = mungi_dt_us();
	struct mungi_cap old;
	mw_t base = mungi_new(3, &old), end = base + 3 * 4096;
	mw_t deleted = now_us();
	EXPECT(mungi_free(base) == 0, "delete");
	mw_t got[128], again = 0;
	int n = 0, early = 0;
	L4_Sleep(dt / 2);               /* ticks pass (the stale list is looked at every dt / 4) */
	/* first fit from the lowest free range: were the old range free, these would reach it */
	for (; n < 48; n++) {
		got[n] = mungi_new(3, NULL);
		early |= got[n] < end && got[n] + 3 * 4096 > base;
	}
	EXPECT(!early || now_us() - deleted >= dt, "range %lx reused after %lu us", base, now_us() - deleted);
	while (n)
		mungi_free(got[--n]);
	L4_Sleep(dt + dt / 2);
	while (n < 128 && !again) {
		got[n] = mungi_new(3, NULL);
		if (got[n] < end && got[n] + 3 * 4096 > base)
			again = got[n];
		else
			n++;
	}
	while (n)
		mungi_free(got[--n]);
	EXPECT(again, "range %lx not reused after dt", base);
	struct mungi_cap probe[1] = { old };
	struct prot_args *a = prot_setup();
	mungi_free(a->obj);
	a->obj = again;
	long st = prot_run(a, (mw_t)a, probe, 1);
	EXPECT(st == 0 && a->results[0] == -1 && a->results[1] == -1 && a->results[3] == MUNGI_EPERM,
	       "the old capability reaches the new object: %ld %ld %ld", a->results[0], a->results[1], a->results[3]);
	prot_teardown(a);
}

static long clist_user(mw_t arg)
{
	mw_t slot;
	if (mungi_apd_add((const struct mungi_cap *)(arg + 256), &slot))
		return 1;
	return watcher(arg);
}

TEST_CASE("apd.clist_revalidated", "a Clist in an APD whose capability is revoked is dropped within dt (plus a tick), and what it gave access to goes with it")
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
	/* as revoke.within_dt: dt and a tick of the guest's (icount) clock, no host slack */
	EXPECT(st == 0 && a->first_fault && a->first_fault - revoked <= dt + dt / 4,
	       "status %ld, fault %lu us after the revocation (dt %lu)", st,
	       a->first_fault ? a->first_fault - revoked : 0, dt);
	mungi_free(cl.base);
	mungi_free(c.base);
	mungi_free(obj);
	mungi_free(args);
}

static long survivor_maker(mw_t arg)
{
	struct mungi_cap c;
	if (mungi_obj_create(1, NULL, MUNGI_OBJ_SURVIVES, &c))
		return -1;
	*(volatile mw_t *)arg = c.base;
	return 0;
}

TEST_CASE("apd.remove_forgets", "removing a Clist from the APD takes away what it gave at once, and leaves no validation behind that reaches other objects")
{
	mw_t a = mungi_new(1, NULL), out = mungi_new(1, NULL), slot, task, b, x, y, z;
	struct mungi_cap r = with_rights(a, MUNGI_R), c = clist_of(&r, 1);
	mungi_clist_remove(my_clist, a);                /* from now on a is reachable through c alone */
	EXPECT(!mungi_apd_add(&c, &slot) && mungi_probe(a, 'r') == 0, "not reachable with the Clist");
	EXPECT(!mungi_apd_remove(slot), "remove");
	EXPECT(mungi_probe(a, 'r') == -1, "still reachable after the Clist left the APD");
	EXPECT(!mungi_task_create(survivor_maker, out, 0, 0, &task) && join(task) == 0, "maker");
	b = *(volatile mw_t *)out;
	EXPECT(b > a && mungi_probe(b, 'r') == -1 && mungi_obj_info(b, &x, &y, &z) == MUNGI_EPERM,
	       "another task's object at %lx above %lx is reachable", b, a);
	mungi_free(c.base);
	mungi_free(out);
}

/* --- confinement --- */

static L4_ThreadId_t listener_id;
static volatile mw_t listener_got, listener_stop;

static void listener(mw_t arg)
{
	(void)arg;
	listener_id = L4_MyGlobalId();
	while (!listener_stop) {
		L4_ThreadId_t from;
		if (!L4_IpcFailed(L4_Receive_Timeout(L4_ANYTHREAD, L4_TimePeriod(5000), &from)))
			listener_got++;
	}
}

struct conf_args {
	L4_ThreadId_t listener;
	mw_t mailbox, secret_slot;
	struct mungi_cap secret;
};

static long grandchild(mw_t arg)
{
	(void)arg;
	struct mungi_self s;
	return mungi_self(&s) ? 100 : (long)(s.flags & MUNGI_TASK_CONFINED);
}

/* In a confined task: every way out must fail; the status has a bit per way that did not. */
static long confined_child(mw_t arg)
{
	const struct conf_args *a = (const struct conf_args *)arg;
	long bad = 0;
	struct mungi_self s;
	bad |= mungi_self(&s) || !(s.flags & MUNGI_TASK_CONFINED) ? 1 : 0;
	L4_SetMR(0, L4_TAG_MAKE(0x77, 1, 0));
	L4_SetMR(1, a->secret.password);
	L4_Send_Timeout(a->listener, L4_TimePeriod(20000));
	L4_SetMR(0, L4_TAG_MAKE(0x78, 0, 0));
	L4_MsgTag_t tag = L4_Ipc(a->listener, a->listener, L4_TIMEOUTS(L4_TimePeriod(20000), L4_TimePeriod(20000)), 0);
	bad |= L4_IpcFailed(tag) ? 0 : 2;                    /* nobody may answer as the listener */
	bad |= mungi_probe(a->mailbox, 'w') == -1 ? 0 : 4;  /* the capability cannot be written out */
	mw_t slot, pw;
	bad |= mungi_apd_add(&a->secret, &slot) == MUNGI_ELOCKED ? 0 : 8;
	bad |= mungi_cap_register(a->mailbox, 0, MUNGI_R, &pw) == MUNGI_EPERM ? 0 : 16;
	bad |= mungi_sem_create(a->mailbox, 0) == MUNGI_EPERM ? 0 : 32;
	bad |= mungi_null() == 0 ? 0 : 64;                  /* the server itself answers */
	mw_t task;
	long st = -1;
	if (!mungi_task_create(grandchild, 0, 0, 0, &task))
		mungi_task_wait(task, &st);
	bad |= st == MUNGI_TASK_CONFINED ? 0 : 128;         /* what it makes is confined too */
	bad |= mungi_probe(a->secret.base, 'r') == 0 ? 0 : 256;     /* it still has what it was given */
	return bad;
}

TEST_CASE("confine.no_way_out", "a confined task cannot send IPC to anyone but the server, nor write a capability it holds anywhere another can read it, nor change its APD")
{
	listener_got = listener_stop = 0;
	listener_id = 0;
	mw_t tid;
	EXPECT(!mungi_thread_create(listener, 0, &tid), "listener thread");
	for (int i = 0; i < 100 && !listener_id; i++)
		L4_Sleep(1000);
	mw_t args = mungi_new(1, NULL), mailbox = mungi_new(1, NULL), secret = mungi_new(1, NULL);
	struct conf_args *a = (struct conf_args *)args;
	a->listener = listener_id;
	a->mailbox = mailbox;
	a->secret = with_rights(secret, MUNGI_OWNER);
	struct mungi_cap caps[3] = { with_rights(args, MUNGI_R), with_rights(mailbox, MUNGI_R), a->secret };
	struct mungi_cap cl = clist_of(caps, 3);
	mw_t refused = stat(MUNGI_STAT_REFUSED_IPC);
	long st = join(spawn(confined_child, args, &cl, 1, MUNGI_TASK_CONFINED));
	L4_Sleep(20000);
	listener_stop = 1;
	EXPECT(st == 0, "ways out that worked: mask %lx", st);
	EXPECT(listener_got == 0, "the listener got %lu messages", listener_got);
	EXPECT(stat(MUNGI_STAT_REFUSED_IPC) >= refused + 2, "the server refused %lu messages",
	       stat(MUNGI_STAT_REFUSED_IPC) - refused);
	EXPECT(*(volatile mw_t *)mailbox == 0, "the mailbox was written");
	L4_Sleep(10000);
	mungi_free(cl.base);
	mungi_free(args);
	mungi_free(mailbox);
	mungi_free(secret);
}

/* --- PDX --- */

static mw_t secret_db;

static struct mungi_ret pdx_add(mw_t a, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	return (struct mungi_ret){ a + b + c + d + e + f, a * b };
}

/* The word at addr, or ~0 if this domain cannot read it. */
static struct mungi_ret pdx_read(mw_t addr, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	if (mungi_probe(addr, 'r'))
		return (struct mungi_ret){ ~0UL, 0 };
	return (struct mungi_ret){ *(volatile mw_t *)addr, 1 };
}

static struct mungi_ret pdx_cb(mw_t x, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	return (struct mungi_ret){ x * 2, 0 };
}

/* Call the callback cb (a PDX entry) with an empty APD: a nested PDX call. */
static struct mungi_ret pdx_outer(mw_t cb, mw_t x, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	struct mungi_ret r;
	mw_t err = mungi_pdx_empty(cb, x, 0, 0, 0, 0, 0, &r);
	return (struct mungi_ret){ err ? 1000 + err : r.r0 + 1, 0 };
}

static struct mungi_ret pdx_fault(mw_t a, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	volatile mw_t *nowhere = (volatile mw_t *)(a | 8);
	*nowhere = 1;
	return (struct mungi_ret){ 0, 0 };
}

static struct mungi_ret pdx_unlisted(mw_t a, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	return (struct mungi_ret){ a, 0 };
}

struct pdx_args {
	mw_t db, cb;
	long r[12];
};

static long pdx_client(mw_t arg)
{
	struct pdx_args *a = (struct pdx_args *)arg;
	struct mungi_ret r = { 0, 0 };
	mw_t mine = mungi_new(1, NULL);
	*(volatile mw_t *)mine = 0x0123;
	a->r[0] = (long)mungi_pdx((mw_t)pdx_add, 2, 3, 0, 0, 0, 0, &r);
	a->r[1] = (long)(r.r0 == 5 && r.r1 == 6);
	a->r[2] = (long)mungi_pdx((mw_t)pdx_unlisted, 7, 0, 0, 0, 0, 0, &r);
	a->r[3] = mungi_probe(a->db, 'r');
	a->r[4] = mungi_pdx((mw_t)pdx_read, a->db, 0, 0, 0, 0, 0, &r) ? -1 : (long)r.r0;
	a->r[5] = mungi_pdx((mw_t)pdx_read, mine, 0, 0, 0, 0, 0, &r) ? -1 : (long)r.r0;
	a->r[6] = mungi_pdx_empty((mw_t)pdx_read, mine, 0, 0, 0, 0, 0, &r) ? -1 : (long)r.r0;
	a->r[7] = mungi_pdx((mw_t)pdx_outer, a->cb, 21, 0, 0, 0, 0, &r) ? -1 : (long)r.r0;
	a->r[8] = (long)mungi_pdx((mw_t)pdx_fault, 0, 0, 0, 0, 0, 0, &r);
	a->r[9] = mungi_pdx((mw_t)pdx_add, 10, 20, 30, 40, 50, 60, &r) ? -1 : (long)r.r0;
	a->r[10] = (long)mungi_pdx((mw_t)pdx_add + 1, 1, 1, 0, 0, 0, 0, &r);
	a->r[11] = (long)mungi_pdx(a->db, 1, 1, 0, 0, 0, 0, &r);
	return 0;
}

/* The text object: a PDX capability for entries, with clist added to the caller's APD. */
static struct mungi_cap pdx_capability(const mw_t *entries, int n, const struct mungi_cap *clist)
{
	mw_t pw = 0;
	mungi_pdx_register(boot->text_owner.base, 0, MUNGI_PDX, entries, (mw_t)n, clist, &pw);
	return (struct mungi_cap){ boot->text_owner.base, pw };
}

static long run_pdx_client(struct pdx_args *a, mw_t args, const struct mungi_cap *pdx, int n, mw_t flags)
{
	struct mungi_cap caps[4] = { with_rights(args, MUNGI_R | MUNGI_W) };
	for (int i = 0; i < n; i++)
		caps[i + 1] = pdx[i];
	struct mungi_cap cl = clist_of(caps, n + 1);
	for (int i = 0; i < 12; i++)
		a->r[i] = 99;
	long st = join(spawn(pdx_client, args, &cl, 1, flags));
	mungi_free(cl.base);
	return st;
}

TEST_CASE("pdx.calls", "PDX calls run in the callee's domain extended by the caller's (or an empty one), check entry points, nest, and survive a faulting callee")
{
	mw_t args = mungi_new(1, NULL);
	secret_db = mungi_new(1, NULL);
	*(volatile mw_t *)secret_db = 0x5ec;
	struct pdx_args *a = (struct pdx_args *)args;
	a->db = secret_db;
	a->cb = (mw_t)pdx_cb;
	/* a PDX capability's Clist gives its procedures the code they run and the data they keep */
	struct mungi_cap db[3] = { with_rights(secret_db, MUNGI_R), image_code, image_data };
	struct mungi_cap dbl = clist_of(db, 3), cbl = clist_of(db + 1, 2);
	mw_t entries[4] = { (mw_t)pdx_add, (mw_t)pdx_read, (mw_t)pdx_outer, (mw_t)pdx_fault }, cbe = (mw_t)pdx_cb;
	struct mungi_cap pdx[2] = { pdx_capability(entries, 4, &dbl), pdx_capability(&cbe, 1, &cbl) };
	mw_t tasks = stat(MUNGI_STAT_PDX_TASKS);
	long st = run_pdx_client(a, args, pdx, 2, 0);
	EXPECT(st == 0, "client status %ld", st);
	EXPECT(a->r[0] == 0 && a->r[1] == 1, "a call: error %ld, results right %ld", a->r[0], a->r[1]);
	EXPECT(a->r[2] == MUNGI_EENTRY, "a function that is no entry point: %ld", a->r[2]);
	EXPECT(a->r[10] == MUNGI_EENTRY && a->r[11] == MUNGI_EPERM,
	       "a non-entry address of the code: %ld, an object without PDX capabilities: %ld", a->r[10], a->r[11]);
	EXPECT(a->r[3] == -1 && a->r[4] == 0x5ec, "the database: read directly %ld, through PDX %lx", a->r[3], a->r[4]);
	EXPECT(a->r[5] == 0x123 && a->r[6] == (long)~0UL,
	       "the caller's data: extended APD %lx, empty APD %lx", a->r[5], a->r[6]);
	EXPECT(a->r[7] == 43, "nested: %ld", a->r[7]);
	EXPECT(a->r[8] == MUNGI_EFAULT && a->r[9] == 210, "a faulting callee: %ld, then a call: %ld", a->r[8], a->r[9]);
	mw_t made = stat(MUNGI_STAT_PDX_TASKS) - tasks;
	EXPECT(made == 3, "PDX tasks made: %lu (want extended, empty-APD read, empty-APD callback)", made);
	st = run_pdx_client(a, args, pdx + 1, 1, 0);
	EXPECT(st == 0 && a->r[0] == MUNGI_EENTRY, "with a PDX capability for other entries: %ld", a->r[0]);
	st = run_pdx_client(a, args, pdx, 0, 0);
	EXPECT(st == 0 && a->r[0] == MUNGI_EPERM, "without a PDX capability: %ld", a->r[0]);
	st = run_pdx_client(a, args, pdx, 2, MUNGI_TASK_CONFINED);
	EXPECT(st == 0 && a->r[0] == 0 && a->r[1] == 1 && a->r[4] == 0x5ec && a->r[7] == 43,
	       "confined: %ld %ld %lx %ld", a->r[0], a->r[1], a->r[4], a->r[7]);
	/* explicit APDs: the call runs in that APD plus the capability's Clist; tasks keyed by the APD */
	mungi_clist_add(my_clist, &pdx[0]);
	mw_t mine = mungi_new(1, NULL), h1, h2, made2 = stat(MUNGI_STAT_PDX_TASKS);
	*(volatile mw_t *)mine = 0x77;
	struct mungi_cap mc = with_rights(mine, MUNGI_R), mcl = clist_of(&mc, 1);
	struct mungi_cap apd1[2] = { boot->image_ro, mcl }, apd2[1] = { boot->image_ro };
	struct mungi_ret r;
	EXPECT(!mungi_apd_make(apd1, 2, &h1) && !mungi_apd_make(apd2, 1, &h2), "APDs");
	EXPECT(!mungi_pdx_apd((mw_t)pdx_read, h1, mine, 0, 0, 0, 0, &r) && r.r0 == 0x77, "with the object's Clist: %lx",
	       r.r0);
	EXPECT(!mungi_pdx_apd((mw_t)pdx_read, h2, mine, 0, 0, 0, 0, &r) && r.r0 == ~0UL, "without it: %lx", r.r0);
	EXPECT(!mungi_pdx_apd((mw_t)pdx_read, h1, secret_db, 0, 0, 0, 0, &r) && r.r0 == 0x5ec, "the database: %lx",
	       r.r0);
	EXPECT(!mungi_pdx_apd((mw_t)pdx_add, h1, 4, 5, 0, 0, 0, &r) && r.r0 == 9, "another entry: %lu", r.r0);
	EXPECT(stat(MUNGI_STAT_PDX_TASKS) - made2 == 2, "PDX tasks for two APDs: %lu",
	       stat(MUNGI_STAT_PDX_TASKS) - made2);
	mungi_free(mcl.base);
	mungi_free(mine);

	/* a PDX capability whose Clist lacks the code: its worker cannot even start, the caller is told */
	struct mungi_cap nocode = clist_of(db, 1), bare = pdx_capability(entries + 1, 1, &nocode);
	mungi_clist_remove(my_clist, boot->text_owner.base);
	mungi_clist_add(my_clist, &bare);
	mungi_clist_add(my_clist, &pdx[0]);
	mungi_clist_add(my_clist, &boot->text_owner);
	EXPECT(mungi_pdx_empty((mw_t)pdx_read, secret_db, 0, 0, 0, 0, 0, &r) == MUNGI_EFAULT,
	       "a procedure that cannot run its code");
	EXPECT(mungi_pdx((mw_t)pdx_add, 1, 2, 0, 0, 0, 0, &r) == 0 && r.r0 == 3, "and then a good call");
	mungi_clist_remove(my_clist, boot->text_owner.base);
	mungi_clist_add(my_clist, &boot->text_owner);
	mungi_cap_revoke(bare.base, bare.password);
	mungi_free(nocode.base);
	mungi_cap_revoke(pdx[0].base, pdx[0].password);
	mungi_cap_revoke(pdx[1].base, pdx[1].password);
	mungi_free(dbl.base);
	mungi_free(cbl.base);
	mungi_free(args);
}

/* --- bad input --- */

TEST_CASE("bad.requests", "malformed and unauthorised requests get clear errors, and the server and other tasks go on")
{
	mw_t base = mungi_new(2, NULL), bad = stat(MUNGI_STAT_BAD_REQUESTS), x, y, z;
	struct mungi_cap c;
	struct mungi_cap forged = { boot->account.base, boot->account.password ^ 0x100 };
	EXPECT(mungi_obj_delete(0x123456000UL) == MUNGI_ENOENT, "delete of nothing");
	EXPECT(mungi_obj_delete(base + 4096) == MUNGI_ENOENT, "delete of a non-base address");
	EXPECT(mungi_obj_create(0, NULL, 0, &c) == MUNGI_EINVAL, "zero pages");
	EXPECT(mungi_obj_create(1UL << 40, NULL, 0, &c) == MUNGI_EINVAL, "2^40 pages");
	EXPECT(mungi_obj_create(1, &forged, 0, &c) == MUNGI_EPERM, "a forged account");
	EXPECT(mungi_obj_create(1, NULL, 0x80, &c) == MUNGI_EINVAL, "unknown flags");
	EXPECT(mungi_cap_register(base, 0, 0x40, &x) == MUNGI_EINVAL, "unknown rights");
	EXPECT(mungi_cap_register(base, 0, 0, &x) == MUNGI_EINVAL, "no rights");
	EXPECT(mungi_cap_register(base, 77, MUNGI_R, &x) == 0 && mungi_cap_register(base, 77, MUNGI_W, &x) ==
	       MUNGI_EEXIST, "a password registered twice");
	EXPECT(mungi_cap_revoke(base, 78) == MUNGI_ENOENT, "revoking a password that is none");
	EXPECT(mungi_cap_register(boot->image_ro.base, 0, MUNGI_R, &x) == MUNGI_EPERM, "register without owning");
	EXPECT(mungi_obj_info(0x1000, &x, &y, &z) == MUNGI_ENOENT, "info of nothing");
	EXPECT(mungi_req(0x7777, 0) == MUNGI_ENOSYS, "an unknown request");
	EXPECT(mungi_req(MUNGI_PDX_RET, 2) == MUNGI_EINVAL, "a worker's return from no worker");
	EXPECT(mungi_req(MUNGI_UPCALL_RESULT, 2) == MUNGI_EINVAL, "an upcall's result from no t0");
	EXPECT(mungi_req(MUNGI_PDX_READY, 0) == MUNGI_EINVAL, "a worker's ready from no worker");
	EXPECT(mungi_pdx_apd((mw_t)pdx_add, 0x12345, 0, 0, 0, 0, 0, 0) == MUNGI_EINVAL, "a forged APD handle");
	EXPECT(mungi_pdx(0x10, 0, 0, 0, 0, 0, 0, 0) == MUNGI_ENOENT, "PDX to no object");
	EXPECT(mungi_vm_map(base + 1, base + 4096, MUNGI_R) == MUNGI_EINVAL, "an unaligned mapping");
	EXPECT(mungi_vm_map(base, base, MUNGI_R) == MUNGI_ELOOP, "a page mapped onto itself");
	EXPECT(mungi_sem_p(boot->image_ro.base) == MUNGI_EPERM, "P on read-only memory");
	EXPECT(mungi_sem_v(base) == MUNGI_ENOENT, "V on no semaphore");
	EXPECT(mungi_task_wait(999999, NULL) == MUNGI_ENOENT, "waiting for no task");
	EXPECT(mungi_apd_remove(0) == MUNGI_EINVAL && mungi_apd_remove(99) == MUNGI_EINVAL, "removing APD slot 0 or 99");
	EXPECT(stat(MUNGI_STAT_BAD_REQUESTS) > bad, "bad requests were not counted");
	/* a message the server cannot take (a string item) fails for its sender alone */
	L4_SetMR(0, L4_TAG_MAKE(MUNGI_NULL, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(8, 1, 0, 0));
	L4_SetMR(2, base);
	EXPECT(L4_IpcFailed(L4_Call(MUNGI_SERVER)), "the server took a string item");
	mw_t task;
	EXPECT(mungi_null() == 0, "the server stopped answering");
	*(volatile mw_t *)base = 0xfeed;
	EXPECT(!mungi_task_create(same_address_child, base, 0, 0, &task) && join(task) == 0,
	       "another task does not run as before");
	mungi_free(base);
}

TEST_CASE("bad.clists", "forged Clist capabilities, Clists without the format and with impossible counts are refused; garbage entries confer nothing")
{
	mw_t garbage = mungi_new(1, NULL), slot;
	memset((void *)garbage, 0xab, 4096);
	struct mungi_cap g = with_rights(garbage, MUNGI_R), forged = { g.base, g.password + 1 };
	EXPECT(mungi_apd_add(&forged, &slot) == MUNGI_EPERM, "a forged Clist capability");
	EXPECT(mungi_apd_add(&g, &slot) == MUNGI_ECLIST, "an object that is no Clist");
	mungi_clist_init(garbage, 1);
	((struct mungi_clist *)garbage)->count = 1000;
	EXPECT(mungi_apd_add(&g, &slot) == MUNGI_ECLIST, "a Clist claiming 1000 capabilities in a page");
	mw_t h;
	struct mungi_cap apd[2] = { boot->image_ro, g };
	EXPECT(mungi_apd_make(apd, 2, &h) == MUNGI_ECLIST, "an explicit APD with a bad Clist");
	EXPECT(mungi_apd_make(apd, 0, &h) == MUNGI_EINVAL && mungi_apd_make(apd, 100, &h) == MUNGI_EINVAL,
	       "explicit APDs of 0 and 100 Clists");
	/* random capabilities in a well-formed Clist: the child can reach nothing */
	((struct mungi_clist *)garbage)->count = 200;
	struct prot_args *a = prot_setup();
	for (int i = 0; i < 200; i++)
		((struct mungi_clist *)garbage)->cap[i] =
			(struct mungi_cap){ i % 2 ? a->obj : a->code, now_us() * 2654435761UL + (mw_t)i };
	long st = prot_run(a, (mw_t)a, &g, 1);
	EXPECT(st == 0 && a->results[0] == -1 && a->results[1] == -1 && a->results[2] == -1 &&
	       a->results[3] == MUNGI_EPERM, "random passwords gave access: %ld %ld %ld %ld", a->results[0],
	       a->results[1], a->results[2], a->results[3]);
	mungi_free(garbage);
	prot_teardown(a);
	/* a Clist deleted while it is in an APD: searches pass it by until revalidation drops it */
	mw_t gone = mungi_new(1, NULL), slot2;
	mungi_clist_init(gone, 1);
	struct mungi_cap gc = with_rights(gone, MUNGI_R);
	EXPECT(!mungi_apd_add(&gc, &slot2), "add a Clist");
	EXPECT(!mungi_free(gone), "delete it");
	struct mungi_ret r;
	EXPECT(mungi_pdx((mw_t)pdx_unlisted, 0, 0, 0, 0, 0, 0, &r) == MUNGI_EPERM, "PDX through a deleted Clist");
	EXPECT(mungi_probe(gone, 'r') == -1 && mungi_null() == 0, "the server after a deleted Clist");
	mungi_apd_remove(slot2);
}

/* --- semaphores, threads, kill lists --- */

struct sem_args {
	volatile mw_t ping, pong, count;
};

static long pinger(mw_t arg)
{
	struct sem_args *a = (struct sem_args *)arg;
	for (int i = 0; i < 100; i++) {
		if (mungi_sem_p((mw_t)&a->ping))
			return 1;
		a->count++;
		if (mungi_sem_v((mw_t)&a->pong))
			return 2;
	}
	return 0;
}

TEST_CASE("sem.ping_pong", "two tasks take turns 100 times through two semaphores in a shared object; P blocks until V")
{
	mw_t args = mungi_new(1, NULL);
	struct sem_args *a = (struct sem_args *)args;
	EXPECT(!mungi_sem_create((mw_t)&a->ping, 0) && !mungi_sem_create((mw_t)&a->pong, 0), "create");
	EXPECT(mungi_sem_create((mw_t)&a->ping, 0) == MUNGI_EEXIST, "created twice");
	mw_t task;
	EXPECT(!mungi_task_create(pinger, args, 0, 0, &task), "task");
	L4_Sleep(20000);
	EXPECT(a->count == 0, "the child got past P without a V");
	for (int i = 0; i < 100; i++) {
		mungi_sem_v((mw_t)&a->ping);
		EXPECT(!mungi_sem_p((mw_t)&a->pong) && a->count == (mw_t)i + 1, "round %d: count %lu", i, a->count);
	}
	EXPECT(join(task) == 0, "child");
	EXPECT(!mungi_sem_delete((mw_t)&a->ping) && mungi_sem_p((mw_t)&a->ping) == MUNGI_ENOENT, "delete");
	mungi_free(args);
	EXPECT(mungi_sem_v((mw_t)&a->pong) == MUNGI_ENOENT || mungi_sem_v((mw_t)&a->pong) == MUNGI_EPERM,
	       "a semaphore outlived its object");
}

static void counter_thread(mw_t arg)
{
	struct sem_args *a = (struct sem_args *)arg;
	for (int i = 0; i < 1000; i++)
		__atomic_fetch_add(&a->count, 1, __ATOMIC_SEQ_CST);
	mungi_sem_v((mw_t)&a->pong);
}

static long looper(mw_t arg)
{
	while (arg == 0)
		L4_Sleep(1000);
	return 0;
}

TEST_CASE("task.threads_and_kill", "threads of a task share its memory and exit alone; a task can be killed by its creator")
{
	mw_t args = mungi_new(1, NULL), tid;
	struct sem_args *a = (struct sem_args *)args;
	mungi_sem_create((mw_t)&a->pong, 0);
	for (int i = 0; i < 3; i++)
		EXPECT(!mungi_thread_create(counter_thread, args, &tid), "thread %d", i);
	for (int i = 0; i < 3; i++)
		EXPECT(!mungi_sem_p((mw_t)&a->pong), "P");
	EXPECT(a->count == 3000, "count %lu", a->count);
	mw_t task;
	EXPECT(!mungi_task_create(looper, 0, 0, 0, &task), "looper");
	L4_Sleep(5000);
	EXPECT(!mungi_task_kill(task) && join(task) == -9, "kill");
	EXPECT(mungi_task_kill(task) == MUNGI_ENOENT, "killed twice");
	mungi_free(args);
}

static long maker(mw_t arg)
{
	mw_t *out = (mw_t *)arg;
	struct mungi_cap a, b;
	out[0] = mungi_new(1, &a);
	out[1] = mungi_new(1, &b);
	*(volatile mw_t *)out[1] = 0x5a5a;
	out[2] = b.password;
	return mungi_obj_survive(b.base) ? 1 : 0;
}

TEST_CASE("obj.kill_list", "objects die with the task that made them unless they were made to survive it")
{
	mw_t out = mungi_new(1, NULL), base, pages, rights, task;
	mw_t *o = (mw_t *)out;
	EXPECT(!mungi_task_create(maker, out, 0, 0, &task) && join(task) == 0, "maker");
	EXPECT(mungi_obj_info(o[0], &base, &pages, &rights) == MUNGI_ENOENT, "the killed object is still there");
	mw_t e1 = mungi_obj_info(o[1], &base, &pages, &rights);
	EXPECT(e1 == MUNGI_EPERM, "the surviving object: error %lu, rights %lx (we have no capability)", e1, rights);
	struct mungi_cap c = { o[1], o[2] };
	mungi_clist_add(my_clist, &c);
	EXPECT(*(volatile mw_t *)o[1] == 0x5a5a, "its data");
	EXPECT(mungi_free(o[1]) == 0, "delete");
	mungi_free(out);
}

/* --- capability handlers --- */

struct handler_args {
	struct mungi_cap table[4];
	volatile mw_t calls;
	mw_t objs[3];
	long r[3];
	mw_t child_thread, upcall_thread, upcalls_elsewhere;
};

static struct handler_args *handler_table;

/* Runs in the task's t0: a capability from the table for the object asked about. */
static struct mungi_cap table_handler(mw_t base, mw_t rights)
{
	(void)rights;
	struct handler_args *a = handler_table;
	a->calls++;
	if (!a->upcall_thread)
		a->upcall_thread = L4_MyGlobalId();
	else if (a->upcall_thread != L4_MyGlobalId())
		a->upcalls_elsewhere++;
	for (int i = 0; i < 4; i++)
		if (a->table[i].base == base)
			return a->table[i];
	return (struct mungi_cap){ 0, 0 };
}

static long handler_child(mw_t arg)
{
	struct handler_args *a = (struct handler_args *)arg;
	mw_t slot;
	a->child_thread = L4_MyGlobalId();
	if (mungi_apd_add_handler(table_handler, &slot))
		return 1;
	for (int i = 0; i < 3; i++)
		a->r[i] = mungi_probe(a->objs[i], 'r');
	return 0;
}

TEST_CASE("apd.handler", "a capability handler in the APD is upcalled in the task's t0 at first touch and its answer validated")
{
	mw_t args = mungi_new(1, NULL);
	struct handler_args *a = (struct handler_args *)args;
	handler_table = a;              /* the child reads it from the image's data */
	for (int i = 0; i < 3; i++)
		a->objs[i] = mungi_new(1, NULL);
	a->table[0] = with_rights(a->objs[0], MUNGI_R);
	a->table[1] = (struct mungi_cap){ a->objs[1], 0x1234 };       /* a wrong password */
	mw_t up = stat(MUNGI_STAT_UPCALLS);
	struct mungi_cap caps[1] = { with_rights(args, MUNGI_R | MUNGI_W) };
	struct mungi_cap cl = clist_of(caps, 1);
	long st = join(spawn(handler_child, args, &cl, 1, 0));
	EXPECT(st == 0, "child status %ld", st);
	EXPECT(a->r[0] == 0 && a->r[1] == -1 && a->r[2] == -1, "probes %ld %ld %ld", a->r[0], a->r[1], a->r[2]);
	EXPECT(a->calls == 3 && stat(MUNGI_STAT_UPCALLS) - up == 3, "handler calls %lu, upcalls %lu", a->calls,
	       stat(MUNGI_STAT_UPCALLS) - up);
	EXPECT(a->upcall_thread && a->upcall_thread != a->child_thread && !a->upcalls_elsewhere,
	       "upcalls in thread %lx (%lu in others), the faulting thread is %lx", a->upcall_thread,
	       a->upcalls_elsewhere, a->child_thread);
	for (int i = 0; i < 3; i++)
		mungi_free(a->objs[i]);
	mungi_free(cl.base);
	mungi_free(args);
}

/* --- bank accounts, rent, the paymaster (lib/mungi/bank.c) --- */

#include "../../lib/mungi/bank.h"

TEST_CASE("bank.rent", "a user-level rent collector charges an account for its objects; overdrawn, it cannot pay for new objects, the old ones stay; the paymaster's deposits let it again")
{
	mw_t args = mungi_new(1, NULL), pw, pages;
	struct mungi_bank *b = (struct mungi_bank *)args;
	struct mungi_cap owner, user;
	long balance = 0;
	EXPECT(!mungi_acct_create(&boot->bank, 30, &owner), "account");
	struct mungi_cap forged = { boot->bank.base, boot->bank.password + 1 };
	EXPECT(mungi_acct_create(&forged, 30, &user) == MUNGI_EPERM, "an account from a forged bank");
	mungi_clist_add(my_clist, &owner);
	EXPECT(!mungi_cap_register(owner.base, 0, MUNGI_R | MUNGI_W, &pw), "user password");
	user = (struct mungi_cap){ owner.base, pw };
	struct mungi_cap o1, o2, o3;
	EXPECT(!mungi_obj_create(5, &user, 0, &o1) && !mungi_obj_create(5, &user, 0, &o2), "objects");
	mungi_clist_add(my_clist, &o1);
	mungi_clist_add(my_clist, &o2);
	EXPECT(!mungi_acct_info(&user, &balance, &pages) && balance == 30 && pages == 10, "balance %ld pages %lu",
	       balance, pages);
	*b = (struct mungi_bank){ .bank = boot->bank, .acct = { owner }, .naccts = 1, .period_us = 10000, .rate = 1 };
	EXPECT(mungi_rent(b, 10, 1000000) == 10, "a flat rate");
	b->threshold = 1000;
	EXPECT(mungi_rent(b, 10, 1000) == 40 && mungi_rent(b, 10, 0) == 10, "the rate does not grow with storage");
	b->threshold = 0;
	struct mungi_cap caps[2] = { with_rights(args, MUNGI_R | MUNGI_W), owner };
	struct mungi_cap cl = clist_of(caps, 2);
	mw_t collector = spawn(mungi_rent_collector, args, &cl, 1, 0);
	for (int i = 0; i < 300 && !mungi_acct_info(&user, &balance, &pages) && balance > 0; i++)
		L4_Sleep(5000);
	EXPECT(balance <= 0, "the rent collector did not bring the balance down: %ld", balance);
	EXPECT(mungi_obj_create(1, &user, 0, &o3) == MUNGI_EFUNDS, "an overdrawn account paid for an object");
	EXPECT(mungi_probe(o1.base, 'r') == 0 && mungi_probe(o2.base, 'w') == 0, "the objects went with the money");
	struct mungi_statement *s = (struct mungi_statement *)owner.base;
	EXPECT(s->lines >= 3 && s->line[0].pages == 10 && s->line[0].rent == 10 && s->line[0].balance == 20,
	       "the statement: %lu lines, first %lu pages %lu rent balance %ld", s->lines, s->line[0].pages,
	       s->line[0].rent, s->line[0].balance);
	b->allowance = 1000;
	mw_t payer = spawn(mungi_paymaster, args, &cl, 1, 0);
	for (int i = 0; i < 300 && !mungi_acct_info(&user, &balance, &pages) && balance <= 0; i++)
		L4_Sleep(5000);
	EXPECT(balance > 0 && !mungi_obj_create(1, &user, 0, &o3), "after the paymaster: balance %ld", balance);
	b->stop = 1;
	EXPECT(join(collector) == 0 && join(payer) == 0, "the bank's tasks");
	mungi_obj_delete(o3.base);
	mungi_obj_delete(o1.base);
	mungi_obj_delete(o2.base);
	mungi_free(cl.base);
	mungi_free(args);
}

/* --- user-level pagers --- */

static mw_t pager_from[2], pager_to[2];

/* A pager: the faulting page of object pager_from[i] is mapped to the same page of pager_to[i]. */
static struct mungi_ret pager(mw_t va, mw_t access, mw_t obj, mw_t d, mw_t e, mw_t f)
{
	(void)access, (void)d, (void)e, (void)f;
	for (int i = 0; i < 2; i++)
		if (obj == pager_from[i])
			return (struct mungi_ret){ mungi_vm_map(va, pager_to[i] + (va - obj), MUNGI_R | MUNGI_W), 0 };
	return (struct mungi_ret){ MUNGI_ENOENT, 0 };
}

TEST_CASE("vm.pager_chain", "faults on an object with a user-level pager go to it; it maps pages to another object's, whose own pager maps them on to the default pager's; a page going out drops the mappings onto it")
{
	mw_t a = mungi_new(8, NULL), b = mungi_new(8, NULL), c = mungi_new(8, NULL);
	for (int i = 0; i < 8; i++)
		*(volatile mw_t *)(c + i * 4096) = 0xc000 + (mw_t)i;
	pager_from[0] = a;
	pager_to[0] = b;
	pager_from[1] = b;
	pager_to[1] = c;
	struct mungi_cap pc[5] = { with_rights(a, MUNGI_OWNER), with_rights(b, MUNGI_OWNER),
				   with_rights(c, MUNGI_OWNER), image_code, image_data };
	struct mungi_cap pcl = clist_of(pc, 5);
	mw_t entry = (mw_t)pager;
	struct mungi_cap cap = pdx_capability(&entry, 1, &pcl);
	mungi_clist_add(my_clist, &cap);
	EXPECT(!mungi_set_pager(a, entry) && !mungi_set_pager(b, entry), "set the pagers");
	EXPECT(mungi_set_pager(c, (mw_t)pdx_add) == MUNGI_EENTRY, "a pager without a PDX capability for it");
	mw_t calls = stat(MUNGI_STAT_PAGER_CALLS);
	EXPECT(*(volatile mw_t *)(a + 2 * 4096) == 0xc002, "through two pagers: %lx", *(volatile mw_t *)(a + 2 * 4096));
	EXPECT(stat(MUNGI_STAT_PAGER_CALLS) - calls == 2, "pager calls %lu", stat(MUNGI_STAT_PAGER_CALLS) - calls);
	*(volatile mw_t *)(a + 2 * 4096 + 8) = 0xabc;
	EXPECT(*(volatile mw_t *)(c + 2 * 4096 + 8) == 0xabc, "a write through the mappings did not reach the page");
	EXPECT(!mungi_vm_flush(c + 2 * 4096), "flush");
	calls = stat(MUNGI_STAT_PAGER_CALLS);
	EXPECT(*(volatile mw_t *)(a + 2 * 4096 + 8) == 0xabc, "the data after the page went out and came back");
	EXPECT(stat(MUNGI_STAT_PAGER_CALLS) - calls == 2, "the mappings survived the page: %lu pager calls",
	       stat(MUNGI_STAT_PAGER_CALLS) - calls);
	EXPECT(*(volatile mw_t *)(a + 7 * 4096) == 0xc007, "another page: %lx", *(volatile mw_t *)(a + 7 * 4096));
	mungi_clist_remove(my_clist, cap.base);
	mungi_clist_add(my_clist, &boot->text_owner);
	mungi_cap_revoke(cap.base, cap.password);
	mungi_free(a);
	mungi_free(b);
	mungi_free(c);
	mungi_free(pcl.base);
}

TEST_CASE("store.checkpoint", "a checkpoint writes the object table and every page changed since the last one through the page-store interface; only the bank may ask")
{
	mw_t pages = 0, base = mungi_new(3, NULL);
	*(volatile mw_t *)base = 1;
	*(volatile mw_t *)(base + 8192) = 2;
	struct mungi_cap forged = { boot->bank.base, boot->bank.password ^ 4 };
	EXPECT(mungi_checkpoint(&forged, &pages) == MUNGI_EPERM, "a checkpoint with a forged bank capability");
	EXPECT(mungi_checkpoint(&boot->account, &pages) == MUNGI_EPERM, "a checkpoint with an account's capability");
	EXPECT(!mungi_checkpoint(&boot->bank, &pages), "checkpoint");
	EXPECT(pages > 3, "%lu pages written", pages);
	/* nothing of ours changed: the table, and whatever the server itself touched meanwhile
	 * (its periodic work runs on the host's clock when not under icount): the least of three */
	mw_t table = ~0UL, one = 0;
	for (int i = 0; i < 3; i++) {
		mw_t n = 0;
		EXPECT(!mungi_checkpoint(&boot->bank, &n), "checkpoint %d with nothing of ours changed", i);
		table = n < table ? n : table;
	}
	*(volatile mw_t *)(base + 4096) = 3;                                        /* one page changed */
	EXPECT(!mungi_checkpoint(&boot->bank, &one), "a checkpoint with one page changed");
	EXPECT(table > 0 && one >= table + 1 && pages >= table + 2,
	       "pages written: %lu with two pages of ours new, %lu with none changed, %lu with one", pages, table, one);
	EXPECT(*(volatile mw_t *)(base + 8192) == 2 && mungi_null() == 0, "after the checkpoint");
	mungi_free(base);
}

/* --- files --- */

#include "../../lib/mungi/file.h"

static long file_reader(mw_t dir)
{
	struct mfile f;
	char buf[64];
	if (mfs_open(&f, dir, "notes", MFS_O_RDONLY))
		return 1;
	if (mfs_lseek(&f, 6, MFS_SEEK_SET) != 6 || mfs_read(&f, buf, sizeof(buf)) != 5 || memcmp(buf, "world", 5))
		return 2;
	if (mfs_write(&f, "x", 1) != -MUNGI_EPERM)
		return 3;
	return mfs_open(&f, dir, "absent", MFS_O_RDONLY) == MUNGI_ENOENT ? 0 : 4;
}

TEST_CASE("file.unix_way", "open/write/lseek/read/close on named objects; another task opens the file by name")
{
	struct mungi_cap dir;
	struct mfile f;
	char buf[32];
	EXPECT(!mfs_mkdir(4, &dir), "mkdir");
	EXPECT(!mfs_open(&f, dir.base, "notes", MFS_O_RDWR | MFS_O_CREAT), "create");
	EXPECT(mfs_write(&f, "hello world", 11) == 11, "write");
	EXPECT(mfs_lseek(&f, 0, MFS_SEEK_SET) == 0 && mfs_read(&f, buf, 32) == 11 && !memcmp(buf, "hello world", 11),
	       "read back");
	EXPECT(mfs_lseek(&f, -5, MFS_SEEK_END) == 6 && mfs_read(&f, buf, 3) == 3 && !memcmp(buf, "wor", 3),
	       "seek from the end");
	EXPECT(mfs_lseek(&f, -100, MFS_SEEK_CUR) == -MUNGI_EINVAL, "a seek before the start");
	EXPECT(!mfs_close(&f), "close");
	mw_t task;
	EXPECT(!mungi_task_create(file_reader, dir.base, 0, 0, &task), "reader");
	long st = join(task);
	EXPECT(st == 0, "the reader's check %ld failed", st);
	EXPECT(!mfs_open(&f, dir.base, "notes", MFS_O_WRONLY | MFS_O_APPEND) && mfs_write(&f, "!", 1) == 1, "append");
	EXPECT(!mfs_open(&f, dir.base, "notes", MFS_O_RDONLY) && mfs_read(&f, buf, 32) == 12 && buf[11] == '!',
	       "after the append");
	EXPECT(!mfs_unlink(dir.base, "notes") && mfs_open(&f, dir.base, "notes", 0) == MUNGI_ENOENT, "unlink");
	mungi_free(dir.base);
}

long mungi_main(mw_t arg)
{
	struct mungi_self self;
	boot = (struct mungi_bootinfo *)arg;
	if (boot->magic != MUNGI_BOOT_MAGIC || mungi_self(&self))
		return 2;
	my_clist = self.clist;
	/* the image's owner capabilities: PDX capabilities are registered on its code */
	mungi_clist_add(my_clist, &boot->text_owner);
	mungi_clist_add(my_clist, &boot->data_owner);
	image_code = with_rights(boot->text_owner.base, MUNGI_R | MUNGI_X);
	image_data = with_rights(boot->data_owner.base, MUNGI_R);
	return test_run_all() ? 1 : 0;
}
