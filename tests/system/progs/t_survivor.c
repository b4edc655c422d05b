// SPDX-License-Identifier: MIT
// Root task that runs on while sigma0 is halted (test_entry: the refused non-canonical RIP).
#include "../../../lib/l4/l4.h"
#include "../../../lib/test/test.h"

TEST_CASE("survive.runs_on", "the root task runs on after another task was halted")
{
	L4_ThreadSwitch(L4_NILTHREAD);
	EXPECT(L4_MyGlobalId() == l4_global_id(L4_USER_BASE + 2, 1), "MyGlobalId %lx", L4_MyGlobalId());
}

int main(void)
{
	test_run_all();
	pecan_kdb_power_off(0);
	return 0;
}
