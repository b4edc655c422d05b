/* SPDX-License-Identifier: MIT */
/*
 * UTCB layout relative to the UTCB pointer P (= %gs:0 = the thread's local ID
 * = the address of MR0).  A UTCB is 1 KiB; P = UtcbLocation + UTCB_P_OFFSET.
 */
#ifndef L4_UTCB_H
#define L4_UTCB_H

#define UTCB_SIZE            1024
#define UTCB_P_OFFSET        0x200
#define UTCB_MR(i)           (8 * (i))
#define UTCB_WORD_SIZE_MASK  (-0x08)
#define UTCB_THREAD_WORD0    (-0x20)
#define UTCB_THREAD_WORD1    (-0x28)
#define UTCB_VIRTUAL_SENDER  (-0x30)
#define UTCB_INTENDED_RECV   (-0x38)
#define UTCB_XFER_TIMEOUTS   (-0x40)
#define UTCB_ERROR_CODE      (-0x48)
#define UTCB_PREEMPT_FLAGS   (-0x50)
#define UTCB_COP_FLAGS       (-0x4F)
#define UTCB_EXC_HANDLER     (-0x58)
#define UTCB_PAGER           (-0x60)
#define UTCB_USER_HANDLE     (-0x68)
#define UTCB_PROCESSOR_NO    (-0x70)
#define UTCB_MY_GLOBAL_ID    (-0x78)
#define UTCB_BR(i)           (-0x80 - 8 * (i))

#define L4_NUM_MRS 64
#define L4_NUM_BRS 33

#endif
