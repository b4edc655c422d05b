// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("write the kernel's direct map") { *(volatile L4_Word_t *)0xffff800000100000UL = 1; }
