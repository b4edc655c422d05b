/* SPDX-License-Identifier: MIT */
/*
 * Protocol of the user-level disk driver (servers/disk/), shared by the
 * driver and its clients (lib/disk/).  Requests are Calls; labels are the
 * request type; sectors are 512 bytes.
 *
 *   INFO   u = 0.  Reply u = 5: MR1 = sectors on the disk, MR2 = sector size
 *          (512), MR3 = most sectors one READ or WRITE moves (DISK_MAX_SECTORS);
 *          the driver polls, and benchmarks tell waiting from work by MR4 =
 *          status-register reads so far and MR5 = time stamp counter ticks
 *          spent polling (guest instructions under QEMU icount).
 *   READ   u = 2: MR1 = first sector (LBA), MR2 = count; the caller's BR0-BR2
 *          accept one string of count * 512 bytes.  Reply t = 2: one string item
 *          with the data.  A receive buffer that cannot take it makes the
 *          reply fail for the caller (the driver goes on).
 *   WRITE  u = 2, t = 2: MR1 = LBA, MR2 = count, then one string item of
 *          exactly count * 512 bytes.  Reply u = 1: MR1 = count, once the
 *          drive has taken the data.
 *   FLUSH  u = 0.  Reply u = 0 once everything written before is durable
 *          (the drive's FLUSH CACHE).
 * A failed request is answered with DRIVER_ERROR (include/l4/drivers.h),
 * u = 1, MR1 = a reason: DRIVER_ERR_REQUEST or one of DISK_ERR_*.
 * As every driver, it serves only the threads of the space that started it
 * and those named at start (disk_start_for); others get DRIVER_ERR_DENIED.
 * Its transfer timeouts are 100 ms: a string or receive buffer that faults
 * to a pager that does not answer in time fails the request, not the driver.
 */
#ifndef L4_DISK_H
#define L4_DISK_H

#define DISK_INFO          0x30
#define DISK_READ          0x31
#define DISK_WRITE         0x32
#define DISK_FLUSH         0x33

#define DISK_ERR_RANGE     3     /* count 0 or over the maximum, or sectors past the disk's end */
#define DISK_ERR_BUFFER    4     /* a WRITE's string is not count * 512 bytes */
#define DISK_ERR_NODISK    5     /* no ATA disk on the primary IDE channel */
#define DISK_ERR_IO        6     /* the drive reported an error or did not answer */

#define DISK_SECTOR        512
#define DISK_MAX_SECTORS   128   /* 64 KiB per READ or WRITE */

#endif
