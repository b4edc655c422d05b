// SPDX-License-Identifier: MIT
/*
 * Fault isolation of the user-level drivers (docs/architecture.md, "Trust
 * model"): while a worker thread keeps calling a driver, the driver crashes
 * (a wild pointer, through the test-only TEST_CRASH request) or its root task
 * deletes it.  The crash reaches its supervisor (the thread that started it,
 * its pager) as a page fault; the supervisor deletes it.  The worker's calls
 * must then fail at once, not hang; the other drivers go on serving; and the
 * driver, started again, serves the same clients as before.
 */
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"
#include "../../../lib/drivers/client.h"
#include "../../../lib/disk/client.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../servers/drivers/drivers.h"
#include "../../../servers/disk/disk.h"
#include <l4/drivers.h>
#include <l4/disk.h>

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
static int started;

static int start(void)
{
	if (!started) {
		L4_Word_t n = l4_thread_no(L4_MyGlobalId());
		struct driver_clients c = { .test_requests = 1 };
		started = drivers_start_for(l4_global_id(n + 1, 1), l4_global_id(n + 2, 1), &c) &&
			  disk_start_for(l4_global_id(n + 3, 1), &c) ? 1 : -1;
	}
	return started > 0;
}

/* The worker: calls one driver in a loop, counting successes and failures and timing the slowest failure. */
static volatile L4_Word_t w_which, w_ok, w_fail, w_slowest_fail, w_last_err;

static long work_once(void)
{
	static char sector[DISK_SECTOR];
	if (w_which == 0)
		return console_write("", 0) == 0 ? 0 : -1;
	if (w_which == 1)
		return timer_sleep(20000) ? 0 : -1;
	return disk_read(5, 1, sector);
}

static void worker(void)
{
	for (;;) {
		L4_Word_t t0 = L4_SystemClock();
		long r = work_once();
		L4_Word_t dt = L4_SystemClock() - t0;
		if (r == 0) {
			w_ok++;
			continue;
		}
		w_last_err = (L4_Word_t)r;
		if (dt > w_slowest_fail)
			w_slowest_fail = dt;
		w_fail++;
		L4_Sleep(1000);          /* a dead driver fails at once: do not spin */
	}
}

static L4_ThreadId_t start_worker(L4_Word_t which)
{
	L4_ThreadId_t w = fresh();
	w_which = which;
	w_ok = w_fail = w_slowest_fail = w_last_err = 0;
	if (!tt_start_local(w, worker))
		return L4_NILTHREAD;
	TT_WAIT(w_ok >= 3, 3000);
	return w;
}

/* Make driver d crash; 1 if its page fault at DRIVER_CRASH_ADDR reached us, its supervisor. */
static int crash(L4_ThreadId_t d)
{
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_TEST_CRASH, 0, 0));
	L4_Ipc(d, L4_NILTHREAD, L4_TIMEOUTS(L4_TimePeriod(1000000), 0), 0);
	L4_MsgTag_t tag = L4_Receive_Timeout(d, L4_TimePeriod(2000000), 0);
	return !L4_IpcFailed(tag) && (L4_TAG_LABEL(tag) >> 4) == (L4_LABEL_PAGEFAULT >> 4) &&
	       (L4_MR(1) & ~0xfffUL) == (DRIVER_CRASH_ADDR & ~0xfffUL);
}

/* After the driver's death the worker's calls must fail, each at once; 0 and why if not. */
static int fails_fast(const char **why)
{
	L4_Word_t before = w_fail;
	TT_WAIT(w_fail >= before + 3, 2000);
	*why = w_fail < before + 3 ? "the worker's calls do not fail (they hang)" :
	       w_slowest_fail > 1000000 ? "a failing call took over a second" : 0;
	return *why == 0;
}

static int serves_again(void)
{
	L4_Word_t before = w_ok;
	TT_WAIT(w_ok >= before + 3, 3000);
	return w_ok >= before + 3;
}

TEST_CASE("isolate.console_crash", "the console driver crashes: its supervisor gets the fault, clients get errors at once, the others serve, a restart serves again")
{
	const char *why;
	EXPECT(start(), "drivers did not start");
	L4_ThreadId_t w = start_worker(0);
	EXPECT(w && w_ok >= 3, "the worker does not get through");
	EXPECT(crash(pecan_console), "no page fault from the crashed console driver: %lx", L4_ErrorCode());
	drivers_thread_kill(pecan_console);
	EXPECT(fails_fast(&why), "%s (fails %lu, slowest %lu us)", why, w_fail, w_slowest_fail);
	EXPECT(timer_sleep(1000) && disk_info(0, 0) == 0, "the timer or the disk died with the console");
	printf("isolate: this line went to the kernel debugger while the console driver was dead\n");
	EXPECT(drivers_restart_serial(), "restart: %lx", L4_ErrorCode());
	EXPECT(serves_again(), "the restarted console does not serve the worker");
	tt_kill(w);
	printf("isolate: and this one through the restarted console driver\n");
}

TEST_CASE("isolate.timer_killed", "the timer service is deleted while a client sleeps in it: the sleep fails at once; a restart serves again")
{
	const char *why;
	EXPECT(start(), "drivers did not start");
	L4_ThreadId_t w = start_worker(1);
	EXPECT(w && w_ok >= 3, "the worker does not get through");
	L4_Sleep(5000);                      /* the worker is inside a 20 ms sleep */
	drivers_thread_kill(pecan_timer);
	EXPECT(fails_fast(&why), "%s (fails %lu, slowest %lu us)", why, w_fail, w_slowest_fail);
	static const char msg[] = "isolate: the console serves while the timer is dead\n";
	EXPECT(console_write(msg, sizeof(msg) - 1) > 0 && disk_info(0, 0) == 0, "the console or the disk died");
	EXPECT(drivers_restart_timer(), "restart: %lx", L4_ErrorCode());
	EXPECT(serves_again(), "the restarted timer does not serve the worker");
	tt_kill(w);
}

TEST_CASE("isolate.disk_crash", "the disk driver crashes mid-workload: reads fail with DISK_ERR_IPC at once; restarted, it reads back what was written")
{
	const char *why;
	static char pattern[DISK_SECTOR], back[DISK_SECTOR];
	EXPECT(start(), "drivers did not start");
	for (int i = 0; i < DISK_SECTOR; i++)
		pattern[i] = (char)(i * 7 + 1);
	EXPECT(disk_write(5, 1, pattern) == 0 && disk_flush() == 0, "write the pattern");
	L4_ThreadId_t w = start_worker(2);
	EXPECT(w && w_ok >= 3, "the worker does not get through");
	EXPECT(crash(pecan_disk), "no page fault from the crashed disk driver: %lx", L4_ErrorCode());
	drivers_thread_kill(pecan_disk);
	EXPECT(fails_fast(&why), "%s (fails %lu, slowest %lu us)", why, w_fail, w_slowest_fail);
	EXPECT((long)w_last_err == -DISK_ERR_IPC, "the worker's error: %ld", (long)w_last_err);
	EXPECT(timer_sleep(1000), "the timer died with the disk driver");
	EXPECT(disk_restart(), "restart: %lx", L4_ErrorCode());
	EXPECT(serves_again(), "the restarted disk driver does not serve the worker");
	tt_kill(w);
	EXPECT(disk_read(5, 1, back) == 0, "read after the restart");
	for (int i = 0; i < DISK_SECTOR; i++)
		EXPECT(back[i] == pattern[i], "byte %d differs after the restart", i);
}

/* Crash driver d and hand its fault to the supervisor helpers, as a root task's message loop does. */
static int crash_supervised(L4_ThreadId_t d)
{
	L4_ThreadId_t from;
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_TEST_CRASH, 0, 0));
	L4_Ipc(d, L4_NILTHREAD, L4_TIMEOUTS(L4_TimePeriod(1000000), 0), 0);
	L4_MsgTag_t tag = L4_Ipc(L4_NILTHREAD, L4_ANYLOCALTHREAD, L4_TIMEOUTS(0, L4_TimePeriod(2000000)), &from);
	return !L4_IpcFailed(tag) && l4_is_local_id(from) &&
	       (drivers_supervise(from, tag) || disk_supervise(from, tag));
}

TEST_CASE("isolate.supervised", "drivers_supervise and disk_supervise restart a crashed console, timer and disk driver from the fault message")
{
	EXPECT(start(), "drivers did not start");
	for (L4_Word_t which = 0; which < 3; which++) {
		L4_ThreadId_t w = start_worker(which);
		EXPECT(w && w_ok >= 3, "worker %lu does not get through", which);
		L4_ThreadId_t d = which == 0 ? pecan_console : which == 1 ? pecan_timer : pecan_disk;
		EXPECT(crash_supervised(d), "driver %lu: no fault, or the supervisor did not know it", which);
		EXPECT(serves_again(), "driver %lu does not serve the worker after the restart", which);
		tt_kill(w);
	}
}

TEST_CASE("isolate.no_test_requests", "a driver started without test requests treats TEST_CRASH as a malformed request")
{
	EXPECT(start(), "drivers did not start");
	disk_clients.test_requests = 0;      /* the disk driver reads its clients afresh each request */
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_TEST_CRASH, 0, 0));
	L4_MsgTag_t tag = L4_Call(pecan_disk);
	disk_clients.test_requests = 1;
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_MR(1) == DRIVER_ERR_REQUEST,
	       "tag %lx MR1 %lx", tag, L4_MR(1));
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
