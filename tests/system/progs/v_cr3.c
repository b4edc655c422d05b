// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("write CR3") { __asm__ __volatile__("mov %0, %%cr3" : : "r"(0UL)); }
