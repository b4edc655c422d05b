// SPDX-License-Identifier: MIT
// ExchangeRegisters (abi.md §5.6): read and change a thread of the caller's space or one it pages.
#include "ipc.h"
#include "sched.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/utcb.h>

static word_t old_control(const struct tcb *t)
{
	bool locked = t->state == TS_LOCKED;        /* in a string transfer */
	return (t->exregs_stopped ? 1 : 0) |
	       (t->state == TS_RECV_BLOCKED || (locked && !t->xfer_copying) ? 2 : 0) |
	       (t->state == TS_SEND_BLOCKED || (locked && t->xfer_copying) ? 4 : 0);
}

void exregs_set_halt(struct tcb *t, bool halt)
{
	if (halt == t->exregs_stopped)
		return;
	t->exregs_stopped = halt;
	if (t->stopped == (halt || t->quantum_stopped))
		return;
	t->stopped = halt || t->quantum_stopped;
	if (halt && t != current)
		sched_dequeue(t);
	else if (!halt && t != current && sched_runnable(t))
		sched_enqueue(t);
}

static void apply(struct tcb *t, struct trapframe *tf, word_t control, struct trapframe *uf)
{
	if (control & (L4_EXREG_ABORT_SEND | L4_EXREG_ABORT_RECV))
		ipc_abort(t, control & L4_EXREG_ABORT_SEND, control & L4_EXREG_ABORT_RECV);
	if (control & L4_EXREG_SET_SP)
		frame_set_sp(uf, exregs_sp(tf));
	if (control & L4_EXREG_SET_IP)
		frame_set_ip(uf, exregs_ip(tf));
	if (control & L4_EXREG_SET_FLAGS)
		frame_set_user_flags(uf, exregs_flags(tf));
	if (control & (L4_EXREG_SET_IP | L4_EXREG_SET_FLAGS))
		arch_frame_state_set(uf);   /* a `syscall` frame's RCX and R11 stay the thread's */
	if (control & L4_EXREG_SET_HANDLE)
		utcb_set(t, UTCB_USER_HANDLE, exregs_handle(tf));
	if (control & L4_EXREG_SET_PAGER) {
		t->pager = exregs_pager(tf);
		utcb_set(t, UTCB_PAGER, t->pager);
	}
	if (control & L4_EXREG_HALT_VALID)
		exregs_set_halt(t, control & L4_EXREG_HALT);
}

/*
 * May current change t?  A thread of its own space, or one whose pager is
 * a thread of current's space (as Pistachio's "pagerexregs": a pager can
 * abort its clients' IPC, which l4test's pagers do).
 */
static bool may_exchange(const struct tcb *t)
{
	if (t->space == current->space)
		return true;
	const struct tcb *p = tcb_lookup(utcb_get(t, UTCB_PAGER));
	return p && !p->is_irq && p->space == current->space;
}

void sys_exchange_registers(struct trapframe *tf)
{
	word_t dest = exregs_dest(tf), control = exregs_control(tf);
	struct tcb *t = tcb_resolve(current, dest);
	if (!t || t->is_irq || t->state == TS_INACTIVE || !t->utcb_k || !may_exchange(t)) {
		utcb_set(current, UTCB_ERROR_CODE, L4_ERR_INVALID_THREAD);
		exregs_set_result(tf, L4_NILTHREAD);
		return;
	}
	if ((control & L4_EXREG_SET_IP) && !arch_user_ip_valid(exregs_ip(tf))) {
		utcb_set(current, UTCB_ERROR_CODE, L4_ERR_INVALID_PARAM);   /* no CPU returns there */
		exregs_set_result(tf, L4_NILTHREAD);
		return;
	}
	smp_park(t);                        /* running elsewhere: its frame is saved now */
	struct trapframe *uf = t == current ? tf : arch_user_frame(t);
	word_t old_sp = frame_sp(uf), old_ip = frame_ip(uf), old_flags = frame_flags(uf);
	word_t old_pager = utcb_get(t, UTCB_PAGER), old_handle = utcb_get(t, UTCB_USER_HANDLE);
	word_t old = old_control(t);
	apply(t, tf, control, uf);
	exregs_set_result(tf, l4_is_local_id(dest) ? t->id : t->utcb);
	exregs_set_old(tf, old, old_sp, old_ip, old_flags, old_handle, old_pager);
	if (!sched_runnable(current) || sched_highest_prio() > current->prio)
		sched_schedule();
}
