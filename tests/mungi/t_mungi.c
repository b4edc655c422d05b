// SPDX-License-Identifier: MIT
// The Mungi layer's in-guest tests: this image's first task runs them.
#include "../../lib/mungi/mungi.h"
#include "../../lib/test/test.h"
#include "../../lib/c/stdio.h"

static struct mungi_bootinfo *boot;

TEST_CASE("obj.create_touch_delete", "an object is created, written, read back and deleted; afterwards it cannot be touched")
{
	struct mungi_cap c;
	mw_t base = mungi_new(4, &c);
	EXPECT(base, "mungi_new failed");
	volatile unsigned long *p = (volatile unsigned long *)base;
	p[0] = 0x1234;
	p[1000] = 0x5678;
	EXPECT(p[0] == 0x1234 && p[1000] == 0x5678, "read back %lx %lx", p[0], p[1000]);
	EXPECT(mungi_free(base) == 0, "delete");
	EXPECT(mungi_probe(base, 'r') == -1, "the deleted object could still be read");
}

long mungi_main(mw_t arg)
{
	boot = (struct mungi_bootinfo *)arg;
	printf("t_mungi: boot info magic %lx\n", boot->magic);
	return test_run_all() ? 1 : 0;
}
