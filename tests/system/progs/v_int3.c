// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("execute a bare int3 that is no KDB request") { __asm__ __volatile__("int3; nop; nop; nop"); }
