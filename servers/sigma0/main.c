// SPDX-License-Identifier: MIT
// sigma0 placeholder: announces itself and waits for requests it does not serve
// yet.  The sigma0 protocol (owning physical memory, serving page faults) comes
// with the memory issue.
#include "../../lib/l4/l4.h"
#include "../../lib/c/stdio.h"

int main(void)
{
	printf("sigma0: running (placeholder: no sigma0 protocol yet)\n");
	for (;;)
		L4_Wait(0);
}
