// SPDX-License-Identifier: MIT
// The boot command line's options, and capabilities written as text, for
// programs that take them from their boot (tests and benchmarks that hand
// capabilities from one boot to the next).
#include "mungi.h"
#include "../c/string.h"

const char *mungi_arg(const char *args, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = args; *s; s++)
		if ((s == args || s[-1] == ' ') && !memcmp(s, name, n) && s[n] == '=')
			return s + n + 1;
	return "";
}

static mw_t hex(const char **p)
{
	mw_t v = 0;
	for (;; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + (mw_t)d;
	}
}

struct mungi_cap mungi_cap_parse(const char *s)
{
	struct mungi_cap c = { hex(&s), 0 };
	if (*s == ':')
		s++, c.password = hex(&s);
	return c;
}
