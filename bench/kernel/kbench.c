// SPDX-License-Identifier: MIT
// Exception round trip, foreign-syscall round trip and interrupt latency, in guest
// instructions (rdtsc under QEMU icount).  The round trips' reads are the cost
// model's marked stamps and every figure has its group mark (tools/costmodel), so
// bench/model/model.py can pair them; with the root argument `roundtrips` only the
// two round trips run (the model's run: the latency loads would take long under it).
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/test/tthread.h"
#include "../../lib/c/portio.h"
#include "../../lib/c/string.h"

#define ROUNDS 1000
#define IRQ_ROUNDS 100
#define COM1 0x3f8

static volatile L4_ThreadId_t handler_id, main_id;
static volatile L4_Word_t result, irq_stamp;

static inline L4_Word_t rdtsc(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

/* rdtsc as the cost model's stamp (`rex.W rdtsc`: the prefix changes nothing) */
static inline L4_Word_t stamp(void)
{
	unsigned lo, hi;
	__asm__ __volatile__(".byte 0x48; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (L4_Word_t)hi << 32 | lo;
}

/* The handler: every exception message is answered at once, RIP moved by MR20's hint. */
static void handler(void)
{
	L4_ThreadId_t from;
	L4_MsgTag_t tag = L4_Wait(&from);
	for (;;) {
		if (L4_MR(19) == 6)
			L4_SetMR(1, L4_MR(1) + 2);          /* skip the ud2 */
		else
			L4_SetMR(8, 1234);                  /* a getpid result */
		L4_SetMR(0, L4_TAG_MAKE(0, 19, 0));
		tag = L4_ReplyWait(from, &from);
		(void)tag;
	}
}

static void report(void)
{
	L4_SetMR(0, 0);
	L4_Send(main_id);
	tt_park();
}

static void ud2_loop(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	__asm__ __volatile__("ud2");               /* warm up: pages, caches of the path */
	L4_Word_t t0 = stamp();
	for (int i = 0; i < ROUNDS; i++)
		__asm__ __volatile__("ud2" : : : "memory");
	result = (stamp() - t0) * 10 / ROUNDS;
	report();
}

static void syscall_loop(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	L4_Word_t rax = 39;
	__asm__ __volatile__("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
	L4_Word_t t0 = stamp();
	for (int i = 0; i < ROUNDS; i++) {
		rax = 39;
		__asm__ __volatile__("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
	}
	result = (stamp() - t0) * 10 / ROUNDS;
	report();
}


static void irq_handler(void)
{
	L4_ThreadId_t irq = l4_global_id(4, 1);
	for (;;) {
		L4_Receive(irq);
		irq_stamp = rdtsc();
		outb(COM1 + 1, 0);
		(void)inb(COM1 + 2);
		L4_SetMR(0, 0);
		L4_Reply(irq);
	}
}

static void print(const char *name, L4_Word_t v)
{
	/* the cost model's group mark (a multi-byte NOP): the windows since the last are this figure's */
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x80, 0x4d, 0x4f, 0x44, 0x4c" ::: "memory");
	printf("RESULT name=%s value=%lu.%lu unit=instructions method=icount\n", name, v / 10, v % 10);
}

/* One measurement: a fresh thread in a new space runs fn; we wait for its report. */
static void run(const char *name, void (*fn)(void), int slot)
{
	L4_ThreadId_t t = tt_id(slot, 1);
	tt_start_space(t, fn);
	L4_Receive(t);
	print(name, result);
	tt_kill(t);
}

static void irq_latency(void)
{
	L4_ThreadId_t h = tt_id(3, 1), irq = l4_global_id(4, 1);
	tt_start_local(h, irq_handler);
	L4_Set_Priority(h, 200);
	L4_Set_Priority(L4_MyGlobalId(), 100);     /* the handler must preempt us */
	L4_ThreadControl(irq, irq, L4_NILTHREAD, h, ~0UL);
	L4_Sleep(1000);
	L4_Word_t sum = 0;
	for (int i = 0; i < IRQ_ROUNDS + 1; i++) {
		outb(COM1 + 1, 0);
		L4_Word_t t0 = rdtsc();
		outb(COM1 + 1, 0x02);                  /* the device raises IRQ 4 here */
		if (i > 0)
			sum += irq_stamp - t0;
	}
	L4_ThreadControl(irq, irq, L4_NILTHREAD, irq, ~0UL);
	print("irq.latency", sum * 10 / IRQ_ROUNDS);
	tt_kill(h);
}

/*
 * Worst-case interrupt latency under load (irq.latency.worst).  The device
 * is COM2 in loopback with its FIFO on: a byte written to it is received
 * at once, below the FIFO's trigger level, so the UART raises its
 * character-timeout interrupt (IRQ 3) 4 character times later, on QEMU's
 * virtual clock: a device write whose interrupt comes while the loads
 * below run, in user mode or in the kernel.  The latency of one round is
 * handler stamp - write stamp - that delay; the delay is computed from the
 * baud rate and the TSC frequency in the KIP.  irq.latency.idle is the
 * same with no load, as a check of the method.
 *
 * Loads (priority 100, in one unprivileged space with a raised quota):
 * a 64 KiB buffer is doubled into 1 GiB of mappings; then one thread maps
 * that 1 GiB to another and unmaps it again, over and over
 * (irq.latency.worst.map), and in the second phase two more threads also
 * copy 4 MiB strings between each other (irq.latency.worst).
 */
#define COM2          0x2f8
#define WL_BASE       0x100000000UL
#define WL_LOG2       16
#define WL_ROUNDS     14                  /* 64 KiB << 14 = 1 GiB */
#define WL_STR        (4UL << 20)
#define WL_ROUNDS_MEASURED 400

static char wl_buf[1UL << WL_LOG2] __attribute__((aligned(4096)));
static L4_ThreadId_t wl_pager, wl_a, wl_b, wl_c, wl_d;
static volatile L4_Word_t wl_ready, wl_strings, wl_maps, wl_copies, wl_stamp;

static L4_Word_t wl_window(L4_Word_t k)
{
	return L4_FPAGE_MAKE(WL_BASE + (1UL << (WL_LOG2 + k)), WL_LOG2 + k, 0);
}

/* B: receives the doublings, then each 1 GiB map (window: the second GiB). */
static void wl_b_loop(void)
{
	L4_ThreadId_t from;
	L4_Word_t k = 0;
	L4_SetTcr(UTCB_BR(0), wl_window(k));
	L4_Wait(&from);
	for (;;) {
		if (k < WL_ROUNDS)
			k++;                        /* then for ever the 1 GiB window */
		L4_SetTcr(UTCB_BR(0), wl_window(k));
		L4_SetMR(0, 0);
		L4_ReplyWait(from, &from);
	}
}

static void wl_map(L4_Word_t log2)
{
	L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
	L4_SetMR(1, WL_BASE | L4_ITEM_MAP);
	L4_SetMR(2, L4_FPAGE_MAKE(WL_BASE, log2, 7));
	L4_Call(wl_b);
}

/* A: builds the 1 GiB, then maps it to the second GiB and unmaps that, for ever. */
static void wl_a_loop(void)
{
	for (L4_Word_t i = 0; i < sizeof(wl_buf); i += 4096)
		(void)*(volatile char *)(WL_BASE + i);
	for (L4_Word_t k = 0; k < WL_ROUNDS; k++)
		wl_map(WL_LOG2 + k);
	wl_ready = 1;
	for (;;) {
		L4_SetMR(0, L4_FPAGE_MAKE(WL_BASE + (1UL << 30), 30, 7));
		L4_Unmap(0x40);                     /* flush: our own second GiB goes */
		wl_map(30);
		wl_maps++;
	}
}

/* C sends D 4 MiB strings out of the first GiB, D receives them further up in it. */
static void wl_d_loop(void)
{
	L4_ThreadId_t from;
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(WL_STR, 1, 0, 0));
	L4_SetBR(2, WL_BASE + (512UL << 20));
	L4_Wait(&from);
	for (;;) {
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(WL_STR, 1, 0, 0));
		L4_SetBR(2, WL_BASE + (512UL << 20));
		L4_SetMR(0, 0);
		L4_ReplyWait(from, &from);
	}
}

static void wl_c_loop(void)
{
	while (!wl_strings)
		L4_Sleep(1000);
	for (;;) {
		L4_SetMR(0, L4_TAG_MAKE(0, 0, 2));
		L4_SetMR(1, L4_STRING_MAKE(WL_STR, 1, 0, 0));
		L4_SetMR(2, WL_BASE);
		L4_Call(wl_d);
		wl_copies++;
	}
}

/* The load space's pager: our buffer at WL_BASE, anything else our own page at its address. */
static L4_Word_t wl_source(L4_Word_t page, L4_ThreadId_t from)
{
	(void)from;
	return page - WL_BASE < sizeof(wl_buf) ? (L4_Word_t)wl_buf + (page - WL_BASE) : page;
}

static void wl_pager_loop(void)
{
	tt_pager_serve(wl_source);
}

static int wl_thread(L4_ThreadId_t t, L4_ThreadId_t space, void (*fn)(void))
{
	L4_ThreadId_t me = L4_MyGlobalId();
	return L4_ThreadControl(t, space, me, me, tt_utcb(t)) && tt_send_start(t, fn, tt_stack()) &&
	       L4_ThreadControl(t, space, L4_NILTHREAD, wl_pager, ~0UL);
}

static int wl_start(void)
{
	L4_ThreadId_t me = L4_MyGlobalId();
	for (L4_Word_t i = 0; i < sizeof(wl_buf); i += 4096)
		wl_buf[i] = 1;
	wl_pager = tt_id(10, 1);
	wl_a = tt_id(11, 1);
	wl_b = tt_id(12, 1);
	wl_c = tt_id(13, 1);
	wl_d = tt_id(14, 1);
	if (!tt_start_local(wl_pager, wl_pager_loop) || !L4_ThreadControl(wl_a, wl_a, me, L4_NILTHREAD, ~0UL))
		return 0;
	/* 2 GiB of mappings: 32 MiB of nodes, 4 MiB of page tables */
	if (!L4_SpaceControl(wl_a, 12 << 10, L4_FPAGE_MAKE(ROOT_KIP_AREA, 12, 0),
			     L4_FPAGE_MAKE(ROOT_UTCB_AREA, ROOT_UTCB_AREA_LOG2, 0), L4_NILTHREAD, 0))
		return 0;
	return wl_thread(wl_a, wl_a, wl_a_loop) && wl_thread(wl_b, wl_a, wl_b_loop) &&
	       wl_thread(wl_c, wl_a, wl_c_loop) && wl_thread(wl_d, wl_a, wl_d_loop);
}

static void com2_handler(void)
{
	L4_ThreadId_t irq = l4_global_id(3, 1);
	for (;;) {
		L4_Receive(irq);
		wl_stamp = rdtsc();
		while (inb(COM2 + 5) & 1)               /* drain the FIFO: the interrupt ends */
			(void)inb(COM2);
		L4_SetMR(0, 0);
		L4_Reply(irq);
	}
}

/* COM2: 115200 baud 8N1, FIFO on with a 14-byte trigger, loopback, data interrupts only. */
static L4_Word_t com2_setup(void)
{
	outb(COM2 + 1, 0);
	outb(COM2 + 3, 0x80);
	outb(COM2 + 0, 1);
	outb(COM2 + 1, 0);
	outb(COM2 + 3, 0x03);
	outb(COM2 + 2, 0xc7);
	outb(COM2 + 4, 0x18);
	while (inb(COM2 + 5) & 1)
		(void)inb(COM2);
	outb(COM2 + 1, 0x01);
	/* 4 characters of 10 bits at 115200 baud, as QEMU times them (whole ns per bit), in TSC ticks */
	L4_Word_t ns = 4 * 10 * (1000000000UL / 115200);
	L4_Word_t khz = *(volatile L4_Word_t *)(ROOT_KIP_AREA + KIP_PROC_DESC_OFF + 8);
	return ns * khz / 1000000;
}

/* Rounds of write, sleep, read the handler's stamp; the worst latency in tenths. */
static L4_Word_t worst_latency(L4_Word_t delay, int rounds, L4_Word_t *best)
{
	L4_Word_t worst = 0;
	*best = ~0UL;
	for (int i = 0; i < rounds; i++) {
		wl_stamp = 0;
		L4_Word_t t0 = rdtsc();
		outb(COM2, 'x');
		L4_Sleep(2000 + 137 * (i % 7));         /* vary the phase against the loads */
		while (!wl_stamp)
			L4_Sleep(1000);
		L4_Word_t lat = wl_stamp - t0 - delay;
		if ((long)lat < 0)
			lat = 0;
		if (lat > worst)
			worst = lat;

		if (lat < *best)
			*best = lat;
	}
	return worst * 10;
}

static void spin(void)
{
	for (;;)
		__asm__ __volatile__("" : : : "memory");
}

static void irq_latency_worst(void)
{
	L4_ThreadId_t h = tt_id(15, 1), irq = l4_global_id(3, 1), me = L4_MyGlobalId();
	tt_start_local(h, com2_handler);
	L4_Set_Priority(h, 210);
	L4_Set_Priority(me, 200);
	L4_ThreadControl(irq, irq, L4_NILTHREAD, h, ~0UL);
	L4_Word_t delay = com2_setup(), best;
	worst_latency(delay, 5, &best);                   /* warm up */
	print("irq.latency.idle", worst_latency(delay, 20, &best));
	L4_ThreadId_t spinner = tt_id(16, 1);
	tt_start_local(spinner, spin);                    /* a load that never enters the kernel */
	print("irq.latency.user_load", worst_latency(delay, 20, &best));
	tt_kill(spinner);
	if (!wl_start()) {
		printf("kbench: the load space could not be started\n");
		return;
	}
	while (!wl_ready)
		L4_Sleep(1000);
	print("irq.latency.worst.map", worst_latency(delay, WL_ROUNDS_MEASURED, &best));
	wl_strings = 1;
	print("irq.latency.worst", worst_latency(delay, WL_ROUNDS_MEASURED, &best));
	printf("kbench: load did %lu maps of 1 GiB and %lu copies of 4 MiB\n", wl_maps, wl_copies);
	L4_ThreadControl(irq, irq, L4_NILTHREAD, irq, ~0UL);
}

int main(void)
{
	main_id = L4_MyGlobalId();
	handler_id = tt_id(2, 1);
	tt_start_local(handler_id, handler);
	L4_Set_Priority(handler_id, 200);
	run("exc.roundtrip", ud2_loop, 0);
	run("foreign_syscall.roundtrip", syscall_loop, 1);
	char args[32];
	if (pecan_boot_args(args, sizeof args) >= 0 && !strcmp(args, "roundtrips")) {
		printf("kbench: done\n");
		pecan_kdb_power_off(0);
	}
	irq_latency_worst();            /* first: irq_latency leaves us at priority 100 */
	irq_latency();
	printf("kbench: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
