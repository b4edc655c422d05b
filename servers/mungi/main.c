// SPDX-License-Identifier: MIT
// The Mungi server's start and its one loop: every request, page fault and
// exception of every Mungi task arrives here as IPC and is answered from
// here, or parked until it can be.
#include "mungi.h"
#include "../../lib/c/string.h"
#include "../../lib/fmt/fmt.h"
#include "../../lib/drivers/client.h"
#include "../drivers/drivers.h"
#include "../disk/disk.h"
#include <l4/drivers.h>

static bool test_crash;   /* test_crash=1: MUNGI_TEST_CRASH kills the server (tests only) */

L4_ThreadId_t mungi_id;
u64 now, dt = 100000;
u64 stats[MUNGI_NSTATS];
struct mungi_rt rt;

L4_ThreadId_t mungi_pending;
static u64 tick_us, next_tick;
static u64 ckpt_us, next_ckpt;          /* periodic checkpoints (ckpt_ms=), 0: none */

void mungi_die(void)
{
	pecan_kdb_power_off(99);
	for (;;)
		;
}

/* --- composing and sending --- */

bool send_now(L4_ThreadId_t to)
{
	return !L4_IpcFailed(L4_Ipc(to, L4_NILTHREAD, L4_TIMEOUTS(L4_TIMEOUT_ZERO, 0), NULL));
}

void mungi_flush(void)
{
	L4_ThreadId_t to = mungi_pending;
	mungi_pending = L4_NILTHREAD;
	send_now(to);
}

void reply_twice(L4_ThreadId_t to)
{
	printf("mungi: two replies at once (to %lx and %lx); the first is lost\n", mungi_pending, to);
}

/* --- the timer's tick: validations expire, stale addresses come free, checkpoints fall due --- */

static void periodic_checkpoint(void)
{
	static long last_err;
	next_ckpt = now + ckpt_us;
	long r = pstore_checkpoint();
	if (r < 0 && r != last_err)
		printf("mungi: periodic checkpoint failed (%ld); the last one stands\n", -r);
	last_err = r < 0 ? r : 0;
}

static void tick(void)
{
	now = L4_SystemClock();
	next_tick = now + tick_us;
	domains_tick();
	if (ckpt_us && now >= next_ckpt)
		periodic_checkpoint();
	mr_set(0, 0);
	timer_alarm(tick_us, 0);
}

/* A confined task's IPC, redirected here: refused, and answered as its receiver where the kernel lets us. */
static void refused(struct mthread *t)
{
	L4_ThreadId_t intended = L4_Tcr(UTCB_INTENDED_RECV);
	if (pdx_redirected(t, intended)) {
		stats[MUNGI_STAT_REFUSED_IPC]++;
		return;
	}
	if (stats[MUNGI_STAT_REFUSED_IPC]++ < 8)
		printf("mungi: task %lu (confined) sent IPC to %lx: refused\n", t->dom->id, intended);
	L4_SetTcr(UTCB_VIRTUAL_SENDER, intended);
	mr_set(0, L4_TAG_MAKE(MUNGI_ECONFINED, 0, 0) | L4_TAG_PROPAGATE);
	send_now(t->tid);
}

static void bad_request(struct mthread *t)
{
	stats[MUNGI_STAT_BAD_REQUESTS]++;
	reply_tag(MUNGI_ENOSYS, 0);
	reply_to(t->tid);
}

static void request(struct mthread *t, u64 label)
{
	switch (label) {
	case MUNGI_NULL: case MUNGI_SELF: case MUNGI_CONFIG: case MUNGI_STATS: case MUNGI_TASK_CREATE:
	case MUNGI_TASK_EXIT: case MUNGI_TASK_WAIT: case MUNGI_TASK_KILL: case MUNGI_THREAD_CREATE:
	case MUNGI_THREAD_EXIT: case MUNGI_THREAD_KILL:
		task_requests(t, label);
		break;
	case MUNGI_OBJ_CREATE: case MUNGI_OBJ_DELETE: case MUNGI_OBJ_SURVIVE: case MUNGI_OBJ_INFO:
	case MUNGI_CAP_REGISTER: case MUNGI_CAP_REVOKE: case MUNGI_CHECKPOINT:
		obj_requests(t, label);
		break;
	case MUNGI_APD_ADD: case MUNGI_APD_ADD_HANDLER: case MUNGI_APD_REMOVE: case MUNGI_APD_LOCK:
	case MUNGI_APD_MAKE:
		domain_requests(t, label);
		break;
	case MUNGI_PDX_CALL: case MUNGI_PDX_EMPTY: case MUNGI_PDX_APD:
		pdx_call(t, label);
		break;
	case MUNGI_PDX_READY: pdx_ready(t); break;
	case MUNGI_PDX_RET: pdx_return(t, false); break;
	case MUNGI_PDX_ABORT: pdx_return(t, true); break;
	case MUNGI_UPCALL_RESULT: upcall_result(t); break;
	case MUNGI_SEM_CREATE: case MUNGI_SEM_P: case MUNGI_SEM_V: case MUNGI_SEM_DELETE:
		sem_requests(t, label);
		break;
	case MUNGI_TEST_CRASH:
		if (!test_crash)
			bad_request(t);
		else
			driver_test_crash();     /* a wild pointer: the server's fault goes to sigma0, which refuses it */
		break;
	case MUNGI_ACCT_CREATE: case MUNGI_ACCT_INFO: case MUNGI_ACCT_DEPOSIT: case MUNGI_OT_ENUM:
		bank_requests(t, label);
		break;
	case MUNGI_SET_PAGER: case MUNGI_VM_MAP: case MUNGI_VM_FLUSH: case MUNGI_FAULT_INFO:
		vm_requests(t, label);
		break;
	default:
		bad_request(t);
	}
}

/*
 * A sender that is no thread of a Mungi task (docs/mungi.md, "Who may call
 * the server"): MUNGI_EPERM at once, zero timeout (a send that waits for no
 * reply loses it), and one console line per sender (the last few remembered).
 */
static void stranger(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	static L4_ThreadId_t seen[16];
	static unsigned next;
	int known = 0;
	for (unsigned i = 0; i < 16; i++)
		known |= seen[i] == from;
	if (!known) {
		seen[next++ % 16] = from;
		printf("mungi: refusing label %lx from %lx (no Mungi thread)\n", L4_TAG_LABEL(tag), from);
	}
	mr_set(0, L4_TAG_MAKE(MUNGI_EPERM, 0, 0));
	send_now(from);
}

static void message(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	if (l4_is_local_id(from)) {     /* a thread of ours: the timer's alarm, or a driver's death */
		if (L4_TAG_LABEL(tag) == TIMER_ALARM_FIRED)
			tick();
		else if (drivers_supervise(from, tag))   /* we are the drivers' pager: restart a dead one */
			timer_alarm(tick_us, 0);         /* the tick, in case it was the timer that died */
		else
			disk_supervise(from, tag);
		return;
	}
	struct mthread *t = thread_of(from);
	if (!t)
		return stranger(from, tag);
	u64 label = L4_TAG_LABEL(tag);
	if (tag & L4_TAG_REDIRECTED)
		refused(t);
	else if ((label >> 4) == (L4_LABEL_PAGEFAULT >> 4))
		page_fault(t, L4_MR(1), L4_MR(2), (u32)(label & 7));
	else if (label == L4_LABEL_EXCEPTION)
		exception(t);
	else if (t->state == T_RUN || t->state == T_IDLE)
		t->in_fault_path = false, request(t, label);
}

static void loop(void)
{
	for (u64 n = 0;; n++) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag;
		if (mungi_pending) {
			L4_ThreadId_t to = mungi_pending;
			mungi_pending = L4_NILTHREAD;
			tag = L4_Ipc(to, L4_ANYTHREAD, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_NEVER), &from);
		} else {
			tag = L4_Wait(&from);
		}
		if (L4_IpcFailed(tag))
			continue;
		message(from, tag);
		/* a lost tick message must not stop time: look at the clock now and then */
		if (!(n & 4095) && L4_SystemClock() > next_tick + 2 * tick_us) {
			mr_set(0, 0);
			tick();
		}
	}
}

const char *server_option(const char *args, const char *name)
{
	u64 n = strlen(name);
	for (const char *s = args; s && *s; s++)
		if ((s == args || s[-1] == ' ') && !memcmp(s, name, n) && s[n] == '=')
			return s + n + 1;
	return NULL;
}

/* A number option's value, or 0. */
static u64 option(const char *args, const char *name)
{
	u64 v = 0;
	for (const char *s = server_option(args, name); s && *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (u64)(*s - '0');
	return v;
}

static void options(const char *args)
{
	test_crash = option(args, "test_crash") == 1;
	if (option(args, "dt_ms"))
		dt = option(args, "dt_ms") * 1000;
	tick_us = dt / 4 > 1000 ? dt / 4 : 1000;
}

int main(void)
{
	static char args[512];
	mungi_id = L4_MyGlobalId();
	if (!drivers_start(l4_global_id(l4_thread_no(mungi_id) + 1, 1),
			   l4_global_id(l4_thread_no(mungi_id) + 2, 1)))
		mungi_panic("mungi: cannot start the drivers\n");
	pool_init();
	pages_init();
	boot_args(args, sizeof(args));
	options(args);
	now = L4_SystemClock();
	pstore_init(args);
	objects_init();
	/* periodic checkpoints only where they keep something */
	ckpt_us = pstore == &memstore ? 0 : option(args, "ckpt_ms") * 1000;
	next_ckpt = now + ckpt_us;
	printf("mungi: single address space on Pecan: memory from sigma0 as needed, dt %lu ms\n",
		  dt / 1000);
	if (ckpt_us)
		printf("mungi: a checkpoint every %lu ms\n", ckpt_us / 1000);
	image_load(args);
	tick();
	loop();
	return 0;
}
