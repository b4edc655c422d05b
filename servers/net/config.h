/* SPDX-License-Identifier: MIT */
/* The network server's static configuration from the boot command line (docs/net.md). */
#ifndef PECAN_NET_CONFIG_H
#define PECAN_NET_CONFIG_H

#include "stack.h"

/*
 * Read words "net.ip4=A.B.C.D/P", "net.gw4=A.B.C.D", "net.ip6=X:..:Y/P",
 * "net.gw6=X::Y" from args (other words are skipped) into *c, whose other
 * fields stay.  Returns 0, or -1 at the first malformed net.* word.
 */
int net_config_parse(const char *args, struct stack_config *c);
/* Parse an IPv4 / IPv6 address of exactly len characters; 0 or -1. */
int net_parse_ip4(const char *s, unsigned long len, uint8_t out[4]);
int net_parse_ip6(const char *s, unsigned long len, uint8_t out[16]);

#endif
