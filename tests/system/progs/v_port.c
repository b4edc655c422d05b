// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("read an I/O port without permission") { __asm__ __volatile__("inb $0x64, %%al" : : : "rax"); }
