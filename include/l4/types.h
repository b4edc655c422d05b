/* SPDX-License-Identifier: MIT */
/* Basic word types of the L4 X.2 amd64 ABI, shared by the kernel and user code. */
#ifndef L4_TYPES_H
#define L4_TYPES_H

#ifndef __ASSEMBLER__
typedef unsigned long L4_Word_t;
typedef unsigned long L4_Word64_t;
typedef unsigned int L4_Word32_t;
typedef unsigned short L4_Word16_t;
typedef unsigned char L4_Word8_t;
typedef long L4_SignedWord_t;
typedef int L4_Bool_t;
#endif

#endif
