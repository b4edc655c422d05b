/* SPDX-License-Identifier: MIT */
/*
 * Protocol of the user-level network interface driver (servers/nic/: QEMU's
 * virtio-net, legacy PCI), shared by the driver and its clients (lib/nic/).
 * Requests are Calls; labels are the request type; frames are whole
 * Ethernet frames without the FCS (14..NIC_FRAME_MAX bytes).
 *
 *   INFO    u = 0.  Reply u = 4: MR1 = MAC address (byte 0 in bits 0-7),
 *           MR2 = NIC_FRAME_MAX, MR3 = frames received so far, MR4 = the
 *           device's interrupts so far.
 *   SEND    t = 2: one string item with the frame.  Reply u = 1: MR1 = its
 *           length, once the frame is in the transmit ring.
 *   RECV    u = 0; the caller's BR0-BR2 accept one string of NIC_FRAME_MAX
 *           bytes.  Reply t = 2: the oldest received frame; none waiting:
 *           DRIVER_ERROR with NIC_ERR_EMPTY (RECV never blocks).
 *   NOTIFY  u = 0.  From now on the caller (one thread) gets NIC_RX_READY,
 *           u = 0, sent with a zero timeout, whenever frames arrive: it then
 *           RECVs until NIC_ERR_EMPTY.  A notification can be lost while the
 *           caller is not waiting, so the caller also RECVs now and then.
 * A failed request is answered with DRIVER_ERROR (include/l4/drivers.h),
 * u = 1, MR1 = a reason: DRIVER_ERR_REQUEST or one of NIC_ERR_*.
 */
#ifndef L4_NIC_H
#define L4_NIC_H

#define NIC_INFO        0x40
#define NIC_SEND        0x41
#define NIC_RECV        0x42
#define NIC_NOTIFY      0x43
#define NIC_RX_READY    0x44

#define NIC_ERR_LENGTH  3     /* a frame shorter than 14 or longer than NIC_FRAME_MAX bytes */
#define NIC_ERR_BUSY    4     /* the transmit ring is full: try again */
#define NIC_ERR_EMPTY   5     /* no received frame waiting */
#define NIC_ERR_NODEV   6     /* no virtio-net device was found */

#define NIC_FRAME_MAX   1514

#endif
