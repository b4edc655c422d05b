// SPDX-License-Identifier: MIT
/*
 * Hostile clients of sigma0 and of the user-level drivers (docs/architecture.md,
 * "Trust model"): reserved ports, memory that is not conventional RAM, the
 * -1001 extension from the wrong threads, every driver label from a foreign
 * space, a string item whose page faults to a pager that never answers, and
 * one client taking every timer slot.  Each attack must get an error (or no
 * answer where the protocol says so), and the servers must go on serving.
 *
 * Threads: this root task's first thread runs the cases; the drivers are
 * threads n+1 (console), n+2 (timer) and n+3 (disk); "strangers" run in
 * spaces of their own (paged by the test pager, which maps our pages, so
 * they share our globals); FRIEND_SLOT is a foreign thread the drivers were
 * told to serve.
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
#include <l4/sigma0.h>

#define FRIEND_SLOT  40          /* tt_id(40): named to the drivers at start */
#define ADMIT_SLOT   41          /* tt_id(41): admitted to sigma0 by one case */
#define PAGE         4096UL

static int slot;
static L4_ThreadId_t fresh(void) { return tt_id(slot++, 1); }
static L4_ThreadId_t sigma0(void) { return l4_global_id(L4_USER_BASE, 1); }
static L4_ThreadId_t drv[3];     /* console, timer, disk */

static int started;

static int start(void)
{
	if (started)
		return started > 0;
	L4_Word_t n = l4_thread_no(L4_MyGlobalId()), f = l4_thread_no(tt_id(FRIEND_SLOT, 1));
	struct driver_clients c = { .nranges = 1, .range = { { f, f } } };
	drv[0] = l4_global_id(n + 1, 1);
	drv[1] = l4_global_id(n + 2, 1);
	drv[2] = l4_global_id(n + 3, 1);
	started = drivers_start_for(drv[0], drv[1], &c) && disk_start_for(drv[2], &c) ? 1 : -1;
	return started > 0;
}

/* ---- sigma0 ---- */

static L4_Word_t ask_ports(L4_Word_t first, L4_Word_t log2)
{
	return pecan_sigma0_request(L4_IO_FPAGE(first, log2, 7), L4_COMPLETE_SPACE);
}

TEST_CASE("hostile.sigma0_reserved_ports", "sigma0 refuses the PIC, PIT, keyboard, CMOS, DMA, reset and isa-debug-exit ports, even to the root task")
{
	static const L4_Word_t ports[][2] = {
		{ 0x20, 1 }, { 0xa0, 1 }, { 0x40, 2 }, { 0x60, 0 }, { 0x64, 0 }, { 0x70, 1 },
		{ 0x00, 4 }, { 0x80, 4 }, { 0xc0, 5 }, { 0x92, 0 }, { 0xf4, 2 }, { 0x00, 10 },
	};
	for (unsigned i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		EXPECT(ask_ports(ports[i][0], ports[i][1]) == 0, "sigma0 gave ports %lx/%lu",
		       ports[i][0], 1UL << ports[i][1]);
	/* the check can pass: an ordinary free port (LPT1's) is granted */
	EXPECT(ask_ports(0x378, 3) != 0, "sigma0 refused the free ports 0x378-0x37f");
}

/* The highest end (exclusive) of a conventional-memory descriptor below 1 GiB. */
static L4_Word_t conventional_top(void)
{
	const L4_Word_t *kip = __L4_KIP;
	L4_Word_t info = kip[KIP_OFF_MEMORY_INFO / 8], n = info & 0xffffffff, top = 0;
	const L4_Word_t *d = (const L4_Word_t *)((const char *)kip + (info >> 32));
	for (L4_Word_t i = 0; i < n; i++, d += 2) {
		L4_Word_t end = (d[1] | 0x3ff) + 1;
		if ((d[0] & 0xf) == 1 && !(d[0] & 0x200) && end <= (1UL << 30) && end > top)
			top = end;
	}
	return top;
}

TEST_CASE("hostile.sigma0_not_ram", "sigma0 refuses page 0, the VGA/BIOS hole and the firmware above the top of RAM")
{
	static const L4_Word_t pages[] = { 0, 0xa0000, 0xb8000, 0xc0000, 0xf0000, 0xff000 };
	for (unsigned i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(pages[i], 12, 7), L4_COMPLETE_SPACE) == 0,
		       "sigma0 gave the page at %lx", pages[i]);
	L4_Word_t top = conventional_top();
	EXPECT(top > 0x200000, "no conventional memory in the KIP: top %lx", top);
	if (top < (1UL << 30))
		EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(top, 12, 7), L4_COMPLETE_SPACE) == 0,
		       "sigma0 gave the page above the top of RAM, %lx", top);
	/* the check can pass: a conventional page below the top is granted */
	L4_Word_t ok = (top - 0x100000) & ~(PAGE - 1);
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(ok, 12, 7), L4_COMPLETE_SPACE) != 0,
	       "sigma0 refused conventional page %lx", ok);
}

/* -1001, MR1 = 2 (dump), MR2 = 1 (reply): the result of a call that waits 200 ms. */
static L4_MsgTag_t ext_dump(void)
{
	L4_SetMR(0, L4_TAG_MAKE(SIGMA0_LABEL_EXT, 2, 0));
	L4_SetMR(1, SIGMA0_EXT_DUMP);
	L4_SetMR(2, 1);
	return L4_Ipc(sigma0(), sigma0(), L4_TIMEOUTS(L4_TimePeriod(200000), L4_TimePeriod(200000)), 0);
}

static volatile L4_Word_t r_page, r_ports, r_ext, r_boot, r_done;

/* What a stranger (or a not yet admitted thread) asks of sigma0; results in r_*. */
static void sigma0_attacker(void)
{
	r_page = pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), L4_COMPLETE_SPACE);
	r_ports = ask_ports(0x2e8, 3);
	L4_MsgTag_t tag = ext_dump();
	r_ext = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	r_boot = pecan_sigma0_request(L4_FPAGE_MAKE(((const L4_Word_t *)__L4_KIP)[KIP_OFF_BOOT_INFO / 8] & ~(PAGE - 1),
						 12, 4), L4_COMPLETE_SPACE);
	r_done = 1;
	tt_park();
}

static void attack_sigma0(L4_ThreadId_t t, int own_space)
{
	r_page = r_ports = r_boot = r_done = 0;
	r_ext = 1;
	if (own_space)
		tt_start_local(t, sigma0_attacker);
	else
		tt_start_space(t, sigma0_attacker);
	TT_WAIT(r_done, 3000);
}

TEST_CASE("hostile.sigma0_strangers", "threads sigma0 does not serve get nil fpages and no -1001 answer, from another space and from ours")
{
	for (int own = 0; own < 2; own++) {
		L4_ThreadId_t t = fresh();
		attack_sigma0(t, own);
		EXPECT(r_done, "the attacker (own space %d) hangs in sigma0", own);
		EXPECT(r_page == 0 && r_ports == 0 && r_boot == 0, "served (own space %d): page %lx ports %lx boot %lx",
		       own, r_page, r_ports, r_boot);
		EXPECT(L4_IPC_CODE(r_ext) == L4_IPC_TIMEOUT && (r_ext & L4_IPC_PHASE_RECV),
		       "-1001 answered (own space %d): ErrorCode %lx", own, r_ext);
		tt_kill(t);
	}
	EXPECT(!L4_IpcFailed(ext_dump()), "-1001 refused to the root task: %lx", L4_ErrorCode());
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(~0UL, 12, 7), L4_COMPLETE_SPACE) != 0, "sigma0 stopped serving us");
}

TEST_CASE("hostile.sigma0_admit", "a thread the root task admits gets conventional memory, never boot memory or -1001; only the root task admits")
{
	L4_ThreadId_t t = tt_id(ADMIT_SLOT, 1);
	EXPECT(pecan_sigma0_admit(l4_thread_no(t), 1), "admission failed: MR1 %lx", L4_MR(1));
	attack_sigma0(t, 1);
	EXPECT(r_done && r_page != 0 && r_ports != 0, "the admitted thread was refused: page %lx ports %lx", r_page, r_ports);
	EXPECT(r_boot == 0, "boot memory went to a thread other than the root task: %lx", r_boot);
	EXPECT(L4_IPC_CODE(r_ext) == L4_IPC_TIMEOUT, "-1001 answered an admitted thread: %lx", r_ext);
	tt_kill(t);
	/* the boot information is still the root task's to have */
	L4_Word_t boot = ((const L4_Word_t *)__L4_KIP)[KIP_OFF_BOOT_INFO / 8] & ~(PAGE - 1);
	EXPECT(pecan_sigma0_request(L4_FPAGE_MAKE(boot, 12, 4), L4_FPAGE_MAKE(0x310000000000UL, 12, 0)) != 0,
	       "the root task cannot have the boot information at %lx", boot);
}

/* ---- the drivers, from a foreign space ---- */

static volatile L4_Word_t s_calls, s_denied, s_overflow, s_bad_label, s_bad_code, s_done;

/* One call of driver d with label and u words; counts how it was answered. */
static void stranger_call(L4_ThreadId_t d, L4_Word_t label, L4_Word_t u)
{
	static char junk[64];
	L4_SetMR(0, L4_TAG_MAKE(label, u, u == 2 ? 2 : 0));
	L4_SetMR(1, 0);
	L4_SetMR(2, 1);
	L4_SetMR(3, L4_STRING_MAKE(sizeof(junk), 1, 0, 0));      /* WRITE-shaped: a string item */
	L4_SetMR(4, (L4_Word_t)junk);
	L4_MsgTag_t tag = L4_Ipc(d, d, L4_TIMEOUTS(L4_TimePeriod(1000000), L4_TimePeriod(1000000)), 0);
	s_calls++;
	if (L4_IpcFailed(tag) && L4_ErrorCode() == L4_IPC_OVERFLOW)
		s_overflow++;            /* a receiver that takes no strings (the timer): the kernel's error */
	else if (L4_IpcFailed(tag) || L4_TAG_LABEL(tag) != DRIVER_ERROR)
		s_bad_label++;
	else if (L4_MR(1) != DRIVER_ERR_DENIED)
		s_bad_code++;
	else
		s_denied++;
}

static const L4_Word_t odd_labels[] = {
	L4_LABEL_PAGEFAULT | 6, L4_LABEL_INTERRUPT, L4_LABEL_EXCEPTION, L4_LABEL_SIGMA0, SIGMA0_LABEL_EXT,
	0xffffffffffffUL,
};

static void stranger(void)
{
	for (int d = 0; d < 3; d++) {
		for (L4_Word_t label = 0; label < 0x40; label++)
			for (L4_Word_t u = 0; u <= 2; u += 2)
				stranger_call(drv[d], label, u);
		for (unsigned i = 0; i < sizeof(odd_labels) / sizeof(odd_labels[0]); i++)
			stranger_call(drv[d], odd_labels[i], 1);
	}
	s_done = 1;
	tt_park();
}

TEST_CASE("hostile.drivers_stranger", "every label from a foreign space gets DRIVER_ERR_DENIED from the console, timer and disk drivers")
{
	EXPECT(start(), "drivers did not start: %lx", L4_ErrorCode());
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_space(t, stranger), "start the stranger");
	TT_WAIT(s_done, 20000);
	EXPECT(s_done, "the stranger hangs after %lu calls", s_calls);
	EXPECT(s_bad_label == 0 && s_bad_code == 0 && s_denied + s_overflow == s_calls && s_overflow == 0x40,
	       "%lu calls: %lu denied, %lu overflows, %lu without an error reply, %lu with another reason",
	       s_calls, s_denied, s_overflow, s_bad_label, s_bad_code);
	tt_kill(t);
	/* and they still serve us */
	EXPECT(timer_sleep(1000), "the timer stopped serving us");
	EXPECT(disk_info(0, 0) == 0, "the disk driver stopped serving us");
	static const char msg[] = "hostile: the console still serves its root task\n";
	EXPECT(console_write(msg, sizeof(msg) - 1) == (long)sizeof(msg) - 1, "the console stopped serving us");
}

static volatile long f_console, f_disk, f_timer, f_done;

static void friend(void)
{
	static const char msg[] = "hostile: written by a named client in another space\n";
	f_console = console_write(msg, sizeof(msg) - 1);
	uint64_t sectors = 0;
	f_disk = disk_info(&sectors, 0) == 0 ? (long)sectors : -1;
	f_timer = timer_sleep(1000);
	f_done = 1;
	tt_park();
}

TEST_CASE("hostile.drivers_named_client", "a thread of another space that the root task named at start is served by every driver")
{
	EXPECT(start(), "drivers did not start");
	L4_ThreadId_t t = tt_id(FRIEND_SLOT, 1);
	EXPECT(tt_start_space(t, friend), "start the friend");
	TT_WAIT(f_done, 5000);
	EXPECT(f_done, "the named client hangs");
	EXPECT(f_console > 0 && f_disk > 0 && f_timer == 1, "console %ld, disk sectors %ld, timer %ld",
	       f_console, f_disk, f_timer);
	tt_kill(t);
}

/* ---- string items whose pages fault to a pager that never answers ---- */

static char untouched[2][PAGE] __attribute__((aligned(4096)));
static volatile L4_Word_t h_go, h_done, h_err, h_us;

/* Our own page at the faulting address, but never one of untouched[]: that fault stays unanswered. */
static L4_Word_t stingy(L4_Word_t page, L4_ThreadId_t from)
{
	(void)from;
	return page == (L4_Word_t)untouched[0] || page == (L4_Word_t)untouched[1] ? 0 : page;
}

static void stingy_pager(void)
{
	tt_pager_serve(stingy);
}

/*
 * In a space of its own whose pager never answers for untouched[], the
 * holder sends (h_go 1: a console WRITE, 2: a disk WRITE) from, or (3: a
 * disk READ, 4: a console READ) into, an untouched page: the driver's copy
 * faults there.
 */
static void holder(void)
{
	L4_Word_t t0 = L4_SystemClock(), lba = 0, count = 1;
	if (h_go == 1) {
		L4_SetMR(0, L4_TAG_MAKE(CONSOLE_WRITE, 0, 2));
		L4_SetMR(1, L4_STRING_MAKE(64, 1, 0, 0));
		L4_SetMR(2, (L4_Word_t)untouched[0]);
	} else if (h_go == 2) {
		L4_SetMR(0, L4_TAG_MAKE(DISK_WRITE, 2, 2));
		L4_SetMR(1, lba);
		L4_SetMR(2, count);
		L4_SetMR(3, L4_STRING_MAKE(DISK_SECTOR, 1, 0, 0));
		L4_SetMR(4, (L4_Word_t)untouched[0]);
	} else {
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(DISK_SECTOR, 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)untouched[1]);
		L4_SetMR(0, L4_TAG_MAKE(h_go == 3 ? DISK_READ : CONSOLE_READ, h_go == 3 ? 2 : 1, 0));
		L4_SetMR(1, h_go == 3 ? lba : 16);
		L4_SetMR(2, count);
	}
	L4_ThreadId_t d = h_go == 1 || h_go == 4 ? drv[0] : drv[2];
	L4_MsgTag_t tag = L4_Ipc(d, d, L4_TIMEOUTS(L4_TIMEOUT_NEVER, L4_TIMEOUT_NEVER), 0);
	h_err = L4_IpcFailed(tag) ? L4_ErrorCode() : 0;
	h_us = L4_SystemClock() - t0;
	h_done = 1;
	tt_park();
}

/* Input for a console READ: in loopback what we write comes back as input. */
static void feed_console(void)
{
	L4_Sleep(20000);                     /* the holder now waits in its READ */
	console_loopback(1);
	console_write("x", 1);
	L4_Sleep(20000);
	console_loopback(0);
}

/* Run one holder attack as thread h: its IPC must fail, and soon. */
static void hold(L4_Word_t how, L4_ThreadId_t h)
{
	static L4_ThreadId_t pager;
	if (!pager)
		EXPECT(tt_start_local(pager = fresh(), stingy_pager), "start the stingy pager");
	h_go = how;
	h_done = 0;
	EXPECT(tt_start_space_paged(h, holder, pager), "start the holder: %lx", L4_ErrorCode());
	if (how == 4)
		feed_console();
	TT_WAIT(h_done, 5000);
	EXPECT(h_done, "the holder's IPC (%lu) never ended: the driver is held", how);
	printf("hostile: attack %lu ended after %lu us, ErrorCode %lx\n", how, h_us, h_err);
	EXPECT(h_err != 0 && h_us < 2000000, "attack %lu: ErrorCode %lx after %lu us", how, h_err, h_us);
	tt_kill(h);
}

TEST_CASE("hostile.xfer_console", "a console WRITE from, and a READ into, a page that faults to a mute pager fail within the driver's transfer timeout")
{
	EXPECT(start(), "drivers did not start");
	hold(1, fresh());             /* a stranger: the copy comes before the driver sees who sent it */
	hold(4, tt_id(FRIEND_SLOT, 1));   /* a client's READ: the reply's copy faults */
	static const char msg[] = "hostile: the console serves again after the stuck copy\n";
	EXPECT(console_write(msg, sizeof(msg) - 1) == (long)sizeof(msg) - 1, "the console stopped serving");
}

TEST_CASE("hostile.xfer_disk", "a disk WRITE from, and a READ into, a page that faults to a mute pager fail; the driver goes on")
{
	EXPECT(start(), "drivers did not start");
	hold(2, fresh());
	hold(3, tt_id(FRIEND_SLOT, 1));   /* a client, so the driver answers with data */
	static char sector[DISK_SECTOR];
	EXPECT(disk_read(0, 1, sector) == 0, "the disk driver stopped serving");
}

/* ---- timer slots ---- */

static volatile L4_Word_t a_granted, a_busy, a_done;

static void alarm_hog(void)
{
	for (int i = 0; i < 3 * TIMER_SLOTS_PER_CLIENT; i++) {
		if (timer_alarm(60000000, i))
			a_granted++;
		else
			a_busy++;
	}
	a_done = 1;
	tt_park();
}

TEST_CASE("hostile.timer_slots", "a client that asks for alarms without end gets its share, then BUSY; others still get theirs")
{
	EXPECT(start(), "drivers did not start");
	L4_ThreadId_t t = fresh();
	EXPECT(tt_start_local(t, alarm_hog), "start the hog");
	TT_WAIT(a_done, 3000);
	EXPECT(a_done && a_granted == TIMER_SLOTS_PER_CLIENT, "granted %lu, busy %lu", a_granted, a_busy);
	EXPECT(timer_sleep(1000) && timer_alarm(1000, 7), "the timer refused another client");
	L4_MsgTag_t tag = L4_Receive_Timeout(pecan_timer, L4_TimePeriod(1000000), 0);
	EXPECT(!L4_IpcFailed(tag) && L4_TAG_LABEL(tag) == TIMER_ALARM_FIRED && L4_MR(1) == 7, "no alarm");
	tt_kill(t);
}

int main(void)
{
	int failed = test_run_all();
	pecan_kdb_power_off(failed ? 1 : 0);
	return 0;
}
