// SPDX-License-Identifier: MIT
// The terminal on standard input, when there is one (lx's console; a terminal
// on Linux): termios read and written back, window size, the foreground group
// and session, and errno for bad requests and pointers.  Without a terminal
// (tests/host/test_lx_native.py runs it with /dev/null) only ENOTTY is checked.
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "check.h"

static void terminal_checks(void)
{
	struct termios t, back;
	check("tcgetattr", tcgetattr(0, &t), 0, 0);
	check("tcsetattr the same", tcsetattr(0, TCSANOW, &t), 0, 0);
	tcgetattr(0, &back);
	check("reads back", back.c_lflag == t.c_lflag && back.c_iflag == t.c_iflag, 1, 0);
	struct termios raw = t;
	raw.c_lflag &= ~(tcflag_t)ECHO;
	check("tcsetattr TCSADRAIN without ECHO", tcsetattr(0, TCSADRAIN, &raw), 0, 0);
	tcgetattr(0, &back);
	check("ECHO off reads back", !(back.c_lflag & ECHO), 1, 0);
	tcsetattr(0, TCSANOW, &t);
	check("TCGETS bad pointer: EFAULT", ioctl(0, TCGETS, (void *)8), -1, EFAULT);
	check("TCSETS bad pointer: EFAULT", ioctl(0, TCSETS, (void *)8), -1, EFAULT);
	struct winsize ws, ws2 = { 0 };
	check("TIOCGWINSZ", ioctl(0, TIOCGWINSZ, &ws), 0, 0);
	struct winsize set = { 33, 77, 0, 0 };
	check("TIOCSWINSZ", ioctl(0, TIOCSWINSZ, &set), 0, 0);
	ioctl(0, TIOCGWINSZ, &ws2);
	check("window size reads back", ws2.ws_row == 33 && ws2.ws_col == 77, 1, 0);
	ioctl(0, TIOCSWINSZ, &ws);
	check("TIOCGWINSZ bad pointer: EFAULT", ioctl(0, TIOCGWINSZ, (void *)8), -1, EFAULT);
	check("foreground group is ours", tcgetpgrp(0), getpgrp(), 0);
	pid_t sid = -1;
	check("TIOCGSID", ioctl(0, TIOCGSID, &sid), 0, 0);
	check("the terminal's session is ours", sid, getsid(0), 0);
	check("tcflush bad queue: EINVAL", tcflush(0, 7), -1, EINVAL);
	check("tcflush TCIFLUSH", tcflush(0, TCIFLUSH), 0, 0);
	check("tcflow bad action: EINVAL", tcflow(0, 9), -1, EINVAL);
	check("tcflow TCOON", tcflow(0, TCOON), 0, 0);
	check("tcdrain", tcdrain(0), 0, 0);
	check("unknown ioctl: ENOTTY", ioctl(0, 0x54ff, &sid), -1, ENOTTY);
}

int main(void)
{
	struct termios t;
	if (isatty(0))
		terminal_checks();
	else
		check("no terminal: tcgetattr ENOTTY", tcgetattr(0, &t), -1, ENOTTY);
	return checks_done("ttyio");
}
