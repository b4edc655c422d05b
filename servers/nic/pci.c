// SPDX-License-Identifier: MIT
// PCI enumeration at user level: configuration mechanism #1 through ports
// 0xCF8 (address) and 0xCFC (data), which the caller got as I/O fpages.
#include "nic.h"
#include "../../lib/c/portio.h"

#define PCI_ADDR 0xcf8
#define PCI_DATA 0xcfc

uint32_t pci_read(struct pci_dev d, unsigned off)
{
	outl(PCI_ADDR, 0x80000000u | d.bus << 16 | d.dev << 11 | d.fn << 8 | (off & 0xfc));
	return inl(PCI_DATA);
}

void pci_write(struct pci_dev d, unsigned off, uint32_t v)
{
	outl(PCI_ADDR, 0x80000000u | d.bus << 16 | d.dev << 11 | d.fn << 8 | (off & 0xfc));
	outl(PCI_DATA, v);
}

/* Functions 1-7 exist only on multi-function devices (header type bit 7). */
static int functions(struct pci_dev d)
{
	return (pci_read(d, 0x0c) >> 16) & 0x80 ? 8 : 1;
}

int pci_find(uint16_t vendor, uint16_t device, struct pci_dev *out)
{
	for (unsigned bus = 0; bus < 256; bus++)
		for (unsigned dev = 0; dev < 32; dev++) {
			struct pci_dev d = { (uint8_t)bus, (uint8_t)dev, 0 };
			if ((pci_read(d, 0) & 0xffff) == 0xffff)
				continue;                  /* nothing there */
			for (int fn = 0, n = functions(d); fn < n; fn++) {
				d.fn = (uint8_t)fn;
				uint32_t id = pci_read(d, 0);
				if ((id & 0xffff) == vendor && id >> 16 == device) {
					*out = d;
					return 1;
				}
			}
		}
	return 0;
}
