# SPDX-License-Identifier: MIT
"""Debian 12's own dynamically linked programs on lx, from the ext2 image that
tools/mkdebian.sh builds (build/debian/root.img, `make debian`): bash,
coreutils, findutils, tar and gzip, gawk, sed, grep, python3 and su, started
as `make run` starts them (lx.root=disk, process 1 `su -`).  Each boot runs
on a copy of the image with the test's inputs written in by debugfs; what the
guest prints is compared with what the host's programs (Debian 12 too) print
for the same input, and what it writes is read back by debugfs."""
import os
import random
import re
import shutil
import subprocess
import time

import pytest

from harness import BUILD, TOP
from lxshell import PATHS, Shell

IMG = os.path.join(BUILD, "debian", "root.img")
HERE = os.path.join(TOP, "tests", "debian")
env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/sbin:/usr/sbin", LC_ALL="C")


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "lx", "debian"], cwd=TOP, check=True, capture_output=True)


def image(tmp_path, files):
    """A copy of the image with files ({guest path: host path}) written in."""
    img = str(tmp_path / "root.img")
    subprocess.run(["cp", "--sparse=always", IMG, img], check=True)
    for guest, host in files.items():
        subprocess.run(["debugfs", "-w", "-R", f"write {host} {guest}", img], check=True,
                       capture_output=True, env=env)
    return img


def debugfs_cat(img, path):
    return subprocess.run(["debugfs", "-R", f"cat {path}", img], capture_output=True, env=env,
                          check=True).stdout.decode()


def boot(img, path="fast"):
    """make run's boot; path "trap": lx.fast=0 (docs/lx.md, the fast library path)."""
    fast = " lx.fast=0" if path == "trap" else ""
    sh = Shell(timeout=900, root_args=f"lx.root=disk{fast} /bin/su -", disk=img)
    sh.expect(r"root@pecan:~# ", 300)
    return sh


def run(sh, command, status=0, timeout=300):
    out, st = sh.run(command, timeout)
    assert st == status, f"{command!r} exited {st}, wanted {status}; output:\n{out}"
    return "".join(l for l in out.splitlines(True) if not l.startswith("lx: "))


def close(sh, img):
    """^D: bash logs out, su and lx exit, the machine powers off with status 0;
    nothing lx does not implement was asked for (keyctl answers ENOSYS
    deliberately, docs/lx.md); e2fsck finds the image clean."""
    assert sh.close(120) == 0, sh.log()[-3000:]
    log = sh.log()
    assert "halted" not in log and "KERNEL FAULT" not in log, log[-3000:]
    assert "not implemented" not in log, re.findall(r"lx: .*not implemented.*", log)
    r = subprocess.run(["e2fsck", "-fn", img], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


def host(command, cwd=None):
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env,
                          cwd=cwd, check=True).stdout


def make_tree(root):
    """Files with modes, links, a hole and random data; fixed times."""
    rnd = random.Random(7)
    os.makedirs(os.path.join(root, "files"))
    os.makedirs(os.path.join(root, "deep", "er", "est"))
    for i in range(40):
        p = os.path.join(root, "files", f"f{i:02d}")
        with open(p, "wb") as f:
            f.write(rnd.randbytes(rnd.choice([0, 1, 100, 4096, 5000, 70000])))
        os.chmod(p, rnd.choice([0o644, 0o600, 0o755, 0o444]))
    with open(os.path.join(root, "deep", "er", "est", "sparse"), "wb") as f:
        f.seek(3 << 20)
        f.write(b"end")
    os.symlink("f01", os.path.join(root, "files", "link"))
    os.link(os.path.join(root, "files", "f02"), os.path.join(root, "deep", "hard"))
    for d, dirs, names in os.walk(root):
        for n in names + dirs + [""]:
            os.utime(os.path.join(d, n), (1700000000, 1700000000), follow_symlinks=False)


@pytest.mark.parametrize("path", sorted(PATHS))
def test_bash_coreutils_tar_python_match_host(tmp_path, path):
    """One boot of Debian's userland on each of lx's system-call paths: a bash
    script of here-documents, arrays, [[ ]], traps, wait -n and job control
    prints what the host's bash prints; sort, ls -l, find -xdev, a tar czf/xzf
    round trip with diff -r, gawk, sed and grep agree with the host; python3
    writes a file the host reads back."""
    tree = str(tmp_path / "tree")
    make_tree(tree)
    host(f"tar czf {tmp_path}/tree.tgz tree", cwd=str(tmp_path))
    rnd = random.Random(3)
    with open(tmp_path / "words", "w") as f:
        for _ in range(3000):
            f.write(f"{rnd.choice(['apple', 'Pear', 'fig', 'kiwi', '10', '9'])}{rnd.randrange(999)} "
                    f"{rnd.randrange(-500, 500)}\n")
    img = image(tmp_path, {"/root/features.sh": os.path.join(HERE, "features.sh"),
                           "/root/procsub.sh": os.path.join(HERE, "procsub.sh"),
                           "/root/tree.tgz": str(tmp_path / "tree.tgz"),
                           "/root/words": str(tmp_path / "words")})
    sh = boot(img, path)
    assert run(sh, "bash /root/features.sh 2>/dev/null") == host(f"bash {HERE}/features.sh")
    for cmd in ("sort words", "sort -n -k2 words", "sort -u -t' ' -k1,1 words | wc -l",
                "gawk '{ s += $2; n[substr($1, 1, 2)]++ } END { for (k in n) c++; print s, c }' words",
                "sed -E 's/([a-z]+)([0-9]+)/\\2-\\1/' words | grep -c '^[0-9]*-fig'"):
        want = host("cd " + str(tmp_path) + " && " + cmd.replace("gawk", "awk"))
        assert run(sh, "cd /root && " + cmd) == want, cmd
    listing = "ls -ln --time-style=+%s tree/files | tail -n +2"
    tree_find = ("find tree \\( -type d -printf '%M %p\\n' \\) -o "
                 "-printf '%M %n %s %T@ %p %l\\n' | sort")
    run(sh, "mkdir /root/x && cd /root/x && tar xzf /root/tree.tgz")
    assert run(sh, "cd /root/x && " + listing) == host(listing, cwd=str(tmp_path))
    assert run(sh, "cd /root/x && " + tree_find) == host(tree_find, cwd=str(tmp_path))
    out = run(sh, "cd /root/x && tar czf /tmp/back.tgz tree && mkdir /tmp/r && "
                  "tar xzf /tmp/back.tgz -C /tmp/r && diff -r tree /tmp/r/tree && echo same; "
                  "echo x > /tmp/r/tree/files/f05; diff -rq tree /tmp/r/tree; echo diff $?")
    assert out == "same\nFiles tree/files/f05 and /tmp/r/tree/files/f05 differ\ndiff 1\n", out
    out = run(sh, "ls -la /")
    for rx in (r"^lrwxrwxrwx +1 root root +7 .* bin -> usr/bin$", r"^drwx------ .* root$",
               r"^drwxrwxrwt .* tmp$", r"^dr-xr-xr-x .* proc$", r"^drwxr-xr-x .* usr$"):
        assert re.search(rx, out, re.M), (rx, out)
    run(sh, "touch /tmp/x.master /root/y.master")
    assert run(sh, "find / -xdev -name '*.master' | sort") == \
        "/root/y.master\n/usr/share/base-passwd/group.master\n/usr/share/base-passwd/passwd.master\n"
    py = ("import os; s = sum(i * i for i in range(100000)); "
          "open('/root/py.out', 'w').write('%d %s\\n' % (s, ' '.join(sorted(os.listdir('/etc/pam.d')))))")
    run(sh, f'python3 -c "{py}"')
    procsub = run(sh, "bash /root/procsub.sh")
    close(sh, img)
    pam = subprocess.run(["debugfs", "-R", "ls -p /etc/pam.d", img], capture_output=True,
                         text=True, env=env).stdout.splitlines()
    names = sorted(f[5] for f in (l.split("/") for l in pam)
                   if len(f) > 6 and f[5] not in (".", ".."))
    assert debugfs_cat(img, "/root/py.out") == \
        "%d %s\n" % (sum(i * i for i in range(100000)), " ".join(names))
    assert "common-auth" in names and "su" in names
    assert procsub == host(f"bash {HERE}/procsub.sh")


def test_glibc_clocks_through_the_vdso(tmp_path):
    """glibc reads lx's vDSO: tests/lx/vdso.c built against the host's glibc
    (Debian 12's, as the image's) passes under lx as on the host, settime
    included; python3's and date's clocks agree with the system's
    (tests/debian/vdso_clock.py prints the same lines as on the host)."""
    script = os.path.join(HERE, "vdso_clock.py")
    prog = str(tmp_path / "vdso")
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-o", prog, os.path.join(TOP, "tests", "lx", "vdso.c")],
                   check=True)
    img = image(tmp_path, {"/root/vdso_clock.py": script, "/root/vdso": prog})
    sh = boot(img)
    out = run(sh, "chmod +x /root/vdso && /root/vdso settime")
    py = run(sh, "python3 /root/vdso_clock.py")
    close(sh, img)
    assert "vdso done, 0 failed" in out and "FAIL" not in out, out
    assert "ok clock_settime moves the vDSO realtime" in out, out
    assert py == host(f"python3 {script}"), py


def test_interactive_login_shell(tmp_path):
    """The console as make run gives it: root's login shell (su -) with PAM's
    environment; ^C kills the foreground sleep and bash abandons the rest of
    the line; cat reads a typed line and ^D ends its input, not the shell's."""
    img = image(tmp_path, {})
    sh = boot(img)
    assert run(sh, "echo $0 $HOME $USER $SHELL; shopt -q login_shell && echo login") == \
        "-bash /root root /bin/bash\nlogin\n"
    sh.send("sleep 100; echo after-$((6 * 7))\n")
    sh.expect(r"sleep 100; echo after-\$\(\(6 \* 7\)\)\n", 60)
    time.sleep(2)
    sh.send("\x03")
    sh.expect(r"\^C\n+(\x1b\[\?2004h)?root@pecan:~# ", 60)
    sh.send("cat; echo cat $?\n")
    sh.expect(r"cat; echo cat \$\?\n", 60)
    time.sleep(1)
    sh.send("typed line\n")
    sh.expect(r"typed line\ntyped line\n", 60)
    sh.send("\x04")
    sh.expect(r"cat 0\n", 60)
    assert "after-42" not in sh.log()
    assert run(sh, "echo still here") == "still here\n"
    close(sh, img)


def test_su_to_nobody(tmp_path):
    """util-linux su through PAM (pam_rootok, pam_unix, pam_env, pam_limits):
    root becomes nobody without a password, as on Linux."""
    img = image(tmp_path, {})
    sh = boot(img)
    assert run(sh, "su nobody -s /bin/sh -c id") == \
        "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)\n"
    assert run(sh, "su -s /bin/bash -c 'echo $HOME $USER $SHELL' nobody") == \
        "/nonexistent nobody /bin/bash\n"
    close(sh, img)


def test_make_run_from_a_pipe():
    """`printf ... | make run`: Debian's bash as a login shell reads the
    commands; the end of input logs out and powers off with status 0."""
    r = subprocess.run(["make", "-s", "run"], cwd=TOP, input=b"echo $0 $HOME; uname -s\n",
                       capture_output=True, timeout=900)
    out = r.stdout.decode("utf-8", "replace").replace("\r", "")
    assert r.returncode == 0, out[-3000:]
    assert re.search(r"^(\x1b\[\?2004l)?-bash /root\nLinux$", out, re.M), out[-3000:]
    assert "power off requested by root (status 0)" in out, out[-3000:]
