// SPDX-License-Identifier: MIT
// Boot: console, CPU, memory plan, KIP, the two root servers, then the scheduler.
#include "boot.h"
#include "elf.h"
#include "frame.h"
#include "kip.h"
#include "mapping.h"
#include "irq.h"
#include "printk.h"
#include "sched.h"
#include "space.h"
#include "smp.h"
#include "config.h"
#include "../lib/c/string.h"
#include <l4/utcb.h>
#include <arch.h>
#include <l4/thread.h>

#define KMEM_ALIGN (2UL << 20)

extern char _load_start[], _bss_end_phys[];

static struct boot_info bi;
static struct mem_map usable;    /* free RAM not yet claimed by anyone */

#define boot_fail(...) halt_system(HALT_BAD_BOOT, "boot failed: " __VA_ARGS__)

static bool cmdline_has(const char *cmd, const char *opt)
{
	for (; *cmd; cmd++) {
		int i = 0;
		while (opt[i] && cmd[i] == opt[i])
			i++;
		if (!opt[i] && (cmd[i] == ' ' || cmd[i] == '\0'))
			return true;
	}
	return false;
}

static void claim(u64 base, u64 end, const char *what)
{
	if (!pmem_remove(&usable, ALIGN_DOWN(base, PAGE_SIZE), ALIGN_UP(end, PAGE_SIZE)))
		boot_fail("memory map too fragmented while reserving %s", what);
}

/* What no one else may have: low memory, the kernel image, the boot information. */
static void plan_memory(void)
{
	if (!pmem_usable(&bi.fw, &usable))
		boot_fail("memory map has too many entries");
	claim(0, 1UL << 20, "low memory");
	claim((u64)_load_start, (u64)_bss_end_phys, "the kernel image");
	claim(bi.info_start, bi.info_end, "the boot information");
}

static void check_module(int i, const char *role, struct elf_image *img)
{
	const struct boot_module *m = &bi.mods[i];
	const char *err = elf_check(phys_to_virt(m->start), m->end - m->start, USER_TOP, img);
	if (err)
		boot_fail("module %d (%s, \"%s\"): %s", i, role, m->cmdline, err);
	if (img->high > ROOT_UTCB_AREA && img->low < ROOT_KIP_AREA + PAGE_SIZE)
		boot_fail("module %d (%s): image overlaps the UTCB/KIP area %lx-%lx", i, role,
			  ROOT_UTCB_AREA, ROOT_KIP_AREA + PAGE_SIZE);
}

static struct mem_map images;   /* the frames the root servers' segments load into */

/*
 * Claim the physical frames the image's segments load into, page rounded.
 * Modules are not claimed yet: one that lies there is moved (place_modules).
 */
static void claim_segments(int i, const char *role, const struct elf_image *img)
{
	struct mem_map need = { 0 };
	for (int s = 0; s < img->nsegs; s++) {
		const struct elf_segment *sg = &img->segs[s];
		pmem_add(&need, ALIGN_DOWN(sg->paddr, PAGE_SIZE), ALIGN_UP(sg->paddr + sg->memsz, PAGE_SIZE), MEM_RAM);
	}
	pmem_normalize(&need);
	struct mem_map ram;
	pmem_usable(&bi.fw, &ram);     /* succeeded once in plan_memory */
	const struct boot_module *m = &bi.mods[i];
	for (int r = 0; r < need.n; r++) {
		u64 base = need.r[r].base, end = need.r[r].end;
		if (pmem_contains(&usable, base, end)) {
			claim(base, end, role);
			if (!pmem_add(&images, base, end, MEM_RAM))
				boot_fail("module %d (%s): too many segment ranges", i, role);
			continue;
		}
		if (!pmem_contains(&ram, base, end))
			boot_fail("module %d (%s, \"%s\"): segment at physical %lx-%lx lies %s RAM "
				  "(RAM ends at %lx; link the program lower or give the machine more)",
				  i, role, m->cmdline, base, end,
				  end > pmem_top(&ram) ? "beyond" : "outside", pmem_top(&ram));
		boot_fail("module %d (%s, \"%s\"): segment at physical %lx-%lx is not free RAM "
			  "(overlaps low memory, the kernel, the boot information or the other "
			  "root server's segments)",
			  i, role, m->cmdline, base, end);
	}
}

#define MODULE_LIMIT (1UL << 32)   /* Multiboot's module fields are 32 bits */

static u64 module_base(int i) { return ALIGN_DOWN(bi.mods[i].start, PAGE_SIZE); }
static u64 module_top(int i) { return ALIGN_UP(bi.mods[i].end, PAGE_SIZE); }

/*
 * Move module i out of the root servers' way: to the lowest free RAM that
 * holds it, which may overlap its own old place (memmove) but no other
 * module, and tell the root task through the boot information.  The loader
 * puts modules right after the kernel, so big ones reach the addresses the
 * servers are linked for (abi.md §8 wants them loaded there).
 */
static void move_module(int i, u64 mbi)
{
	struct boot_module *m = &bi.mods[i];
	struct mem_map room = usable;
	for (int j = 0; j < bi.nmods; j++)
		if (j != i && !pmem_remove(&room, module_base(j), module_top(j)))
			boot_fail("memory map too fragmented while moving module %d", i);
	u64 at, len = m->end - m->start;
	if (!pmem_find_low(&room, module_top(i) - module_base(i), PAGE_SIZE, MODULE_LIMIT, &at))
		boot_fail("module %d (\"%s\"): lies where the root servers load, and no free RAM "
			  "below 4 GiB holds its %lu KiB (give the machine more RAM)",
			  i, m->cmdline, len >> 10);
	u64 start = at + (m->start - module_base(i));
	if (!multiboot_move_module(mbi, PHYS_MAP_BASE, i, start, start + len))
		boot_fail("module %d: cannot record its new place %lx", i, start);
	memmove(phys_to_virt(start), phys_to_virt(m->start), len);
	printk("pecan: module %d moved from %lx-%lx to %lx-%lx, out of the root servers' way\n",
	       i, m->start, m->end, start, start + len);
	m->start = start;
	m->end = start + len;
}

/* Move the modules that lie where the root servers load, then claim every module. */
static void place_modules(u64 mbi)
{
	for (int i = 0; i < bi.nmods; i++)
		if (pmem_overlaps(&images, module_base(i), module_top(i)))
			move_module(i, mbi);
	for (int i = 0; i < bi.nmods; i++)
		claim(bi.mods[i].start, bi.mods[i].end, "a boot module");
}

/*
 * Map segment k's pages as root mappings of the mapping database (the
 * kernel gave these frames to the root server), read-write-execute whatever
 * the segment says, as Pistachio's sigma0 maps a root task's image: programs
 * written for it write to their own text (l4test's pager touches every page
 * it maps with `*p = *p`).  A page an earlier segment shares is already there.
 */
static void map_segment(int i, const struct elf_image *img, int k, struct space *s)
{
	const struct elf_segment *sg = &img->segs[k];
	for (u64 va = ALIGN_DOWN(sg->vaddr, PAGE_SIZE); va < sg->vaddr + sg->memsz; va += PAGE_SIZE) {
		paddr_t pa = ALIGN_DOWN(sg->paddr, PAGE_SIZE) + (va - ALIGN_DOWN(sg->vaddr, PAGE_SIZE));
		paddr_t old;
		unsigned have;
		if (arch_lookup(s->root, va, &old, &have))
			continue;
		if (!mapping_insert_root(s, va, pa, MAP_R | MAP_W | MAP_X))
			boot_fail("out of kernel memory mapping module %d", i);
	}
}

/* Zero every segment's pages first, then copy: segments may share a page. */
static void load_segments(int i, const struct elf_image *img, struct space *s)
{
	const u8 *file = phys_to_virt(bi.mods[i].start);
	for (int k = 0; k < img->nsegs; k++) {
		const struct elf_segment *sg = &img->segs[k];
		u8 *dst = phys_to_virt(ALIGN_DOWN(sg->paddr, PAGE_SIZE));
		for (u64 b = 0; b < ALIGN_UP(sg->paddr + sg->memsz, PAGE_SIZE) - ALIGN_DOWN(sg->paddr, PAGE_SIZE); b++)
			dst[b] = 0;
	}
	for (int k = 0; k < img->nsegs; k++) {
		const struct elf_segment *sg = &img->segs[k];
		u8 *dst = phys_to_virt(sg->paddr);
		for (u64 b = 0; b < sg->filesz; b++)
			dst[b] = file[sg->offset + b];
	}
	for (int k = 0; k < img->nsegs; k++)
		map_segment(i, img, k, s);
}

/*
 * Root servers: privileged spaces with the KIP and UTCB areas of abi.md §8,
 * the serial ports as I/O fpages (Pistachio's programs print through COM1),
 * the highest priority, and the given pager and scheduler.
 */
static struct tcb *start_server(int i, const char *role, word_t no, const struct elf_image *img,
				word_t pager, word_t scheduler)
{
	struct space *s = space_create(true);
	if (!s || !space_configure(s, ROOT_KIP_AREA, ROOT_UTCB_AREA, 1UL << ROOT_UTCB_AREA_LOG2))
		boot_fail("out of kernel memory creating the %s space", role);
	s->privileged = true;
	for (unsigned p = 0; p < 8; p++)      /* the serial ports: COM1 and COM2 */
		if (!mapping_insert_io_root(s, 0x3f8 + p) || !mapping_insert_io_root(s, 0x2f8 + p))
			boot_fail("out of kernel memory mapping the serial ports");
	s->sigma0 = no == L4_USER_BASE;
	load_segments(i, img, s);
	for (int k = 0; k < img->nsegs; k++)      /* abi.md §4: t = 2, an init server's memory */
		kip_add_memdesc(MEMDESC_BOOTLOADER, 2, false, ALIGN_DOWN(img->segs[k].paddr, PAGE_SIZE),
				ALIGN_UP(img->segs[k].paddr + img->segs[k].memsz, PAGE_SIZE));
	/* abi.md §8: the stack pointer starts at 0; crt0 sets up its own stack */
	struct tcb *t = thread_create(l4_global_id(no, 1), s, ROOT_UTCB_AREA, img->entry, 0, role);
	if (!t)
		boot_fail("out of kernel memory creating the %s thread", role);
	t->pager = pager;
	utcb_set(t, UTCB_PAGER, pager);
	t->scheduler = scheduler;
	t->prio = CONFIG_ROOT_PRIO;
	t->state = TS_READY;
	sched_enqueue(t);
	return t;
}

static u64 kmem_size;   /* the kernel pool's size, chosen from the RAM (setup_kernel_memory) */

static void describe_memory(u64 kmem)
{
	for (int i = 0; i < bi.fw.n; i++) {
		const struct mem_range *r = &bi.fw.r[i];
		if (r->type == MEM_RAM)
			kip_add_memdesc(MEMDESC_CONVENTIONAL, 0, false, r->base, r->end);
		else
			kip_add_memdesc(MEMDESC_ARCH, 2, false, r->base, r->end);
	}
	kip_add_memdesc(MEMDESC_RESERVED, 0, false, (u64)_load_start, ALIGN_UP((u64)_bss_end_phys, PAGE_SIZE));
	kip_add_memdesc(MEMDESC_RESERVED, 0, false, kmem, kmem + kmem_size);
	kip_add_memdesc(MEMDESC_BOOTLOADER, 1, false, ALIGN_DOWN(bi.info_start, PAGE_SIZE), ALIGN_UP(bi.info_end, PAGE_SIZE));
	for (int i = 0; i < bi.nmods; i++)
		kip_add_memdesc(MEMDESC_BOOTLOADER, 3, false, ALIGN_DOWN(bi.mods[i].start, PAGE_SIZE),
				ALIGN_UP(bi.mods[i].end, PAGE_SIZE));
}

/*
 * The pool's size: a share of the RAM for threads, spaces and their page
 * tables, plus the mapping cost of every RAM page (a root pager such as lx
 * maps all of it from sigma0 at start), within the configured bounds, in
 * 2 MiB steps.
 */
static u64 kmem_wanted(void)
{
	u64 ram = 0;
	for (int i = 0; i < bi.fw.n; i++)
		if (bi.fw.r[i].type == MEM_RAM)
			ram += bi.fw.r[i].end - bi.fw.r[i].base;
	u64 size = (ram >> CONFIG_KMEM_RAM_SHIFT) + (ram >> 12) * CONFIG_KMEM_MAP_PER_PAGE;
	if (size < CONFIG_KMEM_MIN)
		size = CONFIG_KMEM_MIN;
	if (size > CONFIG_KMEM_MAX)
		size = CONFIG_KMEM_MAX;
	return ALIGN_UP(size, KMEM_ALIGN);      /* firmware holes must not cost a step */
}

/* The largest pool up to the wanted size that free RAM can hold, halving on failure. */
static u64 setup_kernel_memory(void)
{
	u64 kmem = 0;
	for (kmem_size = kmem_wanted(); kmem_size >= KMEM_ALIGN; kmem_size /= 2)
		if (pmem_find_top(&usable, kmem_size, KMEM_ALIGN, ~0UL, &kmem))
			break;
	if (kmem_size < KMEM_ALIGN)
		boot_fail("not enough RAM for the kernel pool (%lu KiB)", KMEM_ALIGN >> 10);
	claim(kmem, kmem + kmem_size, "the kernel pool");
	kmem_init(kmem, kmem_size);
	thread_table_init();
	return kmem;
}

/* The mapping database; sigma0 may have all physical memory but the kernel's own. */
static void start_mapping(u64 kmem)
{
	struct mapping_policy p = { .nreserved = 2, .phys_limit = 0 };
	p.reserved[0] = (struct phys_range){ ALIGN_DOWN((u64)_load_start, PAGE_SIZE),
					     ALIGN_UP((u64)_bss_end_phys, PAGE_SIZE) };
	p.reserved[1] = (struct phys_range){ kmem, kmem + kmem_size };
	for (int i = 0; i < bi.fw.n; i++)
		if (bi.fw.r[i].end > p.phys_limit)
			p.phys_limit = bi.fw.r[i].end;
	if (!mapping_init(&p))
		boot_fail("the kernel pool cannot hold the mapping database's index");
}

static void selftests(void)
{
	if (cmdline_has(bi.cmdline, "pecan.selftest=kfault")) {
		printk("pecan: selftest: touching an unmapped kernel address\n");
		(void)*(volatile u64 *)0xffffc00000000000UL;
	}
	if (cmdline_has(bi.cmdline, "pecan.selftest=badrip")) {
		/* no path builds such a frame: this checks that the exits refuse it anyway */
		printk("pecan: selftest: sigma0 starts at an invalid IP\n");
		frame_set_ip(arch_user_frame(tcb_by_number(L4_USER_BASE)), ARCH_INVALID_USER_IP);
	}
}

void kmain(u32 mbi)
{
	arch_console_init();
	printk("\nPecan microkernel (L4 X.2, x86-64) booting\n");
	arch_cpu_init();
	arch_paging_init();
	const char *err = multiboot_parse(mbi, PHYS_MAP_BASE, &bi);
	if (err)
		boot_fail("%s", err);
	plan_memory();
	if (bi.nmods < 2)
		boot_fail("need the sigma0 and root-task modules, got %d module(s)", bi.nmods);
	struct elf_image s0, root;
	check_module(0, "sigma0", &s0);
	check_module(1, "root", &root);
	claim_segments(0, "sigma0", &s0);
	claim_segments(1, "root", &root);
	place_modules(mbi);
	u64 kmem = setup_kernel_memory();
	start_mapping(kmem);
	kip_init();
	irq_init();
	describe_memory(kmem);
	kip_set_server(KIP_OFF_SIGMA0, s0.entry, 0, s0.low, s0.high);
	kip_set_server(KIP_OFF_ROOT, root.entry, 0, root.low, root.high);
	kip_set_boot_info(mbi);
	word_t sigma0_id = l4_global_id(L4_USER_BASE, 1), root_id = l4_global_id(L4_USER_BASE + 2, 1);
	start_server(0, "sigma0", L4_USER_BASE, &s0, L4_NILTHREAD, root_id);
	start_server(1, "root", L4_USER_BASE + 2, &root, sigma0_id, root_id);
	arch_timer_init(CONFIG_TICK_US);
	smp_init(CONFIG_TICK_US);
	kip_set_clock(arch_tsc_per_us() * 1000, CONFIG_TICK_US);
	printk("pecan: %d module(s), kernel pool %lu KiB at %lx; starting sigma0 and the root task\n",
	       bi.nmods, kmem_size >> 10, kmem);
	selftests();
	sched_deadlock_poweroff = cmdline_has(bi.cmdline, "pecan.deadlock=poweroff");
	sched_start();
}
