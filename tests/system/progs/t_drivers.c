// SPDX-License-Identifier: MIT
// The user-level console driver and timer service, started as the default root task starts them.
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"
#include "../../../lib/drivers/client.h"
#include "../../../lib/test/test.h"
#include "../../../lib/test/tthread.h"
#include "../../../servers/drivers/drivers.h"
#include <l4/drivers.h>

static int started;

static int start(void)
{
	if (!started) {
		L4_Word_t n = l4_thread_no(L4_MyGlobalId());
		started = drivers_start(l4_global_id(n + 1, 1), l4_global_id(n + 2, 1));
	}
	return started;
}

static int same(const char *a, const char *b, long n)
{
	for (long i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

TEST_CASE("drivers.console_write", "the console driver writes what it is sent and says how much")
{
	EXPECT(start(), "drivers did not start: %lx", L4_ErrorCode());
	static const char msg[] = "drivers: written by the console driver\n";
	EXPECT(console_write(msg, sizeof(msg) - 1) == (long)sizeof(msg) - 1, "write failed: %lx", L4_ErrorCode());
}

static char rbuf[64];
static volatile long rgot = -2;

static void reader(void)
{
	rgot = console_read(rbuf, sizeof(rbuf));
	tt_park();
}

/*
 * In loopback the UART sends nothing out: what the driver writes comes back
 * as input and raises the receive interrupt.  So a printf that a reader,
 * waiting in the driver beforehand, gets back (and that never shows on the
 * console, which the harness checks) went through the driver, and the
 * interrupt is what answered the waiting read.
 */
TEST_CASE("drivers.printf_through_driver", "printf goes through the driver; a waiting read is answered on the receive interrupt")
{
	EXPECT(start(), "drivers did not start");
	L4_ThreadId_t r = tt_id(0, 1);
	EXPECT(tt_start_local(r, reader), "start the reader");
	L4_Set_Priority(r, 254);
	L4_Sleep(1000);                      /* the reader now waits in the driver */
	EXPECT(rgot == -2, "the read returned before any input: %ld", rgot);
	EXPECT(console_loopback(1), "loopback on failed");
	printf("LOOPBACK-MARKER %d\n", 42);
	TT_WAIT(rgot != -2, 200);
	EXPECT(console_loopback(0), "loopback off failed");    /* before any report */
	EXPECT(rgot == 19 && same(rbuf, "LOOPBACK-MARKER 42\n", 19), "read back %ld bytes: %.19s", rgot, rbuf);
	tt_kill(r);
}

TEST_CASE("drivers.bad_buffer", "with zero xfer timeouts a write from an unmapped buffer fails for the client; the driver serves on")
{
	EXPECT(start(), "drivers did not start");
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TIMEOUT_ZERO, L4_TIMEOUT_ZERO));
	EXPECT(console_write((const char *)0x7ff000000000UL, 16) < 0, "an unmapped buffer was written");
	EXPECT(L4_IPC_CODE(L4_ErrorCode()) == L4_IPC_XFER_TO_OWN, "ErrorCode %lx", L4_ErrorCode());
	EXPECT(console_write((const char *)0xffffffff80100000UL, 16) < 0, "kernel memory was written");
	L4_SetTcr(UTCB_XFER_TIMEOUTS, 0);
	static const char ok[] = "drivers: still serving\n";
	EXPECT(console_write(ok, sizeof(ok) - 1) == (long)sizeof(ok) - 1, "the driver is broken afterwards");
}

TEST_CASE("drivers.bad_request", "unknown or malformed requests get an error reply")
{
	EXPECT(start(), "drivers did not start");
	L4_SetMR(0, L4_TAG_MAKE(0x77, 0, 0));
	L4_MsgTag_t tag = L4_Call(pecan_console);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_MR(1) == DRIVER_ERR_REQUEST,
	       "console: tag %lx", tag);
	L4_SetMR(0, L4_TAG_MAKE(TIMER_SLEEP, 3, 0));
	tag = L4_Call(pecan_timer);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == DRIVER_ERROR, "timer: tag %lx", tag);
}

/* The kernel tick (KIP ClockInfo; the timer service's deadlines are its ticks), and what the
 * replies cost on top, in the guest's icount clock: a wake-up comes at the first tick due. */
#define TICK_US 1000
#define IPC_US  100

TEST_CASE("drivers.timer_sleep", "sleeps through the timer service last as long as asked, to the tick")
{
	EXPECT(start(), "drivers did not start");
	for (L4_Word_t us = 2000; us <= 32000; us *= 4) {
		L4_Word_t t0 = L4_SystemClock();
		EXPECT(timer_sleep(us), "sleep failed");
		L4_Word_t dt = L4_SystemClock() - t0;
		EXPECT(dt >= us && dt < us + TICK_US + IPC_US, "asked %lu us, slept %lu", us, dt);
	}
}

TEST_CASE("drivers.timer_alarm", "alarms arrive in deadline order with their cookies")
{
	EXPECT(start(), "drivers did not start");
	L4_Word_t t0 = L4_SystemClock();
	EXPECT(timer_alarm(20000, 0xb) && timer_alarm(5000, 0xa), "alarm requests failed");
	for (L4_Word_t want = 0xa; want <= 0xb; want++) {
		L4_ThreadId_t from;
		L4_MsgTag_t tag = L4_Receive_Timeout(pecan_timer, L4_TimePeriod(100000), &from);
		EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == TIMER_ALARM_FIRED, "no alarm: %lx", L4_ErrorCode());
		EXPECT(L4_MR(1) == want, "cookie %lx, want %lx", L4_MR(1), want);
		L4_Word_t dt = L4_SystemClock() - t0, due = want == 0xa ? 5000 : 20000;
		EXPECT(dt >= due && dt < due + TICK_US + IPC_US, "alarm %lx after %lu us", want, dt);
	}
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
