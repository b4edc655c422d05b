// SPDX-License-Identifier: MIT
// Host tests of the network server's boot-line configuration (servers/net/config.c).
#include <string.h>
#include "../../servers/net/config.h"
#include "../../lib/test/test.h"

static int ip6(const char *s, const char *want_hex)
{
	uint8_t a[16];
	char got[33];
	if (net_parse_ip6(s, strlen(s), a))
		return 0;
	for (int i = 0; i < 16; i++) {
		static const char hex[] = "0123456789abcdef";
		got[2 * i] = hex[a[i] >> 4];
		got[2 * i + 1] = hex[a[i] & 15];
	}
	got[32] = 0;
	return strcmp(got, want_hex) == 0;
}

TEST_CASE("netconfig.ip4", "dotted quads parse; out-of-range, short, long and stray characters do not") {
	uint8_t a[4];
	EXPECT(net_parse_ip4("10.0.2.15", 9, a) == 0 && a[0] == 10 && a[3] == 15, "10.0.2.15");
	EXPECT(net_parse_ip4("255.255.255.255", 15, a) == 0 && a[2] == 255, "all ones");
	const char *bad[] = { "256.0.0.1", "1.2.3", "1.2.3.4.5", "1.2.3.x", "", "1..2.3", "1.2.3.4 ", "0001.2.3.4" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(net_parse_ip4(bad[i], strlen(bad[i]), a) != 0, "accepted \"%s\"", bad[i]);
}

TEST_CASE("netconfig.ip6", "IPv6 addresses with and without ::; malformed ones are refused") {
	EXPECT(ip6("fec0::15", "fec00000000000000000000000000015"), "fec0::15");
	EXPECT(ip6("::1", "00000000000000000000000000000001"), "::1");
	EXPECT(ip6("::", "00000000000000000000000000000000"), "::");
	EXPECT(ip6("fe80::", "fe800000000000000000000000000000"), "fe80::");
	EXPECT(ip6("1:2:3:4:5:6:7:8", "00010002000300040005000600070008"), "eight groups");
	EXPECT(ip6("1:2::7:8", "00010002000000000000000000070008"), "middle gap");
	const char *bad[] = { "1:2:3:4:5:6:7", "1::2::3", "12345::", ":1", "1:", "g::", "1:2:3:4:5:6:7:8:9", "1:2:3:4::5:6:7:8" };
	uint8_t a[16];
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(net_parse_ip6(bad[i], strlen(bad[i]), a) != 0, "accepted \"%s\"", bad[i]);
}

TEST_CASE("netconfig.line", "net.* words of a command line set the configuration; other words are skipped; a bad net.* word fails") {
	struct stack_config c;
	memset(&c, 0, sizeof(c));
	EXPECT(net_config_parse("x=1 net.ip4=10.0.2.15/24 net.gw4=10.0.2.2  net.ip6=fec0::15/64 net.gw6=fec0::2 y", &c) == 0, "parse");
	EXPECT(c.ip4[3] == 15 && c.ip4_prefix == 24 && c.gw4[3] == 2, "ipv4");
	EXPECT(c.ip6[0] == 0xfe && c.ip6[15] == 0x15 && c.ip6_prefix == 64 && c.gw6[15] == 2, "ipv6");
	EXPECT(net_config_parse("", &c) == 0, "empty line");
	const char *bad[] = { "net.ip4=10.0.2.15", "net.ip4=10.0.2.15/33", "net.ip6=fec0::1/129", "net.gw4=1.2.3",
			      "net.bogus=1", "net.ip4=1.2.3.4/" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT(net_config_parse(bad[i], &c) != 0, "accepted \"%s\"", bad[i]);
}

int main(void)
{
	return test_run_all() ? 1 : 0;
}
