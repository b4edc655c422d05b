// SPDX-License-Identifier: MIT
// Powers off with status 42: tools/run must pass a guest status through.
#include <l4/l4.h>
#include <c/stdio.h>

int main(void)
{
	printf("status: powering off with 42\n");
	pecan_kdb_power_off(42);
	return 0;
}
