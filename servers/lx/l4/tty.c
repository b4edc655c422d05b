// SPDX-License-Identifier: MIT
// The console: bytes come from the user-level serial driver through a
// reader thread of lx's own, and go out through the driver.  Between them
// a line discipline as Linux's N_TTY does it, reduced to what a shell
// needs: echo, canonical lines with erase and kill, ^C ^\ ^Z as signals
// to the foreground process group, ^D as end of file, CR to NL; a read
// from a background process group gets SIGTTIN, a change of the settings
// (and a write, with TOSTOP) SIGTTOU.
#include "../lx.h"
#include "../../../lib/c/string.h"
#include "../../../lib/drivers/client.h"
#include <l4/drivers.h>
#include <l4/kip.h>

#define TTY_INPUT 0x4c58      /* the reader's message: MR1 = count, MR2.. the bytes */
#define READER_CHUNK 256

/* termios bits and control characters (Linux x86-64 values) */
#define ICRNL  0000400
#define OPOST  0000001
#define ONLCR  0000004
#define ISIG   0000001
#define ICANON 0000002
#define ECHO   0000010
#define ECHOE  0000020
#define ECHOK  0000040
#define ECHOCTL 0001000
#define ECHOKE 0004000
#define IEXTEN 0100000
#define TOSTOP 0000400
enum { VINTR, VQUIT, VERASE, VKILL, VEOF, VTIME, VMIN, VSWTC, VSTART, VSTOP, VSUSP, VEOL,
       VREPRINT, VDISCARD, VWERASE, VLNEXT, VEOL2, NCCS = 19 };

struct termios_k {
	uint32_t iflag, oflag, cflag, lflag;
	uint8_t line, cc[NCCS];
};

#define IBUF 4096
static struct {
	struct termios_k tio;
	char line[IBUF];                /* the line being edited (canonical mode) */
	size_t nline;
	char in[IBUF];                  /* bytes ready for read() */
	size_t head, count;
	int eofs;                       /* ^D at the start of a line: reads that return 0 */
	int fg_pgrp;
	uint16_t rows, cols;
	L4_ThreadId_t reader;
	L4_ThreadId_t reader_local;      /* how its messages name it (same space) */
} tty;

static char reader_stack[8192] __attribute__((aligned(16)));

/* --- output --- */

long console_out(const void *buf, size_t n)
{
	reply_flush();
	const char *p = buf;
	size_t left = n;
	while (left) {
		size_t c = left < CONSOLE_BUF ? left : CONSOLE_BUF;
		long w = console_write(p, c);
		if (w <= 0)
			return n - left ? (long)(n - left) : -LX_EIO;
		p += w;
		left -= (size_t)w;
	}
	return (long)n;
}

/* Output processing: NL becomes CR NL with OPOST|ONLCR. */
static long tty_out(const char *buf, size_t n)
{
	if (!(tty.tio.oflag & OPOST) || !(tty.tio.oflag & ONLCR))
		return console_out(buf, n);
	char out[512];
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (o + 2 > sizeof(out)) {
			console_out(out, o);
			o = 0;
		}
		if (buf[i] == '\n')
			out[o++] = '\r';
		out[o++] = buf[i];
	}
	console_out(out, o);
	return (long)n;
}

static void echo(const char *s, size_t n)
{
	if (tty.tio.lflag & ECHO)
		tty_out(s, n);
}

static void echo_char(char c)
{
	if ((tty.tio.lflag & ECHOCTL) && (uint8_t)c < 32 && c != '\n' && c != '\t') {
		char s[2] = { '^', (char)(c + 64) };
		echo(s, 2);
	} else {
		echo(&c, 1);
	}
}

/* --- input --- */

static void push_ready(const char *s, size_t n)
{
	for (size_t i = 0; i < n && tty.count < IBUF; i++)
		tty.in[(tty.head + tty.count++) % IBUF] = s[i];
}

static bool signal_char(char c)
{
	const uint8_t *cc = tty.tio.cc;
	int sig = c == cc[VINTR] ? LX_SIGINT : c == cc[VQUIT] ? LX_SIGQUIT :
		  c == cc[VSUSP] ? LX_SIGTSTP : 0;
	if (!sig || !(tty.tio.lflag & ISIG))
		return false;
	echo_char(c);
	echo("\n", 1);
	tty.nline = 0;
	tty.count = 0;
	if (tty.fg_pgrp)
		signal_send_pgrp(tty.fg_pgrp, sig);
	return true;
}

static void erase_one(void)
{
	if (!tty.nline)
		return;
	bool ctl = (uint8_t)tty.line[--tty.nline] < 32;
	if (tty.tio.lflag & ECHOE)
		echo(ctl ? "\b\b  \b\b" : "\b \b", ctl ? 6 : 3);
}

static void canonical(char c)
{
	const uint8_t *cc = tty.tio.cc;
	if (c == cc[VERASE] || c == '\b') {
		erase_one();
	} else if (c == cc[VKILL]) {
		while (tty.nline)
			erase_one();
	} else if (c == cc[VEOF]) {
		if (!tty.nline)
			tty.eofs++;
		push_ready(tty.line, tty.nline);
		tty.nline = 0;
	} else if (c == '\n' || (c && c == cc[VEOL])) {
		echo_char(c);
		if (tty.nline < IBUF)
			tty.line[tty.nline++] = c;
		push_ready(tty.line, tty.nline);
		tty.nline = 0;
	} else if (tty.nline < IBUF - 1) {
		echo_char(c);
		tty.line[tty.nline++] = c;
	}
}

static void input_char(char c)
{
	if (c == '\r' && (tty.tio.iflag & ICRNL))
		c = '\n';
	if (signal_char(c))
		return;
	if (tty.tio.lflag & ICANON) {
		canonical(c);
	} else {
		echo_char(c);
		push_ready(&c, 1);
	}
}

static void tty_input(const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		input_char(buf[i]);
	wake(&tty);
}

/* --- the reader thread: blocks in the driver, hands bytes to lx's loop --- */

static void reader(void)
{
	char buf[READER_CHUNK];
	for (;;) {
		long n = console_read(buf, sizeof(buf));
		if (n <= 0)
			continue;
		L4_SetMR(0, L4_TAG_MAKE(TTY_INPUT, 1 + (n + 7) / 8, 0));
		L4_SetMR(1, (L4_Word_t)n);
		memcpy(&L4_Utcb()[2], buf, (size_t)n);
		L4_Call(lx_id);
	}
}

L4_ThreadId_t tty_reader_id(void) { return tty.reader_local; }

void tty_message(void)
{
	char buf[READER_CHUNK];
	size_t n = L4_MR(1) < READER_CHUNK ? L4_MR(1) : READER_CHUNK;
	memcpy(buf, &L4_Utcb()[2], n);
	reply_flush();
	L4_SetMR(0, 0);
	L4_Reply(tty.reader);                       /* the reader goes back to the driver */
	tty_input(buf, n);
}

static const struct termios_k default_termios = {
	.iflag = ICRNL, .oflag = OPOST | ONLCR, .cflag = 0277,
	.lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.cc = { [VINTR] = 3, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025, [VEOF] = 4,
		[VTIME] = 0, [VMIN] = 1, [VSTART] = 021, [VSTOP] = 023, [VSUSP] = 032,
		[VREPRINT] = 022, [VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026 },
};

void tty_init(L4_ThreadId_t r)
{
	tty.tio = default_termios;
	tty.rows = 24;
	tty.cols = 80;
	tty.reader = r;
	tty.reader_local = lx_thread_start(r, reader, reader_stack, sizeof(reader_stack), 250);
}

int tty_fg_pgrp(void) { return tty.fg_pgrp; }
void tty_set_fg_pgrp(int pgrp) { tty.fg_pgrp = pgrp; }

/* --- the file --- */

/* Is p in the console's session (the session of its foreground process group)? */
static bool in_tty_session(struct proc *p)
{
	for (struct proc *q = procs; q; q = q->next_all)
		if (q->pgid == tty.fg_pgrp && !q->zombie)
			return q->sid == p->sid;
	return false;
}

/* t belongs to a background process group of the console's session. */
static bool in_background(struct thread *t)
{
	return t && tty.fg_pgrp && t->proc->pgid != tty.fg_pgrp && in_tty_session(t->proc);
}

/*
 * A read by a background process group: SIGTTIN to the group, which stops
 * it, and the read runs again when it continues; EIO when the reader
 * ignores or blocks SIGTTIN or its group is orphaned (Linux's n_tty_read).
 * 0: the reader may read.
 */
static long background_read(void)
{
	struct thread *t = lx_current;
	if (!in_background(t))
		return 0;
	if (signal_refused(t, LX_SIGTTIN) || pgrp_orphaned(t->proc->pgid))
		return -LX_EIO;
	signal_send_pgrp(t->proc->pgid, LX_SIGTTIN);
	return -LX_ERESTART;
}

/*
 * A change of the settings (or a write, with TOSTOP) by a background
 * process group: SIGTTOU, unless it ignores or blocks it (then the change
 * is made), as Linux's tty_check_change.  0: go ahead.
 */
static long background_change(void)
{
	struct thread *t = lx_current;
	if (!in_background(t) || signal_refused(t, LX_SIGTTOU))
		return 0;
	if (pgrp_orphaned(t->proc->pgid))
		return -LX_EIO;
	signal_send_pgrp(t->proc->pgid, LX_SIGTTOU);
	return -LX_ERESTART;
}

static long tty_read(struct file *f, void *buf, size_t n)
{
	(void)f;
	long bg = background_read();
	if (bg)
		return bg;
	if (!tty.count && tty.eofs) {
		tty.eofs--;
		return 0;
	}
	if (!tty.count)
		return -LX_EAGAIN;
	size_t got = 0;
	char *b = buf;
	bool canon = tty.tio.lflag & ICANON;
	while (got < n && tty.count) {
		char c = tty.in[tty.head];
		tty.head = (tty.head + 1) % IBUF;
		tty.count--;
		b[got++] = c;
		if (canon && c == '\n')
			break;
	}
	return (long)got;
}

static long tty_write(struct file *f, const void *buf, size_t n)
{
	(void)f;
	long bg = (tty.tio.lflag & TOSTOP) ? background_change() : 0;
	return bg ? bg : tty_out(buf, n);
}

static int tty_poll(struct file *f)
{
	(void)f;
	return LX_POLLOUT | (tty.count || tty.eofs ? LX_POLLIN : 0);
}

static void *tty_wchan(struct file *f)
{
	(void)f;
	return &tty;
}

#define TCGETS     0x5401
#define TCSETS     0x5402
#define TCSETSW    0x5403
#define TCSETSF    0x5404
#define TCSBRK     0x5409
#define TCXONC     0x540A
#define TCFLSH     0x540B
#define TIOCSCTTY  0x540E
#define TIOCGPGRP  0x540F
#define TIOCSPGRP  0x5410
#define TIOCOUTQ   0x5411
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414
#define FIONREAD   0x541B
#define TIOCNOTTY  0x5422
#define TIOCGSID   0x5429

/*
 * New settings.  Leaving canonical mode makes the line being edited
 * readable at once, as Linux's N_TTY does: bytes typed ahead while a
 * command ran are not lost when the shell's line editor switches to raw.
 */
static long set_termios(struct proc *p, u64 arg)
{
	struct termios_k n;
	if (!copyin(p, &n, arg, sizeof(n)))
		return -LX_EFAULT;
	if ((tty.tio.lflag & ICANON) && !(n.lflag & ICANON)) {
		push_ready(tty.line, tty.nline);
		tty.nline = 0;
		wake(&tty);
	}
	tty.tio = n;
	return 0;
}

/* The requests that change the console: a background process group gets SIGTTOU. */
static bool changes_tty(u64 cmd)
{
	return cmd == TCSETS || cmd == TCSETSW || cmd == TCSETSF || cmd == TIOCSPGRP ||
	       cmd == TCFLSH || cmd == TCXONC;
}

static long tty_ioctl(struct thread *t, struct file *f, u64 cmd, u64 arg)
{
	(void)f;
	struct proc *p = t->proc;
	int32_t v;
	uint16_t ws[4] = { tty.rows, tty.cols, 0, 0 };
	long bg = changes_tty(cmd) ? background_change() : 0;
	if (bg)
		return cmd == TIOCSPGRP && bg == -LX_EIO ? -LX_ENOTTY : bg;
	switch (cmd) {
	case TCGETS:
		return copyout(p, arg, &tty.tio, sizeof(tty.tio)) ? 0 : -LX_EFAULT;
	case TCSETSF:
		tty.count = 0;
		tty.nline = 0;
		/* fall through */
	case TCSETS:
	case TCSETSW:
		return set_termios(p, arg);
	case TIOCGPGRP:
		v = tty.fg_pgrp;
		return copyout(p, arg, &v, 4) ? 0 : -LX_EFAULT;
	case TIOCSPGRP:
		if (!copyin(p, &v, arg, 4))
			return -LX_EFAULT;
		if (v <= 0)
			return -LX_EINVAL;
		tty.fg_pgrp = v;
		return 0;
	case TIOCGSID:
		v = p->sid;
		return copyout(p, arg, &v, 4) ? 0 : -LX_EFAULT;
	case TIOCGWINSZ:
		return copyout(p, arg, ws, sizeof(ws)) ? 0 : -LX_EFAULT;
	case TIOCSWINSZ:
		if (!copyin(p, ws, arg, sizeof(ws)))
			return -LX_EFAULT;
		tty.rows = ws[0];
		tty.cols = ws[1];
		return 0;
	case FIONREAD:
		v = (int32_t)tty.count;
		return copyout(p, arg, &v, 4) ? 0 : -LX_EFAULT;
	case TIOCOUTQ:
		v = 0;
		return copyout(p, arg, &v, 4) ? 0 : -LX_EFAULT;
	case TCFLSH:                        /* TCIFLUSH 0, TCOFLUSH 1, TCIOFLUSH 2 */
		if (arg > 2)
			return -LX_EINVAL;
		if (arg == 0 || arg == 2)
			tty.count = tty.nline = 0;
		return 0;
	case TCXONC:                        /* TCOOFF, TCOON, TCIOFF, TCION: no flow control */
		return arg > 3 ? -LX_EINVAL : 0;
	case TIOCSCTTY:
	case TIOCNOTTY:
	case TCSBRK:
		return 0;
	default:
		return -LX_ENOTTY;
	}
}

const struct file_ops tty_ops = {
	.read = tty_read, .write = tty_write, .poll = tty_poll, .wchan = tty_wchan,
	.ioctl = tty_ioctl,
};
