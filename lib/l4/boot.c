// SPDX-License-Identifier: MIT
// A root task's own command line: its Multiboot module's string, which the
// boot information (the KIP's BootInfo word) points to.  The pages are
// asked of sigma0 and mapped read-only at BOOT_WINDOW and up.
#include <stddef.h>
#include <stdint.h>
#include "l4.h"
#include "../c/string.h"

#define BOOT_WINDOW 0x0000300000000000UL
#define PAGE        0x1000UL
#define ROOT_MODULE 1                     /* sigma0, the root task, then the rest */

static L4_Word_t window = BOOT_WINDOW;

/* Map the physical page holding pa; a pointer to pa's byte there, or NULL. */
static const char *map_phys(L4_Word_t pa)
{
	L4_Word_t va = window;
	if (!pecan_sigma0_request(L4_FPAGE_MAKE(pa & ~(PAGE - 1), 12, 4), L4_FPAGE_MAKE(va, 12, 0)))
		return NULL;
	window += PAGE;
	return (const char *)va + (pa & (PAGE - 1));
}

/* Copy n bytes at physical pa to dst, or up to a NUL if str; 0 on failure. */
static int copy_phys(L4_Word_t pa, char *dst, L4_Word_t n, int str)
{
	while (n) {
		const char *src = map_phys(pa);
		L4_Word_t chunk = PAGE - (pa & (PAGE - 1));
		if (!src)
			return 0;
		for (L4_Word_t i = 0; i < chunk && n; i++, n--, pa++)
			if ((*dst++ = src[i]) == 0 && str)
				return 1;
	}
	return 1;
}

long pecan_boot_args(char *buf, unsigned long max)
{
	uint32_t mbi[7], mod[4];
	char line[256];
	L4_Word_t mbi_pa = *(const L4_Word_t *)((const char *)__L4_KIP + KIP_OFF_BOOT_INFO);
	if (!max || !copy_phys(mbi_pa, (char *)mbi, sizeof(mbi), 0) || mbi[5] <= ROOT_MODULE ||
	    !copy_phys(mbi[6] + ROOT_MODULE * sizeof(mod), (char *)mod, sizeof(mod), 0) ||
	    !copy_phys(mod[2], line, sizeof(line), 1))
		return -1;
	line[sizeof(line) - 1] = 0;
	const char *p = line;
	while (*p && *p != ' ')
		p++;                      /* the module's path */
	while (*p == ' ')
		p++;
	unsigned long n = strlen(p) < max - 1 ? strlen(p) : max - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return (long)n;
}
