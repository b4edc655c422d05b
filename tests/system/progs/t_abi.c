// SPDX-License-Identifier: MIT
/*
 * The binary interface at register level, against the specification
 * (docs/abi.md and the amd64 table it builds on), not against Pecan's own
 * library: every call under test is made by raw_call(), which loads all
 * fifteen general registers from a table written here by hand, calls the
 * entry point the KIP names, and records all fifteen afterwards.  It also
 * checks what every call must leave alone: RSP, and the words above it.
 * Pecan's library is used only to set up partners and to print results.
 */
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"

typedef unsigned long w_t;

/* Register table order of raw_call (byte offset = 8 * index). */
enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, R8, R9, R10, R11, R12, R13, R14, R15, NREGS };
struct regs { w_t r[NREGS]; };

#define CANARY 0xc0ffee00c0ffee11UL

void raw_call(w_t entry, const struct regs *in, struct regs *out);
void raw_kernel_interface(void);
void raw_kdb_print_char(void);
void raw_kdb_print_string(void);
void raw_kdb_enter(void);
void raw_kdb_read_char(void);
w_t raw_entry, raw_out, raw_rsp_before, raw_rsp_after, raw_canary[2];

/*
 * raw_call(entry, in, out): every register from *in, `push %rbp; call
 * *entry; pop %rbp` as Pistachio's wrappers do, every register into *out.
 * Two canary words sit right above the return address.
 */
__asm__(
	"	.text\n"
	"	.globl raw_call\n"
	"raw_call:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	mov %rdi, raw_entry(%rip)\n"
	"	mov %rdx, raw_out(%rip)\n"
	"	movabs $0xc0ffee00c0ffee11, %rax\n"
	"	push %rax; push %rax\n"
	"	mov %rsi, %rax\n"
	"	mov 8(%rax), %rbx;   mov 16(%rax), %rcx;  mov 24(%rax), %rdx\n"
	"	mov 32(%rax), %rsi;  mov 40(%rax), %rdi;  mov 48(%rax), %rbp\n"
	"	mov 56(%rax), %r8;   mov 64(%rax), %r9;   mov 72(%rax), %r10\n"
	"	mov 80(%rax), %r11;  mov 88(%rax), %r12;  mov 96(%rax), %r13\n"
	"	mov 104(%rax), %r14; mov 112(%rax), %r15; mov (%rax), %rax\n"
	"	mov %rsp, raw_rsp_before(%rip)\n"
	"	push %rbp\n"
	"	call *raw_entry(%rip)\n"
	"	pop %rbp\n"
	"	mov %rsp, raw_rsp_after(%rip)\n"
	"	push %rax\n"
	"	mov raw_out(%rip), %rax\n"
	"	mov %rbx, 8(%rax);   mov %rcx, 16(%rax);  mov %rdx, 24(%rax)\n"
	"	mov %rsi, 32(%rax);  mov %rdi, 40(%rax);  mov %rbp, 48(%rax)\n"
	"	mov %r8, 56(%rax);   mov %r9, 64(%rax);   mov %r10, 72(%rax)\n"
	"	mov %r11, 80(%rax);  mov %r12, 88(%rax);  mov %r13, 96(%rax)\n"
	"	mov %r14, 104(%rax); mov %r15, 112(%rax)\n"
	"	pop %rbx; mov %rbx, (%rax)\n"
	"	pop %rax; mov %rax, raw_canary(%rip)\n"
	"	pop %rax; mov %rax, raw_canary+8(%rip)\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n"
	/* Pseudo entry points for the calls that are not `call *ptr`. */
	"	.globl raw_kernel_interface\n"
	"raw_kernel_interface:\n"
	"	.byte 0xf0, 0x90\n"          /* lock; nop: KernelInterface */
	"	ret\n"
	"	.globl raw_kdb_print_char\n"
	"raw_kdb_print_char:\n"
	"	int3; cmpb $0x00, %al\n"
	"	ret\n"
	"	.globl raw_kdb_print_string\n"
	"raw_kdb_print_string:\n"
	"	int3; cmpb $0x01, %al\n"
	"	ret\n"
	"	.globl raw_kdb_read_char\n"
	"raw_kdb_read_char:\n"
	"	int3; cmpb $0x08, %al\n"
	"	ret\n"
	/* L4_KDB_Enter's shape: int3, a jump over `mov $msg, %rax` (48 C7 C0 imm32) */
	"	.globl raw_kdb_enter\n"
	"raw_kdb_enter:\n"
	"	int3\n"
	"	jmp 1f\n"
	"	.byte 0x48, 0xc7, 0xc0\n"
	"	.long raw_kdb_enter_msg\n"
	"1:	ret\n"
	"	.section .rodata\n"
	"raw_kdb_enter_msg: .asciz \"abi enter\"\n"
	"	.text\n");

static const char *const reg_name[NREGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10",
	"r11", "r12", "r13", "r14", "r15",
};

/* Distinct, recognisable values in every register. */
static void fill(struct regs *in, w_t tag)
{
	for (int i = 0; i < NREGS; i++)
		in->r[i] = 0x5e00000000000000UL | tag << 16 | (w_t)i << 4 | 5;
}

/* Call entry; false if it moved RSP or wrote the caller's stack. */
static int rcall(w_t entry, const struct regs *in, struct regs *out)
{
	raw_canary[0] = raw_canary[1] = 0;
	raw_call(entry, in, out);
	return raw_rsp_after == raw_rsp_before && raw_canary[0] == CANARY && raw_canary[1] == CANARY;
}

/* The first register outside `may_change` (a bit mask) that differs, or -1. */
static int changed(const struct regs *in, const struct regs *out, unsigned may_change)
{
	for (int i = 0; i < NREGS; i++)
		if (!(may_change & 1u << i) && in->r[i] != out->r[i])
			return i;
	return -1;
}
#define B(r) (1u << (r))

/* The KIP and its words, found by the raw instruction, not by the library. */
static w_t *kip(void)
{
	struct regs in, out;
	fill(&in, 0);
	raw_call((w_t)raw_kernel_interface, &in, &out);
	return (w_t *)out.r[RAX];
}
static w_t kip_word(int off) { return kip()[off / 8]; }
static w_t entry_of(int off) { return kip_word(off); }

#define KIP_IPC            0x1C0
#define KIP_UNMAP          0x1D0
#define KIP_EXREGS         0x1D8
#define KIP_CLOCK          0x1E0
#define KIP_TSWITCH        0x1E8
#define KIP_SCHEDULE       0x1F0
#define KIP_SPACECTL       0x1A0
#define KIP_THREADCTL      0x1A8
#define KIP_PROCCTL        0x1B0
#define KIP_MEMCTL         0x1B8

static w_t utcb(void)
{
	w_t p;
	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(p));
	return p;
}
static w_t tcr(int off) { return *(volatile w_t *)(utcb() + off); }
static w_t me(void) { return tcr(-0x78); }

static int slot;
static w_t fresh(void) { return tt_id(slot++, 1); }

/* ---------------------------------------------------------------------- */

TEST_CASE("abi.kernel_interface", "KernelInterface (F0 90): RAX KIP, RCX version, RDX flags, RSI id, all else kept")
{
	struct regs in, out;
	fill(&in, 1);
	EXPECT(rcall((w_t)raw_kernel_interface, &in, &out), "stack moved or written");
	w_t *k = (w_t *)out.r[RAX];
	EXPECT(out.r[RAX] == 0xBFF00000UL, "root task's KIP at %lx, not 0xBFF00000", out.r[RAX]);
	EXPECT(k[0] == 0x4BE6344CUL, "magic %lx", k[0]);
	EXPECT((out.r[RCX] & 0xffffffffUL) == 0x84050000UL && out.r[RCX] == k[1],
	       "RCX %lx, KIP ApiVersion %lx", out.r[RCX], k[1]);
	EXPECT(out.r[RDX] == 4 && out.r[RDX] == k[2], "RDX %lx, KIP ApiFlags %lx", out.r[RDX], k[2]);
	w_t *desc = (w_t *)((char *)k + k[3]);
	EXPECT(out.r[RSI] == desc[0], "RSI %lx, kernel descriptor's KernelId %lx", out.r[RSI], desc[0]);
	int bad = changed(&in, &out, B(RAX) | B(RCX) | B(RDX) | B(RSI));
	EXPECT(bad < 0, "%s changed: %lx -> %lx", reg_name[bad], in.r[bad], out.r[bad]);
}

TEST_CASE("abi.kernel_interface_keeps_mrs", "KernelInterface (F0 90) changes no message register (MR0..MR63)")
{
	for (int i = 0; i < 64; i++)
		L4_SetMR(i, 0x5a5a0000UL + (w_t)i);
	L4_Word_t v, f, id;
	(void)L4_KernelInterface(&v, &f, &id);
	int bad = -1;
	for (int i = 0; i < 64 && bad < 0; i++)
		if (L4_MR(i) != 0x5a5a0000UL + (w_t)i)
			bad = i;
	EXPECT(bad < 0, "MR%d changed to %lx", bad, bad < 0 ? 0 : L4_MR(bad));
}

TEST_CASE("abi.kip_page_info", "KIP PageInfo: rwx = 7, bit k of 10..63 = 2^k-byte pages (4 KiB and 2 MiB)")
{
	w_t pi = kip_word(0x190);
	EXPECT((pi & 0x3ff) == 7, "bits 0-9 %lx: rwx 7, the rest 0", pi & 0x3ff);
	EXPECT(pi & 1UL << 12, "4 KiB pages (bit 12) missing: %lx", pi);
	EXPECT(!(pi & (3UL << 10)), "pages below 4 KiB claimed: %lx", pi);
	EXPECT(pi == 0x201007UL, "PageInfo %lx, not 4 KiB + 2 MiB (0x201007)", pi);
}

TEST_CASE("abi.kip_fields", "KIP area, UTCB area, thread info, processors and system-call words are as specified")
{
	w_t *k = kip();
	EXPECT(k[0x150 / 8] == 0xC2801UL, "UtcbAreaInfo %lx (m 1, a 10, s 12)", k[0x150 / 8]);
	EXPECT((k[0x158 / 8] & 0x3f) == 12, "KipAreaInfo %lx", k[0x158 / 8]);
	w_t ti = k[0x188 / 8];
	EXPECT((ti & 0xff) >= 17 && (ti >> 8 & 0xfff) == 16 && (ti >> 20 & 0xfff) == 48,
	       "ThreadInfo %lx: t, SystemBase 16, UserBase 48", ti);
	w_t pinfo = k[0x198 / 8];
	/* the count itself is t_smp's to check against what QEMU was given (test_smp.py) */
	EXPECT((pinfo & 0xffff) < 8 && pinfo >> 60 == 5 && !(pinfo >> 16 & 0xffffffffffUL),
	       "ProcessorInfo %lx: 1-8 CPUs, 32-byte descriptors", pinfo);
	EXPECT(k[0x178 / 8] >= 0x200 && k[0x178 / 8] + 32 * ((pinfo & 0xffff) + 1) <= 0x1000,
	       "ProcDescPtr %lx: descriptors outside the KIP", k[0x178 / 8]);
	EXPECT(k[0x018 / 8] >= 0x200 && k[0x018 / 8] < 0x1000, "KernelVerPtr %lx", k[0x018 / 8]);
	w_t mi = k[0xA8 / 8];
	EXPECT((mi & 0xffffffff) > 0 && (mi >> 32) + 16 * (mi & 0xffffffff) <= 0x1000,
	       "MemoryInfo %lx", mi);
	for (int off = 0x1A0; off <= 0x1F0; off += 8)
		EXPECT(k[off / 8] >= 0xffff800000000000UL || (k[off / 8] && k[off / 8] < 0x800000000000UL),
		       "system-call word %x = %lx is no absolute address", off, k[off / 8]);
	EXPECT(k[0x1C8 / 8] == k[0x1C0 / 8], "Lipc %lx and Ipc %lx differ", k[0x1C8 / 8], k[0x1C0 / 8]);
	for (int off = 0x220; off <= 0x238; off += 8)
		EXPECT(k[off / 8] == 0, "ArchSyscall word %x = %lx", off, k[off / 8]);
}

TEST_CASE("abi.kip_reserved_last", "KIP memory descriptors: no later descriptor overrides the kernel's Reserved memory")
{
	/* X.2: where descriptors overlap the later one counts, and sigma0s read them so */
	w_t *k = kip();
	w_t n = k[0xA8 / 8] & 0xffffffff;
	w_t *d = (w_t *)((char *)k + (k[0xA8 / 8] >> 32));
	int reserved = 0;
	for (w_t i = 0; i < n; i++) {
		if ((d[2 * i] & 0xf) != 2 || (d[2 * i] & 0x200))
			continue;
		reserved++;
		w_t lo = d[2 * i] & ~0x3ffUL, hi = d[2 * i + 1] | 0x3ff;
		for (w_t j = i + 1; j < n; j++) {
			w_t l2 = d[2 * j] & ~0x3ffUL, h2 = d[2 * j + 1] | 0x3ff;
			EXPECT((d[2 * j] & 0xf) == 2 || (d[2 * j] & 0x200) || h2 < lo || l2 > hi,
			       "descriptor %lu (type %lx, %lx-%lx) overrides Reserved %lx-%lx",
			       j, d[2 * j] & 0xff, l2, h2, lo, hi);
		}
	}
	EXPECT(reserved >= 2, "%d Reserved descriptors: the kernel image and pool", reserved);
}

TEST_CASE("abi.root_ids", "root task: %gs:0 = local ID 0xBF000200, global (UserBase+2,1), pager sigma0 (UserBase,1)")
{
	EXPECT(utcb() == 0xBF000200UL, "UTCB pointer %lx", utcb());
	EXPECT(me() == (50UL << 32 | 1), "MyGlobalId %lx", me());
	EXPECT(tcr(-0x60) == (48UL << 32 | 1), "Pager TCR %lx, not sigma0", tcr(-0x60));
	EXPECT(tcr(-0x70) == 0, "ProcessorNo %lx", tcr(-0x70));
	EXPECT(tcr(-0x08) == ~0UL, "WordSizeMask %lx", tcr(-0x08));
}

/* ThreadControl: RDI dest, RSI pager, RDX scheduler, R8 space, R9 UTCB location; RAX result. */
static int thread_control(w_t dest, w_t pager, w_t sched, w_t space, w_t loc, struct regs *out)
{
	struct regs in;
	fill(&in, 2);
	in.r[RDI] = dest;
	in.r[RSI] = pager;
	in.r[RDX] = sched;
	in.r[R8] = space;
	in.r[R9] = loc;
	return rcall(entry_of(KIP_THREADCTL), &in, out);
}

/* SpaceControl: RDI space, RSI control, RDX KIP area, R8 UTCB area, R9 redirector; RAX, RDX. */
static int space_control(w_t space, w_t control, w_t kip_area, w_t utcb_area, struct regs *out)
{
	struct regs in;
	fill(&in, 3);
	in.r[RDI] = space;
	in.r[RSI] = control;
	in.r[RDX] = kip_area;
	in.r[R8] = utcb_area;
	in.r[R9] = 0;
	return rcall(entry_of(KIP_SPACECTL), &in, out);
}

#define FPAGE(base, s) ((w_t)(base) | (w_t)(s) << 4)

TEST_CASE("abi.thread_space_control", "ThreadControl (RSI pager, R8 space) and SpaceControl (RDX KIP, R8 UTCB) by raw registers")
{
	struct regs out;
	w_t t = fresh(), self = me();
	/* a new space (R8 = dest) whose pager (RSI) is the root task */
	EXPECT(thread_control(t, self, self, t, ~0UL, &out), "stack moved or written");
	EXPECT(out.r[RAX] == 1, "create: RAX %lx, ErrorCode %lx", out.r[RAX], tcr(-0x48));
	/* a UTCB area below a page in R8, a good KIP area in RDX: ErrorCode 6, not 7 */
	EXPECT(space_control(t, 0, FPAGE(0xBFF00000UL, 12), FPAGE(0xBF000000UL, 10), &out), "stack");
	EXPECT(out.r[RAX] == 0 && tcr(-0x48) == 6, "bad UTCB area: RAX %lx, ErrorCode %lx (6)",
	       out.r[RAX], tcr(-0x48));
	EXPECT(space_control(t, 0, FPAGE(0xBFF00000UL, 13), FPAGE(0xBF000000UL, 18), &out), "stack");
	EXPECT(out.r[RAX] == 0 && tcr(-0x48) == 7, "bad KIP area: RAX %lx, ErrorCode %lx (7)",
	       out.r[RAX], tcr(-0x48));
	EXPECT(space_control(t, 0, FPAGE(0xBFF00000UL, 12), FPAGE(0xBF000000UL, 18), &out), "stack");
	/* old control: no compatibility mode (bit 63); bits 0-31 are Pecan's quota (abi.md) */
	EXPECT(out.r[RAX] == 1 && out.r[RDX] >> 32 == 0, "configure: RAX %lx, old control %lx, ErrorCode %lx",
	       out.r[RAX], out.r[RDX], tcr(-0x48));
	/* the UTCB location (R9) activates it: it waits for the root task, its pager */
	EXPECT(thread_control(t, self, 0, t, tt_utcb(t), &out) && out.r[RAX] == 1,
	       "UTCB location: RAX %lx, ErrorCode %lx", out.r[RAX], tcr(-0x48));
	w_t ip = 0x5000000UL + 0x123;
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, ip);
	L4_SetMR(2, 0x6000000UL);
	EXPECT(!L4_IpcFailed(L4_Send_Timeout(t, L4_TIMEOUT_ZERO)),
	       "start message: the thread does not wait for its pager (ErrorCode %lx)", tcr(-0x48));
	/* nothing is mapped in its new space: it faults at ip, to us */
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Receive_Timeout(t, L4_TimePeriod(1000000), &from);
	EXPECT(!L4_IpcFailed(tag) && (L4_TAG_LABEL(tag) >> 4) == (L4_LABEL_PAGEFAULT >> 4) &&
	       L4_MR(1) == ip && L4_MR(2) == ip,
	       "no page fault at %lx from the new space: tag %lx MR1 %lx", ip, tag, L4_MR(1));
	/* delete: R8 = nil; RSI (the pager) is not looked at */
	EXPECT(thread_control(t, self, self, 0, ~0UL, &out) && out.r[RAX] == 1,
	       "delete: RAX %lx, ErrorCode %lx", out.r[RAX], tcr(-0x48));
	EXPECT(thread_control(t, self, self, 0, ~0UL, &out) && out.r[RAX] == 0 && tcr(-0x48) == 2,
	       "deleted twice: RAX %lx, ErrorCode %lx", out.r[RAX], tcr(-0x48));
}

TEST_CASE("abi.thread_control_local_space", "ThreadControl: R8 = an existing thread puts dest in that thread's space")
{
	struct regs out;
	w_t t = fresh(), self = me();
	/* RSI = pager: another thread; R8 = our own space */
	w_t other = fresh();
	EXPECT(tt_start_local(other, tt_park), "partner");
	EXPECT(thread_control(t, other, self, self, tt_utcb(t), &out) && out.r[RAX] == 1,
	       "create: RAX %lx, ErrorCode %lx", out.r[RAX], tcr(-0x48));
	/* in our space, active, waiting for `other`: its pager is in RSI, not R8 */
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	EXPECT(L4_IpcFailed(L4_Send_Timeout(t, L4_TIMEOUT_ZERO)),
	       "the root task could start it: the pager came from R8");
	struct L4_ExRegs x = { 0 };
	EXPECT(pecan_exregs(t, &x) != L4_NILTHREAD && x.pager == other,
	       "its pager is %lx, not %lx", x.pager, other);
	EXPECT(tt_kill(t) && tt_kill(other), "delete");
}

/* ---------------------------------------------------------------------- */

static volatile w_t got[8], partner_done;

static void ipc_partner(void)
{
	L4_ThreadId_t root = tcr(-0x60);      /* its pager */
	L4_SetMR(0, L4_TAG_MAKE(0x1234, 7, 0));
	for (int i = 1; i < 8; i++)
		L4_SetMR(i, 0xa110000000000000UL + i);
	L4_Send(root);
	L4_MsgTag_t tag = L4_Receive(root);
	for (int i = 0; i < 8; i++)
		got[i] = L4_MR(i);
	partner_done = L4_IpcFailed(tag) ? 2 : 1;
	tt_park();
}

static const int mr_reg[8] = { R9, RAX, RBX, R10, R12, R13, R14, R15 };

TEST_CASE("abi.ipc_registers", "Ipc: MR0-7 in R9 RAX RBX R10 R12-R15 both ways, RSI from/to, RDX from spec, RDI kept")
{
	w_t p = fresh(), self = me();
	partner_done = 0;
	/* the partner's pager is the root task: L4_Pager() tells it whom to talk to */
	EXPECT(L4_ThreadControl(p, self, self, self, tt_utcb(p)) && tt_send_start(p, ipc_partner, tt_stack()),
	       "partner");
	struct regs in, out;
	fill(&in, 4);
	/* receive from p: RSI nil (no send), RDX = p, R8 = never/never */
	in.r[RSI] = 0;
	in.r[RDX] = p;
	in.r[R8] = 0;
	in.r[RDI] = utcb();
	EXPECT(rcall(entry_of(KIP_IPC), &in, &out), "stack moved or written");
	EXPECT(out.r[R9] == L4_TAG_MAKE(0x1234, 7, 0), "R9 (tag) %lx", out.r[R9]);
	for (int i = 1; i < 8; i++)
		EXPECT(out.r[mr_reg[i]] == 0xa110000000000000UL + i, "MR%d in %s: %lx", i,
		       reg_name[mr_reg[i]], out.r[mr_reg[i]]);
	EXPECT(out.r[RCX] == out.r[R9], "RCX %lx is not MR0 %lx", out.r[RCX], out.r[R9]);
	EXPECT(out.r[RDI] == utcb(), "RDI %lx is not the UTCB pointer", out.r[RDI]);
	EXPECT(out.r[RSI] == tt_utcb(p) + 0x200,
	       "RSI (From) %lx: not the sender's local ID %lx (same space)", out.r[RSI], tt_utcb(p) + 0x200);
	/* send to p: the message comes from the registers, not from the UTCB's MR0-7 */
	for (int i = 0; i < 8; i++)
		L4_SetMR(i, 0xbad0000000000000UL + i);
	fill(&in, 5);
	in.r[RSI] = p;
	in.r[RDX] = 0;
	in.r[R8] = 0;
	in.r[RDI] = utcb();
	in.r[R9] = L4_TAG_MAKE(0x4321, 7, 0);
	for (int i = 1; i < 8; i++)
		in.r[mr_reg[i]] = 0x5e70000000000000UL + i;
	EXPECT(rcall(entry_of(KIP_IPC), &in, &out), "stack moved or written");
	EXPECT(!(out.r[R9] & L4_TAG_ERROR), "send failed: tag %lx, ErrorCode %lx", out.r[R9], tcr(-0x48));
	EXPECT(out.r[RDI] == utcb(), "RDI %lx after a send", out.r[RDI]);
	TT_WAIT(partner_done, 1000);
	EXPECT(partner_done == 1, "partner's receive: %lu", partner_done);
	EXPECT(got[0] == L4_TAG_MAKE(0x4321, 7, 0), "partner got tag %lx", got[0]);
	for (int i = 1; i < 8; i++)
		EXPECT(got[i] == 0x5e70000000000000UL + i, "partner's MR%d %lx (from %s)", i, got[i],
		       reg_name[mr_reg[i]]);
	EXPECT(tt_kill(p), "delete");
}

TEST_CASE("abi.ipc_timeouts_register", "Ipc: R8 carries the timeouts (snd << 16 | rcv); a zero receive timeout fails at once")
{
	struct regs in, out;
	fill(&in, 6);
	in.r[RSI] = 0;
	in.r[RDX] = me();                 /* receive from self: only the timeout ends it */
	in.r[R8] = L4_TIMEOUTS(L4_TimePeriod(50000), L4_TIMEOUT_ZERO);
	in.r[RDI] = utcb();
	w_t t0 = L4_SystemClock();
	EXPECT(rcall(entry_of(KIP_IPC), &in, &out), "stack moved or written");
	w_t dt = L4_SystemClock() - t0;
	EXPECT((out.r[R9] & L4_TAG_ERROR) && tcr(-0x48) == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV),
	       "zero: tag %lx ErrorCode %lx", out.r[R9], tcr(-0x48));
	EXPECT(dt < 1000, "a zero receive timeout waited %lu us", dt);
	EXPECT(out.r[RDI] == utcb(), "RDI %lx", out.r[RDI]);
	fill(&in, 7);
	in.r[RSI] = 0;
	in.r[RDX] = me();
	in.r[R8] = L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TimePeriod(2000));
	in.r[RDI] = utcb();
	t0 = L4_SystemClock();
	EXPECT(rcall(entry_of(KIP_IPC), &in, &out), "stack moved or written");
	dt = L4_SystemClock() - t0;
	EXPECT((out.r[R9] & L4_TAG_ERROR) && tcr(-0x48) == (L4_IPC_TIMEOUT | L4_IPC_PHASE_RECV),
	       "sleep: tag %lx ErrorCode %lx", out.r[R9], tcr(-0x48));
	EXPECT(dt >= 2000 && dt < 4500, "a 2 ms receive timeout took %lu us", dt);
	/* the send timeout is the upper half: a parked thread receives only from itself */
	w_t t = fresh();
	EXPECT(tt_start_local(t, tt_park), "thread");
	fill(&in, 9);
	in.r[RSI] = t;
	in.r[RDX] = 0;                    /* no receive phase */
	in.r[R8] = L4_TIMEOUTS(L4_TimePeriod(2000), L4_TIMEOUT_ZERO);
	in.r[R9] = L4_TAG_MAKE(0, 0, 0);
	in.r[RDI] = utcb();
	t0 = L4_SystemClock();
	EXPECT(rcall(entry_of(KIP_IPC), &in, &out), "stack moved or written");
	dt = L4_SystemClock() - t0;
	EXPECT((out.r[R9] & L4_TAG_ERROR) && tcr(-0x48) == L4_IPC_TIMEOUT,
	       "send: tag %lx ErrorCode %lx", out.r[R9], tcr(-0x48));
	EXPECT(dt >= 2000 && dt < 4500, "a 2 ms send timeout took %lu us", dt);
	EXPECT(tt_kill(t), "delete");
}

/* ---------------------------------------------------------------------- */

/* ExchangeRegisters: RAX dest, RSI control, RDX SP, R8 IP, R9 flags, R10 handle, RDI pager. */
static int exregs(w_t dest, w_t control, w_t sp, w_t ip, w_t flags, w_t handle, w_t pager,
		  struct regs *out)
{
	struct regs in;
	fill(&in, 8);
	in.r[RAX] = dest;
	in.r[RSI] = control;
	in.r[RDX] = sp;
	in.r[R8] = ip;
	in.r[R9] = flags;
	in.r[R10] = handle;
	in.r[RDI] = pager;
	return rcall(entry_of(KIP_EXREGS), &in, out);
}

TEST_CASE("abi.exchange_registers", "ExchangeRegisters: inputs RAX RSI RDX R8 R9 R10 RDI, old values back in the same registers")
{
	struct regs out;
	w_t t = fresh();
	EXPECT(tt_start_local(t, tt_park), "thread");
	w_t local = tt_utcb(t) + 0x200;
	/* halt it (h + H), then set SP, IP, flags, handle and pager */
	EXPECT(exregs(t, 0x101, 0, 0, 0, 0, 0, &out), "stack");
	EXPECT(out.r[RAX] == local, "global in, RAX %lx: not the local ID %lx", out.r[RAX], local);
	w_t sp = tt_stack(), ip = (w_t)tt_park, h = 0x4a4e444c45UL, pg = me();
	EXPECT(exregs(t, 0xf8, sp, ip, 0x8d5, h, pg, &out) && out.r[RAX] == local,
	       "set: RAX %lx ErrorCode %lx", out.r[RAX], tcr(-0x48));
	/* read back with control 0 through the local ID */
	EXPECT(exregs(local, 0, 1, 2, 3, 4, 5, &out), "stack");
	EXPECT(out.r[RAX] == t, "local in, RAX %lx: not the global ID %lx", out.r[RAX], t);
	EXPECT(out.r[RDX] == sp, "old SP (RDX) %lx, set %lx", out.r[RDX], sp);
	EXPECT(out.r[R8] == ip, "old IP (R8) %lx, set %lx", out.r[R8], ip);
	EXPECT((out.r[R9] & 0x8d5) == 0x8d5, "old flags (R9) %lx", out.r[R9]);
	EXPECT(out.r[R10] == h, "old handle (R10) %lx", out.r[R10]);
	EXPECT(out.r[RDI] == pg, "old pager (RDI) %lx", out.r[RDI]);
	EXPECT(out.r[RSI] & 1, "old control (RSI) %lx: not halted", out.r[RSI]);
	/* both live in its UTCB, where its own code reads them */
	volatile w_t *tu = (volatile w_t *)local;
	EXPECT(tu[-0x68 / 8] == h, "UserDefinedHandle TCR %lx", tu[-0x68 / 8]);
	EXPECT(tu[-0x60 / 8] == pg, "Pager TCR %lx", tu[-0x60 / 8]);
	EXPECT(tt_kill(t), "delete");
	EXPECT(exregs(t, 0, 0, 0, 0, 0, 0, &out) && out.r[RAX] == 0 && tcr(-0x48) == 2,
	       "deleted thread: RAX %lx ErrorCode %lx", out.r[RAX], tcr(-0x48));
}

/* Schedule: RDI dest, RSI priority, RDX time control, R8 processor, R9 preemption; RAX, RDX. */
static int schedule(w_t dest, w_t prio, w_t time, w_t cpu, w_t preempt, struct regs *out)
{
	struct regs in;
	fill(&in, 9);
	in.r[RDI] = dest;
	in.r[RSI] = prio;
	in.r[RDX] = time;
	in.r[R8] = cpu;
	in.r[R9] = preempt;
	return rcall(entry_of(KIP_SCHEDULE), &in, out);
}

static w_t period_us(w_t p) { return (p & 0x3ff) << (p >> 10 & 0x1f); }

TEST_CASE("abi.system_clock_switch", "SystemClock: RAX microseconds; ThreadSwitch(RDI nil) returns; neither moves RSP")
{
	struct regs in, out;
	fill(&in, 10);
	EXPECT(rcall(entry_of(KIP_CLOCK), &in, &out), "stack moved or written");
	w_t t0 = out.r[RAX];
	L4_Sleep(10000);
	EXPECT(rcall(entry_of(KIP_CLOCK), &in, &out), "stack moved or written");
	EXPECT(out.r[RAX] >= t0 + 10000 && out.r[RAX] < t0 + 10000000,
	       "clock %lx then %lx around a 10 ms sleep", t0, out.r[RAX]);
	fill(&in, 11);
	in.r[RDI] = 0;
	EXPECT(rcall(entry_of(KIP_TSWITCH), &in, &out), "ThreadSwitch: stack moved or written");
}

static char pages[2][4096] __attribute__((aligned(4096)));

TEST_CASE("abi.unmap_registers", "Unmap: RDX control, fpages in R9 and RAX (MR0, MR1) come back there; RCX = MR0, RDI kept")
{
	pages[0][0] = 1;
	pages[1][0] = 1;
	L4_SetMR(0, 0);            /* the UTCB's MR0/MR1 must not be what counts */
	L4_SetMR(1, 0);
	struct regs in, out;
	fill(&in, 12);
	in.r[RDX] = 1;             /* k = 1: MR0 and MR1, no flush */
	in.r[R9] = FPAGE(pages[0], 12);
	in.r[RAX] = FPAGE(pages[1], 12);
	in.r[RDI] = utcb();
	EXPECT(rcall(entry_of(KIP_UNMAP), &in, &out), "stack moved or written");
	EXPECT((out.r[R9] & ~0xfUL) == FPAGE(pages[0], 12), "R9 %lx", out.r[R9]);
	EXPECT((out.r[RAX] & ~0xfUL) == FPAGE(pages[1], 12), "RAX %lx", out.r[RAX]);
	EXPECT(out.r[R9] & 2 && out.r[RAX] & 2, "written pages not reported written: %lx %lx",
	       out.r[R9], out.r[RAX]);
	EXPECT(out.r[RCX] == out.r[R9], "RCX %lx is not MR0 %lx", out.r[RCX], out.r[R9]);
	EXPECT(out.r[RDI] == utcb(), "RDI %lx is not the UTCB pointer", out.r[RDI]);
	EXPECT(pages[0][0] == 1, "the page went away");
}

TEST_CASE("abi.control_calls", "ProcessorControl (RDI processor) and MemoryControl (RDX control, RCX RSI R8 R11 attributes)")
{
	struct regs in, out;
	fill(&in, 13);
	in.r[RDI] = 0;
	EXPECT(rcall(entry_of(KIP_PROCCTL), &in, &out) && out.r[RAX] == 1,
	       "processor 0: RAX %lx ErrorCode %lx", out.r[RAX], tcr(-0x48));
	in.r[RDI] = (kip()[0x198 / 8] & 0xffff) + 1;          /* the first processor the KIP does not list */
	EXPECT(rcall(entry_of(KIP_PROCCTL), &in, &out) && out.r[RAX] == 0 && tcr(-0x48) == 5,
	       "processor %lu: RAX %lx ErrorCode %lx", in.r[RDI], out.r[RAX], tcr(-0x48));
	fill(&in, 14);
	in.r[RDX] = 0;             /* k = 0: one fpage in MR0 (R9) */
	in.r[R9] = FPAGE(pages[0], 12);
	in.r[RCX] = in.r[RSI] = in.r[R8] = in.r[R11] = 0;
	in.r[RDI] = utcb();
	EXPECT(rcall(entry_of(KIP_MEMCTL), &in, &out), "stack moved or written");
	EXPECT(out.r[RDX] == 1, "default attributes: RDX %lx ErrorCode %lx", out.r[RDX], tcr(-0x48));
	EXPECT(out.r[RCX] == in.r[R9] && out.r[RAX] == in.r[RAX] && out.r[RDI] == utcb(),
	       "RCX %lx (MR0), RAX %lx (MR1), RDI %lx", out.r[RCX], out.r[RAX], out.r[RDI]);
	in.r[R11] = 1;             /* attribute 3 only: must be seen */
	EXPECT(rcall(entry_of(KIP_MEMCTL), &in, &out), "stack moved or written");
	EXPECT(out.r[RDX] == 0 && tcr(-0x48) == 5, "attribute in R11 ignored: RDX %lx ErrorCode %lx",
	       out.r[RDX], tcr(-0x48));
	in.r[R11] = 0;
	in.r[RCX] = 1;             /* attribute 0 only */
	EXPECT(rcall(entry_of(KIP_MEMCTL), &in, &out), "stack moved or written");
	EXPECT(out.r[RDX] == 0 && tcr(-0x48) == 5, "attribute in RCX ignored: RDX %lx ErrorCode %lx",
	       out.r[RDX], tcr(-0x48));
}

TEST_CASE("abi.kdb_preserves", "KDB PrintChar, PrintString, ReadChar (but RAX) and Enter change no register")
{
	static const char msg[] = "[kdb-abi]\n";
	struct regs in, out;
	fill(&in, 15);
	in.r[RAX] = 0x5e0000000000000aUL;   /* AL = '\n' */
	EXPECT(rcall((w_t)raw_kdb_print_char, &in, &out), "stack moved or written");
	int bad = changed(&in, &out, 0);
	EXPECT(bad < 0, "PrintChar changed %s: %lx -> %lx", reg_name[bad], in.r[bad], out.r[bad]);
	in.r[RAX] = (w_t)msg;
	EXPECT(rcall((w_t)raw_kdb_print_string, &in, &out), "stack moved or written");
	bad = changed(&in, &out, 0);
	EXPECT(bad < 0, "PrintString changed %s: %lx -> %lx", reg_name[bad], in.r[bad], out.r[bad]);
	fill(&in, 17);
	EXPECT(rcall((w_t)raw_kdb_read_char, &in, &out), "ReadChar: stack moved or written");
	bad = changed(&in, &out, B(RAX));
	EXPECT(bad < 0, "ReadChar changed %s: %lx -> %lx", reg_name[bad], in.r[bad], out.r[bad]);
	fill(&in, 16);
	EXPECT(rcall((w_t)raw_kdb_enter, &in, &out), "Enter: stack moved or written");
	bad = changed(&in, &out, 0);
	EXPECT(bad < 0, "Enter changed %s: %lx -> %lx", reg_name[bad], in.r[bad], out.r[bad]);
}

/* ---- what a new thread finds, and From across spaces ---- */

static volatile w_t seen[5];

static void report_self(void)
{
	seen[0] = utcb();
	seen[1] = me();
	seen[2] = tcr(-0x60);
	seen[3] = tcr(-0x70);
	seen[4] = 1;
	L4_SetMR(0, 0);
	L4_Send(50UL << 32 | 1);           /* the root task */
	tt_park();
}

TEST_CASE("abi.new_thread_tcrs", "a new thread: %gs:0 = UtcbLocation + 0x200, MyGlobalId, Pager and ProcessorNo TCRs set")
{
	w_t t = fresh();
	seen[4] = 0;
	EXPECT(tt_start_local(t, report_self), "thread");
	L4_MsgTag_t tag = L4_Receive_Timeout(t, L4_TimePeriod(1000000), 0);
	EXPECT(!L4_IpcFailed(tag) && seen[4], "no word from it");
	EXPECT(seen[0] == tt_utcb(t) + 0x200, "UTCB pointer %lx, location %lx", seen[0], tt_utcb(t));
	EXPECT(seen[1] == t, "MyGlobalId %lx, not %lx", seen[1], t);
	EXPECT(seen[2] == me(), "Pager TCR %lx", seen[2]);
	EXPECT(seen[3] == 0, "ProcessorNo %lx", seen[3]);
	EXPECT(tt_kill(t), "delete");
}

static void hello_root(void)
{
	L4_SetMR(0, L4_TAG_MAKE(0x77, 0, 0));
	L4_Send(50UL << 32 | 1);
	tt_park();
}

TEST_CASE("abi.from_other_space", "Ipc: From (RSI) is the sender's global ID when it lives in another space")
{
	w_t t = fresh();
	EXPECT(tt_start_space(t, hello_root), "thread in a new space: %lx", L4_ErrorCode());
	struct regs in, out;
	fill(&in, 18);
	in.r[RSI] = 0;
	in.r[RDX] = ~0UL;                 /* anythread */
	in.r[R8] = L4_TIMEOUTS(0, L4_TimePeriod(2000000));
	in.r[RDI] = utcb();
	EXPECT(rcall(entry_of(KIP_IPC), &in, &out), "stack moved or written");
	EXPECT(out.r[R9] == L4_TAG_MAKE(0x77, 0, 0), "tag %lx ErrorCode %lx", out.r[R9], tcr(-0x48));
	EXPECT(out.r[RSI] == t, "From %lx, not the global ID %lx", out.r[RSI], t);
	EXPECT(tt_kill(t), "delete");
}

TEST_CASE("abi.schedule", "Schedule: RSI priority, RDX time control (old one back in RDX), R8 processor, R9 preemption")
{
	struct regs out;
	w_t t = fresh();
	EXPECT(tt_start_local(t, tt_park), "thread");
	w_t ncpu = (((const w_t *)__L4_KIP)[KIP_OFF_PROC_INFO / 8] & 0xffff) + 1;   /* one past the last */
	EXPECT(schedule(t, ~0UL, ~0UL, ncpu, ~0UL, &out) && out.r[RAX] == 0 && tcr(-0x48) == 5,
	       "processor %lu in R8: RAX %lx ErrorCode %lx", ncpu, out.r[RAX], tcr(-0x48));
	/* last test: the root task gives up its top priority, to have one above it */
	EXPECT(schedule(me(), 200, ~0UL, ~0UL, ~0UL, &out) && out.r[RAX] != 0, "own priority 200");
	EXPECT(schedule(t, 201, ~0UL, ~0UL, ~0UL, &out) && out.r[RAX] == 0 && tcr(-0x48) == 5,
	       "priority 201 in RSI (above ours): RAX %lx ErrorCode %lx", out.r[RAX], tcr(-0x48));
	EXPECT(schedule(t, 200, ~0UL, ~0UL, ~0UL, &out) && out.r[RAX] != 0,
	       "priority 200 in RSI: RAX %lx ErrorCode %lx", out.r[RAX], tcr(-0x48));
	w_t ts = L4_TimePeriod(3000);
	EXPECT(schedule(t, ~0UL, ts << 16, ~0UL, ~0UL, &out) && out.r[RAX] != 0,
	       "time slice in RDX: RAX %lx ErrorCode %lx", out.r[RAX], tcr(-0x48));
	EXPECT(schedule(t, ~0UL, ~0UL, ~0UL, ~0UL, &out) && out.r[RAX] != 0, "query");
	EXPECT(period_us(out.r[RDX] >> 16 & 0xffff) == 3000, "old time control (RDX) %lx", out.r[RDX]);
	EXPECT(tt_kill(t), "delete");
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
