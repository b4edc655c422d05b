// SPDX-License-Identifier: MIT
// Builds the KIP: fields, system-call pointers (from the one table), descriptors.
#include "kip.h"
#include "config.h"
#include "types.h"
#include <arch.h>
#include <l4/syscalls.h>
#include <l4/thread.h>
#include <l4/utcb.h>

static word_t kip[512] __attribute__((aligned(4096), section(".data.pagealigned"))) = {
	[0] = KIP_MAGIC,
};
static int nmemdesc;

static void set(int off, word_t v) { kip[off / 8] = v; }
paddr_t kip_phys(void) { return kernel_virt_to_phys(kip); }

static void kernel_descriptor(void)
{
	static const char version[] = "Pecan L4 X.2 microkernel for x86-64\0";
	word_t *d = &kip[KIP_KERNEL_DESC_OFF / 8];
	d[0] = KIP_KERNEL_ID;
	d[1] = (26 << 9) | (11 << 5) | 21;   /* build date 2026-11-21 */
	d[2] = 0x00010000;                   /* version 0.1.0 */
	d[3] = 'P' | 'C' << 8 | 'A' << 16 | (word_t)'N' << 24;
	char *s = (char *)&d[4];
	for (unsigned i = 0; i < sizeof(version); i++)   /* string, then an empty feature list */
		s[i] = version[i];
}

void kip_init(void)
{
	set(KIP_OFF_API_VERSION, KIP_API_VERSION);
	set(KIP_OFF_API_FLAGS, KIP_API_FLAGS);
	set(KIP_OFF_KERNEL_DESC, KIP_KERNEL_DESC_OFF);
	set(KIP_OFF_UTCB_INFO, (12UL << 16) | (10UL << 10) | 1);        /* m = 1, a = 10, s = 12 */
	set(KIP_OFF_KIP_AREA_INFO, 12);
	set(KIP_OFF_PROC_DESC, KIP_PROC_DESC_OFF);
	set(KIP_OFF_THREAD_INFO, ((word_t)L4_USER_BASE << 20) | (L4_SYSTEM_BASE << 8) | L4_THREAD_BITS);
	set(KIP_OFF_PAGE_INFO, KIP_PAGE_INFO);
	set(KIP_OFF_PROC_INFO, 5UL << 60);                               /* one CPU, 32-byte descriptors */
	set(KIP_OFF_MEMORY_INFO, (word_t)KIP_MEM_DESC_OFF << 32);
#define X(nr, name, off) set(off, USTUB_ENTRY(nr));
	L4_SYSCALL_TABLE(X)
#undef X
	kernel_descriptor();
}

static unsigned nproc = 1;

/*
 * n processors (ProcessorInfo holds n - 1).  One keeps its descriptor at
 * KIP_PROC_DESC_OFF, as Pistachio's; several need more room than lies
 * there, so theirs end the page (abi.md: ProcDescPtr is KIP-relative).
 */
void kip_set_processors(unsigned n)
{
	_Static_assert(KIP_PROC_DESC_SMP_OFF + CONFIG_MAX_CPUS * 32 <= 4096, "processor descriptors fit");
	nproc = n;
	set(KIP_OFF_PROC_DESC, n == 1 ? KIP_PROC_DESC_OFF : KIP_PROC_DESC_SMP_OFF);
	set(KIP_OFF_PROC_INFO, 5UL << 60 | (n - 1));
}

/* Every processor runs at the boot CPU's calibrated rate (QEMU gives them one clock). */
void kip_set_clock(word_t cpu_khz, word_t tick_us)
{
	word_t *d = &kip[kip[KIP_OFF_PROC_DESC / 8] / 8];
	for (unsigned i = 0; i < nproc; i++, d += 4) {
		d[0] = 1193;                               /* external: the PIT's 1.193 MHz */
		d[1] = cpu_khz;                            /* internal: the calibrated TSC */
	}
	set(KIP_OFF_CLOCK_INFO, (tick_us << 16) | 1);      /* schedule / read precision, µs */
}

void kip_set_server(int off, word_t ip, word_t sp, word_t low, word_t high)
{
	set(off, sp);
	set(off + 8, ip);
	set(off + 16, low);
	set(off + 24, high);
}

static int nreserved;     /* the last nreserved descriptors are Reserved (the kernel's) */

/*
 * Where descriptors overlap the later one counts (X.2), and sigma0s read
 * them so.  A boot-loader range (the multiboot information's bounding box)
 * may span the kernel image, so Reserved descriptors are kept last:
 * anything added later goes in before them.
 */
bool kip_add_memdesc(unsigned type, unsigned subtype, bool virt, u64 low, u64 high)
{
	if (nmemdesc == KIP_MEM_DESC_MAX || high <= low)
		return false;
	word_t *base = &kip[KIP_MEM_DESC_OFF / 8];
	int at = type == MEMDESC_RESERVED ? nmemdesc : nmemdesc - nreserved;
	for (int i = nmemdesc; i > at; i--) {
		base[2 * i] = base[2 * i - 2];
		base[2 * i + 1] = base[2 * i - 1];
	}
	base[2 * at] = (low & ~0x3ffUL) | (virt ? 1UL << 9 : 0) | (subtype & 0xf) << 4 | (type & 0xf);
	base[2 * at + 1] = (high - 1) & ~0x3ffUL;
	nmemdesc++;
	if (type == MEMDESC_RESERVED)
		nreserved++;
	set(KIP_OFF_MEMORY_INFO, (word_t)KIP_MEM_DESC_OFF << 32 | nmemdesc);
	return true;
}

void kip_set_boot_info(word_t addr)
{
	set(KIP_OFF_BOOT_INFO, addr);
}

void kip_set_kmem(word_t size)
{
	set(KIP_OFF_KMEM_SIZE, size);
}

word_t *kip_kmem_free_word(void)
{
	return &kip[KIP_OFF_KMEM_FREE / 8];
}
