/* SPDX-License-Identifier: MIT */
/*
 * The Mungi server's internals (docs/mungi.md).  One L4 thread serves
 * everything: every Mungi task's page faults, exceptions and requests, and
 * the replies of PDX workers and upcall threads, arrive as IPC and are
 * answered without blocking; whatever must wait is parked and taken up
 * again when what it waits for happens.
 */
#ifndef MUNGI_SERVER_H
#define MUNGI_SERVER_H

#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "addr.h"
#include "chacha.h"
#include "ot.h"
#include "store.h"
#include <mungi/protocol.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;

#define PAGE          4096UL
#define PAGE_MASK     (~(PAGE - 1))
#define FIRST_TNO     64            /* thread numbers handed to Mungi threads start here */
#define MAX_TNO       2048          /* the kernel's CONFIG_MAX_THREADS */
#define VC_SIZE       32            /* validation-cache entries per domain */
#define PDX_HASH      16            /* PDX bindings' hash buckets per caller domain */
#define MAX_WORKERS   16            /* threads of one PDX task */
#define MAX_APDS      256           /* explicit APDs made by MUNGI_APD_MAKE, in all */
#define MAX_ALIAS_DEPTH 8           /* object-to-object mappings followed for one fault */

/* --- time, statistics, the server (main.c) --- */
extern L4_ThreadId_t mungi_id;
extern u64 now;                     /* microseconds, brought up to date by the timer's ticks */
extern u64 dt;                      /* the validation lifetime, microseconds */
extern u64 stats[MUNGI_NSTATS];
extern struct mungi_rt rt;          /* the user image's runtime entry points */
/* The server logs with printf (through the console driver once it runs); a panic powers off (99). */
void mungi_die(void) __attribute__((noreturn));
#define mungi_panic(...) do { printf(__VA_ARGS__); mungi_die(); } while (0)
/*
 * Every message the server composes goes through mr_set: a reply still
 * waiting for the loop's ReplyWait (reply_to) is sent first, while the MRs
 * still hold it.  reply_tag sets MR0 to label with u untyped words.
 */
extern L4_ThreadId_t mungi_pending;        /* a reply in the MRs, for the loop's next ReplyWait */
void mungi_flush(void);                     /* send it now (zero timeout) */
/* inline: every call through the server composes its reply with these */
static inline void mr_set(int i, u64 v)
{
	if (mungi_pending)
		mungi_flush();
	L4_SetMR(i, v);
}
static inline void reply_tag(u64 label, unsigned u)
{
	mr_set(0, L4_TAG_MAKE(label, u, 0));
}
/* A reply composed while another still waits: says so (the first is lost). */
void reply_twice(L4_ThreadId_t to);
/* The message being served gets its reply in the MRs (sent by the loop's next ReplyWait). */
static inline void reply_to(L4_ThreadId_t to)
{
	if (mungi_pending)
		reply_twice(to);
	mungi_pending = to;
}
/* The value of " name=" on the server's command line args, or NULL. */
const char *server_option(const char *args, const char *name);
/* Send what the MRs hold to a thread waiting for it now (zero timeout); false if it was not. */
bool send_now(L4_ThreadId_t to);

/* --- memory (mem.c) --- */
void pool_init(void);
void *frame_alloc(void);            /* a zeroed 4 KiB frame of the server's pool, or NULL */
void frame_free(void *f);
u64 frames_free(void);
/* Copy and clear with string instructions (lib/c's byte loops cost 3 instructions a byte). */
void mcopy(void *d, const void *s, u64 n);
void mzero(void *d, u64 n);
/* Fixed-size records, each kind from its own free list. */
struct kind { unsigned size; void *free; u64 live; const char *name; };
void *rec_alloc(struct kind *k);    /* zeroed, or NULL */
void *rec_alloc_raw(struct kind *k);    /* not cleared: for records the user fills completely */
void rec_free(struct kind *k, void *p);

/* --- objects and their pages (obj.c, page.c) --- */
struct domain;
struct mobj {
	struct ot_obj ot;               /* first: the object table hands these out */
	struct domain *killer;          /* the task whose kill list holds it */
	struct mobj *kill_next, **kill_prev;
	u64 resident;                   /* pages with a frame or an alias */
	bool pdx_bound;                 /* a PDX binding was validated through it (its PDX or Clist object) */
};
extern struct ot ot;
extern struct addr_space addrs;
extern struct csprng rng;
void objects_init(void);
u64 new_password(void);
static inline u64 obj_end(const struct ot_obj *o) { return o->base + o->npages * PAGE; }
/* Create an object of npages (at base, or anywhere when base is 0) charged to account. */
int obj_make(u64 base, u64 npages, u64 account, struct domain *killer, struct mobj **out, u64 *owner_pw);
/* Delete it: its pages unmapped and freed, its range stale, its semaphores gone. */
void obj_destroy(struct mobj *m);
void kill_list_remove(struct mobj *m);

struct page {
	u64 va;                         /* its address in the single address space */
	void *frame;                    /* the server's address of its frame; NULL for an alias */
	u64 target;                     /* an alias: the page it is mapped to */
	u32 rights;                     /* an alias: the rights of that mapping */
	struct page *hnext;             /* hash chain */
	struct page *aliases, *anext;   /* pages mapped to this one, and the next such */
	bool dirty;                     /* a frame that differs from the page store's copy */
};
void pages_init(void);
struct page *page_find(u64 va);
/* A frame for va: from the page store if it holds the page, else zeroed; NULL without memory. */
struct page *page_materialise(u64 va);
struct page *page_alias(u64 va, u64 target, u32 rights);
/* Unmap va's frame from every task and forget it; keep: its data goes to the page store. */
void page_drop(u64 va, bool keep);
/* Every page of [base, end) dropped, and its stored copies deleted. */
void pages_drop_range(u64 base, u64 end);
/* The server's own copy of bytes of the single address space (paging in as needed). */
bool vm_read(u64 addr, void *buf, u64 n);
bool vm_write(u64 addr, const void *buf, u64 n);
/* Revoke every task's mapping of the pages of [base, end). */
void unmap_range(u64 base, u64 end);
/* Put o's dirty pages into the page store: how many, or -MUNGI_E* (some may be put). */
long pages_sync(struct ot_obj *o);

/* --- the page store (pagestore_mem.c, pagestore_disk.c) --- */
extern const struct pagestore *pstore;     /* the one in use */
extern const struct pagestore memstore;
/* The disk's store when a disk is attached (recovered or formatted), else the memory's; say which. */
void pstore_init(const char *args);
/* Was the store opened at a checkpoint Mungi wrote (so the table is to be loaded)? */
bool pstore_recovered(void);
/* Store every kept object's dirty pages and the table, then commit: pages written, or -MUNGI_E*. */
long pstore_checkpoint(void);
/* The disk driver's polls and polling ticks so far (left alone without a disk). */
void pstore_disk_wait(u64 *polls, u64 *ticks);

/* --- domains, APDs, validation (domain.c) --- */
#define APD_CLIST   1
#define APD_HANDLER 2
struct apd_entry {
	u8 kind;
	u64 base, pw;                   /* a Clist capability, or a handler address in base */
	u64 checked;                    /* when a Clist capability was last validated */
};
struct vc_entry {
	u64 base, end;
	u32 rights;
	u64 expires, gen;
};
struct pdx_binding;
struct mthread;

#define D_CONFINED  0x1             /* IPC redirected to the server */
#define D_LOCKED    0x2             /* the APD cannot change */
#define D_PDX       0x4             /* a PDX task */
#define D_EXITED    0x8

struct domain {
	u64 id;                         /* the task id: its first thread's number */
	L4_ThreadId_t space;            /* a thread of its L4 space (the one that made it) */
	u32 flags;
	struct domain *parent;          /* PDX proper extension: the caller's domain */
	struct domain *creator;
	struct apd_entry apd[MUNGI_MAX_APD];
	unsigned napd;
	struct vc_entry vc[VC_SIZE];
	unsigned vc_next;
	struct mthread *thread[MUNGI_MAX_THREADS];
	unsigned nthreads;
	u64 stack_obj, clist_obj;       /* its stacks and its own Clist */
	struct mungi_cap account;       /* charged for what it creates without naming an account */
	struct mobj *kill;              /* its kill list */
	long status;
	struct mthread *waiters;        /* threads in MUNGI_TASK_WAIT for it */
	/* upcalls */
	struct mthread *t0, *upcall_cur, *upcall_queue;
	/* as a caller: PDX bindings and the PDX tasks made for it */
	struct pdx_binding *pdx[PDX_HASH];
	struct domain *pdx_tasks, *pdx_sibling;
	/* as a PDX task */
	u64 pdx_obj, pdx_pw, apd_key;
	struct mthread *idle, *queue;   /* idle workers; callers waiting for one */
	unsigned workers;
	struct mthread *direct;         /* its direct workers (not counted in workers) */
	unsigned ndirect;
	struct domain *next_all;
};
extern struct domain *all_domains;
/* Rights of d on the object containing addr for an access needing `need`: >= 0, or
 * -MUNGI_E* on failure, or VALIDATE_WAIT when t was parked for an upcall. */
#define VALIDATE_WAIT (-1000)
long validate(struct mthread *t, struct domain *d, u64 addr, u32 need);
/* Rights a capability confers on the object at its base (0: none). */
u32 cap_rights(u64 base, u64 pw);
/* Validate and append a Clist capability to d's APD: slot, or -MUNGI_E*. */
long apd_add_clist(struct domain *d, u64 base, u64 pw);
void domain_requests(struct mthread *t, u64 label);
/* Forget every validation of d and its mappings (an APD changed). */
void vc_flush(struct domain *d);
/* Expired validations, stale Clists, stale addresses: once per tick. */
void domains_tick(void);

/* --- tasks and threads (task.c) --- */
#define T_RUN   0
#define T_PARK  1                   /* waiting for something; no reply yet */
#define T_IDLE  2                   /* a worker or t0 waiting for work */
#define T_CALL  3                   /* a caller inside a PDX call */

#define W_NONE    0
#define W_FAULT   1                 /* a fault that waits (a pager, a page) */
#define W_UPCALL  2                 /* a validation that waits for t0 */
#define W_SEM     3
#define W_TASK    4
#define W_WORKER  5                 /* a PDX call that waits for a worker */

struct mthread {
	L4_ThreadId_t tid;
	struct domain *dom;
	unsigned slot;
	u8 kind;                        /* MUNGI_KIND_* */
	u8 state, wait;
	struct mthread *callee;         /* the worker running this thread's PDX call */
	struct mthread *caller;         /* a worker: the thread whose call it runs (NULL: none) */
	bool busy;                      /* a worker running a call or a pager; t0 in an upcall */
	bool in_fault_path;             /* sent to its fault entry, no request since */
	struct mthread *next;           /* in an idle list or a wait queue */
	u64 wait_on;
	u64 fault_addr, fault_rip;
	u32 fault_access;               /* rwx of the last fault */
	u64 upcall_base, upcall_pw;     /* the capability t0 returned for this thread's validation */
	int upcall_skip;                /* handler slots below were asked in this validation */
	bool upcall_have;               /* t0's answer for slot upcall_skip is here */
	u64 msg[8];                     /* a PDX call held for a worker */
	u64 pager_page;                 /* a worker running a pager: the page it was asked for */
	/* the PDX direct path (pdx.c): a caller's permit to come, a direct worker's permits */
	u64 grant;                      /* a caller in a PDX call: the direct worker its reply names */
	struct mthread *permit_caller[MUNGI_PERMITS];   /* mirrors the table in its stack slot */
	u64 permit_entry[MUNGI_PERMITS];
	struct pdx_binding *permit_b[MUNGI_PERMITS];    /* the binding each permit rests on */
	struct mthread *direct_next;    /* the next direct worker of its task */
};
extern struct mthread *threads[MAX_TNO];
static inline struct mthread *thread_of(L4_ThreadId_t tid)
{
	u64 no = l4_thread_no(tid);
	struct mthread *t = no < MAX_TNO ? threads[no] : NULL;
	return t && t->tid == tid ? t : NULL;
}
/* A new task (L4 space) with APD entries apd[0..n) after its own Clist; NULL or it. */
struct domain *task_create(struct domain *creator, const struct apd_entry *apd, unsigned n, u32 flags);
/* A thread of d starting at fn(arg) as kind; NULL on failure. */
struct mthread *thread_start(struct domain *d, u64 fn, u64 arg, u8 kind);
void thread_destroy(struct mthread *t);
void task_destroy(struct domain *d, long status);
void task_requests(struct mthread *t, u64 label);
/* The address of t's permit table (struct mungi_permit[MUNGI_PERMITS]), at the top of its stack slot. */
u64 thread_permits(struct mthread *t);

/* --- PDX and upcalls (pdx.c) --- */
void pdx_call(struct mthread *t, u64 label);
void pdx_return(struct mthread *w, bool faulted);
void pdx_ready(struct mthread *w);
void pdx_caller_gone(struct mthread *t);
void pdx_forget_domain(struct domain *d);
/* A password of o was revoked or o is going: the bindings validated through it end, with their permits. */
void pdx_object_changed(struct ot_obj *o);
/* Once per tick: the permits of d's direct workers whose bindings have expired end. */
void pdx_tick(struct domain *d);
/* A confined t's redirected IPC meant for a direct worker: its call is ended; false if not meant for one. */
bool pdx_redirected(struct mthread *t, L4_ThreadId_t intended);
/* The password of the PDX capability in d's APD listing entry: MUNGI_EOK or an error. */
int pdx_entry_password(struct domain *d, u64 entry, u64 *pw);
/* Invoke object o's user-level pager for page va (t waits for it); false if there is none usable. */
bool pager_invoke(struct ot_obj *o, u64 va, u32 access);
void upcall_start(struct mthread *t, int slot, u64 handler, u64 base, u32 need);
void upcall_result(struct mthread *t0);
long apd_make(struct domain *d, u64 table, u64 n);
const struct apd_entry *apd_spec(struct domain *d, u64 handle, unsigned *n, u64 *key);

/* --- faults (fault.c) --- */
void page_fault(struct mthread *t, u64 addr, u64 rip, u32 rwx);
void fault_retry(struct mthread *t);
void wake_page_waiters(u64 va);
void fault_forget(struct mthread *t);
void exception(struct mthread *t);
void vm_requests(struct mthread *t, u64 label);

/* --- object requests, semaphores, accounts (obj.c, sem.c, bank.c) --- */
void obj_requests(struct mthread *t, u64 label);
void sem_requests(struct mthread *t, u64 label);
void sem_drop_range(u64 base, u64 end);
void sem_forget(struct mthread *t);
void bank_requests(struct mthread *t, u64 label);
/* Can an object of npages be charged to the account (base, pw)?  MUNGI_EOK or an error. */
int bank_may_charge(u64 base, u64 pw);
void bank_charge(struct ot_obj *o, long sign);

/* --- the user image and the first task (image.c) --- */
/* The boot modules; the server's command line after its name into args. */
void boot_args(char *args, u64 size);
void image_load(const char *args);

#endif
