/* SPDX-License-Identifier: MIT */
/* Clients of the user-level drivers (include/l4/drivers.h for the protocols). */
#ifndef PECAN_DRIVER_CLIENT_H
#define PECAN_DRIVER_CLIENT_H

#include "../l4/l4.h"

/*
 * Every call below waits at most DRIVER_CALL_US for the driver to take the
 * request and, beyond the time asked for (a sleep) or for input (a read,
 * which may wait for ever), as long for its reply: a dead driver is an error.
 */
#define DRIVER_CALL_US 10000000

/* The driver threads; nil until drivers_start (then printf goes to the console). */
extern L4_ThreadId_t pecan_console, pecan_timer;

/* Write n bytes; the count written, or -1 (ErrorCode says why for IPC failures). */
long console_write(const char *buf, L4_Word_t n);
/* Read up to max bytes, waiting for at least one; the count, or -1. */
long console_read(char *buf, L4_Word_t max);
int console_loopback(int on);
/* Sleep us microseconds through the timer service; 0 on failure. */
int timer_sleep(L4_Word_t us);
/* Ask for an ALARM_FIRED message with cookie after us microseconds; 0 on failure. */
int timer_alarm(L4_Word_t us, L4_Word_t cookie);

#endif
