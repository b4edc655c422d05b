// SPDX-License-Identifier: MIT
// Reads console keys through KDB ReadChar until a newline, echoes them, powers off.
#include <l4/l4.h>
#include <c/stdio.h>

int main(void)
{
	char line[64];
	int n = 0;
	printf("echo: ready\n");
	for (;;) {
		int c = L4_KDB_ReadChar_Blocked();
		if (c == '\n' || c == '\r' || n == (int)sizeof(line) - 1)
			break;
		line[n++] = (char)c;
	}
	line[n] = '\0';
	printf("echo: got \"%s\"\n", line);
	pecan_kdb_power_off(0);
	return 0;
}
