// SPDX-License-Identifier: MIT
// Starting the NIC driver in a space of its own (lib/task): the root task
// does the PCI enumeration, takes the device's ports, its interrupt and DMA
// memory whose physical address sigma0's reply tells, and the driver's space
// gets the ports (by I/O page faults) and the DMA memory (shared) from it.
#include "nic.h"
#include "../../lib/nic/client.h"
#include "../../lib/task/task.h"

#define STACK 8192
#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_NET_LEGACY 0x1000          /* transitional virtio-net: legacy I/O BAR0 */
#define DMA_LOG2 19                       /* 512 KiB: two rings of 256 and 64 buffers each */
#define DMA_VA 0x280000000000UL           /* where the driver sees it (clear of the boot information) */

static char stack[STACK] __attribute__((aligned(16)));

static int ports(L4_Word_t first, L4_Word_t log2)
{
	return pecan_sigma0_request(L4_IO_FPAGE(first, log2, 7), L4_IO_FPAGE(first, log2, 0)) != 0;
}

/* Any free block of conventional memory; the fpage in sigma0's reply is its physical address. */
static int dma_memory(void)
{
	L4_Word_t got = pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, DMA_LOG2, 7),
					     L4_FPAGE_MAKE(DMA_VA, DMA_LOG2, 0));
	if (!got || L4_FPAGE_LOG2(got) != DMA_LOG2)
		return 0;
	nic_hw.dma_va = (char *)DMA_VA;
	nic_hw.dma_pa = got & ~0x3ffUL;
	nic_hw.dma_size = 1UL << DMA_LOG2;
	return 1;
}

/* The device's I/O BAR (log2 of its size from the all-ones probe), bus mastering on. */
static int claim(struct pci_dev d)
{
	uint32_t bar = pci_read(d, 0x10);
	if (!(bar & 1))
		return 0;                         /* not an I/O BAR: not the legacy interface */
	pci_write(d, 0x10, ~0u);
	uint32_t mask = pci_read(d, 0x10) & ~3u;
	pci_write(d, 0x10, bar);
	unsigned log2 = 0;
	while (log2 < 16 && !(mask & (1u << log2)))
		log2++;
	nic_hw.io = (uint16_t)(bar & ~3u);
	nic_hw.irq = pci_read(d, 0x3c) & 0xff;
	if (nic_hw.irq == 0 || nic_hw.irq >= 16)
		nic_hw.irq = 0;
	pci_write(d, 0x04, pci_read(d, 0x04) | 0x5);    /* I/O space, bus master */
	return ports(nic_hw.io, log2);
}

struct driver_clients nic_clients;

int nic_start(L4_ThreadId_t driver, const struct driver_clients *c)
{
	struct pci_dev d;
	nic_clients = c ? *c : (struct driver_clients){ 0 };
	if (!ports(0xcf8, 3))
		return 0;
	if (pci_find(VIRTIO_VENDOR, VIRTIO_NET_LEGACY, &d) && claim(d) && dma_memory())
		nic_hw.present = 1;
	if ((nic_hw.present && !task_share(DMA_VA, 1UL << DMA_LOG2)) ||
	    !task_start(driver, nic_driver, stack, STACK, 250))
		return 0;
	if (nic_hw.present && nic_hw.irq) {
		L4_ThreadId_t irq = l4_global_id(nic_hw.irq, 1);
		(void)L4_ThreadControl(irq, irq, L4_NILTHREAD, driver, ~0UL);   /* else: polled RECVs */
	}
	pecan_nic = driver;
	return 1;
}
