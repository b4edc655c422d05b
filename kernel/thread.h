/* SPDX-License-Identifier: MIT */
/* Threads: identity, state, UTCB, IPC and scheduling state, kernel stack. */
#ifndef PECAN_THREAD_H
#define PECAN_THREAD_H

#include "config.h"
#include "types.h"
#include <arch.h>

enum thread_state {
	TS_INACTIVE,    /* exists, not yet activated (no space configured, pager or UTCB) */
	TS_READY,       /* running or runnable */
	TS_SEND_BLOCKED,/* waiting for its partner to receive */
	TS_RECV_BLOCKED,/* waiting for a message */
	TS_HALTED,      /* stopped by an unhandled exception */
	TS_IDLE,        /* the kernel's idle thread: never queued */
	TS_LOCKED,      /* in a string transfer with xfer_peer, waiting for it (ipc.c) */
};

/* How a thread blocked in a receive continues once the message arrives. */
enum ipc_kind {
	IPC_USER,       /* an Ipc/Lipc system call: return the message to user mode */
	IPC_STARTUP,    /* a new thread waiting for its pager's start message */
	IPC_KERNEL,     /* a kernel-generated IPC whose C continuation is on the stack */
	IPC_EXCEPTION,  /* waiting for the exception handler's reply (validated) */
};

struct space;

struct tcb {
	/* identity */
	word_t id;                  /* global thread ID */
	union {
		struct {
			u8 state;           /* enum thread_state */
			u8 ipc_kind;        /* enum ipc_kind, while blocked in a receive */
			bool stopped;       /* halted by ExchangeRegisters or out of quantum */
			u8 marks;           /* MARK_TIMED, MARK_KNOWN, MARK_HOME */
			bool queued;        /* in the ready queue (sched.c) */
			u8 zero[3];
		};
		u32 fast_key;           /* the first four, for the fastpath's one test */
		u64 sched_key;          /* and queued, which eager queueing changes with them */
	};
	bool is_irq;                /* an interrupt thread (irq.c): no space, never runs */
	bool irq_delivered;         /* its message is with the handler; the line is masked */
	bool preempt_pending;       /* its slice ended and it asked to tell its scheduler */
	bool exregs_stopped;        /* which of the two stopped it */
	bool quantum_stopped;
	struct space *space;
	word_t utcb;                /* user address of the UTCB pointer P (= local ID) */
	u8 *utcb_k;                 /* kernel address of P */
	word_t *utcb_mr8;           /* kernel address of MR8: the fastpath's word copy, one load */
	const char *name;
	word_t scheduler;           /* the thread allowed to call Schedule on this one */
	word_t pager;               /* kept here until the UTCB exists, then in its Pager TCR */
	word_t utcb_loc;            /* requested UTCB location while the space is unconfigured */
	bool utcb_loc_set;

	/* scheduling */
	u8 prio;
	struct tcb *rq_next, *rq_prev;
	word_t timeslice, slice_left;   /* µs */
	word_t quantum;             /* total quantum in µs, 0 = infinite */
	word_t quantum_left;        /* what is left of it; the thread waits for more at 0 */

	/* IPC */
	word_t partner;             /* send: destination; receive: from-specifier */
	word_t recv_spec;           /* while sending: the receive phase that follows (nil: none) */
	word_t rcv_timeout;         /* a Call's receive timeout, started when its send completes */
	word_t ipc_error;           /* result of the last blocked IPC: 0 or an IPC ErrorCode */
	word_t ipc_from;            /* the sender the receive got its message from */
	word_t vsender;             /* this send propagates on behalf of this thread (0: no) */
	word_t intended;            /* this send was redirected away from this thread (0: no) */
	struct tcb *send_to;        /* while TS_SEND_BLOCKED: whose send queue we wait in */
	struct tcb *sendq;          /* threads waiting to send to this one (FIFO ring) */
	struct tcb *sq_next, *sq_prev;
	u64 wake_at;                /* timeout deadline in µs; 0 = none */
	/* a typed transfer in progress (ipc.c): always done by the sender, on its stack */
	struct tcb *xfer_peer;      /* the other side; NULL when none (or it vanished) */
	bool xfer_copying;          /* we are the sender doing the transfer */
	bool xfer_aborted;          /* (sender) an abort or a deletion ended it */
	bool xfer_tunnel;           /* (receiver) fault xfer_addr is ours to have mapped */
	word_t xfer_result;         /* (sender) the IPC error of the receiver's fault IPC */
	word_t xfer_addr;
	unsigned xfer_rwx;
	u64 kcall_deadline;         /* a kernel IPC's deadline (µs) in place of `never`; 0: none */
	struct tcb *local_hint;     /* the thread our last Lipc named, or itself: none (ipc_fast.c) */
	word_t redirector;          /* space->redirector, copied while in its list (space_set_redirector) */
	struct tcb *wq_next, *wq_prev;

	/* several processors (smp.h): the home processor, whose ready queue holds it */
	u8 cpu;
	u8 mig_to;                  /* while in a processor's mailbox: where it goes */
	bool mig_pending;
	struct tcb *mig_next;

	/* bookkeeping: the space's threads, and every live thread (thread.c) */
	struct tcb *space_next, *space_prev;
	word_t live_idx;

	word_t kstack_top;
	struct arch_thread arch;
};

#include <arch_thread.h>

/*
 * marks: MARK_TIMED: a deadline is armed (wake_at != 0; timer.c).
 * MARK_KNOWN: some thread may be waiting in a receive from this one by its
 * ID (set, and never cleared, when a receive names it or it takes part in
 * an IPC): only the deletion of a known thread looks for them (ipc_forget).
 */
#define MARK_TIMED 1
#define MARK_KNOWN 2
/*
 * MARK_HOME(k): the thread's home processor k (bits 3-5; 0 for the boot
 * processor).  Each processor's fastpaths compare the whole fast_key with
 * their own home bits in it (ipc_fast.c: FP_KEY), so they never switch to
 * a thread homed elsewhere.
 */
#define MARK_HOME(k)   ((u8)((k) << 3))
#define MARK_HOME_MASK MARK_HOME(7)
_Static_assert(CONFIG_MAX_CPUS <= 8, "the home processor takes three bits of marks");
void thread_mark_known(word_t id);

/*
 * fast_key of a thread blocked in an Ipc receive of this kind, not stopped,
 * with no deadline, known: the only state a fastpath delivers to (so that a
 * fastpath Call, which makes the caller wait for it, need not mark it).
 */
#define FAST_KEY_WAITING(kind) ((u32)TS_RECV_BLOCKED | (u32)(kind) << 8 | (u32)MARK_KNOWN << 24)

extern struct tcb *tcb_table[];
/* The global ID of each tcb_table entry: a fastpath lookup is one compare (thread.c). */
extern word_t tcb_ids[];
void thread_table_init(void);
/* Every thread in the table, in no order: tcb_live[0 .. tcb_nlive). */
extern struct tcb *tcb_live[];
extern word_t tcb_nlive;

/* The thread with this number, whatever its version, or NULL. */
static inline struct tcb *tcb_by_number(word_t no)
{
	return no < CONFIG_MAX_THREADS ? tcb_table[no] : NULL;
}
/* The thread with exactly this global ID (number and version), or NULL. */
struct tcb *tcb_lookup(word_t gid);
struct tcb *tcb_resolve_local(struct tcb *self, word_t id);
/* Resolve a thread ID as `self` names it: global, or local in self's space. */
static inline struct tcb *tcb_resolve(struct tcb *self, word_t id)
{
	if (!(id & 0x3f) && id)
		return tcb_resolve_local(self, id);
	struct tcb *t = tcb_by_number(id >> 32);
	return t && t->id == id ? t : NULL;
}
/* The ID under which `t` appears to `viewer`: local if both share a space. */
static inline word_t tcb_id_as_seen_by(const struct tcb *t, const struct tcb *viewer)
{
	return t->space == viewer->space ? t->utcb : t->id;
}

/*
 * Create thread gid in space s with its UTCB at utcb_location (1 KiB aligned,
 * inside the space's UTCB area).  Inactive until thread_activate.
 */
struct tcb *thread_create(word_t gid, struct space *s, word_t utcb_location,
			  word_t ip, word_t sp, const char *name);
void thread_destroy(struct tcb *t);
/* Activate the threads of s that now have everything they need. */
void thread_try_activate_space(struct space *s);
void utcb_set(struct tcb *t, int offset, word_t value);
word_t utcb_get(const struct tcb *t, int offset);
static inline word_t *utcb_mrs(struct tcb *t) { return (word_t *)t->utcb_k; }

/* ThreadControl / ExchangeRegisters bodies (thread.c, exregs.c). */
void sys_thread_control(struct trapframe *tf);
void sys_exchange_registers(struct trapframe *tf);
/* Stop or resume t as ExchangeRegisters' H and h bits do (exregs.c). */
void exregs_set_halt(struct tcb *t, bool halt);

static inline bool thread_is_user(const struct tcb *t) { return t->state != TS_IDLE && !t->is_irq; }
/* The interrupt thread gid (number below SystemBase); NULL if out of memory. */
struct tcb *thread_create_irq(word_t gid);

#endif
