# SPDX-License-Identifier: MIT
"""The report generator on recorded sample output (tests/bench/data)."""
import os
import xml.etree.ElementTree as ET

import pytest

from benchlib import DATA, report, results

GOOD = [
    "RESULT name=lmbench.getpid system=linux value=313.5 unit=instructions method=icount",
    "RESULT name=ipc.oneway words=0 space=inter variant=dslq fastpath=on value=120 unit=instructions method=icount",
    "RESULT name=irq.latency value=2.5 unit=us method=wall",
]
BAD = [
    "RESULT name=lmbench.getpid system=linux value=fast unit=instructions method=icount",
    "RESULT name=lmbench.getpid value=nan unit=instructions method=icount",
    "RESULT name=lmbench.getpid value=1 unit=fortnights method=icount",
    "RESULT name=lmbench.getpid value=1 unit=instructions method=guess",
    "RESULT value=1 name=lmbench.getpid unit=instructions method=icount",
    "RESULT name=lmbench.getpid value=1 unit=instructions",
    "RESULT name=getpid value=1 unit=instructions method=icount",
    "RESULT name=lmbench.getpid procs value=1 unit=instructions method=icount",
    "RESULT name=lmbench.getpid procs=1 procs=2 value=1 unit=instructions method=icount",
]


@pytest.mark.parametrize("line", GOOD)
def test_parse_accepts(line):
    r = results.parse_result(line)
    assert r.name in line and r.value > 0


@pytest.mark.parametrize("line", BAD)
def test_parse_rejects(line):
    with pytest.raises(ValueError):
        results.parse_result(line)


@pytest.fixture(scope="module")
def rendered():
    res = results.Results()
    for f in ("linux-sample.results", "pecan-sample.results"):
        res.read_file(os.path.join(DATA, f))
    return res, report.render(res)


def rows(text, label):
    """The cells of every markdown table row whose first cell is label."""
    found = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
             if line.startswith("|")]
    return [cells for cells in found if cells[0] == label]


def row(text, label):
    found = rows(text, label)
    assert found, f"no row {label!r}"
    return found[0]


def test_crashed_program_shows_failed_not_zero(rendered):
    _, (text, _) = rendered
    cells = row(text, "AF_UNIX sock")
    assert cells[3] == "**failed** (exit 139)"
    assert "program `lat_unix` on linux exited with status 139" in text


def test_missing_linux_row_says_missing(rendered):
    _, (text, _) = rendered
    assert row(text, "hbench: Mmap Latency 4KB [us]")[4] == "missing"


def test_pecan_rows_missing_or_failed(rendered):
    _, (text, _) = rendered
    assert row(text, "Simple read")[4] == "not yet run on Pecan"
    assert row(text, "Trap")[3] == "**failed** (exit 4)"       # STATUS prog=vm names the group


def test_ratio_delta_overhead(rendered):
    res, (text, _) = rendered
    linux = res.get("lmbench.getpid", "linux").value
    cells = row(text, "Simple syscall")
    assert cells[4] == "626"
    assert cells[5] == f"{626 / linux:.2f}"
    assert cells[6] == report.fmt(626 - linux)
    assert cells[7] == f"{(626 / linux - 1) * 100:.1f}"


def test_l4_rpc_is_two_one_way_ipcs(rendered):
    _, (text, _) = rendered
    assert row(text, "(3) synchronous L4 RPC")[3] == "240"


def test_l4_pipe_row(rendered):
    _, (text, _) = rendered
    cells = row(text, "(2) L4 pipe")
    assert cells[3:5] == ["4,200", "2,100.0"]


def test_native_vm_figures_stay_native(rendered):
    """lat_vm on lx prints vm.trap system=pecan: Table 5's Pecan column is still the native one."""
    _, (text, _) = rendered
    cells = row(text, "Trap")
    assert cells[3] == "**failed** (exit 4)"
    assert cells[8] == "5,852" and cells[9] == f"{5852 / 2926:.2f}"


def test_linux_personality_summary(rendered):
    _, (text, _) = rendered
    summary = text.split("## Pecan's Linux personality against native Linux", 1)[1].split("\n## ", 1)[0]
    cells = row(summary, "getpid")
    assert cells[1:] == ["311", "626", f"{626 / 311:.2f}", "<= 1.2", "no"]
    assert row(summary, "pipe bandwidth (slowdown)")[3] == f"{301 / 250:.2f}"
    assert row(summary, "Re-aim `brk_test` (throughput Pecan / Linux)")[3] == f"{10593.4 / 21186.8:.2f}"
    assert row(summary, "stat")[2] == "not yet run on Pecan"


def test_scale_rows(rendered):
    _, (text, _) = rendered
    scale = text.split("## Process creation with many processes alive", 1)[1].split("\n## ", 1)[0]
    cells = row(scale, "1,000")
    assert cells[1:4] == ["120,000", "1,500,000", f"{1500000 / 120000:.2f}"]
    assert row(scale, "100")[1:3] == ["missing", "not yet run on Pecan"]


def test_ipc_and_counters(rendered):
    _, (text, _) = rendered
    # tables in order: between spaces fastpath off, on; within a space fastpath on
    assert [r[1] for r in rows(text, "0 words")] == ["300", "120", "110"]
    assert row(text, "8 words")[1] == "340"
    assert row(text, "Enqueue operations avoided")[2] == "96.00%"


def test_unshown_figures_listed_with_method(rendered):
    _, (text, _) = rendered
    other = text.split("## Other results", 1)[1]
    assert row(other, "irq.latency") == ["irq.latency", "—", "—", "2.50", "us", "wall"]
    assert "memory=anon" not in other          # the Linux personality's table shows it
    assert "ipc.oneway" not in other           # the IPC section covers all of them


def test_many_unshown_figures_summarised():
    res = results.Results()
    res.read_text("\n".join(f"RESULT name=x.y n={i} value={i + 1} unit=count method=icount"
                            for i in range(20)))
    text, _ = report.render(res)
    assert "| x.y | — | 20 parameter sets | 1 to 20 | count | icount |" in text


def test_malformed_line_reported(rendered):
    res, (text, _) = rendered
    assert len(res.errors) == 1 and "malformed line" in text


def test_deterministic_and_svgs_well_formed(rendered):
    res, (text, plots) = rendered
    assert report.render(res) == (text, plots)
    assert set(plots) == {"slowdown.svg", "ipc.svg", "reaim.svg", "lmbench.svg", "ctx.svg", "scale.svg"}
    for body in plots.values():
        assert ET.fromstring(body).tag.endswith("svg")


def test_main_writes_files(tmp_path):
    out = tmp_path / "report.md"
    rc = report.main(["--out", str(out), "--svg-dir", str(tmp_path / "report"),
                      os.path.join(DATA, "linux-sample.results"), str(tmp_path / "absent.results")])
    assert rc == 0
    assert "# Pecan benchmark report" in out.read_text()
    assert (tmp_path / "report" / "ctx.svg").exists()


@pytest.fixture(scope="module")
def mungi():
    res = results.Results().read_file(os.path.join(DATA, "mungi-sample.results"))
    return report.render(res)[0]


def test_002_table1_speedup_and_ratio(mungi):
    cells = row(mungi, "Cross-domain call (PDX; Linux RPC over pipes)")
    assert cells[3:7] == ["1,000", "11,000", "11.0x", "0.09"]
    assert row(mungi, "Null system call")[3:5] == ["450", "330"]
    assert row(mungi, "Thread create")[4] == "N/A"
    assert "a PDX call at least 20x faster than a Linux RPC over pipes: **11.0x**" in mungi
    assert "costs **1.010** times an unconfined one's" in mungi


def test_002_oo1_rows_and_failed_group(mungi):
    assert row(mungi, "Linux here [instr.]")[1] == "100,000"
    assert row(mungi, "Mungi here [instr.]")[1] == "100,500"
    assert row(mungi, "Mungi here, PDX [instr.]")[1] == "**failed** (exit 1)"
    assert row(mungi, "Linux here, RPC over pipes [instr.]")[5] == "110,000,000"
    assert "Goal: not all figures are there." in mungi


def test_scale_section(rendered):
    """bench/scale's figures: a row per count, a figure not run said so, and a plot."""
    _, (text, plots) = rendered
    text = text[text.index("## Scaling of Pecan's kernel paths"):]
    assert row(text, "2")[1:3] == ["108", "346"], row(text, "2")
    threads = row(text, "10000")
    assert threads[1:3] == ["108", "not yet run on Pecan"], threads
    assert row(text, "1024")[1:3] == ["403", "453"], row(text, "1024")
    assert row(text, "1000")[1] == "4,367", row(text, "1000")
    assert "scale.svg" in plots and ET.fromstring(plots["scale.svg"]).tag.endswith("svg")
