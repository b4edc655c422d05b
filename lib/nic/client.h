/* SPDX-License-Identifier: MIT */
/* Clients of the NIC driver (include/l4/nic.h for the protocol, docs/net.md). */
#ifndef PECAN_NIC_CLIENT_H
#define PECAN_NIC_CLIENT_H

#include <stdint.h>
#include "../l4/l4.h"

/* The driver thread; nil until nic_start (servers/nic/nic.h). */
extern L4_ThreadId_t pecan_nic;

/* Beyond include/l4/nic.h's reasons: the IPC itself failed (ErrorCode says why). */
#define NIC_ERR_IPC 7

/*
 * Each returns 0 (or a length) or minus a reason (DRIVER_ERR_REQUEST,
 * NIC_ERR_*).  nic_recv never blocks: -NIC_ERR_EMPTY when nothing waits;
 * buf must hold NIC_FRAME_MAX bytes.
 */
long nic_info(uint8_t mac[6]);
/* Frames received and interrupts taken so far (either pointer may be NULL). */
long nic_counts(uint64_t *frames, uint64_t *interrupts);
long nic_send(const void *frame, uint32_t len);
long nic_recv(void *buf);
long nic_notify(void);

#endif
