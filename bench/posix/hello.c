// SPDX-License-Identifier: MIT
// The program that fork+execve benchmarks run: it only exits (lmbench's hello).
int main(void)
{
	return 0;
}
