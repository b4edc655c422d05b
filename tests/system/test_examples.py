# SPDX-License-Identifier: MIT
"""docs/writing-programs.md works as written: its compiler lines build the examples
with ordinary flags, `make prog` builds them the same way, the sources it shows are
the ones in examples/, and the programs boot and do what the page says."""
import os
import re
import shlex
import subprocess

import pytest

from harness import RUN, TOP, run_group

DOC = os.path.join(TOP, "docs", "writing-programs.md")


def doc_text():
    with open(DOC) as f:
        return f.read()


def blocks(lang):
    return re.findall(r"```" + lang + r"\n(.*?)```", doc_text(), re.S)


def gcc_lines():
    """Every gcc command of the page's shell blocks, continuation lines joined."""
    cmds = []
    for b in blocks("sh"):
        for cmd in b.replace("\\\n", " ").splitlines():
            if cmd.startswith("gcc "):
                cmds.append(shlex.split(cmd))
    return cmds


def build_as_documented(source, tmp_path):
    cmd = next(c for c in gcc_lines() if source in c)
    out = cmd.index("-o") + 1
    cmd[out] = str(tmp_path / os.path.basename(cmd[out]))
    p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "-mno-red-zone" not in cmd
    return cmd[out]


def boot(elf):
    p = run_group([RUN, "--timeout", "120", "--root", elf], stdout=subprocess.PIPE,
                  stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL, errors="replace")
    return p.returncode, p.stdout


@pytest.mark.parametrize("name", ["hello", "pingpong"])
def test_doc_shows_the_example_source(name):
    with open(os.path.join(TOP, "examples", name + ".c")) as f:
        assert f.read() in blocks("c"), f"docs/writing-programs.md does not show examples/{name}.c"


def test_make_prog_uses_the_documented_line():
    doc = next(c for c in gcc_lines() if "examples/hello.c" in c)
    p = subprocess.run(["make", "-n", "--no-print-directory", "prog", "SRC=examples/hello.c"],
                       cwd=TOP, capture_output=True, text=True)
    made = shlex.split(next(l for l in p.stdout.splitlines() if l.startswith("gcc ")))
    flags = lambda c: [a for i, a in enumerate(c) if a != "-o" and (i == 0 or c[i - 1] != "-o")]
    assert flags(made) == flags(doc), p.stdout


def test_hello(tmp_path):
    rc, out = boot(build_as_documented("examples/hello.c", tmp_path))
    assert rc == 0, out[-3000:]
    assert re.search(r"^hello: I am thread 50\.1, the root task\r?$", out, re.M), out[-3000:]


def test_pingpong_between_two_spaces(tmp_path):
    rc, out = boot(build_as_documented("examples/pingpong.c", tmp_path))
    assert rc == 0, out[-3000:]
    m = re.search(r"pingpong: (\d+) pings from thread 60\.1 in another space, (\d+) answered right, "
                  r"(\d+) page faults served", out)
    assert m and m.group(1) == m.group(2) == "1000", out[-3000:]
    assert int(m.group(3)) > 0      # the child's pages came from the root task, its pager
