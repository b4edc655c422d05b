// SPDX-License-Identifier: MIT
// The PDX direct path's in-guest tests (docs/mungi.md, "PDX"): after a call
// through the server a caller thread calls a direct worker of the PDX task
// itself; these check that the results are the server path's, that a
// revocation, deletion or APD change ends the binding at once, that a busy
// worker sends its caller to the server, and that nobody without a permit
// gets a call through or sees another's.  The server counts the PDX calls
// it serves (MUNGI_STAT_PDX_SERVED): a direct call is one it does not see.
#include "../../lib/mungi/mungi.h"
#include "../../lib/test/test.h"
#include "../../lib/c/stdio.h"
#include "../../lib/c/string.h"

static struct mungi_bootinfo *boot;
static mw_t my_clist;
static struct mungi_cap image_code, image_data;        /* RX and R capabilities for the image */
static mw_t secret;                                     /* readable through the PDX capabilities only */

/* --- helpers --- */

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

static struct mungi_cap with_rights(mw_t base, mw_t rights)
{
	mw_t pw = 0;
	mungi_cap_register(base, 0, rights, &pw);
	return (struct mungi_cap){ base, pw };
}

static mw_t stat(int which)
{
	mw_t s[MUNGI_NSTATS];
	return mungi_stats(s) ? ~0UL : s[which];
}

static mw_t served(void)
{
	return stat(MUNGI_STAT_PDX_SERVED);
}

/* A PDX capability on the image's code for entries; its Clist gives the code, the data and the secret. */
static struct mungi_cap pdx_capability(const mw_t *entries, int n)
{
	struct mungi_cap db[3] = { with_rights(secret, MUNGI_R), image_code, image_data };
	struct mungi_cap cl = clist_of(db, 3);
	mw_t pw = 0;
	mungi_pdx_register(boot->text_owner.base, 0, MUNGI_PDX, entries, (mw_t)n, &cl, &pw);
	return (struct mungi_cap){ boot->text_owner.base, pw };
}

/*
 * A raw MUNGI_PDX_DIRECT-style message to thread `to`: label, u words
 * (MR1 = entry, the rest `fill`), tag flags; the reply's label, or 0x1000 +
 * the IPC error code.  Zero send timeout, 20 ms to answer (an answer takes
 * microseconds; a refusal sent elsewhere never comes).
 */
static mw_t raw_call(L4_ThreadId_t to, mw_t label, unsigned u, mw_t flags, mw_t entry, mw_t fill)
{
	L4_SetMR(0, L4_TAG_MAKE(label, u, 0) | flags);
	L4_SetMR(1, entry);
	for (unsigned i = 2; i <= u && i < 64; i++)
		L4_SetMR((int)i, fill);
	for (unsigned i = u + 1; i < 8; i++)
		L4_SetMR((int)i, fill);
	L4_MsgTag_t tag = L4_Ipc(to, to, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TimePeriod(20000)), NULL);
	return L4_IpcFailed(tag) ? 0x1000 + L4_ErrorCode() : L4_TAG_LABEL(tag);
}

/* None of MR1..7 holds `marker` (a word of another caller's call). */
static int clean_of(mw_t marker)
{
	for (int i = 1; i < 8; i++)
		if (L4_MR(i) == marker)
			return 0;
	return 1;
}

/* --- procedures --- */

static struct mungi_ret d_add(mw_t a, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	return (struct mungi_ret){ a + b + c + d + e + f, a * b };
}

/* The word at addr, or ~0 if this domain cannot read it. */
static struct mungi_ret d_read(mw_t addr, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	if (mungi_probe(addr, 'r'))
		return (struct mungi_ret){ ~0UL, 0 };
	return (struct mungi_ret){ *(volatile mw_t *)addr, 1 };
}

/* Writes the word at addr | 8: faults unless the domain may write there. */
static struct mungi_ret d_write(mw_t addr, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	*(volatile mw_t *)(addr | 8) = 1;
	return (struct mungi_ret){ 5, 6 };
}

/* 3 for (1, 2), else an exception (not a page fault): the server ends the thread that raises it. */
static struct mungi_ret d_trap(mw_t x, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if (x != 1 || b != 2)
		__asm__ __volatile__("ud2");
	return (struct mungi_ret){ 3, 0 };
}

static struct mungi_ret d_double(mw_t x, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	return (struct mungi_ret){ x * 2, 0 };
}

/* A nested call: d_double with an empty APD, from inside a PDX call. */
static struct mungi_ret d_outer(mw_t x, mw_t b, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	struct mungi_ret r;
	mw_t err = mungi_pdx_empty((mw_t)d_double, x, 0, 0, 0, 0, 0, &r);
	return (struct mungi_ret){ err ? 1000 + err : r.r0 + 1, 0 };
}

/* Counts its calls in the word at counter (if not 0). */
static struct mungi_ret d_count(mw_t a, mw_t b, mw_t counter, mw_t d, mw_t e, mw_t f)
{
	if (counter)
		(*(volatile mw_t *)counter)++;
	return (struct mungi_ret){ a + b + d + e + f, a * b };
}

/* x into the word after sem (it is here), P on the semaphore at sem, then 3x. */
static struct mungi_ret d_wait(mw_t sem, mw_t x, mw_t c, mw_t d, mw_t e, mw_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	((volatile mw_t *)sem)[1] = x;
	mw_t err = mungi_sem_p(sem);
	return (struct mungi_ret){ err ? 1000 + err : 3 * x, 0 };
}

/* --- the cases --- */

/* Two calls of entry(1, 2) returning 3, the second one straight to the worker; the worker, or 0. */
static L4_ThreadId_t bound(mw_t entry)
{
	struct mungi_ret r;
	if (mungi_pdx(entry, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3)
		return 0;
	L4_Sleep(1000);         /* a direct worker made for the call gets to its loop */
	mw_t n = served();
	if (mungi_pdx(entry, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3 || served() != n)
		return 0;
	return mungi_pdx_worker(entry, MUNGI_KEY_EXTEND);
}

TEST_CASE("direct.same_results", "after one call through the server a thread's PDX calls go straight to a direct worker (the server sees none) and return what the server path returns: extension, empty and explicit APDs, a faulting callee, a nested call")
{
	mw_t entries[6] = { (mw_t)d_add, (mw_t)d_read, (mw_t)d_write, (mw_t)d_outer, (mw_t)d_double, (mw_t)d_trap };
	struct mungi_cap p = pdx_capability(entries, 6);
	mungi_clist_add(my_clist, &p);
	mw_t mine = mungi_new(1, NULL), permits = stat(MUNGI_STAT_PDX_PERMITS);
	*(volatile mw_t *)mine = 0x123;
	struct mungi_ret r, s;
	mw_t n = served();
	EXPECT(!mungi_pdx((mw_t)d_add, 10, 20, 30, 40, 50, 60, &s) && s.r0 == 210 && s.r1 == 200, "server path");
	EXPECT(served() == n + 1 && mungi_pdx_worker((mw_t)d_add, MUNGI_KEY_EXTEND),
	       "the first call went through the server (%lu) and gave a direct worker", served() - n);
	n = served();
	for (mw_t i = 0; i < 20; i++) {
		EXPECT(!mungi_pdx((mw_t)d_add, i, i + 1, 7, 0, 0, 100 * i, &r), "direct call %lu", i);
		EXPECT(r.r0 == 102 * i + 8 && r.r1 == i * (i + 1), "direct call %lu: %lu %lu", i, r.r0, r.r1);
	}
	EXPECT(!mungi_pdx((mw_t)d_add, 10, 20, 30, 40, 50, 60, &r) && r.r0 == s.r0 && r.r1 == s.r1, "same results");
	EXPECT(served() == n, "the server served %lu of 21 direct calls", served() - n);
	EXPECT(stat(MUNGI_STAT_PDX_PERMITS) > permits, "no permit counted");
	/* what the procedure can reach: the capability's Clist, and the caller's domain (extension) */
	for (int k = 0; k < 2; k++) {
		EXPECT(!mungi_pdx((mw_t)d_read, secret, 0, 0, 0, 0, 0, &r) && r.r0 == 0x5ec, "the secret (%d): %lx", k,
		       r.r0);
		EXPECT(!mungi_pdx((mw_t)d_read, mine, 0, 0, 0, 0, 0, &r) && r.r0 == 0x123, "the caller's (%d): %lx", k,
		       r.r0);
		EXPECT(!mungi_pdx_empty((mw_t)d_read, mine, 0, 0, 0, 0, 0, &r) && r.r0 == ~0UL,
		       "the caller's, empty APD (%d): %lx", k, r.r0);
		EXPECT(!mungi_pdx_empty((mw_t)d_read, secret, 0, 0, 0, 0, 0, &r) && r.r0 == 0x5ec,
		       "the secret, empty APD (%d): %lx", k, r.r0);
		EXPECT(!mungi_pdx((mw_t)d_outer, 21, 0, 0, 0, 0, 0, &r) && r.r0 == 43, "nested (%d): %lu", k, r.r0);
	}
	EXPECT(mungi_pdx_worker((mw_t)d_read, MUNGI_KEY_EMPTY) &&
	       mungi_pdx_worker((mw_t)d_read, MUNGI_KEY_EMPTY) != mungi_pdx_worker((mw_t)d_read, MUNGI_KEY_EXTEND),
	       "the empty-APD calls' worker is another task's");
	/* explicit APDs: keyed by the handle */
	mw_t h1, h2;
	struct mungi_cap mc = with_rights(mine, MUNGI_R), mcl = clist_of(&mc, 1);
	struct mungi_cap apd1[2] = { boot->image_ro, mcl }, apd2[1] = { boot->image_ro };
	EXPECT(!mungi_apd_make(apd1, 2, &h1) && !mungi_apd_make(apd2, 1, &h2), "APDs");
	for (int k = 0; k < 2; k++) {
		EXPECT(!mungi_pdx_apd((mw_t)d_read, h1, mine, 0, 0, 0, 0, &r) && r.r0 == 0x123, "APD 1 (%d): %lx", k,
		       r.r0);
		EXPECT(!mungi_pdx_apd((mw_t)d_read, h2, mine, 0, 0, 0, 0, &r) && r.r0 == ~0UL, "APD 2 (%d): %lx", k,
		       r.r0);
		EXPECT(!mungi_pdx_apd((mw_t)d_add, h1, 4, 5, 6, 7, 8, &r) && r.r0 == 30 && r.r1 == 20,
		       "APD 1, five arguments (%d): %lu %lu", k, r.r0, r.r1);
	}
	/* a callee that faults: MUNGI_EFAULT, and its worker goes on */
	n = served();
	EXPECT(!mungi_pdx((mw_t)d_write, mine, 0, 0, 0, 0, 0, &r) && r.r0 == 5, "a write the domain may make");
	EXPECT(!mungi_pdx((mw_t)d_write, mine, 0, 0, 0, 0, 0, &r) && r.r0 == 5 && served() == n + 1,
	       "again, directly (%lu through the server)", served() - n);
	L4_ThreadId_t w = mungi_pdx_worker((mw_t)d_write, MUNGI_KEY_EXTEND);
	EXPECT(mungi_pdx((mw_t)d_write, 0, 0, 0, 0, 0, 0, &r) == MUNGI_EFAULT, "a faulting direct call");
	EXPECT(mungi_pdx_worker((mw_t)d_write, MUNGI_KEY_EXTEND) == w, "the fault cost the permit");
	EXPECT(!mungi_pdx((mw_t)d_write, mine, 0, 0, 0, 0, 0, &r) && r.r0 == 5 && served() == n + 1,
	       "then a direct call to the same worker (%lu through the server)", served() - n);
	/* a callee that raises an exception: its worker is ended, the caller gets MUNGI_EFAULT, the task stays */
	mw_t tasks = stat(MUNGI_STAT_PDX_TASKS);
	EXPECT(bound((mw_t)d_trap), "d_trap(1, 2), directly");
	EXPECT(mungi_pdx((mw_t)d_trap, 0, 0, 0, 0, 0, 0, &r) == MUNGI_EFAULT, "an exception in a direct call");
	EXPECT(!mungi_pdx((mw_t)d_trap, 1, 2, 0, 0, 0, 0, &r) && r.r0 == 3, "d_trap(1, 2) after it");
	EXPECT(!mungi_pdx((mw_t)d_read, mine, 0, 0, 0, 0, 0, &r) && r.r0 == 0x123, "extension after it: %lx", r.r0);
	EXPECT(stat(MUNGI_STAT_PDX_TASKS) == tasks, "PDX tasks made: %lu", stat(MUNGI_STAT_PDX_TASKS) - tasks);
	mungi_cap_revoke(p.base, p.password);
	mungi_free(mcl.base);
	mungi_free(mine);
}

TEST_CASE("direct.revoked", "revoking the PDX capability, deleting the Clist that holds it, or taking that Clist out of the APD ends a cached direct binding before the request returns: the next call fails with MUNGI_EPERM and the worker refuses the old caller")
{
	mw_t e = (mw_t)d_add, slot;
	/* revocation */
	struct mungi_cap p = pdx_capability(&e, 1), l = clist_of(&p, 1);
	EXPECT(!mungi_apd_add(&l, &slot), "APD add");
	L4_ThreadId_t w = bound(e);
	EXPECT(w, "no direct binding");
	EXPECT(!mungi_cap_revoke(p.base, p.password), "revoke");
	EXPECT(raw_call(w, MUNGI_PDX_DIRECT, 7, 0, e, 1) == MUNGI_ESTALE, "the worker still took the old caller");
	struct mungi_ret r;
	EXPECT(mungi_pdx(e, 1, 2, 0, 0, 0, 0, &r) == MUNGI_EPERM, "a call after revocation");
	EXPECT(!mungi_apd_remove(slot), "APD remove");
	mungi_free(l.base);
	/* deletion of the Clist holding the capability */
	p = pdx_capability(&e, 1);
	l = clist_of(&p, 1);
	EXPECT(!mungi_apd_add(&l, &slot), "APD add 2");
	EXPECT((w = bound(e)), "no direct binding 2");
	EXPECT(!mungi_free(l.base), "delete the Clist");
	EXPECT(raw_call(w, MUNGI_PDX_DIRECT, 7, 0, e, 1) == MUNGI_ESTALE, "the worker still took the old caller 2");
	EXPECT(mungi_pdx(e, 1, 2, 0, 0, 0, 0, &r) == MUNGI_EPERM, "a call after deletion");
	EXPECT(!mungi_apd_remove(slot), "APD remove 2");
	mungi_cap_revoke(p.base, p.password);
	/* the APD changed: its PDX tasks go, with their workers */
	p = pdx_capability(&e, 1);
	l = clist_of(&p, 1);
	EXPECT(!mungi_apd_add(&l, &slot), "APD add 3");
	EXPECT((w = bound(e)), "no direct binding 3");
	EXPECT(!mungi_apd_remove(slot), "APD remove 3");
	mw_t got = raw_call(w, MUNGI_PDX_DIRECT, 7, 0, e, 1);
	EXPECT(got == 0x1000 + L4_IPC_NOPARTNER, "the worker after the APD changed: %lx", got);
	EXPECT(mungi_pdx(e, 1, 2, 0, 0, 0, 0, &r) == MUNGI_EPERM, "a call after the APD changed");
	mungi_cap_revoke(p.base, p.password);
	mungi_free(l.base);
}

TEST_CASE("direct.expires", "a permit ends when its binding expires (dt after the validation); the next call goes through the server, which validates again and grants a new one")
{
	mw_t e = (mw_t)d_add;
	struct mungi_cap p = pdx_capability(&e, 1);
	mungi_clist_add(my_clist, &p);
	L4_ThreadId_t w = bound(e);
	EXPECT(w, "no direct binding");
	/* dt and a tick (dt/4) at most, in the server's time; under a loaded host's real time, give it more */
	L4_Sleep(mungi_dt_us() + mungi_dt_us() / 2);
	int tries = 0;
	while (raw_call(w, MUNGI_PDX_DIRECT, 7, 0, e, 1) != MUNGI_ESTALE && ++tries < 20)
		L4_Sleep(mungi_dt_us());
	EXPECT(tries < 20, "the permit outlived its binding by 20 dt");
	mw_t n = served();
	struct mungi_ret r;
	EXPECT(!mungi_pdx(e, 1, 2, 0, 0, 0, 0, &r) && r.r0 == 3 && served() == n + 1, "through the server: %lu",
	       served() - n);
	EXPECT(!mungi_pdx(e, 1, 2, 0, 0, 0, 0, &r) && r.r0 == 3 && served() == n + 1, "then directly: %lu",
	       served() - n);
	mungi_cap_revoke(p.base, p.password);
}

/* --- hostile callers --- */

struct hostile_args {
	L4_ThreadId_t worker, victim;   /* a direct worker and a thread holding a permit on it */
	mw_t entry, marker;             /* the entry it may call (d_count); a word of the victim's last call */
	volatile mw_t calls;            /* d_count's counter: the attacks' arguments point here */
	mw_t got[8];
};

/* What a thread without a permit gets from the worker, each way; got[i] per attempt. */
static void attack(struct hostile_args *a)
{
	mw_t c = (mw_t)&a->calls;
	a->got[0] = raw_call(a->worker, MUNGI_PDX_DIRECT, 7, 0, a->entry, c);
	a->got[1] = clean_of(a->marker);
	a->got[2] = raw_call(a->worker, MUNGI_PDX_CALL, 7, 0, a->entry, c);       /* the server's label */
	a->got[3] = raw_call(a->worker, MUNGI_PDX_DIRECT, 0, 0, a->entry, c);     /* too short */
	a->got[4] = raw_call(a->worker, MUNGI_PDX_DIRECT, 40, 0, a->entry, c);    /* too long: the slowpath */
	a->got[5] = clean_of(a->marker);
	/* posing as the victim: propagation, which the kernel allows only within a space (the
	   worker refuses the flag, and its refusal goes to the victim, who is not waiting) */
	L4_SetTcr(UTCB_VIRTUAL_SENDER, a->victim);
	a->got[6] = raw_call(a->worker, MUNGI_PDX_DIRECT, 7, L4_TAG_PROPAGATE, a->entry, c);
	/* a string item the worker has no buffer for */
	L4_SetMR(0, L4_TAG_MAKE(MUNGI_PDX_DIRECT, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(8, 1, 0, 0));
	L4_SetMR(2, (mw_t)a);
	a->got[7] = L4_IpcFailed(L4_Ipc(a->worker, a->worker, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TimePeriod(20000)),
					NULL));
}

static long hostile_task(mw_t arg)
{
	attack((struct hostile_args *)arg);
	return 0;
}

static volatile mw_t thread_done;

static void hostile_thread(mw_t arg)
{
	attack((struct hostile_args *)arg);
	thread_done = 1;
	mungi_thread_exit();
}

/* Every attempt refused (the procedure never ran), no word of the victim's call seen. */
static int refused_all(const struct hostile_args *a)
{
	mw_t unanswered = 0x1000 + (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV);
	return a->got[0] == MUNGI_ESTALE && a->got[1] && a->got[2] == MUNGI_ESTALE && a->got[3] == MUNGI_ESTALE &&
	       a->got[4] == MUNGI_ESTALE && a->got[5] && (a->got[6] == MUNGI_ESTALE || a->got[6] == unanswered) &&
	       a->got[7] == 1 && a->calls == 0;
}

TEST_CASE("direct.hostile", "a thread without a permit (of another task, or of the caller's own), one posing as the caller, and malformed messages get MUNGI_ESTALE or a failed IPC and see nothing of the permitted caller's call; a permit is for one entry; the worker and its caller go on")
{
	mw_t entries[2] = { (mw_t)d_count, (mw_t)d_read };
	struct mungi_cap p = pdx_capability(entries, 2);
	mungi_clist_add(my_clist, &p);
	L4_ThreadId_t w = bound((mw_t)d_count);
	EXPECT(w, "no direct binding");
	mw_t args = mungi_new(1, NULL);
	struct hostile_args *a = (struct hostile_args *)args;
	a->worker = w;
	a->victim = L4_MyGlobalId();
	a->entry = (mw_t)d_count;
	a->marker = 0x5eedf00d;
	struct mungi_ret r;
	EXPECT(!mungi_pdx((mw_t)d_count, 0x5eedf00d, 0x5eedf00d, 0, 0, 0, 0x5eedf00d, &r), "the victim's call");
	/* another task, given the worker's ID and a capability for nothing but the arguments */
	struct mungi_cap rw = with_rights(args, MUNGI_R | MUNGI_W), cl = clist_of(&rw, 1), apd[2] = { boot->image_ro, cl };
	mw_t h, task;
	long st = -1;
	EXPECT(!mungi_apd_make(apd, 2, &h) && !mungi_task_create(hostile_task, args, h, 0, &task) &&
	       !mungi_task_wait(task, &st) && st == 0, "the hostile task: %ld", st);
	EXPECT(refused_all(a), "another task got through: %lx %lx %lx %lx %lx %lx %lx %lx, %lu calls", a->got[0],
	       a->got[1], a->got[2], a->got[3], a->got[4], a->got[5], a->got[6], a->got[7], a->calls);
	/* a thread of the caller's own task: permits are per thread */
	mw_t tid;
	memset(a->got, 0, sizeof(a->got));
	thread_done = 0;
	EXPECT(!mungi_thread_create(hostile_thread, args, &tid), "thread");
	for (int i = 0; i < 300 && !thread_done; i++)
		L4_Sleep(10000);
	EXPECT(thread_done && refused_all(a),
	       "a thread of the caller's task got through: %lx %lx %lx %lx %lx %lx %lx %lx, %lu calls (done %lu)",
	       a->got[0], a->got[1], a->got[2], a->got[3], a->got[4], a->got[5], a->got[6], a->got[7], a->calls,
	       thread_done);
	/* the permitted caller, for an entry its permit does not name */
	EXPECT(raw_call(w, MUNGI_PDX_DIRECT, 7, 0, (mw_t)d_read, secret) == MUNGI_ESTALE, "another entry");
	/* (the binding may have expired meanwhile: then one call goes through the server) */
	mw_t n = served();
	EXPECT(!mungi_pdx((mw_t)d_count, 4, 5, (mw_t)&a->calls, 0, 0, 0, &r) && r.r0 == 9 && r.r1 == 20 &&
	       a->calls == 1 && served() <= n + 1, "the caller after all that (%lu through the server)", served() - n);
	n = served();
	EXPECT(!mungi_pdx((mw_t)d_count, 4, 5, (mw_t)&a->calls, 0, 0, 0, &r) && r.r0 == 9 && a->calls == 2 &&
	       served() == n, "and directly (%lu through the server)", served() - n);
	EXPECT(mungi_pdx_worker((mw_t)d_count, MUNGI_KEY_EXTEND) == w && mungi_null() == 0, "the worker, the server");
	mungi_cap_revoke(p.base, p.password);
	mungi_free(cl.base);
	mungi_free(args);
}

/* --- a busy worker --- */

struct busy_args {
	mw_t sem;                       /* a semaphore (the object's first word) */
	volatile mw_t inside;           /* d_wait's x: which call is in the procedure */
	L4_ThreadId_t worker;           /* the direct worker the waiter's second call goes to */
	volatile mw_t started, done, err, result;
};

/* Two calls of d_wait: the first through the server, the second directly, where it waits. */
static void waiter(mw_t arg)
{
	struct busy_args *a = (struct busy_args *)arg;
	struct mungi_ret r;
	a->err = mungi_pdx((mw_t)d_wait, a->sem, 1, 0, 0, 0, 0, &r);
	a->worker = mungi_pdx_worker((mw_t)d_wait, MUNGI_KEY_EXTEND);
	a->started = 1;
	if (!a->err)
		a->err = mungi_pdx((mw_t)d_wait, a->sem, 7, 0, 0, 0, 0, &r);
	a->result = r.r0;
	a->done = 1;
	mungi_thread_exit();
}

TEST_CASE("direct.busy", "a caller whose direct worker is busy with another thread's call falls back to the server path and gets its own results; the other call completes with its own; then the direct path again")
{
	mw_t entries[2] = { (mw_t)d_add, (mw_t)d_wait };
	struct mungi_cap p = pdx_capability(entries, 2);
	mungi_clist_add(my_clist, &p);
	L4_ThreadId_t w = bound((mw_t)d_add);
	EXPECT(w, "no direct binding");
	mw_t args = mungi_new(1, NULL), tid;
	struct busy_args *a = (struct busy_args *)args;
	a->sem = args;
	EXPECT(!mungi_sem_create(a->sem, 1), "semaphore");
	EXPECT(!mungi_thread_create(waiter, args, &tid), "thread");
	for (int i = 0; i < 500 && a->inside != 7; i++)     /* its second call is in the worker */
		L4_Sleep(2000);
	L4_Sleep(2000);
	EXPECT(a->started && !a->done && a->worker == w && a->inside == 7,
	       "the waiter shares the worker: %lx %lx (started %lu, inside %lu, done %lu)", a->worker, w, a->started,
	       a->inside, a->done);
	mw_t n = served();
	struct mungi_ret r;
	EXPECT(!mungi_pdx((mw_t)d_add, 2, 3, 4, 0, 0, 0, &r) && r.r0 == 9 && r.r1 == 6, "the call while busy: %lu %lu",
	       r.r0, r.r1);
	EXPECT(served() == n + 1, "it went through the server: %lu", served() - n);
	EXPECT(!a->done && mungi_pdx_worker((mw_t)d_add, MUNGI_KEY_EXTEND) == w, "the waiter still waits, the permit stays");
	EXPECT(!mungi_sem_v(a->sem), "V");
	for (int i = 0; i < 100 && !a->done; i++)
		L4_Sleep(2000);
	EXPECT(a->done && a->err == 0 && a->result == 21, "the waiter's call: error %lu, result %lu", a->err, a->result);
	n = served();
	EXPECT(!mungi_pdx((mw_t)d_add, 5, 6, 0, 0, 0, 0, &r) && r.r0 == 11 && served() == n, "directly again: %lu",
	       served() - n);
	mungi_sem_delete(a->sem);
	mungi_cap_revoke(p.base, p.password);
	mungi_free(args);
}

/* In a confined task: the status has a bit per failed check. */
static long confined_caller(mw_t arg)
{
	(void)arg;
	struct mungi_ret r;
	long bad = 0;
	for (int i = 0; i < 3; i++)
		bad |= mungi_pdx((mw_t)d_add, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3 ? 1 : 0;
	bad |= mungi_pdx_worker((mw_t)d_add, MUNGI_KEY_EXTEND) ? 2 : 0;
	return bad;
}

TEST_CASE("direct.confined", "a confined caller gets no direct worker (its IPC can only reach the server) and its calls work through the server")
{
	mw_t e = (mw_t)d_add;
	struct mungi_cap p = pdx_capability(&e, 1), cl = clist_of(&p, 1), apd[2] = { boot->image_ro, cl };
	mw_t h, task;
	long st = -1;
	EXPECT(!mungi_apd_make(apd, 2, &h) && !mungi_task_create(confined_caller, 0, h, MUNGI_TASK_CONFINED, &task) &&
	       !mungi_task_wait(task, &st), "the confined task");
	EXPECT(st == 0, "confined caller: mask %lx", st);
	mungi_cap_revoke(p.base, p.password);
	mungi_free(cl.base);
}

/* Empty-APD calls, directly; then the APD locked (the task confined); then a call: a bit per failure. */
static long locking_caller(mw_t arg)
{
	(void)arg;
	struct mungi_ret r;
	long bad = 0;
	for (int i = 0; i < 2; i++) {
		bad |= mungi_pdx_empty((mw_t)d_add, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3 ? 1 : 0;
		L4_Sleep(1000);
	}
	mw_t n = served();
	bad |= mungi_pdx_empty((mw_t)d_add, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3 || served() != n ? 2 : 0;
	bad |= mungi_pdx_worker((mw_t)d_add, MUNGI_KEY_EMPTY) ? 0 : 4;
	bad |= mungi_apd_lock() ? 8 : 0;
	/* its permit ended with the lock; its table still names the worker, and the IPC goes to the server */
	bad |= mungi_pdx_empty((mw_t)d_add, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3 ? 16 : 0;
	bad |= mungi_pdx_empty((mw_t)d_add, 1, 2, 0, 0, 0, 0, &r) || r.r0 != 3 ? 32 : 0;
	bad |= mungi_pdx_worker((mw_t)d_add, MUNGI_KEY_EMPTY) ? 64 : 0;
	return bad;
}

TEST_CASE("direct.locked", "a task that locks its APD (and so is confined) after it got a direct worker goes on through the server: its direct call, redirected to the server, is ended there, not left waiting")
{
	mw_t e = (mw_t)d_add;
	struct mungi_cap p = pdx_capability(&e, 1), cl = clist_of(&p, 1), apd[2] = { boot->image_ro, cl };
	mw_t h, task, refused = stat(MUNGI_STAT_REFUSED_IPC);
	long st = -1;
	EXPECT(!mungi_apd_make(apd, 2, &h) && !mungi_task_create(locking_caller, 0, h, 0, &task) &&
	       !mungi_task_wait(task, &st), "the task");
	EXPECT(st == 0, "locking caller: mask %lx", st);
	EXPECT(stat(MUNGI_STAT_REFUSED_IPC) == refused + 1, "redirected direct calls: %lu",
	       stat(MUNGI_STAT_REFUSED_IPC) - refused);
	mungi_cap_revoke(p.base, p.password);
	mungi_free(cl.base);
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
	secret = mungi_new(1, NULL);
	*(volatile mw_t *)secret = 0x5ec;
	return test_run_all() ? 1 : 0;
}
