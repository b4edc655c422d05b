/* SPDX-License-Identifier: MIT */
/*
 * Interrupts as IPC (abi.md §5.7, §7.5).  Line n is the thread (n,1); a
 * privileged ThreadControl(irq, irq, nil, handler, -1) associates it with a
 * handler thread.  When the line fires the kernel masks it and sends the
 * handler an IPC from (n,1) with label -1<<4; the handler's reply (any send
 * to (n,1)) unmasks it.
 */
#ifndef PECAN_IRQ_H
#define PECAN_IRQ_H

#include "thread.h"

void irq_init(void);
/* Line irq fired (interrupt context). */
void irq_raise(unsigned irq);
/* ThreadControl on an interrupt thread: associate (or, handler == irq, release). */
void irq_control(struct trapframe *tf, word_t irq_id, word_t handler);
/* `from` sends to interrupt thread t: the acknowledgement; 0 or an IPC error code. */
word_t irq_ack(struct tcb *t, struct tcb *from);
/* The handler took t's pending interrupt message from its send queue. */
void irq_taken(struct tcb *t);
/* Can a device still wake the system (some line has a handler)? */
bool irq_any_handled(void);
/* Handler h disappears: release every line it handles. */
void irq_forget_handler(struct tcb *h);

#endif
