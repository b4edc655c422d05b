// SPDX-License-Identifier: MIT
// The serial console as a user-level driver: COM1's ports and IRQ 4, served by IPC
// (protocol in include/l4/drivers.h).  Output is polled; input is interrupt driven.
#include "drivers.h"
#include <l4/drivers.h>
#include "../../lib/c/portio.h"

#define COM1 0x3f8
#define RBR 0
#define THR 0
#define IER 1
#define IIR 2
#define MCR 4
#define LSR 5
#define LSR_DR   0x01
#define LSR_THRE 0x20
#define IER_RDA  0x01
#define MCR_BASE 0x0b     /* DTR, RTS, OUT2 (OUT2 gates the interrupt line) */
#define MCR_LOOP 0x10

static char out[CONSOLE_BUF], in[CONSOLE_BUF];
static unsigned in_head, in_count;
static L4_ThreadId_t reader;
static L4_Word_t reader_max;


/* Drain the receiver into the ring buffer (the interrupt's work). */
static void receive(void)
{
	while (inb(COM1 + LSR) & LSR_DR) {
		char c = (char)inb(COM1 + RBR);
		if (in_count < CONSOLE_BUF)
			in[(in_head + in_count++) % CONSOLE_BUF] = c;
	}
}

/* Send one byte; input is drained meanwhile so the 16-byte receive FIFO never overruns. */
static void put(char c)
{
	while (!(inb(COM1 + LSR) & LSR_THRE))
		receive();
	outb(COM1 + THR, (unsigned char)c);
	receive();
}

/* Answer the waiting reader with what has arrived, if anything has. */
static void serve_reader(void)
{
	if (!reader || !in_count)
		return;
	static char chunk[CONSOLE_BUF];
	L4_Word_t n = 0;
	while (n < reader_max && in_count) {
		chunk[n++] = in[in_head];
		in_head = (in_head + 1) % CONSOLE_BUF;
		in_count--;
	}
	L4_SetMR(0, L4_TAG_MAKE(CONSOLE_READ, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(n, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)chunk);
	L4_Reply(reader);         /* a reader whose buffer faults loses the bytes, after DRIVER_XFER_US at most */
	reader = 0;
}

static void accept_writes(void)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE(CONSOLE_BUF, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)out);
}

static void reply_error(L4_ThreadId_t to, L4_Word_t code)
{
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_ERROR, 1, 0));
	L4_SetMR(1, code);
	L4_Reply(to);
}

static void handle(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag);
	if (!driver_client_ok(&serial_clients, from))
		return driver_refuse("console", from, tag);
	if (label == DRIVER_TEST_CRASH && serial_clients.test_requests)
		driver_test_crash();
	if (label == CONSOLE_WRITE && L4_TAG_T(tag) == 2) {
		L4_Word_t n = L4_STRING_LEN(L4_MR(1));
		for (L4_Word_t i = 0; i < n && i < CONSOLE_BUF; i++)
			put(out[i]);
		L4_SetMR(0, L4_TAG_MAKE(CONSOLE_WRITE, 1, 0));
		L4_SetMR(1, n);
		L4_Reply(from);
	} else if (label == CONSOLE_READ && L4_TAG_U(tag) == 1) {
		if (reader)
			return reply_error(from, DRIVER_ERR_BUSY);
		reader = from;
		reader_max = L4_MR(1) < CONSOLE_BUF ? L4_MR(1) : CONSOLE_BUF;
		serve_reader();
	} else if (label == CONSOLE_LOOPBACK && L4_TAG_U(tag) == 1) {
		outb(COM1 + MCR, MCR_BASE | (L4_MR(1) ? MCR_LOOP : 0));
		L4_SetMR(0, L4_TAG_MAKE(CONSOLE_LOOPBACK, 0, 0));
		L4_Reply(from);
	} else {
		reply_error(from, DRIVER_ERR_REQUEST);
	}
}

static void interrupt(void)
{
	(void)inb(COM1 + IIR);
	receive();
	serve_reader();
	L4_SetMR(0, 0);
	L4_Reply(l4_global_id(CONSOLE_IRQ, 1));     /* unmask */
}

void serial_driver(void)
{
	L4_ThreadId_t irq = l4_global_id(CONSOLE_IRQ, 1), from;
	/* a client whose string faults and whose pager never answers cannot hold us */
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TimePeriod(DRIVER_XFER_US), L4_TimePeriod(DRIVER_XFER_US)));
	/*
	 * The FIFO control stays as the firmware left it: switching the FIFOs on
	 * clears them, and input piped into the console may already be waiting.
	 */
	outb(COM1 + MCR, MCR_BASE);
	outb(COM1 + IER, IER_RDA);
	for (;;) {
		accept_writes();
		L4_MsgTag_t tag = L4_Wait(&from);
		if (L4_IpcFailed(tag))
			continue;            /* e.g. a client's unmapped buffer: its send failed */
		if (from == irq)
			interrupt();
		else
			handle(from, tag);
	}
}
