/* SPDX-License-Identifier: MIT */
/*
 * Register views of the trap frame, as NOVA's Sys_regs: which register
 * carries each argument and result of each system call (abi.md §2), the
 * message registers MR0-7, the exception message (abi.md §7.4), and a user
 * frame's instruction pointer, stack pointer and flags.  Generic code names
 * the value (ipc_to(tf), exregs_sp(tf)), never the register; another
 * architecture provides the same functions over its own frame.  arch.h
 * includes this after struct trapframe.
 */
#ifndef ARCH_SYSREGS_H
#define ARCH_SYSREGS_H

#include <l4/ipc.h>

/* --- any user frame --- */

static inline word_t frame_ip(const struct trapframe *tf) { return tf->rip; }
static inline void frame_set_ip(struct trapframe *tf, word_t ip) { tf->rip = ip; }
static inline word_t frame_sp(const struct trapframe *tf) { return tf->rsp; }
static inline void frame_set_sp(struct trapframe *tf, word_t sp) { tf->rsp = sp; }
static inline word_t frame_flags(const struct trapframe *tf) { return tf->rflags; }
/* The exception (VEC_*) or entry the frame records, and the exception's error code. */
static inline word_t frame_vector(const struct trapframe *tf) { return tf->vector; }
static inline word_t frame_error(const struct trapframe *tf) { return tf->error; }
/* Only the flags user code may set (abi.md §5.6) take f's values. */
static inline void frame_set_user_flags(struct trapframe *tf, word_t f)
{
	tf->rflags = (tf->rflags & ~L4_USER_FLAGS_MASK) | (f & L4_USER_FLAGS_MASK);
}

/* The result word of ThreadControl, SpaceControl, Schedule, SystemClock, ProcessorControl. */
static inline void sys_set_result(struct trapframe *tf, word_t v) { tf->rax = v; }
/* Ipc, Unmap and MemoryControl hand the UTCB pointer back. */
static inline void sys_set_utcb(struct trapframe *tf, word_t utcb) { tf->rdi = utcb; }

/* --- Ipc, Lipc --- */

static inline word_t ipc_to(const struct trapframe *tf) { return tf->rsi; }
static inline word_t ipc_from_spec(const struct trapframe *tf) { return tf->rdx; }
static inline word_t ipc_timeouts(const struct trapframe *tf) { return tf->r8; }
static inline word_t ipc_tag(const struct trapframe *tf) { return tf->r9; }     /* MR0 */
static inline word_t ipc_mr1(const struct trapframe *tf) { return tf->rax; }
static inline word_t ipc_mr3(const struct trapframe *tf) { return tf->r10; }
static inline void ipc_set_from(struct trapframe *tf, word_t from) { tf->rsi = from; }
/* The arguments the fastpath took in registers, for the slowpath. */
static inline void ipc_set_args(struct trapframe *tf, word_t to, word_t from, word_t timeouts,
				word_t tag)
{
	tf->rsi = to;
	tf->rdx = from;
	tf->r8 = timeouts;
	tf->r9 = tag;
}

/* MR0..MR7 travel in these frame registers for Ipc and Unmap (abi.md §0.4). */
static inline void frame_to_mrs(const struct trapframe *tf, word_t *mr)
{
	mr[0] = tf->r9;  mr[1] = tf->rax; mr[2] = tf->rbx; mr[3] = tf->r10;
	mr[4] = tf->r12; mr[5] = tf->r13; mr[6] = tf->r14; mr[7] = tf->r15;
}

static inline void mrs_to_frame(const word_t *mr, struct trapframe *tf)
{
	tf->r9 = mr[0];  tf->rax = mr[1]; tf->rbx = mr[2]; tf->r10 = mr[3];
	tf->r12 = mr[4]; tf->r13 = mr[5]; tf->r14 = mr[6]; tf->r15 = mr[7];
}

/* The first n of MR0..MR7 between frame and UTCB (n >= 1). */
static inline void frame_to_mrs_n(const struct trapframe *tf, word_t *mr, word_t n)
{
	switch (n) {
	default: mr[7] = tf->r15;   /* fall through */
	case 7: mr[6] = tf->r14;    /* fall through */
	case 6: mr[5] = tf->r13;    /* fall through */
	case 5: mr[4] = tf->r12;    /* fall through */
	case 4: mr[3] = tf->r10;    /* fall through */
	case 3: mr[2] = tf->rbx;    /* fall through */
	case 2: mr[1] = tf->rax;    /* fall through */
	case 1: mr[0] = tf->r9;
	}
}

static inline void mrs_to_frame_n(const word_t *mr, struct trapframe *tf, word_t n)
{
	switch (n) {
	default: tf->r15 = mr[7];   /* fall through */
	case 7: tf->r14 = mr[6];    /* fall through */
	case 6: tf->r13 = mr[5];    /* fall through */
	case 5: tf->r12 = mr[4];    /* fall through */
	case 4: tf->r10 = mr[3];    /* fall through */
	case 3: tf->rbx = mr[2];    /* fall through */
	case 2: tf->rax = mr[1];    /* fall through */
	case 1: tf->r9 = mr[0];
	}
}

/* --- Unmap --- */

static inline word_t unmap_control(const struct trapframe *tf) { return tf->rdx; }

/* --- ExchangeRegisters --- */

static inline word_t exregs_dest(const struct trapframe *tf) { return tf->rax; }
static inline word_t exregs_control(const struct trapframe *tf) { return tf->rsi; }
static inline word_t exregs_sp(const struct trapframe *tf) { return tf->rdx; }
static inline word_t exregs_ip(const struct trapframe *tf) { return tf->r8; }
static inline word_t exregs_flags(const struct trapframe *tf) { return tf->r9; }
static inline word_t exregs_handle(const struct trapframe *tf) { return tf->r10; }
static inline word_t exregs_pager(const struct trapframe *tf) { return tf->rdi; }
static inline void exregs_set_result(struct trapframe *tf, word_t id) { tf->rax = id; }
/* The old state the call returns besides the ID. */
static inline void exregs_set_old(struct trapframe *tf, word_t control, word_t sp, word_t ip,
				  word_t flags, word_t handle, word_t pager)
{
	tf->rsi = control;
	tf->rdx = sp;
	tf->r8 = ip;
	tf->r9 = flags;
	tf->r10 = handle;
	tf->rdi = pager;
}

/* --- ThreadControl: not in argument order (abi.md, Part II) --- */

static inline word_t tc_dest(const struct trapframe *tf) { return tf->rdi; }
static inline word_t tc_pager(const struct trapframe *tf) { return tf->rsi; }
static inline word_t tc_scheduler(const struct trapframe *tf) { return tf->rdx; }
static inline word_t tc_space(const struct trapframe *tf) { return tf->r8; }
static inline word_t tc_utcb(const struct trapframe *tf) { return tf->r9; }

/* --- SpaceControl --- */

static inline word_t sc_space(const struct trapframe *tf) { return tf->rdi; }
static inline word_t sc_control(const struct trapframe *tf) { return tf->rsi; }
static inline word_t sc_kip_area(const struct trapframe *tf) { return tf->rdx; }
static inline word_t sc_utcb_area(const struct trapframe *tf) { return tf->r8; }
static inline word_t sc_redirector(const struct trapframe *tf) { return tf->r9; }
static inline void sc_set_old_control(struct trapframe *tf, word_t c) { tf->rdx = c; }

/* --- Schedule, ThreadSwitch, ProcessorControl, MemoryControl --- */

static inline word_t sched_dest(const struct trapframe *tf) { return tf->rdi; }
static inline word_t sched_prio_ctl(const struct trapframe *tf) { return tf->rsi; }
static inline word_t sched_time_ctl(const struct trapframe *tf) { return tf->rdx; }
static inline word_t sched_cpu_ctl(const struct trapframe *tf) { return tf->r8; }
static inline void sched_set_old_time(struct trapframe *tf, word_t t) { tf->rdx = t; }
static inline word_t tswitch_dest(const struct trapframe *tf) { return tf->rdi; }
static inline word_t pctl_cpu(const struct trapframe *tf) { return tf->rdi; }
/* Attributes 1 and 2; 0 and 3 the stub parks in the UTCB (abi.md, Part II). */
static inline word_t memctl_attr1(const struct trapframe *tf) { return tf->rsi; }
static inline word_t memctl_attr2(const struct trapframe *tf) { return tf->r8; }
static inline void memctl_set_result(struct trapframe *tf, word_t v) { tf->rdx = v; }

/* --- KernelInterface, the kernel debugger, foreign system calls --- */

/* Its results, and the IP moved past the instruction; nothing else changes. */
static inline void kif_set_result(struct trapframe *tf, word_t kip, word_t version, word_t flags,
				  word_t id)
{
	tf->rax = kip;
	tf->rcx = version;
	tf->rdx = flags;
	tf->rsi = id;
	tf->rip += 2;
}

/* abi.md §9: the argument and result of a kernel-debugger op; the second result (op 0xF6). */
static inline word_t kdb_arg(const struct trapframe *tf) { return tf->rax; }
static inline void kdb_set_result(struct trapframe *tf, word_t v) { tf->rax = v; }
static inline word_t *kdb_result2(struct trapframe *tf) { return &tf->rdx; }
/* After the trap: the marker `cmpb $op, %al` (3C op), which executes harmlessly on return. */
#define ARCH_KDB_MARKER_LEN 2
static inline bool kdb_marker(const u8 *b, u8 *op)
{
	*op = b[1];
	return b[0] == 0x3C;
}
/* L4_KDB_Enter: after the trap `jmp rel8; mov $imm32, %rax` with imm32 the message's address. */
#define ARCH_KDB_ENTER_LEN 9
static inline bool kdb_enter_message(const u8 *b, word_t *msg)
{
	if (b[0] != 0xEB || b[2] != 0x48 || b[3] != 0xC7 || b[4] != 0xC0)
		return false;
	*msg = (word_t)(i64)(int)(b[5] | b[6] << 8 | b[7] << 16 | (u32)b[8] << 24);
	return true;
}

/* A foreign system call's result (Linux's ABI: the same register as ours). */
static inline void foreign_set_result(struct trapframe *tf, word_t v) { tf->rax = v; }

/* --- the exception message (abi.md §7.4) --- */

/* Registers in exception-message order: MR1..MR17, then the flags in MR18. */
#define EXC_REGS(X) X(1, rip) X(2, rbx) X(3, r10) X(4, r12) X(5, r13) X(6, r14) \
	X(7, r15) X(8, rax) X(9, rcx) X(10, rdx) X(11, rsi) X(12, rdi) X(13, rbp) \
	X(14, r8) X(15, r9) X(16, r11) X(17, rsp)

/*
 * MR1..MR18 of the exception message: the registers and the flags.  The
 * frame holds the registers of MR2..MR16 in their order (entry.S,
 * SAVE_GPRS), so they are one copy of 15 words.
 */
#define EXC_FRAME_AT(i, r) \
	_Static_assert((i) < 2 || (i) > 16 || offsetof(struct trapframe, r) == ((i) - 2) * 8, "frame order");
EXC_REGS(EXC_FRAME_AT)
#undef EXC_FRAME_AT
/* MR1, MR17 and MR18 of the exception message, the words the CPU saved (entry.S's fast entries write the rest). */
static inline void exc_cpu_regs_to_mrs(const struct trapframe *tf, word_t *mr)
{
	mr[1] = tf->rip;
	mr[17] = tf->rsp;
	mr[18] = tf->rflags;
}

static inline void exc_regs_to_mrs(const struct trapframe *tf, word_t *mr)
{
	arch_copy_words(mr + 2, &tf->rbx, 15);
	exc_cpu_regs_to_mrs(tf, mr);
}

/*
 * The frame's general registers from MR2..MR16 (the fast entries, trap_exc
 * and foreign_entry, write them there instead of the frame; a thread
 * waiting for its exception handler's reply has them there).
 */
static inline void exc_mrs_to_gprs(struct trapframe *tf, const word_t *mr)
{
	arch_copy_words(&tf->rbx, mr + 2, 15);
}

/* A handler's reply MR1..MR18 become the registers, flags only the user's. */
static inline void exc_mrs_to_regs(struct trapframe *tf, const word_t *mr)
{
#define IN(i, r) tf->r = mr[i];
	EXC_REGS(IN)
#undef IN
	frame_set_user_flags(tf, mr[18]);
	arch_frame_state_set(tf);
}

/*
 * The exception fastpath's reply: the words of the faulter's frame that its
 * exit (entry.S, exc_reply_exit, always iretq) takes from there: RIP (MR1,
 * from the replier's frame, checked), RSP (MR17) and the user's flags of
 * MR18, and R10 (MR3, which C copies there from the replier's frame,
 * exc_fast_reply_mr3).  The exit loads RAX..R11 from the replier's
 * MR8..MR16 (EXC_REGS' order, which exc_reply_exit_order pins); MR2 and
 * MR4..MR7 pass in place (entry.S hands the registers that carry them
 * over, and the exception message puts those very registers there).
 */
static inline void exc_fast_reply_frame(struct trapframe *df, word_t ip, const word_t *mr)
{
	df->rip = ip;
	df->rsp = mr[17];
	frame_set_user_flags(df, mr[18]);
}
/* MR3 (R10), which the replier's Ipc entry put in its own frame, into the faulter's frame df. */
static inline void exc_fast_reply_mr3(struct trapframe *df, word_t mr3) { df->r10 = mr3; }
#define EXC_MR_OF(i, r) EXC_MR_##r = i,
enum exc_reply_exit_order { EXC_REGS(EXC_MR_OF) };
#undef EXC_MR_OF
_Static_assert(EXC_MR_rax == 8 && EXC_MR_rcx == 9 && EXC_MR_rdx == 10 && EXC_MR_rsi == 11 &&
	       EXC_MR_rdi == 12 && EXC_MR_rbp == 13 && EXC_MR_r8 == 14 && EXC_MR_r9 == 15 &&
	       EXC_MR_r11 == 16 && EXC_MR_rsp == 17 && EXC_MR_r10 == 3, "entry.S's exc_reply_exit");

#endif
