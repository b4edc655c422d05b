// SPDX-License-Identifier: MIT
// Client side of the disk driver, and lib/store's block device over it.
#include "client.h"
#include <l4/disk.h>
#include <l4/drivers.h>

L4_ThreadId_t pecan_disk;

/*
 * Call the driver with the message in the MRs: 0, or minus the reason.  It
 * waits at most DISK_CALL_US in each phase: a dead or stuck driver is
 * -DISK_ERR_IPC, never a hang.
 */
static long call(L4_Word_t label)
{
	L4_Word_t t = L4_TimePeriod(DISK_CALL_US);
	L4_MsgTag_t tag = L4_Ipc(pecan_disk, pecan_disk, L4_TIMEOUTS(t, t), 0);
	if (L4_IpcFailed(tag))
		return -DISK_ERR_IPC;
	if (L4_TAG_LABEL(tag) == DRIVER_ERROR && L4_TAG_U(tag) == 1)
		return -(long)L4_MR(1);
	return L4_TAG_LABEL(tag) == label ? 0 : -DRIVER_ERR_REQUEST;
}

long disk_info(uint64_t *sectors, struct disk_wait *wait)
{
	L4_SetMR(0, L4_TAG_MAKE(DISK_INFO, 0, 0));
	long err = call(DISK_INFO);
	if (!err && sectors)
		*sectors = L4_MR(1);
	if (!err && wait)
		*wait = (struct disk_wait){ L4_MR(4), L4_MR(5) };
	return err;
}

long disk_read(uint64_t lba, uint32_t count, void *buf)
{
	L4_SetBR(0, L4_ACCEPT_STRINGS);
	L4_SetBR(1, L4_STRING_MAKE((L4_Word_t)count * DISK_SECTOR, 1, 0, 0));
	L4_SetBR(2, (L4_Word_t)buf);
	L4_SetMR(0, L4_TAG_MAKE(DISK_READ, 2, 0));
	L4_SetMR(1, lba);
	L4_SetMR(2, count);
	long err = call(DISK_READ);
	L4_SetBR(0, 0);
	return err;
}

long disk_write(uint64_t lba, uint32_t count, const void *buf)
{
	L4_SetMR(0, L4_TAG_MAKE(DISK_WRITE, 2, 2));
	L4_SetMR(1, lba);
	L4_SetMR(2, count);
	L4_SetMR(3, L4_STRING_MAKE((L4_Word_t)count * DISK_SECTOR, 1, 0, 0));
	L4_SetMR(4, (L4_Word_t)buf);
	return call(DISK_WRITE);
}

long disk_flush(void)
{
	L4_SetMR(0, L4_TAG_MAKE(DISK_FLUSH, 0, 0));
	return call(DISK_FLUSH);
}

const char *disk_strerror(long err)
{
	static const char *const names[] = {
		"ok", "malformed request", "busy", "sectors outside the disk", "buffer does not match the count",
		"no disk", "drive error", "IPC failed (no driver, or it did not answer)", "not a client of the driver",
	};
	return err <= 0 && err >= -DRIVER_ERR_DENIED ? names[-err] : "unknown error";
}

/* lib/store's requests are at most a block (8 sectors), well under DISK_MAX_SECTORS. */
static int dev_read(void *ctx, uint64_t lba, uint32_t count, void *buf)
{
	(void)ctx;
	return count > DISK_MAX_SECTORS ? -1 : (int)disk_read(lba, count, buf);
}

static int dev_write(void *ctx, uint64_t lba, uint32_t count, const void *buf)
{
	(void)ctx;
	return count > DISK_MAX_SECTORS ? -1 : (int)disk_write(lba, count, buf);
}

static int dev_flush(void *ctx)
{
	(void)ctx;
	return (int)disk_flush();
}

void disk_store_dev(struct store_dev *dev, uint64_t sectors)
{
	*dev = (struct store_dev){ 0, sectors, dev_read, dev_write, dev_flush };
}
