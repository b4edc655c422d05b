# SPDX-License-Identifier: MIT
"""Shared by the bench tests: paths, and the report generator's modules."""
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
sys.path.insert(0, os.path.join(TOP, "bench", "report"))

import report  # noqa: E402,F401
import results  # noqa: E402,F401
import seeds  # noqa: E402,F401


def expected_linux_names():
    """Every (name, params) the suite must print (on Linux, and on lx), from the report's tables."""
    want = {(name, ()) for name in seeds.PROG_OF if name not in ("lmbench.ctx", "lmbench.mmap",
                                                                  "lmbench.pagefault", "lmbench.pipe_bw",
                                                                  "scale.fork_exit")
            and not name.startswith("oo1.")}
    want |= {("scale.fork_exit", (("alive", str(n)),)) for n in seeds.SCALE_ALIVE}
    want |= {("oo1." + op, (("variant", v),)) for op in seeds.OO1_OPS for v in ("single", "pipe", "msgq")}
    want |= {("reaim." + task, ()) for task, _ in seeds.REAIM_TASKS}
    want |= {("lmbench.ctx", (("procs", str(p)), ("size_kb", str(s))))
             for p in seeds.CTX_PROCS for s in seeds.CTX_SIZES}
    want |= {("lmbench.mmap", (("size_kb", "4"),)), ("lmbench.mmap", (("size_kb", "8192"),)),
             ("lmbench.pagefault", (("memory", "file"),)), ("lmbench.pagefault", (("memory", "anon"),)),
             ("lmbench.pipe_bw", (("chunk_kb", "64"),))}
    return want


def programs():
    """The suite's programs: bench/posix/*.c but the library and hello."""
    src = os.path.join(TOP, "bench", "posix")
    return sorted(f[:-2] for f in os.listdir(src)
                  if f.endswith(".c") and f not in ("bench.c", "hello.c"))


def assert_program_ran(res, log, system, prog):
    assert (system, prog) in res.status, f"{prog} never reported:\n" + log[-3000:]
    assert res.status[(system, prog)] == 0, f"{prog} exited {res.status[(system, prog)]}:\n" + log[-3000:]


def assert_well_formed(log, system, sign_free=()):
    """Every RESULT line of the console parses, names the system, counts instructions
    exactly, and is positive (but for the benchmarks in sign_free)."""
    lines = [l.strip() for l in log.splitlines() if l.strip().startswith("RESULT")]
    assert lines
    for line in lines:
        r = results.parse_result(line)      # raises on a malformed line
        assert r.system == system and r.method == "icount", line
        assert r.value > 0 or r.name in sign_free, line


def assert_every_figure(res, system):
    got = {(r.name, tuple(sorted(r.params.items()))) for r in res.results.values() if r.system == system}
    assert not expected_linux_names() - got, sorted(expected_linux_names() - got)
    assert not res.errors
