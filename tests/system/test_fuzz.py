# SPDX-License-Identifier: MIT
"""`make fuzz`: the long fuzz run (10^6 hostile calls), outside `make test`.

`make test` runs t_fuzz with 10^4 calls on every test kernel
(test_kernel_core.py); this file runs the build `make fuzz` makes
(FUZZ_PROGRAM) on FUZZ_KERNELS and prints the kernel's invariant checks.
Without FUZZ_PROGRAM in the environment it is skipped.  FUZZ_ICOUNT=1 boots
under icount (QEMU runs the processors of a PECAN_SMP boot round-robin on one
host thread; docs/testing.md says why a multi-threaded 4-processor run stalls
on a loaded host).
"""
import os
import re

import pytest

from harness import boot, guest_cases

PROGRAM = os.environ.get("FUZZ_PROGRAM")
KERNELS = os.environ.get("FUZZ_KERNELS", "dslq dslq-nofast").split()
ICOUNT = os.environ.get("FUZZ_ICOUNT") == "1"
REPORT = re.compile(r"^(pecan: check |fuzz: |TEST fuzz)")

pytestmark = pytest.mark.skipif(not PROGRAM, reason="only under `make fuzz`")


@pytest.mark.parametrize("kernel", KERNELS)
def test_fuzz_long(kernel):
    r = boot(root=PROGRAM, kernel=kernel, timeout=540, icount=ICOUNT)
    print(f"\n--- {kernel} ---")
    for line in r.lines:
        if REPORT.match(line):
            print(line)
    for case in guest_cases("t_fuzz"):
        r.check_case(case.values[0])
    assert r.line_index(r"^pecan: check verdict: FAILED") < 0, r.tail()
    assert r.rc == 0, r.tail()
