/* SPDX-License-Identifier: MIT */
/*
 * The Mungi interface (docs/mungi.md): what the Mungi server and the user
 * library (lib/mungi) share.  A Mungi "system call" is an L4 Call to the
 * server with the request's label in MR0 and its arguments in MR1..MR7; the
 * reply's label is 0 or a MUNGI_E* code and MR1.. carry the results.
 */
#ifndef MUNGI_PROTOCOL_H
#define MUNGI_PROTOCOL_H

/* The magic word of the runtime table every user image carries (struct mungi_rt). */
#define MUNGI_RT_MAGIC 0x54526e754d                 /* "MunRT" */

#ifndef __ASSEMBLER__
#include <l4/types.h>

/* Rights a capability confers (seed 002, "Capabilities"). */
#define MUNGI_R        0x01
#define MUNGI_W        0x02
#define MUNGI_X        0x04
#define MUNGI_D        0x08             /* destroy */
#define MUNGI_PDX      0x10             /* protection domain extension */
#define MUNGI_OWNER    (MUNGI_R | MUNGI_W | MUNGI_X | MUNGI_D)
#define MUNGI_RIGHTS   (MUNGI_OWNER | MUNGI_PDX)

/* A password capability: an object's base address and one of its passwords. */
struct mungi_cap {
	L4_Word_t base;
	L4_Word_t password;
};

/*
 * A Clist is an ordinary object in this format: a header, then `count`
 * capabilities.  The server reads no further than the object's end.
 */
#define MUNGI_CLIST_MAGIC 0x7473696c436e754dUL     /* "MunClist" */
struct mungi_clist {
	L4_Word_t magic;
	L4_Word_t count;
	L4_Word_t capacity;             /* for the library; the server trusts only the object's size */
	L4_Word_t reserved;
	struct mungi_cap cap[];
};
#define MUNGI_CLIST_CAPACITY(bytes) (((bytes) - sizeof(struct mungi_clist)) / sizeof(struct mungi_cap))

/* Requests (MR0 label).  Arguments and results are listed as MR1, MR2, ... */
enum mungi_request {
	MUNGI_NULL = 1,         /* -> nothing: the null system call */
	MUNGI_SELF,             /* -> task id, task Clist base, flags (MUNGI_TASK_*) */
	MUNGI_OBJ_CREATE,       /* pages, account base, account password, flags -> base, owner password */
	MUNGI_OBJ_DELETE,       /* base (D right) */
	MUNGI_OBJ_SURVIVE,      /* base (owner): off the creator's kill list */
	MUNGI_OBJ_INFO,         /* address -> base, pages, rights this domain has */
	MUNGI_CAP_REGISTER,     /* base, password (0: the server picks), rights, Clist base, Clist password,
				   entry table address, entries -> password (owner rights needed) */
	MUNGI_CAP_REVOKE,       /* base, password (owner) */
	MUNGI_APD_ADD,          /* Clist base, password -> slot */
	MUNGI_APD_ADD_HANDLER,  /* handler address -> slot */
	MUNGI_APD_REMOVE,       /* slot */
	MUNGI_APD_LOCK,         /* lock the APD and confine the task */
	MUNGI_APD_MAKE,         /* Clist table address, count -> APD handle for explicit-APD calls */
	MUNGI_TASK_CREATE,      /* function, argument, APD handle (0: inherit), flags -> task id */
	MUNGI_TASK_EXIT,        /* status */
	MUNGI_TASK_WAIT,        /* task id -> status (a task this one created) */
	MUNGI_TASK_KILL,        /* task id (a task this one created) */
	MUNGI_THREAD_CREATE,    /* function, argument -> thread id */
	MUNGI_THREAD_EXIT,
	MUNGI_THREAD_KILL,      /* thread id: another thread of the caller's task */
	MUNGI_PDX_CALL,         /* entry, 6 arguments -> 2 results: extend the caller's domain */
	MUNGI_PDX_EMPTY,        /* entry, 6 arguments -> 2 results: with an empty APD */
	MUNGI_PDX_APD,          /* entry, APD handle, 5 arguments -> 2 results: with that APD */
				/* (each PDX_* reply's MR3: a direct worker the caller thread
				   may call for this entry next time, 0: none; see PDX_DIRECT) */
	MUNGI_SEM_CREATE,       /* address, value (W right on the address) */
	MUNGI_SEM_P,            /* address */
	MUNGI_SEM_V,            /* address */
	MUNGI_SEM_DELETE,       /* address */
	MUNGI_ACCT_CREATE,      /* bank base, bank password, balance -> account base, owner password */
	MUNGI_ACCT_INFO,        /* account base, password (R) -> balance, pages charged to it */
	MUNGI_ACCT_DEPOSIT,     /* bank base, bank password, account base, amount (signed) -> balance */
	MUNGI_OT_ENUM,          /* bank base, bank password, address -> the first object at or above it:
				   base, pages, account base (base 0: none) */
	MUNGI_SET_PAGER,        /* object base, pager entry (a PDX entry; 0: the default pager) */
	MUNGI_VM_MAP,           /* destination page, source page, rights: object-to-object mapping */
	MUNGI_VM_FLUSH,         /* page: make it non-resident (its data goes to the page store) */
	MUNGI_FAULT_INFO,       /* -> address, access (rwx), RIP of this thread's last protection fault */
	MUNGI_STATS,            /* -> counter (MUNGI_STAT_*) values in MR1.. */
	MUNGI_CONFIG,           /* -> dt in microseconds */
	MUNGI_CHECKPOINT,       /* bank base, bank password -> pages written to the page store */
	MUNGI_TEST_CRASH,       /* the server faults through a wild pointer, if booted with test_crash=1
				   (fault-isolation tests); otherwise MUNGI_ENOSYS */
	/* between the server and the runtime in each task; no user code sends these */
	MUNGI_PDX_READY = 0x40, /* a new PDX worker or t0 waits for work */
	MUNGI_PDX_RET,          /* a worker's results: 2 words */
	MUNGI_PDX_ABORT,        /* a worker's call faulted: the caller gets MUNGI_EFAULT */
	MUNGI_UPCALL,           /* server -> t0: handler, object base, rights wanted */
	MUNGI_UPCALL_RESULT,    /* t0 -> server: capability base, password (0: none) */
	/* the PDX direct path: a caller to a direct worker, bypassing the server (docs/mungi.md, "PDX") */
	MUNGI_PDX_DIRECT,       /* entry, 6 arguments -> 2 results; MUNGI_ESTALE: no permit */
};

/* MUNGI_OBJ_CREATE flags */
#define MUNGI_OBJ_SURVIVES  0x1         /* not on the creator's kill list */
/* MUNGI_TASK_CREATE flags, MUNGI_SELF flags */
#define MUNGI_TASK_CONFINED 0x1         /* locked APD; IPC only to the Mungi server */

/* Reply labels. */
enum mungi_error {
	MUNGI_EOK = 0,
	MUNGI_EPERM,            /* no capability with the rights needed */
	MUNGI_EINVAL,           /* a malformed request */
	MUNGI_ENOMEM,           /* no memory or address space left */
	MUNGI_ENOENT,           /* no object (or task, or semaphore) there */
	MUNGI_EFUNDS,           /* the bank account is empty or overdrawn */
	MUNGI_EENTRY,           /* not an entry point of the PDX capability */
	MUNGI_ECLIST,           /* a malformed Clist */
	MUNGI_ELOCKED,          /* the APD is locked */
	MUNGI_EFAULT,           /* the PDX procedure faulted */
	MUNGI_ENOSYS,           /* no such request */
	MUNGI_EEXIST,           /* already there */
	MUNGI_ELOOP,            /* a chain of object mappings too long or circular */
	MUNGI_ECONFINED,        /* IPC from a confined task to anyone but the server */
	MUNGI_ENOSPC,           /* the disk (the page store) is full: the checkpoint failed, the last one stands */
	MUNGI_EIO,              /* the disk failed: the checkpoint failed, the last one stands */
	MUNGI_ESTALE,           /* a direct worker refused a call: no permit (any more); go through the server */
};

/* MUNGI_STATS counters, in MR1.. of the reply. */
enum mungi_stat {
	MUNGI_STAT_FAULTS = 0,          /* page faults served */
	MUNGI_STAT_VALIDATIONS,         /* full validations (validation-cache misses) */
	MUNGI_STAT_PROT_FAULTS,         /* protection faults raised */
	MUNGI_STAT_REFUSED_IPC,         /* redirected IPC from confined tasks, refused */
	MUNGI_STAT_UPCALLS,             /* capability-handler upcalls */
	MUNGI_STAT_PAGER_CALLS,         /* user-level pager invocations */
	MUNGI_STAT_PDX_TASKS,           /* PDX tasks created */
	MUNGI_STAT_BAD_REQUESTS,        /* requests refused as malformed */
	MUNGI_STAT_DISK_POLLS,          /* the disk driver's status polls so far (0: no disk) */
	MUNGI_STAT_DISK_POLL_TICKS,     /* time-stamp ticks it spent polling (waiting for the disk) */
	/* the PDX direct path */
	MUNGI_STAT_PDX_SERVED,          /* PDX calls that went through the server */
	MUNGI_STAT_PDX_PERMITS,         /* permits granted to callers on direct workers */
	MUNGI_NSTATS
};

/* Limits. */
#define MUNGI_MAX_ENTRIES   8           /* entry points of one PDX capability */
#define MUNGI_MAX_APD       16          /* entries of one APD */
#define MUNGI_MAX_THREADS   64          /* threads of one task */
#define MUNGI_STACK_SIZE    (64UL << 10)

/*
 * The runtime table every user image carries in its section .mungi_rt: the
 * entry points the server starts threads at (lib/mungi/rt.S).
 */
struct mungi_rt {
	L4_Word_t magic;
	L4_Word_t thread_entry;         /* every thread: [rsp] = function, argument, kind */
	L4_Word_t fault_entry;          /* a thread redirected by a protection fault */
};
/* What a thread starts as: the third word on its start stack. */
#define MUNGI_KIND_MAIN     0       /* a task's first thread: its return ends the task */
#define MUNGI_KIND_WORKER   1       /* a PDX task's worker */
#define MUNGI_KIND_T0       2       /* a task's upcall thread */
#define MUNGI_KIND_THREAD   3       /* another thread of a task */
#define MUNGI_KIND_DIRECT   4       /* a PDX task's direct worker: its argument is its permit table */

/*
 * A direct worker's permit table (docs/mungi.md, "PDX"): the callers it
 * takes MUNGI_PDX_DIRECT calls from, each for one entry.  The server alone
 * writes it (caller 0: a free slot), at the top of the worker's stack slot,
 * and clears a permit before the revocation, deletion or APD change that
 * ends it is answered.
 */
#define MUNGI_PERMITS 4
struct mungi_permit {
	L4_Word_t caller;               /* the caller's global thread ID, as the kernel reports it */
	L4_Word_t entry;
};

/* What the first task gets: its argument points to this (in an object it can read). */
#define MUNGI_BOOT_MAGIC 0x746f6f426e754dUL         /* "MunBoot" */
struct mungi_bootinfo {
	L4_Word_t magic;
	struct mungi_cap image_rw;      /* a Clist: the image's code (RX) and data (RW) */
	struct mungi_cap image_ro;      /* a Clist: the image's code (RX) and data (R) */
	struct mungi_cap account;       /* an account with funds (RW) */
	struct mungi_cap bank;          /* the bank: creates accounts, reads the object table */
	struct mungi_cap text_owner, data_owner;        /* the image's objects */
	L4_Word_t dt_us;                /* the validation-cache lifetime */
	char args[512];                 /* the server's command line after its name */
};

/* Where things are in every Mungi task's L4 space. */
#define MUNGI_UTCB_AREA     0xBF000000UL
#define MUNGI_UTCB_LOG2     18
#define MUNGI_KIP_AREA      0xBFF00000UL
#define MUNGI_IMAGE_BASE    0x40000000UL        /* the user image is linked here */
#define MUNGI_OBJ_BASE      0x0000000100000000UL        /* objects the server places */
#define MUNGI_OBJ_END       0x00007f0000000000UL

#endif /* __ASSEMBLER__ */
#endif
