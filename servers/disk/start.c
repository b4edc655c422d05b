// SPDX-License-Identifier: MIT
// Starting the disk driver as a thread of any root task.
#include "disk.h"
#include "../drivers/drivers.h"
#include "../../lib/disk/client.h"

#define STACK 8192

static char stack[STACK] __attribute__((aligned(16)));
struct driver_clients disk_clients;

static int ports(L4_Word_t first, L4_Word_t log2)
{
	return pecan_sigma0_request(L4_IO_FPAGE(first, log2, 7), L4_IO_FPAGE(first, log2, 0)) != 0;
}

int disk_start_for(L4_ThreadId_t driver, const struct driver_clients *c)
{
	disk_clients = c ? *c : (struct driver_clients){ 0 };
	if (!ports(0x1f0, 3) || !ports(0x3f6, 0) || !drivers_thread_start(driver, disk_driver, stack, STACK, 250))
		return 0;
	pecan_disk = driver;
	return 1;
}

int disk_start(L4_ThreadId_t driver)
{
	return disk_start_for(driver, 0);
}

int disk_restart(void)
{
	drivers_thread_kill(pecan_disk);
	return drivers_thread_start(pecan_disk, disk_driver, stack, STACK, 250);
}

int disk_supervise(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	return driver_died(from, tag, pecan_disk) ? disk_restart() || 1 : 0;
}
