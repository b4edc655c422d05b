// SPDX-License-Identifier: MIT
// User exceptions.  Without an exception handler (the exception-IPC work adds
// them) a faulting thread is halted with a message; the kernel runs on.
#include "exception.h"
#include "kip.h"
#include "printk.h"
#include "sched.h"
#include "space.h"
#include "ipc.h"
#include "mapping.h"
#include "timer.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/utcb.h>
#include <l4/thread.h>
#include "../lib/fmt/fmt.h"

/* KernelInterface is the 2-byte #UD `F0 90` (lock; nop), read where the CPU fetched it. */
static bool kernel_interface(struct trapframe *tf)
{
	if (!kif_opcode_at(tf))
		return false;
	kif_set_result(tf, current->space->kip_base, KIP_API_VERSION, KIP_API_FLAGS, KIP_KERNEL_ID);
	return true;
}

void thread_halt_current(const char *why, struct trapframe *tf, word_t addr)
{
	struct tcb *t = current;
	printk("pecan: thread %lu.%lu (%s) halted: %s at " ARCH_IP_NAME " %lx", l4_thread_no(t->id),
	       l4_version(t->id), t->name, why, frame_ip(tf));
	if (addr)
		printk(", address %lx", addr);
	printk("\n");
	arch_dump_frame(tf);
	t->state = TS_HALTED;
	sched_swap(NULL);
	panic("halted thread %lu.%lu resumed", l4_thread_no(t->id), l4_version(t->id));
}

/* Words of a thread's state a kernel-generated Call overwrites (abi.md §3, §7.1). */
struct kcall_saved {
	word_t mr[3], br0, error, from;
};

/*
 * A Call the kernel makes on behalf of the current thread: MR0 = label with
 * u = 2, MR1, MR2; the reply comes in through `window`.  The thread's MR0-2,
 * BR0, ErrorCode and From are as before afterwards.  Returns the IPC error.
 */
static word_t kernel_call(word_t dest, word_t label, word_t w1, word_t w2, word_t window)
{
	struct tcb *t = current;
	word_t *mr = utcb_mrs(t);
	struct kcall_saved sv = { { mr[0], mr[1], mr[2] }, utcb_get(t, UTCB_BR(0)),
				  utcb_get(t, UTCB_ERROR_CODE), t->ipc_from };
	mr[0] = L4_TAG_MAKE(label, 2, 0);
	mr[1] = w1;
	mr[2] = w2;
	utcb_set(t, UTCB_BR(0), window);
	t->ipc_kind = IPC_KERNEL;
	ipc_do(t, dest, dest, 0);
	t->ipc_kind = IPC_USER;
	word_t err = t->ipc_error;
	mr[0] = sv.mr[0]; mr[1] = sv.mr[1]; mr[2] = sv.mr[2];
	utcb_set(t, UTCB_BR(0), sv.br0);
	utcb_set(t, UTCB_ERROR_CODE, sv.error);
	t->ipc_from = sv.from;
	return err;
}

/*
 * The thread a kernel-generated Call of t goes to, given the handler its TCR
 * names.  In a strictly confined space (PECAN_SPACE_STRICT) a handler outside the
 * space other than the redirector is replaced by the redirector: the TCRs
 * are user-writable, and a thread that rewrites them must not reach anyone
 * its redirector did not choose (abi.md, Redirection).  0: no handler.
 */
word_t handler_of(struct tcb *t, word_t handler)
{
	word_t r = t->space->redirector;
	if (!handler || !r || handler == r || !t->space->strict)
		return handler;
	struct tcb *h = tcb_resolve(t, handler);
	return h && h->space == t->space ? handler : r;
}

/*
 * A user page fault (or I/O page fault) becomes a Call to the thread's
 * pager: label -2<<4 | rwx (-8<<4 | rwx), MR1 = address (I/O fpage), MR2 =
 * the faulting IP; the pager's map items land through a receive window of the whole
 * space.  Afterwards the instruction is retried.  Returns false if there is
 * no pager.
 */
static bool fault_ipc_at(word_t ip, word_t label, word_t what)
{
	struct tcb *t = current;
	word_t pager = handler_of(t, utcb_get(t, UTCB_PAGER));
	if (!pager || !tcb_resolve(t, pager))
		return false;
	word_t err = kernel_call(pager, label, what, ip, L4_COMPLETE_SPACE);
	return L4_IPC_CODE(err) != L4_IPC_NOPARTNER;
}

static bool fault_ipc(struct trapframe *tf, word_t label, word_t what)
{
	return fault_ipc_at(frame_ip(tf), label, what);
}

/* A string copy faulted in current's memory: MR2 = ~0 says the kernel's copy did. */
word_t pager_fault(word_t addr, unsigned rwx)
{
	struct tcb *t = current;
	word_t pager = handler_of(t, utcb_get(t, UTCB_PAGER));
	if (!pager || !tcb_resolve(t, pager))
		return L4_IPC_NOPARTNER;
	return kernel_call(pager, L4_LABEL_PAGEFAULT | rwx, addr, ~0UL, L4_COMPLETE_SPACE);
}

static bool pagefault_ipc(struct trapframe *tf, word_t addr)
{
	return fault_ipc(tf, L4_LABEL_PAGEFAULT | arch_fault_rwx(tf), addr);
}

/* An `in` or `out` on a port the space does not have: an I/O page fault (abi.md §7.3). */
static bool io_fault_ipc(struct trapframe *tf)
{
	word_t port, log2, rwx;
	if (!arch_io_instruction(tf, &port, &log2, &rwx) || port >= IO_PORTS)
		return false;
	word_t fpage = (port << 16) | (log2 << 10) | (2 << 4) | rwx;
	return fault_ipc(tf, L4_LABEL_IO_PAGEFAULT | rwx, fpage);
}

/* Does a handler's reply (its MR0) set the faulter's TLS base from MR19? */
static bool reply_sets_tls(word_t tag)
{
	return (L4_TAG_LABEL(tag) & PECAN_EXC_REPLY_FSBASE) && L4_TAG_U(tag) >= 19;
}

/* Is mr (MR0..MR19 of a handler's reply) a register state the kernel may install? */
static bool reply_valid(const word_t *mr)
{
	return L4_TAG_T(mr[0]) == 0 && L4_TAG_U(mr[0]) >= 18 && arch_user_ip_valid(mr[1]) &&
	       (!reply_sets_tls(mr[0]) || arch_tls_base_valid(mr[19]));
}

/*
 * The thread's time slice ended and it asked (PreemptFlags bit 5) to tell
 * its scheduler: a Call with label -3<<4, MR1 = the time in µs, MR2 = 0
 * (abi.md §7.5).  The scheduler's reply lets it run on with a fresh slice;
 * if there is no scheduler to ask it simply yields.
 */
void preemption_ipc(struct trapframe *tf)
{
	struct tcb *t = current;
	(void)tf;
	t->preempt_pending = false;
	if (!tcb_resolve(t, t->scheduler)) {
		sched_yield();
		return;
	}
	kernel_call(t->scheduler, L4_LABEL_PREEMPTION, timer_now(), 0, utcb_get(t, UTCB_BR(0)));
}

/*
 * The handler's reply MR1..MR18 become the thread's registers, flags only
 * the user's; MR19 its TLS base if the label asks for it.
 */
static void install_state(struct tcb *t, const word_t *mr)
{
	exc_mrs_to_regs(arch_user_frame(t), mr);
	if (reply_sets_tls(mr[0]))
		arch_set_tls_base(t, mr[19]);
}

/*
 * The handler's reply reaches the faulter, which waits for it: checked and
 * installed from one kernel copy, at once, so nothing that runs later (a
 * thread of the faulter's space rewriting its UTCB) can change what was
 * checked.  The faulter's MRs are not written: they keep the message.
 */
static word_t exception_reply(struct tcb *handler, struct tcb *faulter)
{
	word_t mr[20];
	arch_copy(mr, utcb_mrs(handler), sizeof(mr));
	if (!reply_valid(mr))
		return L4_IPC_OVERFLOW;      /* garbage as a register state: both sides fail */
	install_state(faulter, mr);
	return 0;
}

word_t exception_transfer(struct tcb *snd, struct tcb *rcv)
{
	if (rcv->ipc_kind == IPC_EXCEPTION)
		return exception_reply(snd, rcv);
	word_t err = ipc_transfer(snd, rcv);          /* the message, MR0..MR19 */
	if (!err)
		utcb_mrs(rcv)[EXC_WORDS - 1] = utcb_mrs(snd)[EXC_WORDS - 1];   /* MR20, outside u */
	return err;
}

/*
 * An exception becomes a Call to the thread's exception handler carrying
 * the whole register state (exception_message); the reply becomes the new
 * state when it arrives (exception_transfer).  The faulter's MR0..MR20 hold
 * the message afterwards; its other MRs and BRs are untouched.
 */
enum exc_result exception_ipc(struct trapframe *tf, word_t vector, word_t code)
{
	struct tcb *t = current;
	word_t handler = handler_of(t, utcb_get(t, UTCB_EXC_HANDLER));
	if (!handler || !tcb_resolve(t, handler))
		return EXC_NO_HANDLER;
	exception_message(tf, vector, code, utcb_mrs(t));
	t->ipc_kind = IPC_EXCEPTION;
	ipc_do(t, handler, handler, 0);
	t->ipc_kind = IPC_USER;
	return t->ipc_error ? EXC_FAILED : EXC_HANDLED;
}

void exception_frame_complete(struct trapframe *tf)
{
	exc_mrs_to_gprs(tf, utcb_mrs(current));
}

/*
 * The fastpath's continuation for the faulter (a reply the slowpath
 * installed, or none).  A faulter that entered through trap_exc or
 * foreign_entry waits with its general registers in its MR2..MR16 only
 * (ipc_fast.c, exc_fast): every reply installs all of them, so only a
 * failed IPC completes the frame, for the halted thread (its dump, and
 * ExchangeRegisters, which may restart it).
 */
void exception_resume(struct trapframe *tf)
{
	struct tcb *t = current;
	t->ipc_kind = IPC_USER;
	if (t->ipc_error) {
		exception_frame_complete(tf);
		thread_halt_current("its exception IPC failed", tf, 0);
	}
}

static struct trapframe *exception_user_slow(struct trapframe *tf, word_t fault_addr, bool tried);

/*
 * A user thread's exception: the exception fastpath first where no
 * vector-specific handling comes before it (KernelInterface is checked
 * here), the rest out of line, so the fast way saves no registers.
 */
struct trapframe *exception_user(struct trapframe *tf, word_t fault_addr)
{
	word_t v = frame_vector(tf);
	if (v == VEC_UD && kernel_interface(tf))
		return tf;
	bool fast = v != VEC_PF && v != VEC_GP && v != VEC_BP;
	if (fast)
		exception_fastpath(tf, v, frame_error(tf));     /* returns only if it cannot */
	return exception_user_slow(tf, fault_addr, fast);
}

struct trapframe *exception_user_tried(struct trapframe *tf)
{
	return exception_user_slow(tf, 0, true);
}

/* The rest of exception_user; tried: the exception fastpath has failed already. */
static __attribute__((noinline)) struct trapframe *exception_user_slow(struct trapframe *tf, word_t fault_addr,
									bool tried)
{
	if (frame_vector(tf) == VEC_PF && (mapping_sigma0_fault(current->space, fault_addr) ||
					   pagefault_ipc(tf, fault_addr)))
		return tf;
	if (frame_vector(tf) == VEC_GP && frame_error(tf) == 0 && arch_io_lazy(current))
		return tf;              /* its space's ports were not in force: now they are, again */
	if (frame_vector(tf) == VEC_GP && io_fault_ipc(tf))
		return tf;
	if (frame_vector(tf) == VEC_BP && kdb_trap(tf))
		return tf;
	if (!tried)
		exception_fastpath(tf, frame_vector(tf), frame_error(tf));
	enum exc_result r = exception_ipc(tf, frame_vector(tf), frame_error(tf));
	if (r == EXC_HANDLED)
		return tf;
	char why[96];
	snfmt(why, sizeof(why), "%s (vector %lu, error %lx), %s", arch_vector_name(frame_vector(tf)),
	      frame_vector(tf), frame_error(tf),
	      r == EXC_FAILED ? "its exception IPC failed" : "no exception handler");
	thread_halt_current(why, tf, frame_vector(tf) == VEC_PF ? fault_addr : 0);
	return tf;
}
