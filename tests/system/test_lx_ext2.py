# SPDX-License-Identifier: MIT
"""lx's ext2 (servers/lx/fs/ext2.c) on the disk, judged by the host's own
e2fsprogs and by the host's Linux: tests/lx/fsops.c runs the same session of
writes, links, renames, deletes, truncations, holes and utimes natively and
under lx, and the listings must be equal; what boot 1 wrote is exactly there
in boot 2; e2fsck -fn finds nothing to fix; a damaged image never stops lx
and never shows one file's data as another's; a full disk gives ENOSPC.

Boots with lx.root=disk run on a copy of make's image (build/lx/rootfs.img,
the same tree as the cpio); the others mount a small image of their own on
/mnt of the RAM root (lx.disk=/mnt) so that damage cannot hit the shell."""
import hashlib
import os
import random
import re
import shutil
import subprocess

import pytest

from harness import BUILD, TOP, kill_group
from lxshell import Shell

IMG = os.path.join(BUILD, "lx", "rootfs.img")
FSOPS = os.path.join(BUILD, "lx", "tests", "fsops")
E2 = {"PATH": os.environ.get("PATH", "") + ":/sbin:/usr/sbin"}
env = dict(os.environ, **E2)

pytestmark = pytest.mark.skipif(shutil.which("e2fsck", path=env["PATH"]) is None,
                                reason="e2fsprogs missing (tools/deps.sh installs it)")


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "lx"], cwd=TOP, check=True, capture_output=True)


def boot(disk, args, timeout=600):
    sh = Shell(timeout=timeout, root_args=args + " /bin/sh", disk=disk)
    sh.expect(r"# ", 300)
    return sh


def run(sh, command, status=0, timeout=300):
    out, st = sh.run(command, timeout)
    assert st == status, f"{command!r} exited {st}, wanted {status}; output:\n{out}"
    sh.expect(r"# ", timeout)
    return out


def close(sh):
    """The shell exits, lx powers off cleanly; its log (lx never halted)."""
    assert sh.close(120) == 0, sh.log()[-3000:]
    log = sh.log()
    assert "halted" not in log and "KERNEL FAULT" not in log, log[-3000:]
    return log


def e2fsck(img):
    return subprocess.run(["e2fsck", "-fn", img], capture_output=True, text=True, env=env)


def listing(out):
    return [l for l in out.splitlines() if l and not l.startswith("lx: ")]


def fsops_native(tmp_path, phase, where="work"):
    d = os.path.join(tmp_path, where)
    return subprocess.run([FSOPS, d, phase], capture_output=True, text=True, check=True).stdout


def small_image(tmp_path, name, mb, with_work):
    """An ext2 image of mb MiB; with_work: holding the session's tree, made natively."""
    stage = os.path.join(tmp_path, name + ".d")
    os.makedirs(stage)
    if with_work:
        fsops_native(stage, "write")
    img = os.path.join(tmp_path, name + ".img")
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", "4096", "-I", "128",
                    "-O", "^dir_index", "-d", stage, img, f"{mb}M"],
                   check=True, capture_output=True, env=env)
    return img


def metadata_ranges(img):
    """Byte ranges of the superblock and descriptors, the bitmaps, the used part of
    the inode table and every directory block of the image (one group)."""
    out = subprocess.run(["dumpe2fs", img], capture_output=True, text=True, env=env).stdout
    used_inodes = int(re.search(r"Inode count:\s+(\d+)", out).group(1)) - \
        int(re.search(r"Free inodes:\s+(\d+)", out).group(1))
    ranges = [(1024, 2 * 4096)]
    for key in ("Block bitmap at", "Inode bitmap at"):
        b = int(re.search(key + r" (\d+)", out).group(1))
        ranges.append((b * 4096, b * 4096 + 512))
    table = int(re.search(r"Inode table at (\d+)", out).group(1))
    ranges.append((table * 4096, table * 4096 + (used_inodes + 12) * 128))
    dirs = subprocess.run(["debugfs", "-R", "ls -p /work", img], capture_output=True, text=True,
                          env=env).stdout
    subdirs = [f[5] for f in (l.split("/") for l in dirs.splitlines())
               if len(f) > 6 and f[2].startswith("040") and f[5] not in (".", "..")]
    for path in ["/", "/work"] + ["/work/" + d for d in subdirs]:
        blks = subprocess.run(["debugfs", "-R", "blocks " + path, img], capture_output=True,
                              text=True, env=env).stdout.split()
        ranges += [(int(b) * 4096, int(b) * 4096 + 4096) for b in blks]
    return ranges


def free_blocks(img):
    out = subprocess.run(["dumpe2fs", "-h", img], capture_output=True, text=True, env=env).stdout
    return int(re.search(r"Free blocks:\s+(\d+)", out).group(1))


def test_two_boots_match_linux_and_fsck_clean(tmp_path):
    fsops_native(str(tmp_path), "write")
    want = fsops_native(str(tmp_path), "list")
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    run(sh, "/tests/fsops /work write")
    assert listing(run(sh, "/tests/fsops /work list")) == listing(want)
    # a shell session on top: copies, moves, links, deletes of whole trees
    run(sh, "cp -r /tests /t2 && mv /t2 /t3 && ln /t3/abi /abi.hard && rm /t3/efault && "
            "rm -r /bench && mkdir -p /a/b/c && mv /a/b /b && rmdir /b/c && ln -s /abi.hard /sl "
            "&& chmod 700 /sl && sync")
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    sh = boot(img, "lx.root=disk")
    assert listing(run(sh, "/tests/fsops /work list")) == listing(want)
    out = run(sh, "ls /t3 | wc -l; ls /b /bench 2>&1; stat -c '%h %s' /abi.hard; "
                  "cmp /abi.hard /tests/abi && echo same; readlink /sl")
    assert "No such file" in out and "same" in out and "/abi.hard" in out, out
    assert re.search(r"^2 \d+$", out, re.M), out
    close(sh)
    # the host reads what lx wrote
    dbg = subprocess.run(["debugfs", "-R", "cat /work/sub/hard", img], capture_output=True,
                         env=env).stdout
    with open(os.path.join(str(tmp_path), "work", "small"), "rb") as f:
        assert dbg == f.read()


def test_full_disk_gives_enospc(tmp_path):
    img = small_image(str(tmp_path), "full", 8, False)
    before = free_blocks(img)
    sh = boot(img, "lx.disk=/mnt")
    out = run(sh, "/tests/fsops /mnt fill")
    assert "fill errno ENOSPC" in out, out
    out = run(sh, "echo more > /mnt/more; echo status $?; rm /mnt/fill && "
                  "echo again > /mnt/more && cat /mnt/more && rm /mnt/more && sync")
    assert "status 1" in out and "again" in out, out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    assert free_blocks(img) == before


def debugfs_w(img, *cmds):
    for c in cmds:
        subprocess.run(["debugfs", "-w", "-R", c, img], check=True, capture_output=True, env=env)


def first_block(img, path):
    out = subprocess.run(["debugfs", "-R", "blocks " + path, img], capture_output=True, text=True,
                         env=env).stdout
    return int(out.split()[0])


def test_cross_linked_image_gives_eio(tmp_path):
    """Two damages that would show one file's data under another's name: a
    block named by two files, and a directory entry the target's link count
    does not know.  lx refuses those inodes (EIO); the rest reads."""
    img = small_image(str(tmp_path), "cross", 16, True)
    debugfs_w(img, f"set_inode_field /work/renamed block[0] {first_block(img, '/work/shrunk')}",
              "ln /work/indirect /work/sub/alias")
    sh = boot(img, "lx.disk=/mnt")
    out = run(sh, "/tests/fsops /mnt/work verify; cat /mnt/work/renamed /mnt/work/shrunk "
                  "/mnt/work/sub/alias >/dev/null; echo status $?")
    assert "verify good 103 bad 4 wrong 0" in out and "status 1" in out, out
    assert "3 damaged inodes refused" in close(sh)    # alias is indirect


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_damaged_image_never_hurts(tmp_path, seed):
    """Random bits flipped in the image's metadata (superblock, group
    descriptors, bitmaps, the used inodes, every directory block): lx
    refuses the disk or answers EIO; it never halts, and no file shows
    another's data.  (Flips in a file's own data blocks are not detectable
    without checksums, which ext2 does not have; those blocks are spared.)"""
    img = small_image(str(tmp_path), "bad", 16, True)
    meta = metadata_ranges(img)
    rnd = random.Random(seed)
    with open(img, "r+b") as f:
        for _ in range(12 if seed > 1 else 400):     # a few flips; seed 1: many
            lo, hi = rnd.choice(meta if seed < 3 else meta[1:])
            f.seek(rnd.randrange(lo, hi))
            b = f.read(1)
            f.seek(-1, 1)
            f.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
    sh = boot(img, "lx.disk=/mnt")
    out, _ = sh.run("/tests/fsops /mnt/work verify; ls -lR /mnt >/dev/null 2>&1; "
                    "echo x > /mnt/work/new; rm -r /mnt/work/many; mkdir /mnt/work/d; "
                    "mv /mnt/work/small /mnt/work/d/; echo alive", 300)
    assert "alive" in out, out
    m = re.search(r"verify good (\d+) bad (\d+) wrong (\d+)", out)
    assert m is None or m.group(3) == "0", out
    close(sh)


def test_kill_mid_write_then_e2fsck_repairs(tmp_path):
    """QEMU killed while lx writes: e2fsck -fy repairs the image, and every
    file that was fsync'ed (the session's) reads exactly as on the host."""
    img = small_image(str(tmp_path), "crash", 64, False)
    fsops_native(str(tmp_path), "write")
    sh = boot(img, "lx.disk=/mnt")
    run(sh, "/tests/fsops /mnt/work write")
    sh.send("/tests/fsops /mnt/work2 write & /tests/fsops /mnt fill\n")
    sh.expect("fill 3 MiB", 300)
    kill_group(sh.p.pid)
    sh.p.wait()
    r = subprocess.run(["e2fsck", "-fy", img], capture_output=True, text=True, env=env)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("small", "indirect", "sparse", "sub/hard"):
        got = subprocess.run(["debugfs", "-R", "cat /work/" + name, img], capture_output=True,
                             env=env).stdout
        with open(os.path.join(str(tmp_path), "work", name), "rb") as f:
            assert got == f.read(), name


def test_dynamic_programs_run(tmp_path):
    """The host's dynamic /bin/true and /bin/ls (glibc's ld-linux-x86-64.so.2 and
    libraries, copied into the image by tools/mklxfs.sh) and dynamic musl
    programs (musl's loader) run unmodified; ls lists what the host's ls
    lists; a PIE program and its library land at random bases."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    run(sh, "/host/true")
    out = run(sh, "/host/ls -l /host /lib64")
    assert "not implemented" not in out, out
    assert re.search(r"^-rwxr-xr-x +1 root +root +\d+ .* true$", out, re.M), out
    assert "ld-linux-x86-64.so.2" in out, out
    want = subprocess.run(["ls", "-a", "/lib/x86_64-linux-gnu"], capture_output=True,
                          text=True).stdout.split()
    got = run(sh, "/host/ls -a /lib/x86_64-linux-gnu").split()
    assert set(got) <= set(want) and "libc.so.6" in got, got
    assert "a dynamic binary ran" in run(sh, "/tests/dyn_hello")
    where = [run(sh, "/tests/dyn_where") for _ in range(2)]
    assert all(re.match(r"main 0x[0-9a-f]+ printf 0x[0-9a-f]+", w) for w in where), where
    assert where[0] != where[1], where      # the program and libc at random bases
    close(sh)


def test_proc_on_an_ext2_root(tmp_path):
    """/proc's names of files come from ext2's directories too (fd links, exe, maps, cwd)."""
    img = str(tmp_path / "proc.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    out = run(sh, "mkdir -p /work && cd /work && /tests/procfs; readlink /proc/self/exe")
    fails = [l for l in out.splitlines() if l.startswith("FAIL")]
    assert not fails and "procfs done, 0 failed" in out, "\n".join(fails) or out
    assert "/bin/busybox" in out, out


def test_event_programs_on_ext2(tmp_path):
    """inotify's events on ext2 inodes, fallocate on an ext2 file, and the splice
    program's checks with an ext2 working directory (its O_APPEND and
    read-only targets), as on Linux; e2fsck finds nothing to fix afterwards."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    for program in ("inotify", "splice", "memfd /"):
        out = run(sh, f"/tests/{program}")
        program = program.split()[0]
        assert f"{program} done, 0 failed" in out, out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mount_and_umount_the_disk_by_hand(tmp_path):
    """mount(2) of the disk's ext2 on the RAM root (/dev/sda), EBUSY from
    umount while the shell's directory is inside, the data there after a
    second mount, and a clean file system for e2fsck after the last umount."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "")
    out = run(sh, "mount -t ext2 /dev/null /mnt; echo status $?")
    assert "status 0" not in out and "Block device required" in out, out
    out = run(sh, "mount -t ext2 /dev/sda /mnt && grep ' /mnt ' /proc/mounts && "
                  "echo by-hand > /mnt/new && cd /mnt && umount /mnt; echo status $?")
    assert "/dev/sda /mnt ext2 rw" in out and "busy" in out and "status 1" in out, out
    out = run(sh, "cd / && umount /mnt && ls /mnt | wc -l && grep -c ' /mnt ' /proc/mounts; "
                  "mount -t ext2 /dev/sda /mnt && cat /mnt/new && umount /mnt && echo done")
    lines = [l for l in out.splitlines() if not l.startswith("lx: ")]     # lx logs each mount
    assert lines == ["0", "0", "by-hand", "done"], out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    dbg = subprocess.run(["debugfs", "-R", "cat /new", img], capture_output=True, text=True, env=env)
    assert dbg.stdout == "by-hand\n", dbg.stdout + dbg.stderr


def test_at_calls_on_ext2_and_fsck_clean(tmp_path):
    """tests/lx/atcalls.c on the ext2 root (O_TMPFILE linked in, RENAME_EXCHANGE,
    links, times), check by check as on Linux; e2fsck finds the disk clean."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    out = run(sh, "mkdir /atw && cd /atw && /tests/atcalls && cd /")
    assert "atcalls done, 0 failed" in out, out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr


def test_dangling_links_on_ext2_and_fsck_clean(tmp_path):
    """tests/lx/dangling.c on the ext2 root: O_CREAT makes a dangling link's
    target through ext2's create, the naming calls never follow the link,
    check by check as on Linux; e2fsck finds the disk clean."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    out = run(sh, "/tests/dangling /")
    assert "dangling done, 0 failed" in out and "in /dangling." in out, out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr


def test_names_after_changes_on_ext2(tmp_path):
    """ext2's lookup cache (fs/ext2.c, the name cache) never answers with a name
    as it was: after renames, unlinks, links, replacing renames, rmdir and
    mkdir of the same name, and a directory moved to another parent, every
    name looks up as on Linux (tests/lx/names.c passes there too), in a
    cached directory (the root) and a fresh one; e2fsck finds nothing to fix."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    for where in ("/", "/nc_work"):
        out = run(sh, f"mkdir -p /nc_work && /tests/names {where}")
        assert "names done, 0 failed" in out, out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr


def test_pagecache_on_ext2_then_msync_reaches_the_disk(tmp_path):
    """lx's ext2 page cache: tests/lx/pagecache.c on the ext2 root (a write()
    seen by another process's shared mapping and a store by its read(), private
    pages until their first store, SIGBUS past the end after a truncation, text
    pages never rewritten in the file), as on Linux; then a shared mapping's
    stores and msync, QEMU killed with the mapping still held: e2fsck finds the
    image clean and debugfs reads the stores from it."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    out = run(sh, "mkdir /pcw && /tests/pagecache /pcw")
    fails = [l for l in out.splitlines() if l.startswith("FAIL")]
    assert not fails and "pagecache done, 0 failed" in out, "\n".join(fails) or out
    sh.send("/tests/pagecache msync /pcw/synced &\n")
    sh.expect("msynced", 300)
    kill_group(sh.p.pid)
    sh.p.wait()
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    got = subprocess.run(["debugfs", "-R", "cat /pcw/synced", img], capture_output=True,
                         env=env).stdout
    assert got == bytes(ord("A") + i % 26 for i in range(8192)), got[:100]


def test_page_cache_bound_and_reclaim_keep_data_right(tmp_path):
    """A file bigger than the ext2 page cache's bound (a quarter of lx's pool;
    128 MiB of RAM) reads back as written, twice, and again after a process
    took memory until the pool ran short (the cache's clean pages go back to
    the pool, mm/page.c's shrinker); e2fsck finds the image clean."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    size = 32 << 20
    line = b"0123456789abcdef\n"
    mib = (line * (2 ** 20 // len(line) + 1))[:2 ** 20]
    want = hashlib.md5(mib * (size >> 20)).hexdigest()
    sh = Shell(timeout=900, mem=128, root_args="lx.root=disk /bin/sh", disk=img)
    sh.expect(r"# ", 300)
    out = run(sh, "yes 0123456789abcdef | head -c 1048576 > /mib && "
                  f"for i in $(seq {size >> 20}); do cat /mib; done > /big && rm /mib && "
                  "md5sum /big && md5sum /big", timeout=900)
    assert out.count(want) == 2, out
    out = run(sh, "/tests/memhog 96 >/dev/null; md5sum /big && rm /big", timeout=900)
    assert want in out, out
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr


def debugfs_cat(img, path):
    return subprocess.run(["debugfs", "-R", "cat " + path, img], capture_output=True,
                          env=env).stdout


def test_unsynced_writes_survive_a_clean_power_off(tmp_path):
    """ext2 writes back (fs/ext2.c, the block cache): files created, written,
    renamed and removed with no sync at all are on the disk after the shell
    exits and lx powers off cleanly; e2fsck finds the image clean, the host
    reads them, and a second boot sees them."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    run(sh, "mkdir -p /wb/d && cp /tests/abi /wb/abi && cp -r /tests /wb/t && "
            "yes wb | head -c 300000 > /wb/d/big && echo gone > /wb/gone && rm /wb/gone && "
            "mv /wb/t/atcalls /wb/moved && rm -r /wb/t")
    close(sh)
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    assert debugfs_cat(img, "/wb/abi") == debugfs_cat(img, "/tests/abi") != b""
    assert debugfs_cat(img, "/wb/moved") == debugfs_cat(img, "/tests/atcalls") != b""
    assert debugfs_cat(img, "/wb/d/big") == (b"wb\n" * 100000)[:300000]
    sh = boot(img, "lx.root=disk")
    out = run(sh, "ls -1 /wb; cmp /wb/abi /tests/abi && echo same; wc -c < /wb/d/big")
    assert listing(out) == ["abi", "d", "moved", "same", "300000"], out
    close(sh)


def test_sync_and_the_periodic_writeback_reach_the_image(tmp_path):
    """While lx still runs: after sync(1) the host reads a new file from the
    image; a file written without sync is there too once the periodic
    writeback's 30 s passed (Linux's dirty_expire); e2fsck -fn then finds the
    image clean."""
    img = str(tmp_path / "root.img")
    shutil.copy(IMG, img)
    sh = boot(img, "lx.root=disk")
    run(sh, "echo synced-data > /synced && sync")
    assert debugfs_cat(img, "/synced") == b"synced-data\n"
    run(sh, "yes later | head -c 20000 > /later && sleep 45", timeout=600)
    assert debugfs_cat(img, "/later") == (b"later\n" * 4000)[:20000]
    r = e2fsck(img)
    assert r.returncode == 0, r.stdout + r.stderr
    close(sh)
