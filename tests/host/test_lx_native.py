# SPDX-License-Identifier: MIT
"""lx's check-style test programs (tests/lx/*.c that include check.h) run
natively on this host's Linux and must pass there too: lx is tested against
Linux's behaviour, not only against itself.  They are the same static
binaries the lx tests run."""
import glob
import os
import subprocess

import pytest

from harness import BUILD, TOP

PROGRAMS = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(TOP, "tests", "lx", "*.c"))
                  if '#include "check.h"' in open(p).read())


@pytest.mark.parametrize("prog", PROGRAMS)
def test_passes_on_linux(prog, tmp_path):
    p = subprocess.run([os.path.join(BUILD, "lx", "tests", prog)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 0 and f"{prog} done, 0 failed" in p.stdout, p.stdout + p.stderr
