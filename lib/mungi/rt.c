// SPDX-License-Identifier: MIT
// The runtime every Mungi thread runs in: its start, the loops of PDX
// workers and of t0 (capability-handler upcalls), protection faults.
#include "mungi.h"
#include "../c/stdio.h"

void mungi_thread_main(mw_t fn, mw_t arg, mw_t kind) __attribute__((noreturn));
void mungi_fault_main(void) __attribute__((noreturn));

/* Serve PDX calls: run the entry with its arguments, return its results; a fault aborts the call. */
static void __attribute__((noreturn)) worker_loop(struct mungi_tls *tls)
{
	mw_t label = mungi_setjmp(&tls->worker) ? MUNGI_PDX_ABORT : MUNGI_PDX_READY;
	unsigned u = 0;
	tls->catch = &tls->worker;
	for (;;) {
		L4_SetMR(0, L4_TAG_MAKE(label, u, 0));
		L4_MsgTag_t tag = L4_Ipc(MUNGI_SERVER, MUNGI_SERVER, 0, 0);
		if (L4_IpcFailed(tag) || L4_TAG_LABEL(tag) != MUNGI_PDX_CALL) {
			label = MUNGI_PDX_READY;
			u = 0;
			continue;
		}
		L4_Word_t *mr = L4_Utcb();
		struct mungi_ret r = ((mungi_pdx_fn)mr[1])(mr[2], mr[3], mr[4], mr[5], mr[6], mr[7]);
		tls->catch = &tls->worker;
		mr[1] = r.r0;
		mr[2] = r.r1;
		label = MUNGI_PDX_RET;
		u = 2;
	}
}

/* t0: call capability handlers for the server's validations; a handler that faults answers nothing. */
static void __attribute__((noreturn)) t0_loop(struct mungi_tls *tls)
{
	int faulted = mungi_setjmp(&tls->worker);
	mw_t label = faulted ? MUNGI_UPCALL_RESULT : MUNGI_PDX_READY;
	unsigned u = faulted ? 2 : 0;
	L4_SetMR(1, 0);
	L4_SetMR(2, 0);
	for (;;) {
		tls->catch = &tls->worker;
		L4_SetMR(0, L4_TAG_MAKE(label, u, 0));
		L4_MsgTag_t tag = L4_Ipc(MUNGI_SERVER, MUNGI_SERVER, 0, 0);
		if (L4_IpcFailed(tag) || L4_TAG_LABEL(tag) != MUNGI_UPCALL) {
			label = MUNGI_PDX_READY;
			u = 0;
			continue;
		}
		struct mungi_cap c = ((mungi_handler_fn)L4_MR(1))(L4_MR(2), L4_MR(3));
		L4_SetMR(1, c.base);
		L4_SetMR(2, c.password);
		label = MUNGI_UPCALL_RESULT;
		u = 2;
	}
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
		worker_loop(&tls);
	if (kind == MUNGI_KIND_T0)
		t0_loop(&tls);
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
