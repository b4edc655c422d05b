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
    """Every (name, params) the Linux suite must print, from the report's tables."""
    want = {(name, ()) for name in seeds.PROG_OF if name not in ("lmbench.ctx", "lmbench.mmap",
                                                                  "lmbench.pagefault", "lmbench.pipe_bw")
            and not name.startswith("oo1.")}
    want |= {("oo1." + op, (("variant", v),)) for op in seeds.OO1_OPS for v in ("single", "pipe", "msgq")}
    want |= {("reaim." + task, ()) for task, _ in seeds.REAIM_TASKS}
    want |= {("lmbench.ctx", (("procs", str(p)), ("size_kb", str(s))))
             for p in seeds.CTX_PROCS for s in seeds.CTX_SIZES}
    want |= {("lmbench.mmap", (("size_kb", "4"),)), ("lmbench.mmap", (("size_kb", "8192"),)),
             ("lmbench.pagefault", (("memory", "file"),)), ("lmbench.pagefault", (("memory", "anon"),)),
             ("lmbench.pipe_bw", (("chunk_kb", "64"),))}
    return want
