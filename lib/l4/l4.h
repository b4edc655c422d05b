/* SPDX-License-Identifier: MIT */
/* User-side L4 system-call wrappers with Pistachio's amd64 register conventions. */
#ifndef PECAN_LIB_L4_H
#define PECAN_LIB_L4_H

#include <l4/types.h>
#include <l4/thread.h>
#include <l4/utcb.h>
#include <l4/kip.h>
#include <l4/kdebug.h>
#include <l4/errors.h>
#include <l4/ipc.h>
#include <l4/pecan.h>
#include <l4/sigma0.h>

typedef L4_Word_t L4_ThreadId_t;

/*
 * Call a system-call stub from inline asm.  The compiler does not know the asm
 * calls, so code built with the ordinary x86-64 ABI may keep data in the red
 * zone (the 128 bytes below RSP); the push and the return address would
 * overwrite it.  Step over the red zone first.  RBP is saved because every
 * call may return it changed.  Code built with -mno-red-zone may define
 * PECAN_NO_RED_ZONE (the Makefile does for Pecan's own programs) to save the
 * two instructions, as Pistachio's wrappers do: the benchmarks then measure
 * the same call sequence as Pistachio's.
 */
#ifdef PECAN_NO_RED_ZONE
#define PECAN_STUB_CALL(stub) "push %%rbp; call *" stub "; pop %%rbp"
#else
#define PECAN_STUB_CALL(stub) \
	"lea -128(%%rsp), %%rsp; push %%rbp; call *" stub "; pop %%rbp; lea 128(%%rsp), %%rsp"
#endif

/* System-call entry points, read from the KIP by __l4_init (as Pistachio's __L4_Init). */
extern L4_Word_t __L4_Ipc, __L4_Lipc, __L4_Unmap, __L4_ExchangeRegisters,
	__L4_SystemClock, __L4_ThreadSwitch, __L4_Schedule, __L4_SpaceControl,
	__L4_ThreadControl, __L4_ProcessorControl, __L4_MemoryControl;
extern void *__L4_KIP;

static inline void *L4_KernelInterface(L4_Word_t *api_version, L4_Word_t *api_flags,
				       L4_Word_t *kernel_id)
{
	void *kip;
	L4_Word_t v, f, id;
	__asm__ __volatile__(".byte 0xf0, 0x90" : "=a"(kip), "=c"(v), "=d"(f), "=S"(id));
	if (api_version) *api_version = v;
	if (api_flags) *api_flags = f;
	if (kernel_id) *kernel_id = id;
	return kip;
}

static inline L4_Word_t *L4_Utcb(void)
{
	L4_Word_t *p;
	__asm__("movq %%gs:0, %0" : "=r"(p));
	return p;
}

static inline L4_Word_t L4_Tcr(int byte_offset)
{
	return *(L4_Word_t *)((char *)L4_Utcb() + byte_offset);
}

static inline void L4_SetTcr(int byte_offset, L4_Word_t v)
{
	L4_Word_t addr = (L4_Word_t)L4_Utcb() + byte_offset;
	*(volatile L4_Word_t *)addr = v;
}

static inline L4_ThreadId_t L4_MyGlobalId(void) { return L4_Tcr(UTCB_MY_GLOBAL_ID); }
static inline L4_ThreadId_t L4_MyLocalId(void) { return (L4_Word_t)L4_Utcb(); }
static inline L4_Word_t L4_ErrorCode(void) { return L4_Tcr(UTCB_ERROR_CODE); }
static inline L4_Word_t L4_IntendedReceiver(void) { return L4_Tcr(UTCB_INTENDED_RECV); }

static inline void L4_ThreadSwitch(L4_ThreadId_t dest)
{
	__asm__ __volatile__(PECAN_STUB_CALL("%1")
			     : "+D"(dest)
			     : "m"(__L4_ThreadSwitch)
			     : "rax", "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11",
			       "r12", "r13", "r14", "r15", "memory", "cc");
}

/* Call system-call slot `entry` with no arguments; returns RAX (tests use it). */
static inline L4_Word_t pecan_raw_syscall_at(L4_Word_t entry)
{
	L4_Word_t rax = 0x5a5a;
	__asm__ __volatile__(PECAN_STUB_CALL("%1")
			     : "+a"(rax)
			     : "r"(entry)
			     : "rcx", "r11", "memory", "cc");
	return rax;
}

/* ---- IPC (abi.md §2: MR0-7 in R9 RAX RBX R10 R12-R15, RDI = UTCB) ---- */

typedef L4_Word_t L4_MsgTag_t;

/*
 * The Ipc system call with the message in the UTCB: loads MR0-7 into their
 * registers, calls the stub, stores them back (as Pistachio's L4_Ipc).
 * Returns the tag; *from gets the partner (may be NULL).  The stub pointer
 * must be a global (RIP-relative operand): every other register is in use,
 * and an RSP-relative one would be off by the push.
 */
#define PECAN_IPC_BODY(stubvar)                                                                   \
	L4_Word_t *mr = L4_Utcb();                                                                \
	register L4_Word_t r8 __asm__("r8") = timeouts;                                           \
	register L4_Word_t r9 __asm__("r9") = mr[0];                                              \
	register L4_Word_t r10 __asm__("r10") = mr[3];                                            \
	register L4_Word_t r12 __asm__("r12") = mr[4];                                            \
	register L4_Word_t r13 __asm__("r13") = mr[5];                                            \
	register L4_Word_t r14 __asm__("r14") = mr[6];                                            \
	register L4_Word_t r15 __asm__("r15") = mr[7];                                            \
	L4_Word_t rax = mr[1], rbx = mr[2];                                                       \
	L4_Word_t *rdi = mr;                                                                      \
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")                               \
			     : "+S"(to), "+d"(fromspec), "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r12), \
			       "+r"(r13), "+r"(r14), "+r"(r15), "+a"(rax), "+b"(rbx), "+D"(rdi)   \
			     : [stub] "m"(stubvar)                                                \
			     : "rcx", "r11", "memory", "cc");                                     \
	mr[0] = r9; mr[1] = rax; mr[2] = rbx; mr[3] = r10;                                        \
	mr[4] = r12; mr[5] = r13; mr[6] = r14; mr[7] = r15;                                       \
	if (from)                                                                                 \
		*from = to;                                                                       \
	return r9

static inline L4_MsgTag_t L4_Ipc(L4_ThreadId_t to, L4_ThreadId_t fromspec, L4_Word_t timeouts,
				 L4_ThreadId_t *from)
{
	PECAN_IPC_BODY(__L4_Ipc);
}
static inline L4_MsgTag_t L4_Lipc(L4_ThreadId_t to, L4_ThreadId_t fromspec, L4_Word_t timeouts,
				  L4_ThreadId_t *from)
{
	PECAN_IPC_BODY(__L4_Lipc);
}
/*
 * Unmap(control) with the fpages in MR0..MRk (abi.md §2): they come back with
 * their rwx bits replaced by the status (referenced, written, executed).
 */
static inline void L4_Unmap(L4_Word_t control)
{
	L4_Word_t *mr = L4_Utcb();
	register L4_Word_t r9 __asm__("r9") = mr[0];
	register L4_Word_t r10 __asm__("r10") = mr[3];
	register L4_Word_t r12 __asm__("r12") = mr[4];
	register L4_Word_t r13 __asm__("r13") = mr[5];
	register L4_Word_t r14 __asm__("r14") = mr[6];
	register L4_Word_t r15 __asm__("r15") = mr[7];
	L4_Word_t rax = mr[1], rbx = mr[2], rdx = control;
	L4_Word_t *rdi = mr;
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "+d"(rdx), "+r"(r9), "+r"(r10), "+r"(r12), "+r"(r13), "+r"(r14),
			       "+r"(r15), "+a"(rax), "+b"(rbx), "+D"(rdi)
			     : [stub] "m"(__L4_Unmap)
			     : "rcx", "rsi", "r8", "r11", "memory", "cc");
	mr[0] = r9; mr[1] = rax; mr[2] = rbx; mr[3] = r10;
	mr[4] = r12; mr[5] = r13; mr[6] = r14; mr[7] = r15;
}
#define L4_UNMAP_FLUSH 0x40

static inline L4_MsgTag_t L4_Call(L4_ThreadId_t to)
{
	return L4_Ipc(to, to, 0, 0);
}
static inline L4_MsgTag_t L4_Send_Timeout(L4_ThreadId_t to, L4_Word_t snd)
{
	return L4_Ipc(to, L4_NILTHREAD, L4_TIMEOUTS(snd, 0), 0);
}
static inline L4_MsgTag_t L4_Send(L4_ThreadId_t to)
{
	return L4_Send_Timeout(to, L4_TIMEOUT_NEVER);
}
static inline L4_MsgTag_t L4_Reply(L4_ThreadId_t to)
{
	return L4_Send_Timeout(to, L4_TIMEOUT_ZERO);
}
static inline L4_MsgTag_t L4_Receive_Timeout(L4_ThreadId_t from, L4_Word_t rcv, L4_ThreadId_t *got)
{
	return L4_Ipc(L4_NILTHREAD, from, L4_TIMEOUTS(0, rcv), got);
}
static inline L4_MsgTag_t L4_Receive(L4_ThreadId_t from)
{
	return L4_Receive_Timeout(from, L4_TIMEOUT_NEVER, 0);
}
static inline L4_MsgTag_t L4_Wait(L4_ThreadId_t *from)
{
	return L4_Receive_Timeout(L4_ANYTHREAD, L4_TIMEOUT_NEVER, from);
}
static inline L4_MsgTag_t L4_ReplyWait(L4_ThreadId_t to, L4_ThreadId_t *from)
{
	return L4_Ipc(to, L4_ANYTHREAD, L4_TIMEOUTS(L4_TIMEOUT_ZERO, 0), from);
}
static inline int L4_IpcFailed(L4_MsgTag_t t) { return (t & L4_TAG_ERROR) != 0; }
static inline L4_Word_t L4_MR(int i) { return L4_Utcb()[i]; }
static inline void L4_SetMR(int i, L4_Word_t v) { L4_Utcb()[i] = v; }
static inline void L4_SetBR(int i, L4_Word_t v) { L4_SetTcr(UTCB_BR(i), v); }
/* A relative timeout of about `us` microseconds (m * 2^e). */
static inline L4_Word_t L4_TimePeriod(L4_Word_t us)
{
	L4_Word_t e = 0;
	while ((us >> e) > 0x3ff)
		e++;
	return us ? (e << 10) | (us >> e) : L4_TIMEOUT_ZERO;
}
static inline void L4_Sleep(L4_Word_t us)
{
	L4_Receive_Timeout(L4_MyGlobalId(), L4_TimePeriod(us), 0);
}

/* ---- thread and space management ---- */

static inline L4_Word_t L4_ThreadControl(L4_ThreadId_t dest, L4_ThreadId_t space,
					 L4_ThreadId_t sched, L4_ThreadId_t pager, L4_Word_t utcb)
{
	/* abi.md §2: RSI = pager, R8 = SpaceSpecifier (not in argument order) */
	register L4_Word_t r8 __asm__("r8") = space;
	register L4_Word_t r9 __asm__("r9") = utcb;
	L4_Word_t rax;
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "=a"(rax), "+D"(dest), "+S"(pager), "+d"(sched), "+r"(r8), "+r"(r9)
			     : [stub] "m"(__L4_ThreadControl)
			     : "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
	return rax;
}

static inline L4_Word_t L4_SpaceControl(L4_ThreadId_t space, L4_Word_t control, L4_Word_t kip,
					L4_Word_t utcb, L4_ThreadId_t redirector, L4_Word_t *old)
{
	register L4_Word_t r8 __asm__("r8") = utcb;
	register L4_Word_t r9 __asm__("r9") = redirector;
	L4_Word_t rax;
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "=a"(rax), "+D"(space), "+S"(control), "+d"(kip), "+r"(r8), "+r"(r9)
			     : [stub] "m"(__L4_SpaceControl)
			     : "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
	if (old)
		*old = kip;
	return rax;
}

struct L4_ExRegs {
	L4_Word_t control, sp, ip, flags, handle;
	L4_ThreadId_t pager;
};

/* ExchangeRegisters: in/out through *r (abi.md §2); returns the result thread ID. */
static inline L4_ThreadId_t pecan_exregs(L4_ThreadId_t dest, struct L4_ExRegs *r)
{
	register L4_Word_t r8 __asm__("r8") = r->ip;
	register L4_Word_t r9 __asm__("r9") = r->flags;
	register L4_Word_t r10 __asm__("r10") = r->handle;
	L4_Word_t rax = dest, rdx = r->sp, rsi = r->control, rdi = r->pager;
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "+a"(rax), "+d"(rdx), "+S"(rsi), "+D"(rdi), "+r"(r8), "+r"(r9), "+r"(r10)
			     : [stub] "m"(__L4_ExchangeRegisters)
			     : "rbx", "rcx", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
	r->sp = rdx; r->control = rsi; r->pager = rdi; r->ip = r8; r->flags = r9; r->handle = r10;
	return rax;
}

static inline L4_Word_t L4_Schedule(L4_ThreadId_t dest, L4_Word_t time, L4_Word_t cpu,
				    L4_Word_t prio, L4_Word_t preempt, L4_Word_t *old_time)
{
	register L4_Word_t r8 __asm__("r8") = cpu;
	register L4_Word_t r9 __asm__("r9") = preempt;
	L4_Word_t rax, rdx = time;
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "=a"(rax), "+D"(dest), "+S"(prio), "+d"(rdx), "+r"(r8), "+r"(r9)
			     : [stub] "m"(__L4_Schedule)
			     : "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
	if (old_time)
		*old_time = rdx;
	return rax;
}

static inline L4_Word_t L4_Set_Priority(L4_ThreadId_t t, L4_Word_t prio)
{
	return L4_Schedule(t, ~0UL, ~0UL, prio, ~0UL, 0);
}

static inline L4_Word_t L4_SystemClock(void)
{
	L4_Word_t rax;
	__asm__ __volatile__(PECAN_STUB_CALL("%[stub]")
			     : "=a"(rax)
			     : [stub] "m"(__L4_SystemClock)
			     : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
			       "r13", "r14", "r15", "memory", "cc");
	return rax;
}

/*
 * The sigma0 protocol (abi.md §7.7): ask sigma0 for fpage (base all ones:
 * any page of that size), received through the window `window`.  Returns
 * the fpage sigma0 mapped (MR2 of its reply), 0 for a refusal or failure.
 */
static inline L4_Word_t pecan_sigma0_request(L4_Word_t fpage, L4_Word_t window)
{
	L4_ThreadId_t s0 = l4_global_id(L4_USER_BASE, 1);
	L4_SetTcr(UTCB_BR(0), window);
	L4_SetMR(0, L4_TAG_MAKE(L4_LABEL_SIGMA0, 2, 0));
	L4_SetMR(1, fpage);
	L4_SetMR(2, 0);
	L4_MsgTag_t tag = L4_Call(s0);
	L4_SetTcr(UTCB_BR(0), 0);
	if (L4_IpcFailed(tag) || L4_TAG_T(tag) != 2)
		return 0;
	return L4_MR(2);
}

/*
 * Pecan's sigma0 extension (include/l4/sigma0.h): make threads numbered
 * [first, first + count) sigma0's clients.  Only the root task's first
 * thread may; 1 if sigma0 admitted them.  It waits a second at most for the
 * answer: a sigma0 that does not know the extension (Pistachio's) gives none.
 */
static inline int pecan_sigma0_admit(L4_Word_t first, L4_Word_t count)
{
	L4_ThreadId_t s0 = l4_global_id(L4_USER_BASE, 1);
	L4_SetMR(0, L4_TAG_MAKE(SIGMA0_LABEL_EXT, 3, 0));
	L4_SetMR(1, SIGMA0_EXT_ADMIT);
	L4_SetMR(2, first);
	L4_SetMR(3, count);
	L4_MsgTag_t tag = L4_Ipc(s0, s0, L4_TIMEOUTS(L4_TIMEOUT_NEVER, L4_TimePeriod(1000000)), 0);
	return !L4_IpcFailed(tag) && L4_MR(1) == 1;
}

/* Pecan KDB op 0xF5: check the mapping database; returns 0 if consistent (privileged). */
static inline L4_Word_t pecan_kdb_check_mappings(void)
{
	L4_Word_t rax;
	__asm__ __volatile__("int3; cmpb $0xf5, %%al" : "=a"(rax) : : "cc", "memory");
	return rax;
}

/*
 * Pecan KDB op 0xF6: check every kernel invariant and print the verdict;
 * returns the mask of failed checks (0: consistent, ~0: refused) and the
 * kernel pool's free frames in *pool_free (privileged).
 */
static inline L4_Word_t pecan_kdb_check_kernel(L4_Word_t *pool_free)
{
	L4_Word_t rax, rdx = *pool_free;        /* a refused call leaves it */
	__asm__ __volatile__("int3; cmpb $0xf6, %%al" : "=a"(rax), "+d"(rdx) : : "cc", "memory");
	*pool_free = rdx;
	return rax;
}

/* Kernel event counter i (include/l4/pecan.h): its word, plus the fastpath's where it counts too. */
static inline L4_Word_t pecan_counter(int i)
{
	volatile const L4_Word_t *c = (volatile const L4_Word_t *)PECAN_COUNTERS_ADDR;
	return c[i] + (PECAN_CTR_WITH_FASTPATH(i) ? c[PECAN_CTR_fastpath_ipcs] : 0);
}

/*
 * The root task's command line after its path (tools/run --root-args) into
 * buf (max bytes, NUL included); its length, or -1.  Maps the boot
 * information from sigma0 at 0x300000000000 and up (lib/l4/boot.c).
 */
long pecan_boot_args(char *buf, unsigned long max);

void __l4_init(void);
void __l4_exit(int status) __attribute__((noreturn));

#endif
