// SPDX-License-Identifier: MIT
// __l4_init reads the system-call pointers from the KIP once, as Pistachio's crt0 does.
#include "l4.h"
#include <l4/syscalls.h>

L4_Word_t __L4_Ipc, __L4_Lipc, __L4_Unmap, __L4_ExchangeRegisters, __L4_SystemClock,
	__L4_ThreadSwitch, __L4_Schedule, __L4_SpaceControl, __L4_ThreadControl,
	__L4_ProcessorControl, __L4_MemoryControl;
void *__L4_KIP;

void __l4_init(void)
{
	__L4_KIP = L4_KernelInterface(0, 0, 0);
	const L4_Word_t *kip = __L4_KIP;
	__L4_SpaceControl = kip[0x1A0 / 8];
	__L4_ThreadControl = kip[0x1A8 / 8];
	__L4_ProcessorControl = kip[0x1B0 / 8];
	__L4_MemoryControl = kip[0x1B8 / 8];
	__L4_Ipc = kip[0x1C0 / 8];
	__L4_Lipc = kip[0x1C8 / 8];
	__L4_Unmap = kip[0x1D0 / 8];
	__L4_ExchangeRegisters = kip[0x1D8 / 8];
	__L4_SystemClock = kip[0x1E0 / 8];
	__L4_ThreadSwitch = kip[0x1E8 / 8];
	__L4_Schedule = kip[0x1F0 / 8];
}

void __l4_exit(int status)
{
	(void)status;
	L4_KDB_Enter("main() returned");
	for (;;)
		__asm__ __volatile__("ud2");   /* no exit protocol yet: the kernel halts us */
}
