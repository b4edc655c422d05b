// SPDX-License-Identifier: MIT
// The disk driver: the master drive of the legacy primary IDE channel
// (ports 0x1F0-0x1F7 and 0x3F6) by ATA PIO, served by IPC (protocol in
// include/l4/disk.h).  It polls the status register with the drive's
// interrupt off (nIEN): a request holds the CPU until the drive answers,
// but nothing is left to an interrupt, and under QEMU icount polling adds
// only instructions, never idle time that would warp the clock.
#include "disk.h"
#include "../drivers/drivers.h"
#include <l4/disk.h>
#include <l4/drivers.h>
#include "../../lib/c/portio.h"

#define ATA_DATA     0x1f0
#define ATA_COUNT    0x1f2
#define ATA_LBA0     0x1f3
#define ATA_LBA1     0x1f4
#define ATA_LBA2     0x1f5
#define ATA_DRIVE    0x1f6
#define ATA_STATUS   0x1f7            /* reading; writing it is the command */
#define ATA_CONTROL  0x3f6            /* writing; reading it is the status, without side effects */

#define ST_ERR  0x01
#define ST_DRQ  0x08
#define ST_DF   0x20
#define ST_BSY  0x80
#define CTL_NIEN 0x02

#define CMD_READ        0x20
#define CMD_READ_EXT    0x24
#define CMD_WRITE       0x30
#define CMD_WRITE_EXT   0x34
#define CMD_READ_MULT   0xc4
#define CMD_READ_MULT_EXT  0x29
#define CMD_WRITE_MULT  0xc5
#define CMD_WRITE_MULT_EXT 0x39
#define CMD_SET_MULT    0xc6
#define CMD_FLUSH       0xe7
#define CMD_FLUSH_EXT   0xea
#define CMD_IDENTIFY    0xec

#define LBA28_END    (1UL << 28)
#define MAX_MULT     16               /* sectors per data burst we ask for */
#define TIMEOUT_US   30000000         /* a drive busy this long has failed (a loaded host may sync slowly) */

static struct {
	int present, lba48;
	unsigned mult;                    /* sectors per DRQ burst (READ/WRITE MULTIPLE); 0: one */
	L4_Word_t sectors;
} drive;

static uint16_t buf[DISK_MAX_SECTORS * DISK_SECTOR / 2] __attribute__((aligned(16)));
/* What waiting cost, for benchmarks: status reads, and time stamp counter ticks in wait_drive. */
static L4_Word_t polls, wait_ticks;

static inline L4_Word_t rdtsc(void)
{
	unsigned lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (L4_Word_t)hi << 32 | lo;
}

/* Wait until the drive is not busy and, if want_drq, asks for data: 0, or DISK_ERR_IO. */
static int poll_drive(int want_drq)
{
	L4_Word_t deadline = 0;
	for (L4_Word_t n = 0;; n++) {
		uint8_t st = inb(ATA_STATUS);
		polls++;
		if (!(st & ST_BSY)) {
			if (st & (ST_ERR | ST_DF))
				return DISK_ERR_IO;
			if (!want_drq || (st & ST_DRQ))
				return 0;
		}
		if ((n & 1023) == 0) {
			L4_Word_t now = L4_SystemClock();
			if (!deadline)
				deadline = now + TIMEOUT_US;
			else if (now > deadline)
				return DISK_ERR_IO;
		}
	}
}

static int wait_drive(int want_drq)
{
	L4_Word_t t0 = rdtsc();
	int err = poll_drive(want_drq);
	wait_ticks += rdtsc() - t0;
	return err;
}

/* The 400 ns a drive needs after selection: four reads of the alternate status. */
static void settle(void)
{
	for (int i = 0; i < 4; i++)
		(void)inb(ATA_CONTROL);
}

/* Registers for a command on sectors [lba, lba + count) of the master drive. */
static void address(L4_Word_t lba, unsigned count, int ext)
{
	if (ext) {                        /* high bytes first: each register is a 2-deep FIFO */
		outb(ATA_DRIVE, 0x40);
		outb(ATA_COUNT, (uint8_t)(count >> 8));
		outb(ATA_LBA0, (uint8_t)(lba >> 24));
		outb(ATA_LBA1, (uint8_t)(lba >> 32));
		outb(ATA_LBA2, (uint8_t)(lba >> 40));
	} else {
		outb(ATA_DRIVE, (uint8_t)(0xe0 | ((lba >> 24) & 0x0f)));
	}
	outb(ATA_COUNT, (uint8_t)count);
	outb(ATA_LBA0, (uint8_t)lba);
	outb(ATA_LBA1, (uint8_t)(lba >> 8));
	outb(ATA_LBA2, (uint8_t)(lba >> 16));
}

/* The command for a transfer: [multiple][write][lba48]. */
static const uint8_t transfer_cmd[2][2][2] = {
	{ { CMD_READ, CMD_READ_EXT }, { CMD_WRITE, CMD_WRITE_EXT } },
	{ { CMD_READ_MULT, CMD_READ_MULT_EXT }, { CMD_WRITE_MULT, CMD_WRITE_MULT_EXT } },
};

/* Move count sectors at lba between the drive and buf, a burst per data request. */
static int ata_transfer(L4_Word_t lba, unsigned count, int write)
{
	int ext = lba + count > LBA28_END, err = wait_drive(0);
	unsigned burst = drive.mult ? drive.mult : 1;
	if (err)
		return err;
	address(lba, count, ext);
	outb(ATA_STATUS, transfer_cmd[drive.mult != 0][write][ext]);
	for (unsigned done = 0, n; done < count; done += n) {
		n = count - done < burst ? count - done : burst;
		if ((err = wait_drive(1)))
			return err;
		uint16_t *p = buf + done * DISK_SECTOR / 2;
		if (write)
			outsw(ATA_DATA, p, n * DISK_SECTOR / 2);
		else
			insw(ATA_DATA, p, n * DISK_SECTOR / 2);
	}
	return write ? wait_drive(0) : 0;     /* a write: until the drive has taken the last burst */
}

static int ata_flush(void)
{
	int err = wait_drive(0);
	if (err)
		return err;
	outb(ATA_DRIVE, 0xe0);
	outb(ATA_STATUS, drive.lba48 ? CMD_FLUSH_EXT : CMD_FLUSH);
	return wait_drive(0);
}

/* READ/WRITE MULTIPLE move a burst of sectors per data request: ask for up to MAX_MULT. */
static void set_multiple(const uint16_t *id)
{
	unsigned most = id[47] & 0xff, m = MAX_MULT;
	while (m > most)
		m /= 2;
	drive.mult = 0;
	if (m < 2)
		return;
	outb(ATA_DRIVE, 0xe0);
	outb(ATA_COUNT, (uint8_t)m);
	outb(ATA_STATUS, CMD_SET_MULT);
	if (!wait_drive(0))
		drive.mult = m;
}

/* Find the master drive: IDENTIFY answered by an ATA (not ATAPI) device. */
static void identify(void)
{
	uint16_t id[256];
	outb(ATA_CONTROL, CTL_NIEN);
	outb(ATA_DRIVE, 0xa0);
	settle();
	uint8_t st = inb(ATA_STATUS);
	if (st == 0 || st == 0xff || wait_drive(0))
		return;                       /* no drive (0), no controller (floating bus) */
	address(0, 0, 0);
	outb(ATA_DRIVE, 0xa0);
	outb(ATA_STATUS, CMD_IDENTIFY);
	settle();
	if (inb(ATA_STATUS) == 0 || wait_drive(0) || inb(ATA_LBA1) || inb(ATA_LBA2) || wait_drive(1))
		return;
	insw(ATA_DATA, id, 256);
	drive.lba48 = (id[83] >> 10) & 1;
	drive.sectors = drive.lba48 ? (L4_Word_t)id[100] | (L4_Word_t)id[101] << 16 |
				      (L4_Word_t)id[102] << 32 | (L4_Word_t)id[103] << 48
				    : (L4_Word_t)id[60] | (L4_Word_t)id[61] << 16;
	if (!drive.lba48 && drive.sectors > LBA28_END)
		drive.sectors = LBA28_END;
	set_multiple(id);
	drive.present = drive.sectors > 0;
}

static void reply_error(L4_ThreadId_t to, L4_Word_t code)
{
	L4_SetMR(0, L4_TAG_MAKE(DRIVER_ERROR, 1, 0));
	L4_SetMR(1, code);
	L4_Reply(to);
}

/* 0 if [lba, lba + count) lies on the disk and count is one the protocol allows. */
static int check_range(L4_Word_t lba, L4_Word_t count)
{
	if (!drive.present)
		return DISK_ERR_NODISK;
	if (count == 0 || count > DISK_MAX_SECTORS || lba >= drive.sectors || count > drive.sectors - lba)
		return DISK_ERR_RANGE;
	return 0;
}

static void do_read(L4_ThreadId_t from)
{
	L4_Word_t lba = L4_MR(1), count = L4_MR(2);
	int err = check_range(lba, count);
	if (err || (err = ata_transfer(lba, (unsigned)count, 0)))
		return reply_error(from, (L4_Word_t)err);
	L4_SetMR(0, L4_TAG_MAKE(DISK_READ, 0, 2));
	L4_SetMR(1, L4_STRING_MAKE(count * DISK_SECTOR, 1, 0, 0));
	L4_SetMR(2, (L4_Word_t)buf);
	L4_Reply(from);
}

static void do_write(L4_ThreadId_t from)
{
	L4_Word_t lba = L4_MR(1), count = L4_MR(2), item = L4_MR(3);
	int err = check_range(lba, count);
	if (!err && (!L4_STRING_IS(item) || L4_STRING_LEN(item) != count * DISK_SECTOR))
		err = DISK_ERR_BUFFER;
	if (err || (err = ata_transfer(lba, (unsigned)count, 1)))
		return reply_error(from, (L4_Word_t)err);
	L4_SetMR(0, L4_TAG_MAKE(DISK_WRITE, 1, 0));
	L4_SetMR(1, count);
	L4_Reply(from);
}

static void reply_info(L4_ThreadId_t from)
{
	if (!drive.present)
		return reply_error(from, DISK_ERR_NODISK);
	L4_SetMR(0, L4_TAG_MAKE(DISK_INFO, 5, 0));
	L4_SetMR(1, drive.sectors);
	L4_SetMR(2, DISK_SECTOR);
	L4_SetMR(3, DISK_MAX_SECTORS);
	L4_SetMR(4, polls);
	L4_SetMR(5, wait_ticks);
	L4_Reply(from);
}

static void handle(L4_ThreadId_t from, L4_MsgTag_t tag)
{
	L4_Word_t label = L4_TAG_LABEL(tag), u = L4_TAG_U(tag), t = L4_TAG_T(tag);
	int err;
	if (!driver_client_ok(&disk_clients, from))
		return driver_refuse("disk", from, tag);
	if (label == DRIVER_TEST_CRASH && disk_clients.test_requests)
		driver_test_crash();
	if (label == DISK_READ && u == 2 && t == 0)
		do_read(from);
	else if (label == DISK_WRITE && u == 2 && t == 2)
		do_write(from);
	else if (label == DISK_INFO && u == 0 && t == 0)
		reply_info(from);
	else if (label == DISK_FLUSH && u == 0 && t == 0) {
		if ((err = drive.present ? ata_flush() : DISK_ERR_NODISK))
			return reply_error(from, (L4_Word_t)err);
		L4_SetMR(0, L4_TAG_MAKE(DISK_FLUSH, 0, 0));
		L4_Reply(from);
	} else {
		reply_error(from, DRIVER_ERR_REQUEST);
	}
}

void disk_driver(void)
{
	/* a client whose buffer faults and whose pager never answers cannot hold us */
	L4_SetTcr(UTCB_XFER_TIMEOUTS, L4_TIMEOUTS(L4_TimePeriod(DRIVER_XFER_US), L4_TimePeriod(DRIVER_XFER_US)));
	identify();
	for (;;) {
		L4_ThreadId_t from;
		L4_SetBR(0, L4_ACCEPT_STRINGS);
		L4_SetBR(1, L4_STRING_MAKE(sizeof(buf), 1, 0, 0));
		L4_SetBR(2, (L4_Word_t)buf);
		L4_MsgTag_t tag = L4_Wait(&from);
		if (!L4_IpcFailed(tag))       /* a failed receive: e.g. a client's string too long */
			handle(from, tag);
	}
}
