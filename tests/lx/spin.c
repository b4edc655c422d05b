// SPDX-License-Identifier: MIT
// Never makes a system call: only preemption lets anything else run.
int main(void)
{
	for (volatile unsigned long i = 0;; i++)
		;
}
