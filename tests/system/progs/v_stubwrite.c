// SPDX-License-Identifier: MIT
#include "victim.h"
#include <l4/syscalls.h>
VICTIM("write the system-call stub page") { *(volatile L4_Word_t *)USTUB_BASE = 0; }
