/* SPDX-License-Identifier: MIT */
/*
 * The Mungi user library (docs/mungi.md): the system calls, the runtime
 * every Mungi thread starts in, Clists, and probes for tests.  A program is
 * a function `long main_fn(L4_Word_t arg)` in the user image; the first task
 * runs the image's ELF entry with the address of its struct mungi_bootinfo.
 * Every call returns 0 or a MUNGI_E* code (MUNGI_EIPC: the server could not
 * be reached).
 */
#ifndef MUNGI_LIB_H
#define MUNGI_LIB_H

#include "../l4/l4.h"
#include <mungi/protocol.h>
#include <stddef.h>

#define MUNGI_SERVER l4_global_id(L4_USER_BASE + 2, 1)
#define MUNGI_EIPC   0xff

typedef L4_Word_t mw_t;
struct mungi_ret { mw_t r0, r1; };
/* A PDX procedure: six arguments, two results. */
typedef struct mungi_ret (*mungi_pdx_fn)(mw_t, mw_t, mw_t, mw_t, mw_t, mw_t);
/* A capability handler (runs in the task's t0): a capability for the object at base, or {0, 0}. */
typedef struct mungi_cap (*mungi_handler_fn)(mw_t base, mw_t rights);

/* Send request label with MR1..MRu already set; the reply's label. */
static inline mw_t mungi_req(mw_t label, unsigned u)
{
	L4_SetMR(0, L4_TAG_MAKE(label, u, 0));
	L4_MsgTag_t tag = L4_Call(MUNGI_SERVER);
	return L4_IpcFailed(tag) ? MUNGI_EIPC : L4_TAG_LABEL(tag);
}

static inline mw_t mungi_null(void)
{
	return mungi_req(MUNGI_NULL, 0);
}

/* PDX calls: extending the caller's APD, with an empty one, with an explicit one (apd_make). */
static inline mw_t mungi_pdx(mw_t entry, mw_t a0, mw_t a1, mw_t a2, mw_t a3, mw_t a4, mw_t a5,
			     struct mungi_ret *r)
{
	L4_Word_t *mr = L4_Utcb();
	mr[1] = entry; mr[2] = a0; mr[3] = a1; mr[4] = a2; mr[5] = a3; mr[6] = a4; mr[7] = a5;
	mw_t err = mungi_req(MUNGI_PDX_CALL, 7);
	if (r) {
		r->r0 = mr[1];
		r->r1 = mr[2];
	}
	return err;
}
mw_t mungi_pdx_empty(mw_t entry, mw_t a0, mw_t a1, mw_t a2, mw_t a3, mw_t a4, mw_t a5, struct mungi_ret *r);
mw_t mungi_pdx_apd(mw_t entry, mw_t apd, mw_t a0, mw_t a1, mw_t a2, mw_t a3, mw_t a4, struct mungi_ret *r);

struct mungi_self { mw_t task, clist, flags, account; };
mw_t mungi_self(struct mungi_self *s);

/* Objects and capabilities. account NULL: the task's own account. */
mw_t mungi_obj_create(mw_t pages, const struct mungi_cap *account, mw_t flags, struct mungi_cap *owner);
mw_t mungi_obj_delete(mw_t base);
mw_t mungi_obj_survive(mw_t base);
mw_t mungi_obj_info(mw_t addr, mw_t *base, mw_t *pages, mw_t *rights);
/* Register a password (0: the server picks one) with rights; *out gets the password. */
mw_t mungi_cap_register(mw_t base, mw_t password, mw_t rights, mw_t *out);
/* A PDX capability: its entry points and the Clist its calls add to the caller's APD. */
mw_t mungi_pdx_register(mw_t base, mw_t password, mw_t rights, const mw_t *entries, mw_t n,
			const struct mungi_cap *clist, mw_t *out);
mw_t mungi_cap_revoke(mw_t base, mw_t password);

/* The active protection domain. */
mw_t mungi_apd_add(const struct mungi_cap *clist, mw_t *slot);
mw_t mungi_apd_add_handler(mungi_handler_fn fn, mw_t *slot);
mw_t mungi_apd_remove(mw_t slot);
mw_t mungi_apd_lock(void);
mw_t mungi_apd_make(const struct mungi_cap *clists, mw_t n, mw_t *handle);

/* Tasks and threads.  apd: 0 inherits the creator's APD; flags MUNGI_TASK_CONFINED. */
mw_t mungi_task_create(long (*fn)(mw_t), mw_t arg, mw_t apd, mw_t flags, mw_t *task);
void mungi_task_exit(long status) __attribute__((noreturn));
mw_t mungi_task_wait(mw_t task, long *status);
mw_t mungi_task_kill(mw_t task);
mw_t mungi_thread_create(void (*fn)(mw_t), mw_t arg, mw_t *tid);
void mungi_thread_exit(void) __attribute__((noreturn));
mw_t mungi_thread_kill(mw_t tid);

/* Semaphores at addresses the task may write. */
mw_t mungi_sem_create(mw_t addr, mw_t value);
mw_t mungi_sem_p(mw_t addr);
mw_t mungi_sem_v(mw_t addr);
mw_t mungi_sem_delete(mw_t addr);

/* Bank accounts. */
mw_t mungi_acct_create(const struct mungi_cap *bank, mw_t balance, struct mungi_cap *acct);
mw_t mungi_acct_info(const struct mungi_cap *acct, long *balance, mw_t *pages);
mw_t mungi_acct_deposit(const struct mungi_cap *bank, mw_t acct, long amount, long *balance);
mw_t mungi_ot_enum(const struct mungi_cap *bank, mw_t addr, mw_t *base, mw_t *pages, mw_t *account);
mw_t mungi_checkpoint(const struct mungi_cap *bank, mw_t *pages);

/* User-level pagers and object-to-object mappings. */
mw_t mungi_set_pager(mw_t base, mw_t entry);
mw_t mungi_vm_map(mw_t dest, mw_t src, mw_t rights);
mw_t mungi_vm_flush(mw_t page);

mw_t mungi_fault_info(mw_t *addr, mw_t *access, mw_t *rip);
mw_t mungi_stats(mw_t out[MUNGI_NSTATS]);
mw_t mungi_dt_us(void);

/* Clists: an object of `pages` in struct mungi_clist's format. */
void mungi_clist_init(mw_t base, mw_t pages);
/* Append cap (no check); MUNGI_ENOMEM when the object is full. */
mw_t mungi_clist_add(mw_t clist, const struct mungi_cap *cap);
/* Remove every capability for base; how many went. */
mw_t mungi_clist_remove(mw_t clist, mw_t base);

/* An object of pages whose owner capability goes into the task's own Clist; its base or 0. */
mw_t mungi_new(mw_t pages, struct mungi_cap *owner);
/* Delete an object and take its capabilities out of the task's own Clist. */
mw_t mungi_free(mw_t base);

/* Tests: touch addr for access 'r', 'w' or 'x'; 0, or -1 after a protection fault. */
int mungi_probe(mw_t addr, char access);

/* setjmp and longjmp for the runtime and the probes. */
typedef struct { mw_t rbx, rbp, r12, r13, r14, r15, rsp, rip; } mungi_jmp_buf;
int mungi_setjmp(mungi_jmp_buf *b) __attribute__((returns_twice));
void mungi_longjmp(mungi_jmp_buf *b, int v) __attribute__((noreturn));

/* Each thread's runtime state, on its stack; the UserDefinedHandle points at it. */
struct mungi_tls {
	mungi_jmp_buf *catch;           /* where a protection fault returns to, or NULL */
	mungi_jmp_buf worker;           /* a PDX worker's loop */
	mw_t kind;
	mw_t clist;                     /* the task's own Clist (0: not asked yet) */
};
/* The task's own Clist (its base), where mungi_new keeps owner capabilities. */
mw_t mungi_own_clist(void);

/* The value of option name ("name=value", space-separated) in args; "" if absent. */
const char *mungi_arg(const char *args, const char *name);
/* A capability written "BASE:PASSWORD" (hex; no password: 0). */
struct mungi_cap mungi_cap_parse(const char *s);
static inline struct mungi_tls *mungi_tls(void)
{
	return (struct mungi_tls *)L4_Tcr(UTCB_USER_HANDLE);
}

#endif
