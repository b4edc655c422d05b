// SPDX-License-Identifier: MIT
// A root task that deadlocks (test_entry.py checks what the kernel then does).
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"
#include "../../../lib/test/test.h"

TEST_CASE("deadlock.block", "the root task waits for itself forever while sigma0 waits for requests")
{
	printf("deadlock: the root task blocks forever\n");
	L4_Receive(L4_MyGlobalId());
	EXPECT(0, "woke up");
}

int main(void)
{
	return test_run_all();
}
