// SPDX-License-Identifier: MIT
// lx's start and its one loop: every page fault and system call of every
// Linux process arrives here as IPC and is answered from here.
#include "../lx.h"
#include "../../../lib/fmt/fmt.h"
#include "../../../lib/c/string.h"
#include "../../../lib/drivers/client.h"
#include "../../drivers/drivers.h"
#include "../../disk/disk.h"
#include "../net/net.h"
#include <l4/kip.h>
#include <stdarg.h>

L4_ThreadId_t lx_id;
L4_ThreadId_t reply_to;                 /* a reply loaded in the MRs, not yet sent */
static void *stub_page;

extern const char lx_stub_start[], lx_stub_signal[], lx_stub_end[];

u64 lx_now_us(void)
{
	return lx_now_ns() / 1000;          /* the kernel's SystemClock, read without a call (vdso/) */
}

void lx_log(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	console_out(buf, len);
	klog_append(buf, len);                  /* syslog(2) and dmesg read it back */
}

u64 lx_kip_word(unsigned off)
{
	return *(const L4_Word_t *)((const char *)__L4_KIP + off);
}

void lx_exhausted(enum lx_resource r)
{
	static bool said[RES_COUNT];
	if (said[r])
		return;
	said[r] = true;
	u64 ksize = lx_kip_word(KIP_OFF_KMEM_SIZE), kfree = lx_kip_word(KIP_OFF_KMEM_FREE);
	switch (r) {
	case RES_KMEM_POOL:
		lx_log("lx: out of kernel memory: %lu of %lu KiB free, the last %lu KiB are kept from "
		       "processes\n", kfree >> 10, ksize >> 10, (ksize / 8 + LX_KMEM_PER_PROC * 4) >> 10);
		break;
	case RES_KMEM_QUOTA:
		lx_log("lx: the kernel refused memory (a space's quota, %lu KiB, or the pool: %lu KiB "
		       "free)\n", (ksize / 16) >> 10, kfree >> 10);
		break;
	case RES_PAGE_POOL:
		lx_log("lx: lx's page pool is empty (%lu MiB in all)\n", pool_bytes() >> 20);
		break;
	case RES_THREAD_NOS:
		lx_log("lx: all %d L4 thread numbers lx gives out are in use\n", LX_MAX_THREADS);
		break;
	case RES_PROC_TABLE:
		lx_log("lx: the process table is full (%d processes)\n", LX_MAX_PROCS);
		break;
	case RES_UTCB_SLOTS:
		lx_log("lx: a process has %lu threads, all its UTCB slots\n",
		       (1UL << LX_UTCB_LOG2) / UTCB_SIZE);
		break;
	default:
		break;
	}
}

void lx_panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	reply_flush();
	console_out(buf, strlen(buf));
	pecan_kdb_power_off(99);
	for (;;)
		;
}

/* --- replies --- */

void reply_send(void)
{
	L4_ThreadId_t to = reply_to;
	reply_to = L4_NILTHREAD;
	L4_Reply(to);
}

static __attribute__((noinline)) void exception_reply(struct thread *t)
{
	L4_Word_t *mr = L4_Utcb();
	unsigned u = REGS_WORDS;
	L4_Word_t label = 0;
	if (t->fs_dirty) {
		label = PECAN_EXC_REPLY_FSBASE;
		mr[19] = t->fs_base;
		u = 19;
		t->fs_dirty = false;
	}
	mr[0] = L4_TAG_MAKE(label, u, 0);
	memcpy(&mr[1], &t->regs, sizeof(t->regs));
}

static __attribute__((noinline, cold)) void reply_first(struct thread *t)
{
	reply_flush();
	if (!cpu_busy)
		cpu_start();                    /* CPU time's sampling (proc/cputime.c) */
	thread_reply(t);
}

/*
 * Load t's answer (an exception reply, or a fast call's) into the MRs; the
 * loop's next ReplyWait sends it.  (The common case, nothing else loaded and
 * sampling on, costs no call.)
 */
void thread_reply(struct thread *t)
{
	if (__builtin_expect(reply_to != L4_NILTHREAD || !cpu_busy, 0)) {
		reply_first(t);
		return;
	}
	t->state = T_RUNNING;
	reply_to = t->tid;
	if (t->fast)
		fast_reply(t);
	else
		exception_reply(t);
}

/*
 * A pure call's answer (syscall_fast): RAX in MR1, and MR2..MR7 (RBX R10
 * R12..R15) back as its message brought them, still in the MRs.  False
 * (nothing done) where the answer must be thread_reply's.
 */
bool thread_reply_pure(struct thread *t, u64 rax)
{
	if (__builtin_expect(reply_to != L4_NILTHREAD || t->fs_dirty, 0))
		return false;
	if (__builtin_expect(!cpu_busy, 0))
		cpu_start();                    /* CPU time's sampling (proc/cputime.c) */
	L4_Word_t *mr = L4_Utcb();
	t->state = T_RUNNING;
	t->regs_stale = true;
	reply_to = t->tid;
	mr[0] = L4_TAG_MAKE(0, 7, 0);
	mr[1] = rax;
	return true;
}

/*
 * Answer t's short fast call so that it brings its registers first: MR1 =
 * rax (its result, or with call, its number: the call is still to run),
 * MR2..MR7 as its message brought them; its #UD at lx_fast_pure_sync_ud
 * comes next (fast_synced).
 */
void fast_sync_reply(struct thread *t, u64 rax, bool call)
{
	reply_flush();
	if (!cpu_busy)
		cpu_start();
	L4_Word_t *mr = L4_Utcb();
	t->state = T_RUNNING;
	t->regs_stale = true;
	t->fast_sync = true;
	t->sync_call = call;
	reply_to = t->tid;
	mr[0] = L4_TAG_MAKE(LX_FAST_TRAP, 7, 0);
	mr[1] = rax;
}

/* Answer a page fault with a map item (or nothing, which lets the thread fault again). */
static void map_reply(L4_ThreadId_t to, u64 addr, u64 page, u32 rights)
{
	reply_flush();
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, (addr & ~(LX_PAGE_SIZE - 1)) | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(page, 12, rights));
	reply_to = to;
}

/* Add map items for the file pages around a read fault at addr (vm_fault_around). */
static void map_around(struct thread *t, u64 addr)
{
	struct fault_map m[FAULT_AROUND - 1];
	int n = vm_fault_around(t->proc, addr, m, FAULT_AROUND - 1);
	L4_Word_t *mr = L4_Utcb();
	for (int i = 0; i < n; i++) {
		mr[3 + 2 * i] = m[i].va | L4_ITEM_MAP;
		mr[4 + 2 * i] = L4_FPAGE_MAKE(m[i].page, 12, m[i].rights);
	}
	mr[0] = L4_TAG_MAKE(0, 0, 2 + 2 * n);
}

/* --- messages --- */

/* Answer a fault on the stub page (or its fast-area alias) with the stub. */
void map_stub(struct thread *t)
{
	map_reply(t->tid, L4_MR(1), (u64)stub_page, 4 | 1);
	t->state = t->state == T_INCALL ? T_RUNNING : t->state;
}

/*
 * The kernel maps nothing for a page it cannot charge to the space or the
 * pool (docs/abi.md, Kernel memory) and the thread faults again at once.
 * The same fault FAULT_REPEATS times in a row, with no call between, is
 * that: kernel memory has run out, and the OOM killer must make room.
 */
#define FAULT_REPEATS 4

static bool map_refused(struct thread *t, u64 addr, u32 access)
{
	u64 key = (addr & ~(LX_PAGE_SIZE - 1)) | access;
	if (key != t->last_fault) {
		t->last_fault = key;
		t->fault_repeats = 0;
		return false;
	}
	if (++t->fault_repeats < FAULT_REPEATS)
		return false;
	t->fault_repeats = 0;
	lx_exhausted(RES_KMEM_POOL);
	return true;
}

static void page_fault(struct thread *t, u64 addr, u64 rip, unsigned rwx)
{
	u64 page = addr & ~(LX_PAGE_SIZE - 1);
	if ((page == LX_STUB_PAGE || (page == LX_FAST_BASE && t->mm->fast)) && !(rwx & 2)) {
		map_stub(t);
		return;
	}
	static u64 nfaults;
	if (lx_trace && !(++nfaults % 1024))
		lx_log("lx: %lu page faults, %lu us\n", nfaults, lx_now_us());
	u32 access = (rwx & 2) ? VM_WRITE : (rwx & 1) ? VM_EXEC : VM_READ;
	u32 rights;
	if (map_refused(t, addr, access) && !oom_kill(t->proc))
		return;
	int err = vm_fault(t->proc, addr, access, &page, &rights);
	while (err == -LX_ENOMEM) {
		if (!oom_kill(t->proc))
			return;                 /* t's process was the one killed: t is gone */
		err = vm_fault(t->proc, addr, access, &page, &rights);
	}
	if (!err) {
		map_reply(t->tid, addr, page, rights);
		if (!(access & VM_WRITE))
			map_around(t, addr);
		t->state = T_RUNNING;
		return;
	}
	t->fault_rip = rip;
	signal_fault(t, err == -LX_EIO ? LX_SIGBUS : LX_SIGSEGV, addr, false);
}

/* CPU exceptions other than page faults become signals. */
static int vector_signal(u64 vec)
{
	switch (vec) {
	case 0: case 16: case 19: return LX_SIGFPE;
	case 1: case 3: return LX_SIGTRAP;
	case 6: return LX_SIGILL;
	case 17: return LX_SIGBUS;
	default: return LX_SIGSEGV;
	}
}

/*
 * t was redirected to the stub's #UD (l4/sigthread.c).  Stopped in the fast
 * path before its call reached lx, it just goes on (the call will come and
 * take the signal), from lx_fast_redo where its message was overwritten
 * (fast_where; lx_fast_pure_redo in the short call's stub); stopped after,
 * lx's answer in t->regs is its state, or the stub's copies are (fast_sync).
 */
void redirected(struct thread *t, const struct regs *msg)
{
	struct regs stopped = *msg;             /* msg may lie in the MRs, which IPC reuses */
	int sig = t->fault_sig;
	t->fault_sig = -1;
	enum fast_where w = sig ? FAST_NONE : fast_where(t->fault_rip, stopped.r9);
	if (w == FAST_AFTER && t->regs_stale) {
		fast_sync(t, &stopped);         /* its state comes by a #UD first */
		return;
	}
	if (w == FAST_AFTER) {
		t->fast_trap = false;
	} else {
		t->regs = stopped;
		t->regs_stale = false;
		t->regs.rip = t->fault_rip;
		t->regs.rflags = t->fault_flags;
	}
	if (w == FAST_REDO || w == FAST_PURE_REDO || w == FAST_LEAN_REDO)
		t->regs.rip = fast_redo_ip(w);
	if (w != FAST_NONE && w != FAST_AFTER) {
		t->kick = KICK_COMING;          /* no more redirections until its call comes */
		thread_reply(t);
		return;
	}
	if (sig ? signal_fault(t, sig, t->fault_addr, true) : signal_deliver(t))
		thread_reply(t);
}

static void exception(struct thread *t)
{
	L4_Word_t *mr = L4_Utcb();
	if (t->state == T_STARTING) {           /* the stub asks for the thread's registers */
		if (signal_deliver(t))
			thread_reply(t);
		return;
	}
	u64 vec = mr[19], rip = mr[1];
	if (rip == STUB_SIGNAL_RIP && kick_early(t)) {
		memcpy(&t->stopped, &mr[1], sizeof(t->stopped));   /* its report will come */
		return;
	}
	if (rip == STUB_SIGNAL_RIP && t->fault_sig >= 0) {
		redirected(t, (const struct regs *)&mr[1]);
		return;
	}
	if (rip == fast_trap_ip && vec == 6) {
		if (t->fast_trap) {             /* its fast call's answer: t->regs */
			t->fast_trap = false;
			thread_reply(t);
			return;
		}
		lx_log("lx: %s[%d]: fast call failed\n", t->proc->comm, t->proc->pid);
		proc_exit(t->proc, signal_death_status(t->proc, LX_SIGSEGV));
		return;
	}
	if ((rip == fast_sync_ud_ip || rip == fast_pure_sync_ud_ip || rip == fast_lean_sync_ud_ip) &&
	    vec == 6 && t->fast_sync) {
		fast_synced(t);
		return;
	}
	memcpy(&t->regs, &mr[1], sizeof(t->regs));
	t->regs_stale = false;
	t->last_fault = 0;                      /* map_refused counts faults with nothing between */
	if (vec == PECAN_VEC_SYSCALL) {
		if (t->mm->fast)
			fast_patch(t);
		syscall_dispatch(t);
		return;
	}
	if (vec == 6 && fast_ud(t))
		return;
	t->fault_rip = t->regs.rip;
	if (signal_trap(t, vector_signal(vec), vec))
		thread_reply(t);
}

/*
 * Confinement (docs/lx.md, trust model): every IPC a Linux process sends
 * leaves its space only to lx (lx is its redirector), so lx sees all of it.
 * lx's protocol is the fast call, page faults and exceptions; a message that
 * was meant for someone else (r), sent on another thread's behalf (p), or
 * has any other shape kills the process with SIGSYS, as seccomp would.
 */
static bool protocol_message(L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag);
	if (tag & (L4_TAG_REDIRECTED | L4_TAG_PROPAGATE))
		return false;
	if (label == LX_FAST_LABEL)
		return L4_TAG_U(tag) == LX_FAST_WORDS && !L4_TAG_T(tag);
	if (label == LX_PURE_LABEL)
		return L4_TAG_U(tag) == LX_PURE_WORDS && !L4_TAG_T(tag);
	if (label == LX_LEAN_LABEL)
		return L4_TAG_U(tag) == LX_LEAN_WORDS && !L4_TAG_T(tag);
	if ((label >> 4) == (L4_LABEL_PAGEFAULT >> 4))
		return L4_TAG_U(tag) == 2 && !L4_TAG_T(tag);
	return label == L4_LABEL_EXCEPTION && L4_TAG_U(tag) >= 19 && !L4_TAG_T(tag);
}

static void protocol_violation(struct thread *t, L4_MsgTag_t tag)
{
	struct proc *p = t->proc;
	L4_Word_t intended = (tag & L4_TAG_REDIRECTED) ? L4_IntendedReceiver() : 0;
	lx_log("lx: %s[%d]: IPC outside lx's protocol (tag %lx, meant for %lx): killed\n",
	       p->comm, p->pid, tag, intended);
	proc_exit(p, LX_SIGSYS);
}

/*
 * A message is acted on only while its thread runs its own code or the
 * start stub.  One that waits for lx already (in a call, parked) must have
 * sent something without waiting for the answer before: the earlier
 * message keeps the thread's one place in lx, this one is dropped.
 */
static bool state_allows(struct thread *t)
{
	if (t->state == T_RUNNING || t->state == T_STARTING)
		return true;
	if (!t->proc->warned_state) {
		t->proc->warned_state = true;
		lx_log("lx: %s[%d]: thread %d sent a message while it waits for lx: dropped\n",
		       t->proc->comm, t->proc->pid, t->tid_linux);
	}
	return false;
}

#define EXC_MSG_WORDS 19                /* MR1-MR19 of a kernel exception message (abi.md) */

/* Everything but the common case of message() (below). */
static __attribute__((noinline)) void message_other(struct thread *t, L4_ThreadId_t from,
						    L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag);
	if (!t) {
		if (from == tty_reader_id())
			tty_message();
		else if (clock_is(from))
			clock_message();
		else if (netsrv_is_watch(from))
			netsrv_message(tag);    /* sockets' readiness changed (net/server.c) */
		else if (!drivers_supervise(from, tag))   /* a driver of lx's space died: */
			disk_supervise(from, tag);      /* restart it */
		return;                         /* a thread lx no longer knows: no answer */
	}
	if (t->is_sigthread && !(tag & (L4_TAG_REDIRECTED | L4_TAG_PROPAGATE))) {
		sigthread_message(t, label, tag);
		return;
	}
	if (!protocol_message(tag)) {
		protocol_violation(t, tag);
		return;
	}
	if (!state_allows(t))
		return;
	if (t->kick == KICK_COMING)
		t->kick = KICK_NONE;
	if (t->state == T_RUNNING)
		t->state = T_INCALL;
	if (label == LX_FAST_LABEL)
		fast_call(t);
	else if (label == LX_PURE_LABEL)
		fast_pure(t);
	else if (label == LX_LEAN_LABEL)
		fast_lean(t);
	else if (label == L4_LABEL_EXCEPTION)
		exception(t);
	else
		page_fault(t, L4_MR(1), L4_MR(2), (unsigned)(label & 7));
}

/*
 * The common cases first, inline in the loop: a fast call (long or short)
 * or a system call's trap from a thread running its own code passes every
 * check of message_other (exact tags: no flags).
 */
static inline void message(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	struct thread *t = thread_by_tid(from);
	void (*handle)(struct thread *) =
		tag == L4_TAG_MAKE(LX_FAST_LABEL, LX_FAST_WORDS, 0) ? fast_call :
		tag == L4_TAG_MAKE(LX_PURE_LABEL, LX_PURE_WORDS, 0) ? fast_pure :
		tag == L4_TAG_MAKE(LX_LEAN_LABEL, LX_LEAN_WORDS, 0) ? fast_lean :
		tag == L4_TAG_MAKE(L4_LABEL_EXCEPTION, EXC_MSG_WORDS, 0) ? exception : NULL;
	if (__builtin_expect(handle && t && t->state == T_RUNNING && !t->is_sigthread, 1)) {
		t->kick = t->kick == KICK_COMING ? KICK_NONE : t->kick;
		t->state = T_INCALL;
		handle(t);
		return;
	}
	message_other(t, from, tag);
}

/*
 * A short fast call: lx_quick's, then the message it gives back.  Only while
 * lx's receive has no timeout (the clock knows the earliest deadline, which
 * nothing changed since the loop asked): lx_quick's receives have none, and
 * nothing a quick call does changes a deadline.  And only with the trace off
 * and CPU sampling on, which only other messages change (a tick, a reply's
 * cpu_start).  Otherwise, as any message.
 */
static __attribute__((noinline)) void quick(L4_MsgTag_t tag, L4_ThreadId_t from)
{
	if (deadlines_stale || deadline_cached != clock_told || lx_trace || !cpu_busy) {
		message(from, tag);
		return;
	}
	struct quick_msg m = lx_quick(tag, from, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_NEVER));
	if (m.tag == LX_QUICK_AGAIN)
		return;
	if (L4_IpcFailed(m.tag))
		expire_deadlines(lx_now_us());
	else
		message(m.from, m.tag);
}

/*
 * lx's receives do not time out (the kernel's fastpath takes only those): the
 * clock thread sleeps until the earliest deadline and sends a tick (l4/clock.c).
 * A short fast call goes to lx_quick (l4/recv.S), which answers it and those
 * that follow it itself, and gives back the first message it does not answer.
 */
static void loop(void)
{
	for (;;) {
		if (retry_pending()) {
			reply_flush();
			retry_blocked();
		}
		L4_Word_t rcv = clock_update(next_deadline());
		L4_ThreadId_t from;
		L4_MsgTag_t tag;
		if (reply_to != L4_NILTHREAD) {
			L4_ThreadId_t to = reply_to;
			reply_to = L4_NILTHREAD;
			tag = L4_Ipc(to, L4_ANYTHREAD, L4_TIMEOUTS(L4_TIMEOUT_ZERO, rcv), &from);
		} else {
			tag = L4_Ipc(L4_NILTHREAD, L4_ANYTHREAD, L4_TIMEOUTS(0, rcv), &from);
		}
		if (L4_IpcFailed(tag)) {
			expire_deadlines(lx_now_us());
			continue;
		}
		if (tag != L4_TAG_MAKE(LX_FAST_LABEL, LX_FAST_WORDS, 0) &&     /* (the most common first) */
		    (tag == L4_TAG_MAKE(LX_PURE_LABEL, LX_PURE_WORDS, 0) ||
		     tag == L4_TAG_MAKE(LX_LEAN_LABEL, LX_LEAN_WORDS, 0)))
			quick(tag, from);
		else
			message(from, tag);
	}
}

/* --- start --- */

/*
 * Start a thread of lx's own space (tid, the next UTCB slots after lx's) at
 * ip on the given stack and priority; its local ID, how its messages name it.
 */
L4_ThreadId_t lx_thread_start(L4_ThreadId_t tid, void (*ip)(void), char *stack, size_t size,
			      L4_Word_t prio)
{
	L4_Word_t utcb = (L4_MyLocalId() & ~((1UL << ROOT_UTCB_AREA_LOG2) - 1)) +
			 UTCB_SIZE * (l4_thread_no(tid) - l4_thread_no(lx_id));
	if (!L4_ThreadControl(tid, lx_id, lx_id, lx_id, utcb))
		lx_panic("lx: cannot create thread %lx\n", tid);
	L4_SetMR(0, L4_TAG_MAKE(0, 2, 0));
	L4_SetMR(1, (L4_Word_t)ip);
	L4_SetMR(2, (L4_Word_t)stack + size - 8);
	if (L4_IpcFailed(L4_Send(tid)) || !L4_Set_Priority(tid, prio))
		lx_panic("lx: cannot start thread %lx\n", tid);
	return utcb + 0x200;                        /* a local ID is the UTCB pointer */
}

/* Map the page of physical memory at pa from sigma0 at va (for the boot information). */
static void *map_phys(u64 pa, u64 va)
{
	if (!pecan_sigma0_request(L4_FPAGE_MAKE(pa & ~0xfffUL, 12, 7), L4_FPAGE_MAKE(va, 12, 0)))
		return NULL;
	return (void *)(va + (pa & 0xfff));
}

struct mb_info { uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr; };
struct mb_mod { uint32_t start, end, string, reserved; };

#define BOOT_WINDOW 0x0000200000000000UL

/* The rest of the word of lx's command line that starts with key (into val), or false. */
static bool boot_value(const char *cmdline, const char *key, char *val, size_t max)
{
	size_t n = strlen(key);
	for (const char *s = cmdline; *s; s++) {
		if ((s != cmdline && s[-1] != ' ') || memcmp(s, key, n))
			continue;
		size_t i = 0;
		for (s += n; *s && *s != ' ' && i + 1 < max; s++)
			val[i++] = *s;
		val[i] = 0;
		return true;
	}
	return false;
}

static bool boot_option(const char *cmdline, const char *word)
{
	char rest[2];
	return boot_value(cmdline, word, rest, sizeof(rest)) && !rest[0];
}

/*
 * The boot string at physical pa (lx's command line) into buf, at most max
 * bytes with the NUL: the string may run into the next page, which is mapped
 * too (max is at most a page).
 */
static void copy_boot_string(u64 pa, u64 window, char *buf, size_t max)
{
	const char *s = map_phys(pa, window);
	size_t in_page = 0x1000 - (pa & 0xfff), n = 0;
	bool next = map_phys(pa + in_page, window + 0x1000) != NULL;
	size_t avail = next ? in_page + 0x1000 : in_page;
	for (; s && n + 1 < max && n < avail && s[n]; n++)
		buf[n] = s[n];
	buf[n] = 0;
	if (s && n + 1 == max && n < avail && s[n])
		lx_log("lx: the command line is longer than %lu bytes: cut\n", max - 1);
}

/*
 * The boot modules after sigma0 and lx: lx's command line, then the
 * file-system archives, loaded into a RAM root unless lx.root=disk asks
 * for the disk's ext2 file system as the root.
 */
static void load_modules(char *cmdline, size_t cmdmax)
{
	u64 mbi_pa = *(L4_Word_t *)((char *)__L4_KIP + KIP_OFF_BOOT_INFO);
	struct mb_info *mb = map_phys(mbi_pa, BOOT_WINDOW);
	if (!mb)
		lx_panic("lx: cannot map the boot information\n");
	u64 window = BOOT_WINDOW + 0x1000;
	struct mb_mod *mods = map_phys(mb->mods_addr, window);
	window += 0x1000;
	if (!mods || mb->mods_count < 2)
		lx_panic("lx: no boot modules\n");
	struct mb_mod m[16];
	unsigned n = mb->mods_count < 16 ? mb->mods_count : 16;
	memcpy(m, mods, n * sizeof(m[0]));
	copy_boot_string(m[1].string, window, cmdline, cmdmax);
	window += 0x2000;
	if (boot_option(cmdline, "lx.root=disk"))
		return;
	fs_init();
	for (unsigned i = 2; i < n; i++) {
		u64 first = m[i].start & ~0xfffUL, base = window;
		for (u64 pa = first; pa < m[i].end; pa += 0x1000, window += 0x1000)
			if (!map_phys(pa, window))
				lx_panic("lx: cannot map boot module %u\n", i);
		int err = fs_load_cpio((void *)(base + (m[i].start & 0xfff)), m[i].end - m[i].start);
		if (err)
			lx_log("lx: boot module %u is no cpio archive (%d)\n", i, err);
		window += 0x1000;
	}
}

/* The disk's ext2 file system as "/" (lx.root=disk). */
static void mount_disk_root(void)
{
	int err;
	struct super *sb = ext2_mount_disk(&err);
	if (!sb)
		lx_panic("lx: lx.root=disk: no ext2 file system on the disk (error %d)\n", err);
	vfs_mount_root(sb);
}

/* lx.disk=PATH: the disk's ext2 on PATH of the RAM root; a disk lx refuses is only logged. */
static void mount_disk_at(const char *cmdline)
{
	char path[128];
	int err;
	if (!boot_value(cmdline, "lx.disk=", path, sizeof(path)))
		return;
	struct super *sb = ext2_mount_disk(&err);
	if (sb && (err = vfs_mount(path, sb)) == 0)
		return;
	lx_log("lx: lx.disk=%s: not mounted (error %d)\n", path, err);
}

/* The directories every root has, then devfs on /dev, procfs on /proc, sysfs on
 * /sys, tmpfs on /tmp and /dev/shm. */
static void mount_all(bool ram_root)
{
	static const char *const dirs[] = { "dev", "proc", "tmp", "sys", "bin", "sbin", "usr", "etc" };
	static const struct { const char *path; struct super *(*make)(void); } mnt[] = {
		{ "/dev", devfs_new }, { "/proc", procfs_new }, { "/sys", sysfs_new },
		{ "/tmp", tmpfs_new }, { "/dev/shm", tmpfs_new },
	};
	struct inode *ip;
	for (unsigned i = 0; i < (ram_root ? 8 : 4); i++)
		if (!fs_create(fs_root(), dirs[i], LX_S_IFDIR | (i == 2 ? 01777 : 0755), 0, &ip))
			fs_put(ip);
	for (unsigned i = 0; i < sizeof(mnt) / sizeof(mnt[0]); i++) {
		struct super *sb = mnt[i].make();
		int r = sb ? vfs_mount(mnt[i].path, sb) : -LX_ENOMEM;
		if (r < 0)
			lx_panic("lx: cannot mount %s (error %d)\n", mnt[i].path, r);
	}
}

void lx_power_off(int code)
{
	vfs_sync();             /* ext2's dirty blocks reach the disk (fs/ext2.c, writeback) */
	reply_flush();
	pecan_kdb_power_off((L4_Word_t)code);
	for (;;)
		;
}

void lx_init_exited(int status)
{
	int code = (status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff;
	lx_log("lx: init exited with status %d; powering off\n", code);
	lx_power_off(code);
}

static void now_stamp(struct lx_timespec *ts)
{
	u64 us = lx_now_us();
	ts->tv_sec = (int64_t)(LX_EPOCH_AT_BOOT + us / 1000000);
	ts->tv_nsec = (int64_t)(us % 1000000) * 1000;
}

int main(void)
{
	lx_id = L4_MyGlobalId();
	time_init();
	u64 me = l4_thread_no(lx_id);
	struct driver_clients printers = { 1, { { me + NETSRV_FIRST_TNO, me + NETSRV_LAST_TNO } }, 0 };
	if (!drivers_start_for(l4_global_id(me + 1, 1), l4_global_id(me + 2, 1), &printers))
		lx_panic("lx: cannot start the drivers\n");
	netsrv_start_early();                   /* the NIC's memory comes before the pool takes all */
	pool_init();
	stub_page = page_alloc();
	memcpy(stub_page, lx_stub_start, (size_t)(lx_stub_end - lx_stub_start));
	if (lx_stub_signal - lx_stub_start != STUB_SIGNAL_OFF)
		lx_panic("lx: the stub's signal entry moved\n");
	fast_init(stub_page);
	vdso_init();
	signal_init();
	fs_now = now_stamp;
	static char cmdline[LX_CMDLINE_MAX];
	load_modules(cmdline, sizeof(cmdline));
	bool ram_root = fs_root() != NULL;
	if (!ram_root)
		mount_disk_root();
	mount_all(ram_root);
	if (ram_root)
		mount_disk_at(cmdline);
	tty_init(l4_global_id(l4_thread_no(lx_id) + 3, 1));
	clock_init(l4_global_id(l4_thread_no(lx_id) + 4, 1));
	netsrv_start(cmdline);
	lx_log("lx: Linux personality on Pecan: %lu MiB (%lu KiB) for processes, kernel pool %lu of %lu KiB "
	       "free\n", pool_bytes() >> 20, pool_bytes() >> 10, lx_kip_word(KIP_OFF_KMEM_FREE) >> 10,
	       lx_kip_word(KIP_OFF_KMEM_SIZE) >> 10);
	if (!start_init(cmdline))
		lx_panic("lx: cannot start init\n");
	loop();
	return 0;
}
