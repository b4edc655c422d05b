// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("write the read-only KIP") { *(volatile L4_Word_t *)((char *)__L4_KIP + 0x100) = 1; }
