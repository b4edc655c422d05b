# SPDX-License-Identifier: MIT
"""Drive busybox's shell on lx (Pecan's Linux personality) over the serial console.

Shell boots Pecan with lx and its root file system (make lx) and talks to the
shell as a terminal would: send() types, expect() waits for output.  run()
types one command line framed by markers, as one `{ ...; }` group, and
returns its output and exit status; the markers are typed as @@""S<n> so
the terminal's echo of the typed lines never matches them.
"""
import os
import re
import subprocess
import threading
import time

from harness import BUILD, RUN, kill_group

LX = os.path.join(BUILD, "servers", "lx.elf")
LXFS = os.path.join(BUILD, "lx", "rootfs.cpio")


# lx's two system-call paths (docs/lx.md): the fast library path (the default)
# and the trap only; suites that boot a shell run once on each
PATHS = {"fast": "", "trap": "lx.fast=0 /bin/sh"}


class Shell:
    def __init__(self, timeout=600, mem=None, root_args="", path="fast", disk=None, modules=(), extra=()):
        self.path = path
        root_args = root_args or PATHS[path]
        cmd = [RUN, "--eof-ctrl-d", "--root", LX, "--module", LXFS, "--timeout", str(timeout)]
        for m in modules:                       # more cpio archives, loaded after LXFS
            cmd += ["--module", m]
        if mem:
            cmd += ["--mem", str(mem)]
        if root_args:
            cmd += ["--root-args", root_args]
        if disk:
            cmd += ["--disk", disk]
        cmd += list(extra)              # more tools/run options (--nic ...)
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self.buf = ""
        self.pos = 0
        self.n = 0
        self.cond = threading.Condition()
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        while True:
            data = os.read(self.p.stdout.fileno(), 4096)
            with self.cond:
                if not data:
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.buf += data.decode("utf-8", "replace").replace("\r", "")
                self.cond.notify_all()

    eof = False

    def send(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def expect(self, pattern, timeout=60):
        """Wait for pattern (a regex) after what earlier expects consumed; the match."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                m = rx.search(self.buf, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                left = end - time.monotonic()
                if left <= 0 or self.eof:
                    raise AssertionError(f"no {pattern!r} within {timeout} s; console tail:\n"
                                         + self.buf[-3000:])
                self.cond.wait(left)

    def run(self, command, timeout=60):
        """(output, status) of one command line typed at the shell."""
        self.n += 1
        n = self.n
        # one compound command: the shell reads (and echoes) all of it before it
        # runs any, so nothing typed ahead is echoed into the output
        self.send(f'{{ echo @@""S{n}; {command}\n}}; echo @@""E{n} $?\n')
        self.expect(rf"@@S{n}\n", timeout)
        start = self.pos
        m = self.expect(rf"@@E{n} (\d+)\n", timeout)
        # the terminal's echo of the second line (after a prompt) is not output
        out = "".join(l for l in self.buf[start:m.start()].splitlines(True)
                      if f'@@""E{n}' not in l)
        return out, int(m.group(1))

    def close(self, timeout=60):
        """End of input (the runner types ^D): the shell exits and lx powers off."""
        try:
            self.p.stdin.close()
            return self.p.wait(timeout=timeout)
        finally:
            kill_group(self.p.pid)
            self.p.wait()

    def log(self):
        return self.buf
