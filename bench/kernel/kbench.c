// SPDX-License-Identifier: MIT
// Exception round trip, foreign-syscall round trip and interrupt latency, in guest
// instructions (rdtsc under QEMU icount).
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"
#include "../../lib/test/tthread.h"
#include "../../lib/c/portio.h"

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
	L4_Word_t t0 = rdtsc();
	for (int i = 0; i < ROUNDS; i++)
		__asm__ __volatile__("ud2" : : : "memory");
	result = (rdtsc() - t0) * 10 / ROUNDS;
	report();
}

static void syscall_loop(void)
{
	L4_SetTcr(UTCB_EXC_HANDLER, handler_id);
	L4_Word_t rax = 39;
	__asm__ __volatile__("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
	L4_Word_t t0 = rdtsc();
	for (int i = 0; i < ROUNDS; i++) {
		rax = 39;
		__asm__ __volatile__("syscall" : "+a"(rax) : : "rcx", "r11", "memory");
	}
	result = (rdtsc() - t0) * 10 / ROUNDS;
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

int main(void)
{
	main_id = L4_MyGlobalId();
	handler_id = tt_id(2, 1);
	tt_start_local(handler_id, handler);
	L4_Set_Priority(handler_id, 200);
	run("exc.roundtrip", ud2_loop, 0);
	run("foreign_syscall.roundtrip", syscall_loop, 1);
	irq_latency();
	printf("kbench: done\n");
	pecan_kdb_power_off(0);
	return 0;
}
