// SPDX-License-Identifier: MIT
// The fast library path (docs/lx.md "The fast library path"): a system call
// made through a rewritten site reaches lx as a plain L4 IPC from l4/stub.S's
// lx_fast instead of as a foreign-syscall exception.
//
// A site is rewritten only once a `syscall` has trapped there, in a private,
// read-only, executable file mapping, and the bytes right before it are one
// of the idioms below: the `syscall` is then known to be code, and the
// idiom's bytes are whole instructions that can run anywhere (no jumps, no
// RIP-relative operands).  The site's first seven bytes become `jmp *slot`;
// the slot (in the process's fast area, shared by every fork of the image,
// as the text pages are) holds the trampoline's address and the trampoline:
// the idiom's instructions, `movabs $syscall+2,%rcx; jmp lx_fast`.
//  - `mov $n,%eax`, with RAX = n at the trap: an inlined call (musl, glibc);
//  - musl's __syscall_cp_c (`mov 8(%rsp),%r9; mov %rcx,%rdx`), through which
//    every cancellable call of a static musl program goes (read, write,
//    close, open...): RAX is the caller's, any number.
#include "../lx.h"
#include "../../../lib/c/string.h"

bool lx_fast_on = true;

#define NO_CACHE 64

struct fastimg {
	u32 refs;
	u32 nsites, cap;
	u64 *site;                      /* the rewritten sites' `syscall`s, slot i for site[i] */
	u64 no[NO_CACHE];               /* `syscall`s seen not to be sites (by address) */
};

extern const char lx_stub_start[], lx_fast[], lx_fast_redo[], lx_fast_w2[], lx_fast_call[],
	lx_fast_trap[], lx_fast_sync[], lx_fast_sync_ud[], lx_stub_ipc[], lx_stub_exregs[],
	lx_fast_pure[], lx_fast_pure_w2[], lx_fast_pure_call[], lx_fast_pure_sync[],
	lx_fast_pure_sync_ud[], lx_fast_pure_redo[], lx_fast_pure_end[], lx_fast_lean[],
	lx_fast_lean_w2[], lx_fast_lean_call[], lx_fast_lean_sync[], lx_fast_lean_sync_ud[],
	lx_fast_lean_redo[], lx_fast_lean_end[];
extern L4_Word_t __L4_Ipc, __L4_ExchangeRegisters;

#define OFF(sym) ((u64)((sym) - lx_stub_start))

u64 fast_trap_ip, fast_sync_ud_ip, fast_pure_sync_ud_ip, fast_lean_sync_ud_ip;

/* The stub page's copy: the kernel's stubs its code calls, and where lx_fast_trap is. */
void fast_init(void *stub_page)
{
	*(u64 *)((char *)stub_page + OFF(lx_stub_ipc)) = __L4_Ipc;
	*(u64 *)((char *)stub_page + OFF(lx_stub_exregs)) = __L4_ExchangeRegisters;
	fast_trap_ip = LX_FAST_BASE + OFF(lx_fast_trap);
	fast_sync_ud_ip = LX_FAST_BASE + OFF(lx_fast_sync_ud);
	fast_pure_sync_ud_ip = LX_FAST_BASE + OFF(lx_fast_pure_sync_ud);
	fast_lean_sync_ud_ip = LX_FAST_BASE + OFF(lx_fast_lean_sync_ud);
}

struct fastimg *fast_new(void)
{
	struct fastimg *f = lx_zalloc(sizeof(*f));
	if (f)
		f->refs = 1;
	return f;
}

struct fastimg *fast_get(struct fastimg *f)
{
	if (f)
		f->refs++;
	return f;
}

void fast_put(struct fastimg *f)
{
	if (f && !--f->refs) {
		lx_free(f->site);
		lx_free(f);
	}
}

/* The fast area of a new image, unless its segments or the option leave no room. */
int fast_map(struct mm *mm)
{
	if (!lx_fast_on)
		return 0;
	for (struct vma *v = mm->vmas; v; v = v->next)
		if (v->start < LX_FAST_END && v->end > LX_FAST_BASE)
			return 0;                   /* the program lives there: no fast path */
	mm->fast = fast_new();
	if (!mm->fast)
		return -LX_ENOMEM;
	return (int)vm_map_fixed(mm, LX_FAST_BASE, LX_FAST_END,
				 VM_READ | VM_EXEC | VM_SHARED | VM_FAST, NULL, 0, 0);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct idiom {
	uint8_t len;                         /* bytes before the `syscall` */
	bool imm_is_rax;                /* `mov $n,%eax` (b8 n): n must equal RAX */
	uint8_t bytes[8];
};

static const struct idiom idioms[] = {
	{ 5, true, { 0xb8 } },
	{ 8, false, { 0x4c, 0x8b, 0x4c, 0x24, 0x08, 0x48, 0x89, 0xca } },
	{ 8, false, { 0x48, 0x89, 0xca, 0x4c, 0x8b, 0x4c, 0x24, 0x08 } },
};

/* The idiom that the bytes c (ending with the `syscall` at c + len) are, or NULL. */
static const struct idiom *idiom_at(const uint8_t *c, size_t room, u64 rax)
{
	for (size_t i = 0; i < sizeof(idioms) / sizeof(idioms[0]); i++) {
		const struct idiom *d = &idioms[i];
		if (room < d->len)
			continue;
		const uint8_t *p = c + room - d->len;
		bool ok = d->imm_is_rax ? p[0] == 0xb8 && get32(p + 1) == rax
					: !memcmp(p, d->bytes, d->len);
		if (ok)
			return d;
	}
	return NULL;
}

/* Fill slot `s` (at user address `slot`) for the site whose `syscall` is at sc; to entry. */
static void write_slot(uint8_t *s, u64 slot, const uint8_t *code, unsigned len, u64 sc, u64 entry)
{
	u64 tramp = slot + 8;
	memset(s, 0xcc, LX_FAST_SLOT_SIZE);         /* int3 in the padding */
	memcpy(s, &tramp, 8);                       /* what `jmp *slot` reads */
	memcpy(s + 8, code, len);                   /* the idiom's instructions */
	uint8_t *m = s + 8 + len;
	m[0] = 0x48;                                /* movabs $sc + 2, %rcx */
	m[1] = 0xb9;
	u64 ret = sc + 2;
	memcpy(m + 2, &ret, 8);
	m[10] = 0xe9;                               /* jmp entry */
	put32(m + 11, (uint32_t)(entry - (slot + (u64)(m + 15 - s))));
}

static bool room_for_site(struct fastimg *f)
{
	if (f->nsites < f->cap)
		return true;
	u32 cap = f->cap ? f->cap * 2 : 16;
	u64 *n = lx_realloc(f->site, cap * sizeof(u64));
	if (!n)
		return false;
	f->site = n;
	f->cap = cap;
	return true;
}

/* Which stub a site's trampoline enters: a known lean call's short one (l4/stub.S). */
static u64 entry_off(const struct idiom *d, u64 nr)
{
	int kind = d->imm_is_rax && nr < SYS_MAX ? syscall_lean[nr] : 0;
	return kind == LEAN_PURE0 ? OFF(lx_fast_pure) : kind ? OFF(lx_fast_lean) : OFF(lx_fast);
}

#define SITE_MAX 8                      /* the longest idiom */

/*
 * Rewrite the site whose `syscall` is at sc if it is one.  The idiom must lie
 * in the same page as the `syscall` (what lx checked is what runs).
 */
static __attribute__((noinline)) void patch(struct thread *t, struct fastimg *f, u64 sc, u64 *no)
{
	uint8_t *c = NULL;
	size_t room = (sc & (LX_PAGE_SIZE - 1)) < SITE_MAX ? sc & (LX_PAGE_SIZE - 1) : SITE_MAX;
	if (room >= 5 && ((sc + 1) >> 12) == (sc >> 12) && vm_is_text(t->mm, sc - room))
		c = vm_kaddr(t->mm, sc - room);
	const struct idiom *d = c && c[room] == 0x0f && c[room + 1] == 0x05 ?
				idiom_at(c, room, t->regs.rax) : NULL;
	if (!d) {
		*no = sc + 2;                       /* (a site whose RAX differed is tried again) */
		return;
	}
	u64 slot = LX_FAST_SLOTS_START + f->nsites * LX_FAST_SLOT_SIZE;
	uint8_t *s = vm_kaddr(t->mm, slot);
	if (f->nsites >= LX_FAST_SLOTS || !s || !room_for_site(f))
		return;
	/* the text to change: the process's own page (never the file's, which
	 * programs of other images may map) */
	if (!(c = vm_text_kaddr(t->mm, sc - room)))
		return;
	uint8_t *site = c + room - d->len;
	write_slot(s, slot, site, d->len, sc, LX_FAST_BASE + entry_off(d, t->regs.rax));
	f->site[f->nsites++] = sc;
	if (lx_trace)
		lx_log("lx: %d: site %lx (system call %lu) rewritten\n", t->tid_linux, sc - d->len,
		       t->regs.rax);
	/* in place: whoever shares this text page shares the fast area too */
	site[0] = 0xff;                             /* jmp *slot */
	site[1] = 0x24;
	site[2] = 0x25;
	put32(site + 3, (uint32_t)slot);
}

/* t trapped with a `syscall` that ends at t->regs.rip: rewrite its site if it is one. */
void fast_patch(struct thread *t)
{
	struct fastimg *f = t->mm->fast;
	u64 rip = t->regs.rip, *no = &f->no[(rip >> 1) % NO_CACHE];
	if (*no != rip)
		patch(t, f, rip - 2, no);
}

/*
 * A #UD at t->regs.rip: a jump straight to where a rewritten `mov $n,%eax`
 * site's `syscall` was (its first byte is now the jump's, 0x06: invalid), or
 * a thread that stopped between musl's two moves (MID_CP bytes before the
 * `syscall`, where the jump's 0x06 lies now) while another rewrote the site.
 * Run that system call.  (Longer idioms keep their `syscall` as it was.)
 */
#define MID_CP 3
bool fast_ud(struct thread *t)
{
	struct fastimg *f = t->mm->fast;
	for (u32 i = 0; f && i < f->nsites; i++) {
		u64 sc = f->site[i];
		if (sc != t->regs.rip && sc - MID_CP != t->regs.rip)
			continue;
		if (sc != t->regs.rip)
			t->regs.rdx = t->regs.rcx;  /* its `mov %rcx,%rdx`, overwritten */
		t->regs.rip = sc + 2;
		syscall_dispatch(t);
		return true;
	}
	return false;
}

/*
 * Where t's interrupted fast call restarts (SA_RESTART): a `mov $n,%eax`
 * site's jump, whose `syscall` bytes it overwrote (the fast path again), or
 * a longer idiom's `syscall`, which stays as it was (its own instructions
 * already ran in the trampoline: the trap path).
 */
u64 fast_restart_ip(struct thread *t)
{
	u64 sc = t->regs.rip - 2;
	const uint8_t *c = vm_kaddr(t->mm, sc);
	return c && c[0] == 0x0f && (sc & (LX_PAGE_SIZE - 1)) != LX_PAGE_SIZE - 1 && c[1] == 0x05
	       ? sc : t->regs.rip - 7;
}

/*
 * The fast call: MR1..MR18 the registers in struct regs' order, as in an
 * exception message (l4/stub.S), but R11's word is the stub's: R11 is
 * RFLAGS after a `syscall`.  A pure call runs from the MRs (syscall_fast).
 */
void fast_call(struct thread *t)
{
	const L4_Word_t *mr = L4_Utcb();
	if (mr[1] >= LX_CANONICAL_END) {            /* not from lx_fast: a forged message */
		lx_log("lx: %s[%d]: bad fast call from ip %lx\n", t->proc->comm, t->proc->pid,
		       mr[1]);
		proc_exit(t->proc, signal_death_status(t->proc, LX_SIGSEGV));
		return;
	}
	u64 nr = mr[8];
	if (nr < SYS_MAX && syscall_lean[nr] && syscall_fast(t, mr))
		return;
	fast_regs(t);
	syscall_begin(t);
}

/*
 * t stopped after its pure call's answer, before it was back in its own
 * code: lx kept only RIP, RBP and RFLAGS of that call (in t->regs; the Ipc
 * changes RBP), the stub the registers it changes itself (MR22..MR27 of t's
 * UTCB).  From the stop (regs: the answer's RAX RBX R10 R12..R15),
 * lx_fast_sync reloads the rest and its #UD brings them.  (Stopped in
 * lx_fast_sync itself, RCX, RBP and R11 are lx's already.)
 */
void fast_sync(struct thread *t, const struct regs *regs)
{
	if (t->fast_short) {                        /* the short call's stub has all */
		t->regs = *regs;
		t->regs.rip = LX_FAST_BASE + (t->fast_short == SHORT_PURE ? OFF(lx_fast_pure_sync) :
					      OFF(lx_fast_lean_sync));
		t->regs.rflags = t->fault_flags;
		t->fast_sync = true;
		t->kick = KICK_COMING;
		thread_reply(t);
		return;
	}
	u64 rip = t->fast_sync ? regs->rcx : t->regs.rip;
	u64 rbp = t->fast_sync ? regs->rbp : t->regs.rbp;
	u64 flags = t->fast_sync ? regs->r11 : t->regs.rflags;
	t->regs = *regs;
	t->regs.rip = LX_FAST_BASE + OFF(lx_fast_sync);
	t->regs.rcx = rip;
	t->regs.rbp = rbp;
	t->regs.r11 = flags;
	t->regs.rflags = flags;
	t->fast_sync = true;
	t->kick = KICK_COMING;                      /* no more redirections until the #UD */
	thread_reply(t);
}

/*
 * The #UD at lx_fast_sync_ud or lx_fast_pure_sync_ud: t's registers after
 * its pure call, then what it was stopped for; or (sync_call) before its
 * short call, which runs now as a trapped one would.
 */
void fast_synced(struct thread *t)
{
	memcpy(&t->regs, &((const L4_Word_t *)L4_Utcb())[1], sizeof(t->regs));
	t->regs.rip = t->regs.rcx;
	t->regs_stale = false;
	t->fast_sync = false;
	if (t->sync_call) {
		t->sync_call = false;
		syscall_dispatch(t);
	} else if (signal_deliver(t)) {
		thread_reply(t);
	}
}

/*
 * The short fast call (l4/stub.S lx_fast_pure): MR1 the number, MR2..MR7
 * RBX R10 R12..R15; the rest of t's registers stay in its UTCB.  A call
 * that is not PURE0 (a forged message) or that t must run the long way
 * (seccomp, a stopped process, the trace) brings them first.
 */
void fast_pure(struct thread *t)
{
	u64 nr = ((const L4_Word_t *)L4_Utcb())[1];
	t->fast_short = SHORT_PURE;
	if (!syscall_short(t, nr))
		fast_sync_reply(t, nr, true);
}

/* lx_fast_lean's call: the same, with MR8..MR10 RDI RSI RDX (syscall_short_args). */
void fast_lean(struct thread *t)
{
	const L4_Word_t *mr = L4_Utcb();
	t->fast_short = SHORT_LEAN;
	if (!syscall_short_args(t, mr))
		fast_sync_reply(t, mr[1], true);
}

/*
 * A thread stopped (by a redirection) at ip: before its fast call reaches
 * lx (it will come: let it run on), after it (the registers lx answered
 * with are the thread's real state), or elsewhere.  Stopped from
 * lx_fast_w2 to the Ipc, the stopping #UD's message overwrote the words
 * the fast call is to send (MR8..MR18) after the stub had changed the
 * registers they came from: FAST_REDO, it runs on from lx_fast_redo, which
 * writes them again from the copies above MR20 (and so, stopped in
 * lx_fast_redo itself).  Stopped between lx_fast and lx_fast_w2, the #UD
 * wrote the registers that the words are copies of, as they are.
 */
enum fast_where fast_where(u64 ip, u64 r9)
{
	u64 ipc = __L4_Ipc, base = LX_FAST_BASE;
	if (ip >= LX_FAST_SLOTS_START && ip < LX_FAST_END)
		return FAST_BEFORE;                 /* a trampoline */
	if (ip == ipc)                              /* only the stubs call it; R9: their tag */
		return r9 == L4_TAG_MAKE(LX_PURE_LABEL, LX_PURE_WORDS, 0) ? FAST_PURE_REDO :
		       r9 == L4_TAG_MAKE(LX_LEAN_LABEL, LX_LEAN_WORDS, 0) ? FAST_LEAN_REDO : FAST_REDO;
	if (ip > ipc && ip < ipc + 128)
		return FAST_AFTER;
	if (ip >= base + OFF(lx_fast_pure) && ip < base + OFF(lx_fast_pure_end))
		return ip < base + OFF(lx_fast_pure_w2) ? FAST_BEFORE :
		       ip <= base + OFF(lx_fast_pure_call) || ip >= base + OFF(lx_fast_pure_redo) ?
		       FAST_PURE_REDO : FAST_AFTER;
	if (ip >= base + OFF(lx_fast_lean) && ip < base + OFF(lx_fast_lean_end))
		return ip < base + OFF(lx_fast_lean_w2) ? FAST_BEFORE :
		       ip <= base + OFF(lx_fast_lean_call) || ip >= base + OFF(lx_fast_lean_redo) ?
		       FAST_LEAN_REDO : FAST_AFTER;
	if (ip >= base + OFF(lx_fast_sync) && ip <= base + OFF(lx_fast_sync_ud))
		return FAST_AFTER;                  /* on its way to lx_fast_sync_ud */
	if (ip < base + OFF(lx_fast_redo) || ip > base + OFF(lx_fast_trap))
		return FAST_NONE;
	if (ip > base + OFF(lx_fast_call))
		return FAST_AFTER;
	return ip >= base + OFF(lx_fast) && ip < base + OFF(lx_fast_w2) ? FAST_BEFORE : FAST_REDO;
}

/* Where a thread stopped at FAST_REDO or FAST_PURE_REDO runs on. */
u64 fast_redo_ip(enum fast_where w)
{
	return LX_FAST_BASE + (w == FAST_PURE_REDO ? OFF(lx_fast_pure_redo) :
			       w == FAST_LEAN_REDO ? OFF(lx_fast_lean_redo) : OFF(lx_fast_redo));
}
