// SPDX-License-Identifier: MIT
// The IPC fastpaths of the processors other than the boot CPU: ipc_fast.c
// again, its functions named *_ap, with this CPU's TSS and %gs page found
// through the big kernel lock holder's globals (see the top of ipc_fast.c).
#define IPC_FAST_AP 1
#include "ipc_fast.c"
