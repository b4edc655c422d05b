// SPDX-License-Identifier: MIT
// The network server's static configuration from the boot command line.
// Pure C, also built for the host tests (tests/host/test_netconfig.c).
#include "config.h"

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int net_parse_ip4(const char *s, unsigned long len, uint8_t out[4])
{
	unsigned long i = 0;
	for (int part = 0; part < 4; part++) {
		unsigned v = 0, digits = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 3) {
			v = v * 10 + (unsigned)(s[i++] - '0');
			digits++;
		}
		if (!digits || v > 255 || (part < 3 && (i >= len || s[i++] != '.')))
			return -1;
		out[part] = (uint8_t)v;
	}
	return i == len ? 0 : -1;
}

/* Up to 8 groups of 1-4 hex digits, one "::" standing for the zero groups left out. */
int net_parse_ip6(const char *s, unsigned long len, uint8_t out[16])
{
	uint16_t g[8];
	int n = 0, gap = -1;
	unsigned long i = 0;
	if (len >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	}
	while (i < len) {
		unsigned v = 0, digits = 0;
		while (i < len && hexval(s[i]) >= 0 && digits < 5) {
			v = v * 16 + (unsigned)hexval(s[i++]);
			digits++;
		}
		if (!digits || digits > 4 || n == 8)
			return -1;
		g[n++] = (uint16_t)v;
		if (i == len)
			break;
		if (s[i++] != ':' || i == len)
			return -1;
		if (s[i] == ':') {
			if (gap >= 0)
				return -1;            /* two "::" */
			gap = n;
			if (++i == len)
				break;
		}
	}
	if ((gap < 0 && n != 8) || (gap >= 0 && n > 7))
		return -1;
	int zeros = 8 - n;
	for (int k = 0, j = 0; k < 8; k++) {
		uint16_t v = gap >= 0 && k >= gap && k < gap + zeros ? 0 : g[j++];
		out[2 * k] = (uint8_t)(v >> 8);
		out[2 * k + 1] = (uint8_t)v;
	}
	return 0;
}

static int starts(const char *w, unsigned long len, const char *key)
{
	unsigned long k = 0;
	while (key[k] && k < len && w[k] == key[k])
		k++;
	return key[k] == 0;
}

/* "ADDR/P": the prefix after the slash, at most max. */
static int split_prefix(const char *v, unsigned long len, unsigned max, unsigned long *alen, uint8_t *prefix)
{
	unsigned long slash = 0;
	while (slash < len && v[slash] != '/')
		slash++;
	*alen = slash;
	if (slash == len)
		return -1;
	unsigned p = 0, digits = 0;
	for (unsigned long i = slash + 1; i < len; i++, digits++) {
		if (v[i] < '0' || v[i] > '9' || digits == 3)
			return -1;
		p = p * 10 + (unsigned)(v[i] - '0');
	}
	if (!digits || p > max)
		return -1;
	*prefix = (uint8_t)p;
	return 0;
}

static int parse_word(const char *w, unsigned long len, struct stack_config *c)
{
	unsigned long alen;
	if (starts(w, len, "net.ip4="))
		return split_prefix(w + 8, len - 8, 32, &alen, &c->ip4_prefix) ? -1 : net_parse_ip4(w + 8, alen, c->ip4);
	if (starts(w, len, "net.gw4="))
		return net_parse_ip4(w + 8, len - 8, c->gw4);
	if (starts(w, len, "net.ip6="))
		return split_prefix(w + 8, len - 8, 128, &alen, &c->ip6_prefix) ? -1 : net_parse_ip6(w + 8, alen, c->ip6);
	if (starts(w, len, "net.gw6="))
		return net_parse_ip6(w + 8, len - 8, c->gw6);
	return starts(w, len, "net.") ? -1 : 0;
}

int net_config_parse(const char *args, struct stack_config *c)
{
	for (const char *p = args; *p;) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		if (p > w && parse_word(w, (unsigned long)(p - w), c))
			return -1;
	}
	return 0;
}
