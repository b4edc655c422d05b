/* SPDX-License-Identifier: MIT */
/*
 * IPC encodings of L4 X.2 on amd64 (abi.md §5.2-5.6, §6): message tags,
 * timeouts, typed items, IPC error codes, ExchangeRegisters control bits.
 * Pure definitions, shared by the kernel and the user library.
 */
#ifndef L4_IPC_H
#define L4_IPC_H

#include <l4/types.h>

/* Message tag (MR0): u 0-5, t 6-11, flags 12-15 (p r X E), label 16-63. */
#define L4_TAG_U(tag)         ((tag) & 0x3f)
#define L4_TAG_T(tag)         (((tag) >> 6) & 0x3f)
#define L4_TAG_FLAGS_MASK     0xf000UL
#define L4_TAG_PROPAGATE      0x1000UL
#define L4_TAG_REDIRECTED     0x2000UL
#define L4_TAG_XCPU           0x4000UL
#define L4_TAG_ERROR          0x8000UL
#define L4_TAG_LABEL(tag)     ((tag) >> 16)
#define L4_TAG_MAKE(label, u, t) (((L4_Word_t)(label) << 16) | ((L4_Word_t)(t) << 6) | (u))

/* Kernel-generated labels (the 48-bit label field). */
#define L4_LABEL_PAGEFAULT    ((L4_Word_t)-2 << 4 & 0xffffffffffffUL)
#define L4_LABEL_INTERRUPT    ((L4_Word_t)-1 << 4 & 0xffffffffffffUL)
#define L4_LABEL_PREEMPTION   ((L4_Word_t)-3 << 4 & 0xffffffffffffUL)
#define L4_LABEL_EXCEPTION    ((L4_Word_t)-5 << 4 & 0xffffffffffffUL)
#define L4_LABEL_SIGMA0       ((L4_Word_t)-6 << 4 & 0xffffffffffffUL)
#define L4_LABEL_IO_PAGEFAULT ((L4_Word_t)-8 << 4 & 0xffffffffffffUL)
/* An I/O fpage: ports [base, base + 2^log2), marker 2 in the size field. */
#define L4_IO_FPAGE(base, log2, rights) \
	(((L4_Word_t)(base) << 16) | ((L4_Word_t)(log2) << 10) | (2 << 4) | (rights))

/* 16-bit timeouts; the Timeouts word is snd << 16 | rcv. */
#define L4_TIMEOUT_NEVER      0x0000
#define L4_TIMEOUT_ZERO       0x0400
#define L4_TIMEOUT_POINT_BIT  0x8000
#define L4_TIMEOUTS(snd, rcv) (((L4_Word_t)(snd) << 16) | (rcv))
#define L4_SND_TIMEOUT(w)     (((w) >> 16) & 0xffff)
#define L4_RCV_TIMEOUT(w)     ((w) & 0xffff)

/* IPC ErrorCode: bit 0 phase (1 = receive), bits 1-3 code, bits 4-63 offset. */
#define L4_IPC_PHASE_RECV     1UL
#define L4_IPC_TIMEOUT        (1UL << 1)
#define L4_IPC_NOPARTNER      (2UL << 1)
#define L4_IPC_CANCELED       (3UL << 1)
#define L4_IPC_OVERFLOW       (4UL << 1)
#define L4_IPC_XFER_TO_OWN    (5UL << 1)
#define L4_IPC_XFER_TO_PARTNER (6UL << 1)
#define L4_IPC_ABORTED        (7UL << 1)
#define L4_IPC_CODE(err)      ((err) & 0xe)
#define L4_IPC_OFFSET(err)    ((err) >> 4)

/* Typed items (abi.md §5.3). */
#define L4_ITEM_TYPE(w0)      ((w0) & 0xe)
#define L4_ITEM_MAP           0x8
#define L4_ITEM_GRANT         0xa
#define L4_ITEM_CONT          0x1       /* C: another item follows */
#define L4_STRING_IS(w0)      (((w0) & 0x8) == 0)
#define L4_STRING_J(w0)       (((w0) >> 4) & 0x1f)   /* substrings - 1 */
#define L4_STRING_COMPOUND    0x200     /* c: the next item continues this string */
#define L4_STRING_LEN(w0)     ((w0) >> 10)
#define L4_STRING_MAKE(len, nsub, compound, more) \
	(((L4_Word_t)(len) << 10) | ((compound) ? L4_STRING_COMPOUND : 0) | \
	 ((L4_Word_t)((nsub) - 1) << 4) | ((more) ? L4_ITEM_CONT : 0))
#define L4_ACCEPT_STRINGS     0x1       /* BR0 s bit */

/* Flexpages: rwx 0-2, s 4-9, base >> 10 in 10-63. */
#define L4_FPAGE_RIGHTS(f)    ((f) & 7)
#define L4_FPAGE_LOG2(f)      (((f) >> 4) & 0x3f)
#define L4_FPAGE_BASE(f)      ((f) & ~0x3ffUL & ~((1UL << L4_FPAGE_LOG2(f)) - 1))
#define L4_FPAGE_MAKE(base, log2, rights) \
	(((L4_Word_t)(base) & ~0x3ffUL) | ((L4_Word_t)(log2) << 4) | (rights))
#define L4_COMPLETE_SPACE     0x10UL

/* ExchangeRegisters control bits (abi.md §5.6). */
#define L4_EXREG_HALT         0x001
#define L4_EXREG_ABORT_RECV   0x002
#define L4_EXREG_ABORT_SEND   0x004
#define L4_EXREG_SET_SP       0x008
#define L4_EXREG_SET_IP       0x010
#define L4_EXREG_SET_FLAGS    0x020
#define L4_EXREG_SET_HANDLE   0x040
#define L4_EXREG_SET_PAGER    0x080
#define L4_EXREG_HALT_VALID   0x100
#define L4_EXREG_DELIVER      0x200
/* Flags a user may change through ExchangeRegisters: CF PF AF ZF SF OF. */
#define L4_USER_FLAGS_MASK    0x8d5UL

/* PreemptFlags (UTCB byte -0x50). */
#define L4_PREEMPT_SIGNAL     0x20      /* send a preemption message to the scheduler */
#define L4_PREEMPT_DELAYED    0x40
#define L4_PREEMPT_PENDING    0x80

/* Schedule results (thread states). */
#define L4_SCHED_ERROR        0
#define L4_SCHED_DEAD         1
#define L4_SCHED_INACTIVE     2
#define L4_SCHED_RUNNING      3
#define L4_SCHED_PENDING_SEND 4
#define L4_SCHED_SENDING      5
#define L4_SCHED_WAITING      6
#define L4_SCHED_RECEIVING    7

#endif
