// SPDX-License-Identifier: MIT
// Runs in sigma0's slot beside t_sse: fills every XMM register and MXCSR with its
// own values between yields, so leaked FPU/SSE state would show in the root task.
#include "../../../lib/l4/l4.h"
#include "../../../lib/c/stdio.h"

int main(void)
{
	printf("s_sse_clobber: clobbering SSE state between yields\n");
	for (;;) {
		unsigned mxcsr = 0x1f80 | (3 << 13);   /* round toward zero */
		__asm__ __volatile__(
			"pcmpeqd %%xmm0, %%xmm0\n"
			"movdqa %%xmm0, %%xmm1; movdqa %%xmm0, %%xmm2; movdqa %%xmm0, %%xmm3\n"
			"movdqa %%xmm0, %%xmm4; movdqa %%xmm0, %%xmm5; movdqa %%xmm0, %%xmm6\n"
			"movdqa %%xmm0, %%xmm7; movdqa %%xmm0, %%xmm8; movdqa %%xmm0, %%xmm9\n"
			"movdqa %%xmm0, %%xmm10; movdqa %%xmm0, %%xmm11; movdqa %%xmm0, %%xmm12\n"
			"movdqa %%xmm0, %%xmm13; movdqa %%xmm0, %%xmm14; movdqa %%xmm0, %%xmm15\n"
			"ldmxcsr %0\n"
			: : "m"(mxcsr) : "memory");
		L4_ThreadSwitch(L4_NILTHREAD);
	}
}
