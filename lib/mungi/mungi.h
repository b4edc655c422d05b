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

/*
 * The PDX direct path's IPC: the whole message in registers (abi.md §2:
 * MR0 R9, MR1 RAX, MR2 RBX, MR3 R10, MR4-7 R12-R15), m[0..7] in and out,
 * nothing through the UTCB's MRs.  *to: the destination in, From out.
 * Every register word goes to the receiver whatever the tag's u says, so
 * the caller sets all eight.
 */
static inline void mungi_ipc_regs(L4_ThreadId_t *to, L4_ThreadId_t fromspec, L4_Word_t timeouts, L4_Word_t *m)
{
	register L4_Word_t r8 __asm__("r8") = timeouts;
	register L4_Word_t r9 __asm__("r9") = m[0];
	register L4_Word_t r10 __asm__("r10") = m[3];
	register L4_Word_t r12 __asm__("r12") = m[4];
	register L4_Word_t r13 __asm__("r13") = m[5];
	register L4_Word_t r14 __asm__("r14") = m[6];
	register L4_Word_t r15 __asm__("r15") = m[7];
	L4_Word_t rax = m[1], rbx = m[2], rsi = *to, rdx = fromspec;
	L4_Word_t *rdi = L4_Utcb();
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "+S"(rsi), "+d"(rdx), "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r12), "+r"(r13),
			       "+r"(r14), "+r"(r15), "+a"(rax), "+b"(rbx), "+D"(rdi)
			     : [stub] "m"(__L4_Ipc)
			     : "rcx", "r11", "memory", "cc");
	m[0] = r9; m[1] = rax; m[2] = rbx; m[3] = r10;
	m[4] = r12; m[5] = r13; m[6] = r14; m[7] = r15;
	*to = rsi;
}

/*
 * A PDX call with label MUNGI_PDX_* whose message (entry, then arguments;
 * MR1..7) is w: straight to the direct worker this thread holds a permit
 * on for (entry, key) if it has one, else through the server, which may
 * grant one (docs/mungi.md, "PDX").  key: MUNGI_KEY_EXTEND, MUNGI_KEY_EMPTY
 * or the APD handle.
 */
#define MUNGI_KEY_EXTEND 0
#define MUNGI_KEY_EMPTY  1
mw_t mungi_pdx_call(mw_t label, mw_t key, const mw_t *w, struct mungi_ret *r);
/* The direct worker this thread would call for (entry, key), or 0 (for tests). */
L4_ThreadId_t mungi_pdx_worker(mw_t entry, mw_t key);

/* PDX calls: extending the caller's APD, with an empty one, with an explicit one (apd_make). */
static inline mw_t mungi_pdx(mw_t entry, mw_t a0, mw_t a1, mw_t a2, mw_t a3, mw_t a4, mw_t a5,
			     struct mungi_ret *r)
{
	mw_t w[7] = { entry, a0, a1, a2, a3, a4, a5 };
	return mungi_pdx_call(MUNGI_PDX_CALL, MUNGI_KEY_EXTEND, w, r);
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

/* A caller's record of a direct worker it holds a permit on (0: none). */
#define MUNGI_DIRECT_LOG2 4
#define MUNGI_DIRECT_CACHE (1 << MUNGI_DIRECT_LOG2)
struct mungi_direct {
	mw_t entry, key;
	L4_ThreadId_t worker;
};

/* Each thread's runtime state, on its stack; the UserDefinedHandle points at it. */
struct mungi_tls {
	mungi_jmp_buf *catch;           /* where a protection fault returns to, or NULL */
	mungi_jmp_buf worker;           /* a PDX worker's loop */
	mw_t kind;
	mw_t clist;                     /* the task's own Clist (0: not asked yet) */
	/* the PDX direct path: as a caller, by (entry, key) hashed; as a direct worker, whose call runs */
	struct mungi_direct direct[MUNGI_DIRECT_CACHE];
	L4_ThreadId_t direct_caller;
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
