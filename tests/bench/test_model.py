# SPDX-License-Identifier: MIT
"""bench/model/model.py: pairing the cost model's groups with RESULT lines and
turning figures in instructions into estimated cycles."""
import os
import sys

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "model"))
import model  # noqa: E402

W = "insns={i} pen={p} l1i=0 l1d=0 l2=0 itlb=0 dtlb=0 walk={w} cr3={c} invlpg=0"


def group(seq, *windows):
    return f"GROUP seq={seq} windows={len(windows)}" + "".join(
        " | " + W.format(i=i, p=p, w=0, c=0) for i, p in windows) + "\n"


def write(tmp_path, results, groups):
    r, m = tmp_path / "run.results", tmp_path / "run.model"
    r.write_text("META commit=x\n" + "".join(results))
    m.write_text("MODEL cr3=flush global=none\n" + "".join(groups) + "TOTAL insns=1\n")
    return str(r), str(m)


def test_one_window_scales_the_figure_by_cycles_per_instruction(tmp_path):
    r, m = write(tmp_path,
                 ["RESULT name=lmbench.getpid system=linux value=300.0 unit=instructions method=icount\n",
                  "RESULT name=lmbench.pipe_bw system=linux chunk_kb=64 value=5.0 unit=MB_per_s method=icount\n"],
                 [group(1, (3000, 1500)), group(2, (100, 7), (100, 9))])
    paired, settings = model.pair(r, m)
    assert settings == {"cr3": "flush", "global": "none"}
    assert [p[0].name for p in paired] == ["lmbench.getpid", "lmbench.pipe_bw"]
    assert model.estimate("lmbench.getpid", 300.0, paired[0][1]) == (450.0, True)


def test_difference_figures_use_the_difference_of_windows(tmp_path):
    windows = [{"insns": 10000, "pen": 5000}, {"insns": 2000, "pen": 3000}]
    # (10000 + 5000 - 2000 - 3000) / (10000 - 2000) of the figure
    assert model.estimate("lmbench.pagefault", 80.0, windows) == (100.0, True)
    cycles, exact = model.estimate("lmbench.other", 80.0, windows)
    assert not exact and cycles == pytest.approx(80.0 * 20000 / 12000)


def test_counts_that_disagree_are_refused(tmp_path):
    r, m = write(tmp_path,
                 ["RESULT name=lmbench.getpid system=linux value=300.0 unit=instructions method=icount\n"],
                 [group(1, (3000, 1500)), group(2, (3000, 1500))])
    with pytest.raises(SystemExit):
        model.pair(r, m)
