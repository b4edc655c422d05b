// SPDX-License-Identifier: MIT
// The NIC driver: QEMU's virtio-net through its legacy PCI interface (an I/O
// BAR), served by IPC (protocol in include/l4/nic.h).  Receive and transmit
// rings and buffers lie in one block of memory from sigma0 whose physical
// address its reply told (nic_start); the device's interrupt arrives as IPC
// from the IRQ thread.  Clients' frames are copied in and out by string IPC.
#include "nic.h"
#include <l4/drivers.h>
#include <l4/nic.h>
#include "../../lib/c/portio.h"
#include "../../lib/c/string.h"

/* Legacy virtio PCI registers, offsets into BAR0 (virtio 1.0 §4.1.4.8). */
#define VIO_HOST_FEATURES  0x00
#define VIO_GUEST_FEATURES 0x04
#define VIO_QUEUE_PFN      0x08
#define VIO_QUEUE_SIZE     0x0c
#define VIO_QUEUE_SEL      0x0e
#define VIO_QUEUE_NOTIFY   0x10
#define VIO_STATUS         0x12
#define VIO_ISR            0x13
#define VIO_MAC            0x14
#define ST_ACK 1
#define ST_DRIVER 2
#define ST_DRIVER_OK 4
#define F_MAC (1u << 5)
#define DESC_NEXT 1
#define DESC_WRITE 2
#define NET_HDR 10                        /* struct virtio_net_hdr without MRG_RXBUF */
#define BUF 2048                          /* one frame and its header */
#define NBUF 64                           /* buffers per ring we use */
#define QMAX 256                          /* largest queue we can lay out */

struct desc { uint64_t addr; uint32_t len; uint16_t flags, next; };
struct used_elem { uint32_t id, len; };

/* One virtqueue: its layout in DMA memory and our view of it. */
struct vq {
	unsigned size;
	volatile struct desc *desc;
	volatile uint16_t *avail;             /* flags, idx, ring[size] */
	volatile uint16_t *used;              /* flags, idx, then used_elem[size] */
	uint16_t last_used;
	char *buf;                            /* NBUF buffers of BUF bytes */
	uint64_t buf_pa;
};

struct nic_hw nic_hw;                     /* filled by nic_start */
static struct vq rxq, txq;
static unsigned tx_free = NBUF;
static uint64_t rx_count, irq_count;
static L4_ThreadId_t notify_to;
static char frame[NIC_FRAME_MAX];

static uint64_t pa_of(const void *va)
{
	return nic_hw.dma_pa + ((uint64_t)va - (uint64_t)nic_hw.dma_va);
}

static void barrier(void)
{
	__asm__ __volatile__("" ::: "memory");   /* x86 keeps stores in order; the compiler must too */
}

static uint16_t ring_used_idx(struct vq *q)
{
	barrier();
	return q->used[1];
}

static volatile struct used_elem *used_elem(struct vq *q, unsigned i)
{
	return (volatile struct used_elem *)(q->used + 2) + i % q->size;
}

/* Put descriptor chain head into the available ring and tell the device. */
static void publish(struct vq *q, unsigned queue, uint16_t head)
{
	uint16_t idx = q->avail[1];
	q->avail[2 + idx % q->size] = head;
	barrier();
	q->avail[1] = (uint16_t)(idx + 1);
	barrier();
	outw((uint16_t)(nic_hw.io + VIO_QUEUE_NOTIFY), (uint16_t)queue);
}

/* Lay out queue `queue` at *mem (legacy: 4 KiB-aligned, used ring on its own page). */
static int vq_setup(struct vq *q, unsigned queue, char **mem)
{
	outw((uint16_t)(nic_hw.io + VIO_QUEUE_SEL), (uint16_t)queue);
	q->size = inw((uint16_t)(nic_hw.io + VIO_QUEUE_SIZE));
	if (q->size < NBUF || q->size > QMAX)
		return 0;
	unsigned avail_end = q->size * 16 + 6 + 2 * q->size;
	unsigned used_off = (avail_end + 4095) & ~4095u;
	unsigned total = used_off + ((6 + 8 * q->size + 4095) & ~4095u);
	memset(*mem, 0, total);
	q->desc = (volatile struct desc *)*mem;
	q->avail = (volatile uint16_t *)(*mem + q->size * 16);
	q->used = (volatile uint16_t *)(*mem + used_off);
	outl((uint16_t)(nic_hw.io + VIO_QUEUE_PFN), (uint32_t)(pa_of(*mem) >> 12));
	*mem += total;
	q->buf = *mem;
	q->buf_pa = pa_of(*mem);
	*mem += NBUF * BUF;
	return 1;
}

static void rx_post(uint16_t i)
{
	rxq.desc[i] = (struct desc){ rxq.buf_pa + (uint64_t)i * BUF, BUF, DESC_WRITE, 0 };
	publish(&rxq, 0, i);
}

/* Reset the device, accept only the MAC feature, set up both queues, go. */
static int virtio_init(void)
{
	uint16_t io = nic_hw.io;
	char *mem = nic_hw.dma_va;
	outb((uint16_t)(io + VIO_STATUS), 0);
	outb((uint16_t)(io + VIO_STATUS), ST_ACK | ST_DRIVER);
	outl((uint16_t)(io + VIO_GUEST_FEATURES), inl((uint16_t)(io + VIO_HOST_FEATURES)) & F_MAC);
	if (!vq_setup(&rxq, 0, &mem) || !vq_setup(&txq, 1, &mem))
		return 0;
	if (mem > (char *)nic_hw.dma_va + nic_hw.dma_size)
		return 0;
	for (unsigned i = 0; i < 6; i++)
		nic_hw.mac |= (uint64_t)inb((uint16_t)(io + VIO_MAC + i)) << (8 * i);
	outb((uint16_t)(io + VIO_STATUS), ST_ACK | ST_DRIVER | ST_DRIVER_OK);
	for (uint16_t i = 0; i < NBUF; i++)
		rx_post(i);
	return 1;
}

/* Take back transmit descriptors the device is done with (each frame uses two). */
static void tx_reap(void)
{
	while (txq.last_used != ring_used_idx(&txq)) {
		txq.last_used++;
		tx_free++;
	}
}

static void reply_error(L4_ThreadId_t to, L4_Word_t code)
{
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_ERROR, 1, 0));
	L4_SetMR(1, code);
	L4_Reply(to);
}

/* Descriptor pairs 2k (header) and 2k + 1 (frame) of slot k; the header is all zero. */
static void do_send(L4_ThreadId_t from, L4_Word_t item)
{
	L4_Word_t len = L4_STRING_LEN(item);
	if (!L4_STRING_IS(item) || len < 14 || len > NIC_FRAME_MAX)
		return reply_error(from, NIC_ERR_LENGTH);
	tx_reap();
	if (!tx_free)
		return reply_error(from, NIC_ERR_BUSY);
	tx_free--;
	uint16_t slot = (uint16_t)(txq.avail[1] % NBUF), d = (uint16_t)(2 * slot);
	char *b = txq.buf + (uint64_t)slot * BUF;
	memset(b, 0, NET_HDR);
	memcpy(b + NET_HDR, frame, len);
	uint64_t pa = txq.buf_pa + (uint64_t)slot * BUF;
	txq.desc[d] = (struct desc){ pa, NET_HDR, DESC_NEXT, (uint16_t)(d + 1) };
	txq.desc[d + 1] = (struct desc){ pa + NET_HDR, (uint32_t)len, 0, 0 };
	publish(&txq, 1, d);
	L4_SetMR(0, L4_TAG_MAKE(NIC_SEND, 1, 0));
	L4_SetMR(1, len);
	L4_Reply(from);
}

/* The oldest received frame, by string IPC; its buffer goes back to the device after. */
static void do_recv(L4_ThreadId_t from)
{
	if (rxq.last_used == ring_used_idx(&rxq))
		return reply_error(from, NIC_ERR_EMPTY);
	volatile struct used_elem *e = used_elem(&rxq, rxq.last_used++);
	uint16_t id = (uint16_t)e->id;
	uint32_t len = e->len;
	if (id >= NBUF)
		return reply_error(from, NIC_ERR_EMPTY);   /* a device bug: never trust an index */
	len = len < NET_HDR ? 0 : len - NET_HDR;
	if (len > NIC_FRAME_MAX)
		len = NIC_FRAME_MAX;
	rx_count++;
	L4_SetMR(0, L4_TAG_MAKE(NIC_RECV, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(len, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)(rxq.buf + (uint64_t)id * BUF + NET_HDR));
	L4_Reply(from);
	rx_post(id);
}

static void reply_info(L4_ThreadId_t from)
{
	L4_SetMR(0, L4_TAG_MAKE(NIC_INFO, 4, 0));
	L4_SetMR(1, nic_hw.mac);
	L4_SetMR(2, NIC_FRAME_MAX);
	L4_SetMR(3, rx_count);
	L4_SetMR(4, irq_count);
	L4_Reply(from);
}

static void handle(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag), u = L4_TAG_U(tag), t = L4_TAG_T(tag);
	if (!nic_hw.present)
		return reply_error(from, label == NIC_INFO || label == NIC_SEND || label == NIC_RECV ||
				   label == NIC_NOTIFY ? NIC_ERR_NODEV : DRIVER_ERR_REQUEST);
	if (label == NIC_SEND && u == 0 && t == 2)
		do_send(from, L4_MR(1));
	else if (label == NIC_RECV && u == 0 && t == 0)
		do_recv(from);
	else if (label == NIC_INFO && u == 0 && t == 0)
		reply_info(from);
	else if (label == NIC_NOTIFY && u == 0 && t == 0) {
		notify_to = from;
		L4_SetMR(0, L4_TAG_MAKE(NIC_NOTIFY, 0, 0));
		L4_Reply(from);
	} else {
		reply_error(from, DRIVER_ERR_REQUEST);
	}
}

/* The device interrupted: reading the ISR acknowledges it; tell the client, unmask. */
static void interrupt(L4_ThreadId_t irq)
{
	(void)inb((uint16_t)(nic_hw.io + VIO_ISR));
	irq_count++;
	tx_reap();
	if (notify_to && rxq.last_used != ring_used_idx(&rxq)) {
		L4_SetMR(0, L4_TAG_MAKE(NIC_RX_READY, 0, 0));
		L4_Send_Timeout(notify_to, L4_TIMEOUT_ZERO);
	}
	L4_SetMR(0, 0);
	L4_Reply(irq);
}

void nic_driver(void)
{
	/* a client whose buffer faults and whose pager never answers cannot hold us */
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TimePeriod(100000), L4_TimePeriod(100000)));
	if (nic_hw.present && !virtio_init())
		nic_hw.present = 0;
	L4_ThreadId_t irq = nic_hw.irq ? l4_global_id(nic_hw.irq, 1) : L4_NILTHREAD;
	for (;;) {
		L4_ThreadId_t from;
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(sizeof(frame), 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)frame);
		L4_MsgTag_t tag = L4_Wait(&from);
		if (L4_IpcFailed(tag))
			continue;             /* e.g. a client's frame too long for the buffer */
		if (irq && from == irq)
			interrupt(irq);
		else if (!driver_client_ok(&nic_clients, from))
			driver_refuse("nic", from, tag);
		else
			handle(from, tag);
	}
}
