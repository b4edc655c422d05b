// SPDX-License-Identifier: MIT
// The one dispatch point for system calls, the small calls, and the foreign-`syscall` rule.
#include "exception.h"
#include "ipc.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "space.h"
#include "mapping.h"
#include "timer.h"
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/thread.h>
#include <l4/syscalls.h>
#include <l4/utcb.h>

typedef void (*syscall_fn)(struct trapframe *tf);

/* Report a failed non-IPC system call the L4 way: result 0, code in ErrorCode. */
static void sys_error(struct trapframe *tf, word_t code)
{
	utcb_set(current, UTCB_ERROR_CODE, code);
	sys_set_result(tf, 0);
}

/* ThreadSwitch(dest): nil yields to equals; otherwise donate the CPU to dest. */
static void sys_thread_switch(struct trapframe *tf)
{
	if (tswitch_dest(tf) == L4_NILTHREAD) {
		sched_yield();
		return;
	}
	struct tcb *t = tcb_resolve(current, tswitch_dest(tf));
	if (t)
		sched_donate(t);
}

static void sys_system_clock(struct trapframe *tf)
{
	sys_set_result(tf, timer_now());
}

/* A time period (timeout encoding m * 2^e µs) for a number of µs, rounded down. */
static word_t period_encode(word_t us)
{
	word_t e = 0;
	while ((us >> e) > 0x3ff)
		e++;
	return us ? (e << 10) | (us >> e) : 0;
}

static word_t sched_state(const struct tcb *t)
{
	switch (t->state) {
	case TS_READY: return L4_SCHED_RUNNING;
	case TS_SEND_BLOCKED: return L4_SCHED_PENDING_SEND;
	case TS_RECV_BLOCKED: return L4_SCHED_WAITING;
	case TS_LOCKED: return t->xfer_copying ? L4_SCHED_SENDING : L4_SCHED_RECEIVING;
	default: return L4_SCHED_INACTIVE;
	}
}

/* Schedule(dest, prio, time, processor, preemption): only dest's scheduler may call it. */
static void sys_schedule(struct trapframe *tf)
{
	struct tcb *t = tcb_resolve(current, sched_dest(tf));
	word_t prio = sched_prio_ctl(tf), time = sched_time_ctl(tf), cpu = sched_cpu_ctl(tf);
	if (!t || (!thread_is_user(t) && !t->is_irq))
		return sys_error(tf, L4_ERR_INVALID_THREAD);
	if (t->scheduler != current->id)
		return sys_error(tf, L4_ERR_NO_PRIVILEGE);
	if ((prio != ~0UL && (prio & 0xff) > current->prio) || (cpu != ~0UL && (cpu & 0xffff) >= cpu_count))
		return sys_error(tf, L4_ERR_INVALID_PARAM);
	word_t old_time = period_encode(t->timeslice) << 16 | period_encode(t->quantum);
	if (time != ~0UL) {
		if ((time >> 16 & 0xffff) != 0xffff)
			t->timeslice = t->slice_left = timeout_deadline(time >> 16 & 0xffff, 0);
		if ((time & 0xffff) != 0xffff)
			sched_set_quantum(t, timeout_deadline(time & 0xffff, 0));
	}
	sched_set_old_time(tf, old_time);
	sys_set_result(tf, sched_state(t));
	if (prio != ~0UL)
		sched_set_prio(t, prio & 0xff);
	if (cpu != ~0UL && !t->is_irq)
		sched_migrate(t, cpu & 0xffff);   /* last: it may switch away from current */
}

static void sys_processor_control(struct trapframe *tf)
{
	if (!current->space->privileged)
		return sys_error(tf, L4_ERR_NO_PRIVILEGE);
	if (pctl_cpu(tf) >= cpu_count)
		return sys_error(tf, L4_ERR_INVALID_PARAM);
	sys_set_result(tf, 1);       /* a processor online; nothing to tune under emulation */
}

/*
 * MemoryControl: only default attributes exist.  Attributes 1 and 2 arrive
 * in the frame; 0 and 3 (in registers the system-call instruction itself
 * overwrites) were parked in the UTCB by the stub.
 */
static void sys_memory_control(struct trapframe *tf)
{
	bool ok = current->space->privileged;
	word_t err = ok ? L4_ERR_INVALID_PARAM : L4_ERR_NO_PRIVILEGE;
	if (ok && utcb_get(current, USTUB_MEMCTL_ATTR0) == 0 && memctl_attr1(tf) == 0 && memctl_attr2(tf) == 0 &&
	    utcb_get(current, USTUB_MEMCTL_ATTR3) == 0)
		err = 0;
	if (err)
		utcb_set(current, UTCB_ERROR_CODE, err);
	memctl_set_result(tf, !err);
}

static const syscall_fn syscall_table[USTUB_SLOTS] = {
	[SYSNR_IPC] = sys_ipc,
	[SYSNR_UNMAP] = sys_unmap,
	[SYSNR_EXCHANGE_REGS] = sys_exchange_registers,
	[SYSNR_SYSTEM_CLOCK] = sys_system_clock,
	[SYSNR_THREAD_SWITCH] = sys_thread_switch,
	[SYSNR_SCHEDULE] = sys_schedule,
	[SYSNR_SPACE_CONTROL] = sys_space_control,
	[SYSNR_THREAD_CONTROL] = sys_thread_control,
	[SYSNR_PROCESSOR_CONTROL] = sys_processor_control,
	[SYSNR_MEMORY_CONTROL] = sys_memory_control,
};

/*
 * A `syscall` from outside the stub page follows some other ABI (Linux's,
 * for the Linux personality).  It goes to the thread's exception handler as
 * an exception message with vector PECAN_VEC_SYSCALL; without a handler it
 * fails with -ENOSYS as its result and L4_ERR_NO_SYSCALL in ErrorCode.  A handler
 * that fails the exchange (garbage reply, deleted) halts the thread.
 */
static struct trapframe *foreign_syscall(struct trapframe *tf)
{
	exception_fastpath(tf, PECAN_VEC_SYSCALL, 0);      /* returns only if it cannot */
	return foreign_syscall_slow(tf);
}

struct trapframe *foreign_syscall_slow(struct trapframe *tf)
{
	enum exc_result r = exception_ipc(tf, PECAN_VEC_SYSCALL, 0);
	if (r == EXC_HANDLED)
		return tf;
	if (r == EXC_FAILED)
		thread_halt_current("foreign syscall: its exception IPC failed", tf, 0);
	utcb_set(current, UTCB_ERROR_CODE, L4_ERR_NO_SYSCALL);
	foreign_set_result(tf, (word_t)PECAN_FOREIGN_NOSYS);
	return tf;
}

/* Returns the frame to return through (the exception fastpath leaves from within). */
struct trapframe *syscall_dispatch(struct trapframe *tf)
{
	smp_enter();
	word_t off = frame_ip(tf) - USTUB_BASE;      /* the return address into the stub page */
	if (off >= USTUB_SLOTS * USTUB_SLOT)
		return foreign_syscall(tf);
	syscall_fn fn = syscall_table[off / USTUB_SLOT];
	if (fn)
		fn(tf);
	else
		sys_error(tf, L4_ERR_NO_SYSCALL);
	return tf;
}
