# SPDX-License-Identifier: MIT
"""The cost-model plugin (tools/costmodel) on a tiny hand-written guest
(costmodel_guest.s): exact counts where the model makes them deterministic."""
import os
import shutil
import subprocess

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GUEST = os.path.join(TOP, "tests", "bench", "costmodel_guest.s")
PLUGIN = os.path.join(TOP, "tools", "costmodel", "costmodel.c")

pytestmark = pytest.mark.skipif(not shutil.which("qemu-system-x86_64"), reason="no QEMU")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("costmodel")
    so, obj, img = d / "costmodel.so", d / "guest.o", d / "guest.bin"
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    "-o", str(so), PLUGIN], check=True)
    subprocess.run(["as", "--64", "-o", str(obj), GUEST], check=True)
    subprocess.run(["ld", "-m", "elf_x86_64", "-Ttext", "0x100000", "-e", "_start",
                    "--oformat", "binary", "-o", str(img), str(obj)], check=True)
    return d, so, img


def run_model(built, cr3):
    d, so, img = built
    out = d / f"out.{cr3}"
    r = subprocess.run(["qemu-system-x86_64", "-accel", "tcg", "-cpu", "Westmere-v1", "-m", "128M",
                        "-display", "none", "-nodefaults", "-no-reboot", "-kernel", str(img),
                        "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
                        "-plugin", f"{so},out={out},cr3={cr3}"], timeout=30,
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr       # isa-debug-exit with 0: (0 << 1) | 1
    groups = {}
    for line in out.read_text().splitlines():
        if line.startswith("GROUP "):
            head, *windows = line.split(" | ")
            seq = int(head.split()[1].split("=")[1])
            groups[seq] = [dict((k, int(v)) for k, v in (f.split("=") for f in w.split()))
                           for w in windows]
    assert sorted(groups) == list(range(1, 9))
    return groups


def run_single(built, cr3):
    """Groups 1-7 (one window each) by number."""
    return {seq: w[0] for seq, w in run_model(built, cr3).items() if seq < 8}


def test_cr3_writes_counted_and_flush_the_tlbs(built):
    g = run_single(built, "flush")
    assert g[1]["insns"] == 6 and g[1]["cr3"] == 5
    # each CR3 write ends QEMU's block; the next block's fetch misses the ITLB again
    assert g[1]["itlb"] == 5
    # after one CR3 write: the code page, the stack page and the buffer's four pages
    assert (g[7]["itlb"], g[7]["dtlb"], g[7]["walk"], g[7]["pen"]) == (1, 5, 6, 6 * 30)


def test_cr3_keep_flushes_nothing(built):
    g = run_single(built, "keep")
    assert g[1]["cr3"] == 5 and g[1]["itlb"] == 0
    assert (g[7]["cr3"], g[7]["dtlb"], g[7]["itlb"], g[7]["pen"]) == (1, 0, 0, 0)


def test_buffer_larger_than_l2_misses_every_line(built):
    g = run_single(built, "flush")[3]
    # stamp, call, 2 + 4 per line, ret; 65,536 lines plus the return address (evicted)
    assert g["insns"] == 1 + 1 + 2 + 4 * 65536 + 1
    assert (g["l1d"], g["l2"], g["l1i"]) == (65537, 65537, 0)
    # 1,024 pages overflow the 64-entry DTLB and the 512-entry STLB, as does the stack's
    assert (g["dtlb"], g["walk"]) == (1025, 1025)
    assert g["pen"] == 65537 * 200 + 1025 * 30


def test_buffer_in_l1_costs_nothing_once_warm(built):
    g = run_single(built, "flush")
    assert g[4]["l1d"] == 256 and g[4]["dtlb"] == 4      # the first pass fills them
    assert g[5]["insns"] == 1 + 1 + 2 + 4 * 256 + 1
    assert (g[5]["l1d"], g[5]["l2"], g[5]["dtlb"], g[5]["pen"]) == (0, 0, 0, 0)


def test_windows_past_the_sixteenth_add_into_it(built):
    w = run_model(built, "flush")[8]
    assert len(w) == 16
    assert all((x["insns"], x["cr3"]) == (2, 1) for x in w[:15])
    assert (w[15]["insns"], w[15]["cr3"]) == (2 * 5, 5)
