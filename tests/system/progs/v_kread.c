// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("read kernel memory") { (void)*(volatile L4_Word_t *)0xffffffff80100000UL; }
