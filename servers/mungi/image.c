// SPDX-License-Identifier: MIT
// Boot: the server's command line, the user image (the boot module after
// the server) loaded into objects at its link addresses, the bank, the
// first account, and the first task.
#include "mungi.h"
#include "elfimg.h"
#include "../../lib/c/string.h"
#include "../../lib/fmt/fmt.h"
#include <l4/kip.h>

#define BOOT_WINDOW 0x0000200000000000UL

struct mb_info { uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr; };
struct mb_mod { uint32_t start, end, string, reserved; };

static u64 window = BOOT_WINDOW;
static struct mb_mod mods[8];
static unsigned nmods;

/* Map the physical page holding pa at the next window page; the address of pa there, or NULL. */
static void *map_phys(u64 pa)
{
	u64 va = window;
	if (!pecan_sigma0_request(L4_FPAGE_MAKE(pa & PAGE_MASK, 12, 7), L4_FPAGE_MAKE(va, 12, 0)))
		return NULL;
	window += PAGE;
	return (void *)(va + (pa & ~PAGE_MASK));
}

/* The module list from the boot information; the command line of module 1 (ours) into args. */
void boot_args(char *args, u64 size)
{
	u64 mbi_pa = *(L4_Word_t *)((char *)__L4_KIP + KIP_OFF_BOOT_INFO);
	struct mb_info *mb = map_phys(mbi_pa);
	struct mb_mod *m = mb ? map_phys(mb->mods_addr) : NULL;
	if (!m)
		mungi_panic("mungi: no boot information\n");
	nmods = mb->mods_count < 8 ? mb->mods_count : 8;
	mcopy(mods, m, nmods * sizeof(mods[0]));
	const char *s = nmods > 1 ? map_phys(mods[1].string) : NULL;
	while (s && *s && *s != ' ')
		s++;                    /* the server's own file name */
	while (s && *s == ' ')
		s++;
	snfmt(args, size, "%s", s ? s : "");
}

/* Module i's bytes, mapped contiguously; NULL if it is missing. */
static const unsigned char *module(unsigned i, u64 *len)
{
	if (i >= nmods || mods[i].end <= mods[i].start)
		return NULL;
	u64 first = mods[i].start & PAGE_MASK, base = window;
	for (u64 pa = first; pa < mods[i].end; pa += PAGE)
		if (!map_phys(pa))
			mungi_panic("mungi: cannot map boot module %u\n", i);
	*len = mods[i].end - mods[i].start;
	return (const unsigned char *)base + (mods[i].start & ~PAGE_MASK);
}

/* --- objects of the image and of the system --- */

struct made { u64 base, owner; };

static struct made make(u64 base, u64 npages, u64 flags)
{
	struct mobj *m;
	u64 pw;
	int err = obj_make(base, npages, 0, NULL, &m, &pw);
	if (err)
		mungi_panic("mungi: cannot make a boot object at %lx (%d)\n", base, err);
	m->ot.flags |= flags;
	return (struct made){ m->ot.base, pw };
}

static u64 password(u64 base, u32 rights)
{
	u64 pw = new_password();
	if (ot_pw_add(&ot, ot_lookup(&ot, base), pw, rights, NULL, 0, 0, 0))
		mungi_panic("mungi: cannot register a boot password\n");
	return pw;
}

/* A Clist object holding caps[0..n); its R capability. */
static struct mungi_cap clist(const struct mungi_cap *caps, unsigned n)
{
	struct made c = make(0, 1, OT_BOOT);
	struct mungi_clist h = { MUNGI_CLIST_MAGIC, n, MUNGI_CLIST_CAPACITY(PAGE), 0 };
	vm_write(c.base, &h, sizeof(h));
	vm_write(c.base + sizeof(h), caps, n * sizeof(*caps));
	return (struct mungi_cap){ c.base, password(c.base, MUNGI_R) };
}

/* Each segment an object; its capabilities into the two image Clists. */
static void load_segments(const unsigned char *img, const struct elfimg *e, struct mungi_bootinfo *bi)
{
	struct mungi_cap rw[ELFIMG_MAX], ro[ELFIMG_MAX];
	for (int i = 0; i < e->nsegs; i++) {
		u64 lo = e->seg[i].vaddr & PAGE_MASK, hi = (e->seg[i].vaddr + e->seg[i].memsz + PAGE - 1) & PAGE_MASK;
		if (lo < MUNGI_IMAGE_BASE)
			mungi_panic("mungi: the image's segment at %lx lies below %lx\n", lo, MUNGI_IMAGE_BASE);
		struct made m = make(lo, (hi - lo) / PAGE, OT_FIXED);
		if (!vm_write(e->seg[i].vaddr, img + e->seg[i].offset, e->seg[i].filesz))
			mungi_panic("mungi: no memory for the image\n");
		bool code = e->seg[i].rights & 1, data = e->seg[i].rights & 2;
		rw[i] = (struct mungi_cap){ lo, password(lo, code ? MUNGI_R | MUNGI_X : data ? MUNGI_R | MUNGI_W : MUNGI_R) };
		ro[i] = data && !code ? (struct mungi_cap){ lo, password(lo, MUNGI_R) } : rw[i];
		if (code)
			bi->text_owner = (struct mungi_cap){ lo, m.owner };
		else if (data)
			bi->data_owner = (struct mungi_cap){ lo, m.owner };
	}
	bi->image_rw = clist(rw, (unsigned)e->nsegs);
	bi->image_ro = clist(ro, (unsigned)e->nsegs);
}

static void read_rt(u64 addr)
{
	vm_read(addr, &rt, sizeof(rt));
	if (rt.magic != MUNGI_RT_MAGIC)
		mungi_panic("mungi: the image's runtime table is not one\n");
}

/* The recovered object with all of flags, and its password with exactly rights (made if gone). */
static bool recovered(u64 flags, u32 rights, struct mungi_cap *cap)
{
	struct ot_obj *o = ot_next(&ot, 0);
	while (o && (o->flags & flags) != flags)
		o = ot_next(&ot, o->base + 1);
	if (!o)
		return false;
	struct ot_pw *p = o->pw;
	while (p && p->rights != rights)
		p = p->next;
	*cap = (struct mungi_cap){ o->base, p ? p->password : password(o->base, rights) };
	return true;
}

/* The bank and the first account: those of the last checkpoint, or new ones. */
static void bank_and_account(struct mungi_bootinfo *bi)
{
	if (!recovered(OT_BANK, MUNGI_OWNER, &bi->bank)) {
		struct made bank = make(0, 1, OT_BANK);
		bi->bank = (struct mungi_cap){ bank.base, bank.owner };
	}
	if (!recovered(OT_ACCOUNT | OT_SYSACCT, MUNGI_R | MUNGI_W, &bi->account)) {
		struct made acct = make(0, 1, OT_ACCOUNT | OT_SYSACCT);
		ot_lookup(&ot, acct.base)->balance = 1L << 40;
		bi->account = (struct mungi_cap){ acct.base, password(acct.base, MUNGI_R | MUNGI_W) };
	}
}

/* The bank, the first account, the boot information, and the first task to run main. */
static void first_task(u64 entry, struct mungi_bootinfo *bi, const char *args)
{
	bank_and_account(bi);
	bi->magic = MUNGI_BOOT_MAGIC;
	bi->dt_us = dt;
	snfmt(bi->args, sizeof(bi->args), "%s", args);
	struct made boot = make(0, 1, OT_BOOT);
	vm_write(boot.base, bi, sizeof(*bi));
	struct apd_entry image = { APD_CLIST, bi->image_rw.base, bi->image_rw.password, now };
	struct domain *d = task_create(NULL, &image, 1, 0);
	if (!d)
		mungi_panic("mungi: cannot make the first task\n");
	d->account = bi->account;
	/* its own Clist gets a capability for the boot information */
	struct mungi_clist h;
	vm_read(d->clist_obj, &h, sizeof(h));
	struct mungi_cap cap = { boot.base, password(boot.base, MUNGI_R) };
	vm_write(d->clist_obj + sizeof(h) + h.count * sizeof(cap), &cap, sizeof(cap));
	h.count++;
	vm_write(d->clist_obj, &h, sizeof(h));
	if (!thread_start(d, entry, boot.base, MUNGI_KIND_MAIN))
		mungi_panic("mungi: cannot start the first task\n");
}

void image_load(const char *args)
{
	static struct mungi_bootinfo bi;
	struct elfimg e;
	u64 len;
	const unsigned char *img = module(2, &len);
	if (!img)
		mungi_panic("mungi: no user image (give it as the module after the server)\n");
	const char *err = elfimg_check(img, len, MUNGI_UTCB_AREA, &e);
	if (err)
		mungi_panic("mungi: the user image: %s\n", err);
	load_segments(img, &e, &bi);
	read_rt(e.rt);
	first_task(e.entry, &bi, args);
}
