/* SPDX-License-Identifier: MIT */
/* The user-level NIC driver (include/l4/nic.h for its protocol, docs/net.md). */
#ifndef PECAN_NIC_H
#define PECAN_NIC_H

#include <stdint.h>
#include "../../lib/l4/l4.h"
#include "../drivers/drivers.h"

struct pci_dev {
	uint8_t bus, dev, fn;
};

/* Configuration space (the caller must hold ports 0xCF8-0xCFF). */
uint32_t pci_read(struct pci_dev d, unsigned off);
void pci_write(struct pci_dev d, unsigned off, uint32_t v);
/* The first function with these IDs: 1 and *out, or 0. */
int pci_find(uint16_t vendor, uint16_t device, struct pci_dev *out);

/* What nic_start found and set up for the driver thread. */
struct nic_hw {
	int present;
	uint16_t io;                 /* BAR0: the legacy virtio registers */
	unsigned irq;                /* the interrupt line; 0: none (the driver is polled) */
	char *dma_va;                /* DMA memory: here in our space, dma_pa for the device */
	uint64_t dma_pa, dma_size;
	uint64_t mac;
};
extern struct nic_hw nic_hw;
/* Who may call the driver (set by nic_start): the thread-number ranges the root task named. */
extern struct driver_clients nic_clients;

void nic_driver(void);
/*
 * Find a virtio-net device by PCI enumeration, take its ports, 512 KiB of
 * DMA memory from sigma0 and its interrupt, and start the driver as thread
 * `driver` in a space of its own (lib/task; the caller, the root task, has
 * started the pager with task_pager_start and owns what the driver gets).
 * It serves the threads whose numbers c names (its own space holds only
 * itself), anyone else gets DRIVER_ERR_DENIED.  Returns 0 on failure; no
 * device is not a failure (the driver then answers NIC_ERR_NODEV).
 */
int nic_start(L4_ThreadId_t driver, const struct driver_clients *c);

#endif
