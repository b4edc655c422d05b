// SPDX-License-Identifier: MIT
#include "victim.h"
VICTIM("jump to a non-canonical address") { ((void (*)(void))0x8000000000000000UL)(); }
