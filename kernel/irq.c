// SPDX-License-Identifier: MIT
// Interrupt threads: association, delivery as IPC, acknowledgement by reply (irq.h).
#include "irq.h"
#include "ipc.h"
#include "printk.h"
#include "sched.h"
#include "frame.h"
#include "timer.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

/*
 * An interrupt thread is a TCB with no space that never runs.  It is
 * TS_INACTIVE while idle or while its message waits for the handler's reply
 * (irq_delivered), and TS_SEND_BLOCKED in the handler's send queue while
 * the handler is not receiving.  Its message (MR0 only) lives in a kernel
 * page that stands in for a UTCB.
 */
static struct tcb *irqs[ARCH_NUM_IRQS];

static bool kernel_line(unsigned irq)
{
	return irq == ARCH_IRQ_TIMER || irq == ARCH_IRQ_CASCADE;
}

void irq_init(void)
{
	for (unsigned n = 0; n < ARCH_NUM_IRQS; n++) {
		paddr_t mrs = frame_alloc_zeroed(1);
		struct tcb *t = mrs ? thread_create_irq(l4_global_id(n, 1)) : NULL;
		if (!t)
			panic("out of memory creating interrupt thread %u", n);
		t->utcb_k = (u8 *)phys_to_virt(mrs) + UTCB_P_OFFSET;
		utcb_mrs(t)[0] = L4_TAG_MAKE(L4_LABEL_INTERRUPT, 0, 0);
		irqs[n] = t;
	}
}

static struct tcb *handler_of(struct tcb *t)
{
	return t->pager ? tcb_lookup(t->pager) : NULL;
}

/* Hand the interrupt to the handler now if it waits for it, else queue it. */
static void deliver(struct tcb *t, struct tcb *h)
{
	if (h->state == TS_RECV_BLOCKED && (h->partner == t->id || h->partner == L4_ANYTHREAD)) {
		ipc_transfer(t, h);
		h->ipc_from = t->id;
		h->ipc_error = 0;
		timeout_cancel(h);
		h->state = TS_READY;
		t->irq_delivered = true;
		sched_wake(h);
		return;
	}
	ipc_send_pending(t, h);
}

void irq_raise(unsigned irq)
{
	struct tcb *t = irqs[irq];
	if (!arch_irq_ack(irq))
		return;                           /* spurious */
	arch_irq_mask(irq);
	struct tcb *h = handler_of(t);
	if (!h || t->irq_delivered || t->state == TS_SEND_BLOCKED)
		return;                           /* unhandled lines stay masked */
	deliver(t, h);
}

void irq_taken(struct tcb *t)
{
	t->state = TS_INACTIVE;
	t->irq_delivered = true;
}

word_t irq_ack(struct tcb *t, struct tcb *from)
{
	if (handler_of(t) != from)
		return L4_IPC_NOPARTNER;
	if (t->irq_delivered) {
		t->irq_delivered = false;
		arch_irq_unmask(l4_thread_no(t->id));
	}
	return 0;
}

/* Take the line away from its handler: masked, nothing pending. */
static void release(struct tcb *t)
{
	arch_irq_mask(l4_thread_no(t->id));
	if (t->state == TS_SEND_BLOCKED)
		ipc_cancel_pending(t);
	t->state = TS_INACTIVE;
	t->irq_delivered = false;
	t->pager = 0;
	t->scheduler = 0;
}

static void irq_error(struct trapframe *tf, word_t code)
{
	utcb_set(current, UTCB_ERROR_CODE, code);
	sys_set_result(tf, 0);
}

void irq_control(struct trapframe *tf, word_t irq_id, word_t handler)
{
	unsigned n = l4_thread_no(irq_id);
	struct tcb *t = tcb_lookup(irq_id), *h = tcb_resolve(current, handler);
	if (!t || !t->is_irq || kernel_line(n))
		return irq_error(tf, L4_ERR_INVALID_THREAD);
	if (h == t) {
		if (handler_of(t))
			release(t);
		sys_set_result(tf, 1);
		return;
	}
	if (!h || !thread_is_user(h))
		return irq_error(tf, L4_ERR_INVALID_THREAD);
	if (handler_of(t) && handler_of(t) != h)
		return irq_error(tf, L4_ERR_INVALID_PARAM);   /* taken */
	t->pager = t->scheduler = h->id;
	if (!t->irq_delivered && t->state != TS_SEND_BLOCKED)
		arch_irq_unmask(n);
	sys_set_result(tf, 1);
}

void irq_forget_handler(struct tcb *h)
{
	for (unsigned n = 0; n < ARCH_NUM_IRQS; n++)
		if (irqs[n] && irqs[n]->pager == h->id)
			release(irqs[n]);
}

bool irq_any_handled(void)
{
	for (unsigned n = 0; n < ARCH_NUM_IRQS; n++)
		if (irqs[n] && irqs[n]->pager)
			return true;
	return false;
}
