// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("execute ud2") { __asm__ __volatile__("ud2"); }
