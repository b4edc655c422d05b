// SPDX-License-Identifier: MIT
// The runtime every Mungi thread runs in: its start, the loops of PDX
// workers and of t0 (capability-handler upcalls), protection faults.
#include "mungi.h"
#include "../c/stdio.h"

void mungi_thread_main(mw_t fn, mw_t arg, mw_t kind) __attribute__((noreturn));
void mungi_fault_main(void) __attribute__((noreturn));

/*
 * The loop of PDX workers and of t0: wait for the server's message `want`,
 * let run() turn its MRs into the two result words, answer `done`.  A
 * protection fault in run() comes back here and answers `fail` instead.
 */
static void __attribute__((noreturn)) serve(struct mungi_tls *tls, mw_t want, mw_t done, mw_t fail,
					    void (*run)(L4_Word_t *mr))
{
	mw_t label = mungi_setjmp(&tls->worker) ? fail : MUNGI_PDX_READY;
	L4_SetMR(1, 0);
	L4_SetMR(2, 0);
	for (;;) {
		tls->catch = &tls->worker;
		L4_SetMR(0, L4_TAG_MAKE(label, 2, 0));
		L4_MsgTag_t tag = L4_Ipc(MUNGI_SERVER, MUNGI_SERVER, 0, 0);
		if (L4_IpcFailed(tag) || L4_TAG_LABEL(tag) != want) {
			label = MUNGI_PDX_READY;
			continue;
		}
		run(L4_Utcb());
		label = done;
	}
}

/* A PDX call: the entry with its six arguments. */
static void run_pdx(L4_Word_t *mr)
{
	struct mungi_ret r = ((mungi_pdx_fn)mr[1])(mr[2], mr[3], mr[4], mr[5], mr[6], mr[7]);
	mr[1] = r.r0;
	mr[2] = r.r1;
}

/* Is the kernel-reported sender `from` permitted to call entry?  The server keeps the table. */
static int permitted(const volatile struct mungi_permit *p, L4_ThreadId_t from, L4_Word_t entry)
{
	for (int i = 0; i < MUNGI_PERMITS; i++)
		if (p[i].caller == from && p[i].entry == entry)
			return 1;
	return 0;
}

/*
 * A direct worker's loop (docs/mungi.md, "PDX"): it takes MUNGI_PDX_DIRECT
 * calls from any thread the server has written into its permit table for
 * that entry, trusting the sender ID the kernel reports (propagated
 * messages, which carry another thread's ID, are refused with everything
 * else that is not exactly the call's form).  A refusal is MUNGI_ESTALE
 * with every message register cleared, so no sender sees another's
 * arguments or results (the kernel passes all eight registers whatever u
 * says).
 * Replies go with a zero timeout: a caller that is gone is not waited for.
 */
static void __attribute__((noreturn, noinline)) direct_loop(struct mungi_tls *tls,
								 const volatile struct mungi_permit *p,
								 L4_ThreadId_t to, L4_Word_t tag)
{
	L4_Word_t r0 = 0, r1 = 0;
	for (;;) {
		tls->catch = &tls->worker;
		/* every register word goes out: none of another call's */
		L4_Word_t m[8] = { tag, r0, r1, 0, 0, 0, 0, 0 };
		mungi_ipc_regs(&to, L4_ANYTHREAD, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_NEVER), m);
		r0 = r1 = 0;
		if (m[0] & L4_TAG_ERROR) {      /* the send failed (the caller is gone) or the receive */
			to = L4_NILTHREAD;
			tag = 0;
			continue;
		}
		if ((m[0] & ~L4_TAG_XCPU) != L4_TAG_MAKE(MUNGI_PDX_DIRECT, 7, 0) || !permitted(p, to, m[1])) {
			tag = L4_TAG_MAKE(MUNGI_ESTALE, 0, 0);
			continue;
		}
		tls->direct_caller = to;
		struct mungi_ret x = ((mungi_pdx_fn)m[1])(m[2], m[3], m[4], m[5], m[6], m[7]);
		tag = L4_TAG_MAKE(0, 2, 0);
		r0 = x.r0;
		r1 = x.r1;
	}
}

static void __attribute__((noreturn)) serve_direct(struct mungi_tls *tls, const volatile struct mungi_permit *p)
{
	if (mungi_setjmp(&tls->worker))         /* the procedure took a protection fault */
		direct_loop(tls, p, tls->direct_caller, L4_TAG_MAKE(MUNGI_EFAULT, 0, 0));
	direct_loop(tls, p, L4_NILTHREAD, 0);
}

/* An upcall: the capability handler's answer for an object and the rights wanted. */
static void run_handler(L4_Word_t *mr)
{
	struct mungi_cap c = ((mungi_handler_fn)mr[1])(mr[2], mr[3]);
	mr[1] = c.base;
	mr[2] = c.password;
}

void mungi_thread_main(mw_t fn, mw_t arg, mw_t kind)
{
	struct mungi_tls tls = { 0 };
	tls.kind = kind;
	L4_SetTcr(UTCB_USER_HANDLE, (L4_Word_t)&tls);
	L4_SetTcr(UTCB_EXC_HANDLER, MUNGI_SERVER);
	if (!__L4_Ipc)
		__l4_init();            /* the first task's first thread: the image's data is its to write */
	if (kind == MUNGI_KIND_WORKER)
		serve(&tls, MUNGI_PDX_CALL, MUNGI_PDX_RET, MUNGI_PDX_ABORT, run_pdx);
	if (kind == MUNGI_KIND_DIRECT)
		serve_direct(&tls, (const volatile struct mungi_permit *)arg);
	if (kind == MUNGI_KIND_T0)
		serve(&tls, MUNGI_UPCALL, MUNGI_UPCALL_RESULT, MUNGI_UPCALL_RESULT, run_handler);
	if (kind == MUNGI_KIND_THREAD) {
		((void (*)(mw_t))fn)(arg);
		mungi_thread_exit();
	}
	mungi_task_exit(((long (*)(mw_t))fn)(arg));
}

void mungi_fault_main(void)
{
	struct mungi_tls *tls = mungi_tls();
	mw_t addr = 0, access = 0, rip = 0;
	mungi_fault_info(&addr, &access, &rip);         /* first: the server knows we got here */
	if (tls->catch)
		mungi_longjmp(tls->catch, 1);
	printf("mungi: protection fault: %s at %lx (rip %lx); the thread ends\n",
	       access & 2 ? "write" : access & 1 ? "execute" : "read", addr, rip);
	if (tls->kind == MUNGI_KIND_THREAD)
		mungi_thread_exit();
	mungi_task_exit(139);
}

/* --- Clists --- */

static struct mungi_clist *clist_at(mw_t base) { return (struct mungi_clist *)base; }

void mungi_clist_init(mw_t base, mw_t pages)
{
	struct mungi_clist *c = clist_at(base);
	c->count = 0;
	c->capacity = MUNGI_CLIST_CAPACITY(pages * 4096);
	c->magic = MUNGI_CLIST_MAGIC;
}

mw_t mungi_clist_add(mw_t base, const struct mungi_cap *cap)
{
	struct mungi_clist *c = clist_at(base);
	if (c->count >= c->capacity)
		return MUNGI_ENOMEM;
	c->cap[c->count] = *cap;
	c->count++;
	return 0;
}

mw_t mungi_clist_remove(mw_t base, mw_t obj)
{
	struct mungi_clist *c = clist_at(base);
	mw_t gone = 0;
	for (mw_t i = 0; i < c->count;)
		if (c->cap[i].base == obj) {
			c->cap[i] = c->cap[--c->count];
			gone++;
		} else {
			i++;
		}
	return gone;
}

mw_t mungi_own_clist(void)
{
	struct mungi_tls *tls = mungi_tls();
	struct mungi_self s;
	if (!tls->clist && !mungi_self(&s))
		tls->clist = s.clist;
	return tls->clist;
}

mw_t mungi_new(mw_t pages, struct mungi_cap *owner)
{
	struct mungi_cap c;
	mw_t clist = mungi_own_clist();
	if (!clist || mungi_obj_create(pages, 0, 0, &c))
		return 0;
	if (mungi_clist_add(clist, &c)) {
		mungi_obj_delete(c.base);
		return 0;
	}
	if (owner)
		*owner = c;
	return c.base;
}

mw_t mungi_free(mw_t base)
{
	mw_t err = mungi_obj_delete(base);
	if (!err)
		mungi_clist_remove(mungi_own_clist(), base);
	return err;
}

/* --- probes --- */

int mungi_probe(mw_t addr, char access)
{
	struct mungi_tls *tls = mungi_tls();
	mungi_jmp_buf here, *saved = tls->catch;
	if (mungi_setjmp(&here)) {
		tls->catch = saved;
		return -1;
	}
	tls->catch = &here;
	if (access == 'w')
		__asm__ __volatile__("movb $0x5a, (%0)" : : "r"(addr) : "memory");
	else if (access == 'x')
		((void (*)(void))addr)();
	else
		(void)*(volatile unsigned char *)addr;
	tls->catch = saved;
	return 0;
}
