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
    subprocess.run(["ld", "-m", "elf_x86_64", "-Ttext", "0x100000", "-e", "_start",
                    "-o", str(d / "guest.elf"), str(obj)], check=True)    # for its symbols
    return d, so, img


def symbol(built, name):
    nm = subprocess.run(["nm", str(built[0] / "guest.elf")], capture_output=True, text=True,
                        check=True).stdout
    return next(int(a, 16) for a, _, n in (l.split() for l in nm.splitlines()) if n == name)


def run_plugin(built, args):
    """The plugin's output for one run with these arguments (after so,out=)."""
    d, so, img = built
    out = d / ("out." + args.replace(",", ".").replace("=", "-"))
    r = subprocess.run(["qemu-system-x86_64", "-accel", "tcg", "-cpu", "Westmere-v1", "-m", "128M",
                        "-display", "none", "-nodefaults", "-no-reboot", "-kernel", str(img),
                        "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
                        "-plugin", f"{so},out={out},{args}"], timeout=30,
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr       # isa-debug-exit with 0: (0 << 1) | 1
    return out.read_text()


def run_model(built, cr3):
    groups = {}
    for line in run_plugin(built, f"cr3={cr3}").splitlines():
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


def test_sites_attribute_misses_to_the_instruction(built):
    text = run_plugin(built, "cr3=flush,sites=on")
    sites = {}
    for line in text.splitlines():
        if line.startswith("SITE "):
            head, *ws = line.split(" | ")
            f = dict(x.split("=") for x in head.split()[1:])
            sites[(int(f["seq"]), int(f["va"], 16))] = [
                dict((k, int(v)) for k, v in (x.split("=") for x in w.split())) for w in ws]
    load = symbol(built, "big_load")
    # group 3: the big pass's one load makes its every line miss and its page walks
    w0, w1 = sites[(3, load)]
    assert (w0["l1d"], w0["l2"], w0["dtlb"], w0["walk"]) == (65536, 65536, 1024, 1024)
    assert w0["pen"] == 65536 * 200 + 1024 * 30 and not any(w1.values())
    # the small pass's load misses every line in group 4, and none in group 5 (warm)
    small = symbol(built, "small_load")
    assert sites[(4, small)][0]["l1d"] == 256 and (5, small) not in sites
    # the sites of a group add up to its window's penalty and misses
    g3 = next(l for l in text.splitlines() if l.startswith("GROUP seq=3 "))
    win = dict((k, int(v)) for k, v in (x.split("=") for x in g3.split(" | ")[1].split()))
    for k in ("pen", "l1d", "l2", "dtlb", "walk", "l1i", "itlb"):
        assert sum(w[0][k] for (seq, _), w in sites.items() if seq == 3) == win[k], k


def test_sites_off_by_default(built):
    assert "SITE " not in run_plugin(built, "cr3=flush")
