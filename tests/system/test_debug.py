# SPDX-License-Identifier: MIT
"""make debug: QEMU waits for gdb, and the printed command line reaches kmain."""
import re
import shlex
import subprocess

from harness import RUN


def test_gdb_stops_in_kmain():
    qemu = subprocess.Popen([RUN, "--gdb", "--timeout", "60"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        hint = ""
        while "target remote" not in hint:
            line = qemu.stderr.readline()
            assert line, "tools/run --gdb printed no gdb command line"
            hint += line
        cmd = shlex.split(re.search(r"^\s*(gdb .*)$", hint, re.M).group(1))
        gdb = subprocess.run(cmd[:1] + ["-batch", "-nx"] + cmd[1:] +
                             ["-ex", "hbreak kmain", "-ex", "continue", "-ex", "info symbol $pc",
                              "-ex", "kill"],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert re.search(r"^kmain in section \.text", gdb.stdout, re.M), gdb.stdout + gdb.stderr
    finally:
        qemu.kill()
        qemu.wait()
