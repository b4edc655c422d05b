/* SPDX-License-Identifier: MIT */
/* Clients of the disk driver (include/l4/disk.h for the protocol, docs/store.md). */
#ifndef PECAN_DISK_CLIENT_H
#define PECAN_DISK_CLIENT_H

#include <stdint.h>
#include "../l4/l4.h"
#include "../store/store.h"

/* The driver thread; nil until disk_start (servers/disk/disk.h). */
extern L4_ThreadId_t pecan_disk;

/* Beyond include/l4/disk.h's reasons: the IPC itself failed (ErrorCode says why). */
#define DISK_ERR_IPC 7
/*
 * The longest a call waits for the driver to take it, and then for the
 * reply: beyond the drive's own 30 s limit, so a slow drive is an I/O
 * error from the driver; a dead driver is DISK_ERR_IPC at once, a hung one
 * after this long.
 */
#define DISK_CALL_US 60000000

/* The driver's waiting so far: status polls, and TSC ticks spent polling. */
struct disk_wait {
	uint64_t polls, ticks;
};

/*
 * Each returns 0 or minus a reason (DRIVER_ERR_REQUEST, DISK_ERR_*).  Reads
 * and writes move count sectors (1..DISK_MAX_SECTORS) at sector lba.
 * disk_info's pointers may be NULL.
 */
long disk_info(uint64_t *sectors, struct disk_wait *wait);
long disk_read(uint64_t lba, uint32_t count, void *buf);
long disk_write(uint64_t lba, uint32_t count, const void *buf);
long disk_flush(void);
const char *disk_strerror(long err);

/* A block device for lib/store over the driver, sectors big (from disk_info). */
void disk_store_dev(struct store_dev *dev, uint64_t sectors);

#endif
