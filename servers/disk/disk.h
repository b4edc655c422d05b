/* SPDX-License-Identifier: MIT */
/* The user-level disk driver (include/l4/disk.h for its protocol, docs/store.md). */
#ifndef PECAN_DISK_H
#define PECAN_DISK_H

#include <stdint.h>
#include "../../lib/l4/l4.h"
#include "../drivers/drivers.h"

void disk_driver(void);
extern struct driver_clients disk_clients;
/*
 * Ask sigma0 for the primary IDE channel's ports (into the calling task's
 * space; call it from the thread sigma0 knows, e.g. the root task's first)
 * and start the driver as thread `driver` of the calling task.  Returns 0 on
 * failure (ports refused, thread not created).  Whether a disk is there,
 * DISK_INFO tells (lib/disk/client.h).
 */
int disk_start(L4_ThreadId_t driver);
/*
 * The same, serving besides the calling task's own threads the clients c
 * names (copied; NULL: none).  The driver's faults go to the calling thread.
 */
int disk_start_for(L4_ThreadId_t driver, const struct driver_clients *c);
/*
 * Delete the driver thread (dead, crashed or hung) and start it afresh with
 * the same ID, clients and ports: its clients' next calls are served again.
 * The drive is identified anew.  0 on failure.
 */
int disk_restart(void);
/* As drivers_supervise (servers/drivers/drivers.h), for the disk driver. */
int disk_supervise(L4_ThreadId_t from, L4_MsgTag_t tag);

#endif
