// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("execute int $0x80 (no such gate for user mode)") { __asm__ __volatile__("int $0x80"); }
