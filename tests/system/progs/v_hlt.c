// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("execute hlt") { __asm__ __volatile__("hlt"); }
