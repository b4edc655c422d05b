/* SPDX-License-Identifier: MIT */
/*
 * Protocols of Pecan's user-level drivers (servers/drivers/), shared by the
 * drivers and their clients (lib/drivers/).  Requests are Calls; labels are
 * the request type.
 *
 * Console (the serial driver):
 *   WRITE    t = 2: one string item with the bytes.  Reply u = 1: MR1 = bytes written.
 *   READ     u = 1: MR1 = most bytes wanted; the caller's BR0/BR1 accept one string.
 *            Blocks until at least one byte arrived.  Reply t = 2: a string item.
 *   LOOPBACK u = 1: MR1 = 1 turns the UART's loopback on (what is written
 *            comes back as input through the receive interrupt), 0 off.
 * Timer service:
 *   SLEEP    u = 1: MR1 = microseconds.  The reply comes when they have passed.
 *   ALARM    u = 2: MR1 = microseconds, MR2 = cookie.  Replied at once; when
 *            the time has passed the service sends (zero timeout) label
 *            ALARM_FIRED, u = 1, MR1 = cookie.
 *   Each client thread holds at most TIMER_SLOTS_PER_CLIENT sleeps and alarms
 *   at once (BUSY beyond), so one client cannot take every slot.
 * A failed request is answered with label ERROR, u = 1, MR1 = a reason code.
 *
 * Every driver serves only its clients: the threads of the space that started
 * it, and the threads that space named at start (servers/drivers/drivers.h,
 * struct driver_clients).  Anyone else gets ERROR / DRIVER_ERR_DENIED, whatever
 * the label (a send that waits for no reply loses it), and is logged once.
 * TEST_CRASH (u = 0) makes a driver fault through a wild pointer, where its
 * starter allowed test requests; elsewhere it is a malformed request.
 */
#ifndef L4_DRIVERS_H
#define L4_DRIVERS_H

#define CONSOLE_WRITE       0x10
#define CONSOLE_READ        0x11
#define CONSOLE_LOOPBACK    0x12
#define TIMER_SLEEP         0x20
#define TIMER_ALARM         0x21
#define TIMER_ALARM_FIRED   0x22
#define DRIVER_TEST_CRASH   0x2e
#define DRIVER_ERROR        0x2f

#define DRIVER_ERR_REQUEST  1    /* unknown label or malformed message */
#define DRIVER_ERR_BUSY     2    /* no room for another waiting client (or this client's share used) */
#define DRIVER_ERR_DENIED   8    /* the sender is not one of the driver's clients */

#define TIMER_SLOTS_PER_CLIENT 4
#define CONSOLE_IRQ         4    /* COM1 */
#define CONSOLE_BUF         4096 /* longest WRITE or READ */

#endif
