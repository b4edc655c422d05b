#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: mkdebian.sh OUT.img CACHE
# A Debian 12 userland as an ext2 disk image for lx (lx.root=disk; `make run`):
# the packages of PACKAGES, fetched once with `apt-get download` into CACHE
# (the host's apt lists give the versions: run on Debian 12) and unpacked with
# `dpkg-deb -x` into a merged-/usr tree, as a Debian 12 installation lays it
# out.  No maintainer script runs; what they would have made is made here:
# /etc/passwd, /etc/group (base-passwd's masters) with /etc/shadow and
# /etc/gshadow (every password locked: root reaches other users through su's
# pam_rootok), PAM's common-* files (pam-auth-update's output for the one
# profile installed, pam_unix), /etc/profile and root's dot files
# (base-files), /etc/shells, and the loader's cache.  Every ELF file's
# DT_NEEDED libraries must be in the image, or the build fails naming them.
# Environment: DEBIAN_EXT2_MB, the image's size (default 256).
set -e
out=$1 cache=$2

# What the image holds: the shells and tools, python3's minimal interpreter,
# su (util-linux) with PAM, and every library they load.
PACKAGES="base-files base-passwd bash dash coreutils findutils grep sed gawk diffutils
tar gzip procps util-linux mount debianutils ncurses-base readline-common
python3-minimal python3.11-minimal libpython3.11-minimal
libc6 libc-bin libgcc-s1 libtinfo6 libncursesw6 libselinux1 libpcre2-8-0 libacl1
libattr1 libgmp10 libmpfr6 libreadline8 libsigsegv2 zlib1g libexpat1 libssl3
libpam0g libpam-modules libpam-modules-bin libpam-runtime libaudit1 libaudit-common
libcap-ng0 libcap2 libproc2-0 libsystemd0 liblzma5 libzstd1 liblz4-1 libgcrypt20
libgpg-error0 libmount1 libblkid1 libsmartcols1 libuuid1 libudev1 libcrypt1
libdb5.3 libbz2-1.0 libmd0 libtirpc3 libnsl2 libgssapi-krb5-2 libkrb5-3
libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1 libtirpc-common libdebconfclient0"

download() {
	(cd "$cache" && apt-get -q -o APT::Sandbox::User=root download "$@" >/dev/null)
}

fetch() {
	mkdir -p "$cache"
	missing=""
	for p in $PACKAGES; do
		ls "$cache/${p}_"*.deb >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "mkdebian.sh: downloading:$missing"
	# apt drops privileges to _apt, which may not write here: download as we are;
	# a stale package list (a version gone from the archive) is refreshed once
	SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
	if ! download $missing && ! { $SUDO apt-get update -qq && download $missing; }; then
		echo "mkdebian.sh: could not download:$missing (is the network or the Debian" \
			"archive unreachable?)" >&2
		exit 1
	fi
}

# Debian 12 is merged-/usr: /bin, /sbin, /lib, /lib64 are links into /usr.
unpack() {
	for d in bin sbin lib lib64; do
		mkdir -p "$stage/usr/$d"
		ln -s "usr/$d" "$stage/$d"
	done
	for p in $PACKAGES; do
		tree=$(mktemp -d -p "$stage.work")
		dpkg-deb -x "$(ls "$cache/${p}_"*.deb | tail -n 1)" "$tree"
		for d in bin sbin lib lib64; do
			if [ -d "$tree/$d" ] && [ ! -L "$tree/$d" ]; then
				mkdir -p "$tree/usr/$d"
				cp -a "$tree/$d/." "$tree/usr/$d/"
				rm -rf "${tree:?}/$d"
			fi
		done
		cp -a "$tree/." "$stage/"
		rm -rf "$tree"
	done
}

# What the packages' maintainer scripts would have written.
configure() {
	e=$stage/etc
	cp "$stage/usr/share/base-passwd/passwd.master" "$e/passwd"
	cp "$stage/usr/share/base-passwd/group.master" "$e/group"
	awk -F: '{ print $1 ":*:19700:0:99999:7:::" }' "$e/passwd" > "$e/shadow"
	awk -F: '{ print $1 ":*::" }' "$e/group" > "$e/gshadow"
	chmod 640 "$e/shadow" "$e/gshadow"
	chgrp 42 "$e/shadow" "$e/gshadow" 2>/dev/null || true     # shadow's group
	cp "$stage/usr/share/base-files/profile" "$e/profile"
	mkdir -p "$stage/root"
	cp "$stage/usr/share/base-files/dot.profile" "$stage/root/.profile"
	cp "$stage/usr/share/base-files/dot.bashrc" "$stage/root/.bashrc"
	chmod 700 "$stage/root"
	printf '/bin/sh\n/usr/bin/sh\n/bin/bash\n/usr/bin/bash\n/bin/dash\n/usr/bin/dash\n' > "$e/shells"
	echo pecan > "$e/hostname"
	: > "$e/fstab"
	# pam-auth-update's output with only pam_unix's profile (libpam-runtime's templates)
	sed -e 's/^\$auth_primary$/auth\t[success=1 default=ignore]\tpam_unix.so nullok/' \
		-e '/^\$auth_additional$/d' "$stage/usr/share/pam/common-auth" > "$e/pam.d/common-auth"
	sed -e 's/^\$account_primary$/account\t[success=1 new_authtok_reqd=done default=ignore]\tpam_unix.so/' \
		-e '/^\$account_additional$/d' "$stage/usr/share/pam/common-account" > "$e/pam.d/common-account"
	sed -e 's/^\$password_primary$/password\t[success=1 default=ignore]\tpam_unix.so obscure yescrypt/' \
		-e '/^\$password_additional$/d' "$stage/usr/share/pam/common-password" > "$e/pam.d/common-password"
	for f in common-session common-session-noninteractive; do
		sed -e 's/^\$session\(_nonint\)\{0,1\}_primary$/session\t[default=1]\t\t\tpam_permit.so/' \
			-e 's/^\$session\(_nonint\)\{0,1\}_additional$/session\trequired\tpam_unix.so/' \
			"$stage/usr/share/pam/$f" > "$e/pam.d/$f"
	done
	if grep -q '^\$' "$e"/pam.d/common-*; then
		echo "mkdebian.sh: a PAM template line was not filled in" >&2
		exit 1
	fi
	ln -s ../proc/self/mounts "$e/mtab"
	mkdir -p "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp" "$stage/run" "$stage/mnt"
	chmod 1777 "$stage/tmp"
	PATH="$PATH:/sbin:/usr/sbin" ldconfig -r "$stage"
}

# Whatever this script made, and any time later than lx's boot clock
# (2026-01-01, docs/lx.md), becomes that time: the image depends only on the
# packages, and tar finds no file from the future.
fix_times() {
	epoch=1767225600
	find "$stage" -newer "$stage.work/start" -exec touch -h -d "@$epoch" {} +
	find "$stage" -newermt "@$epoch" -exec touch -h -d "@$epoch" {} +
}

# Every DT_NEEDED of every ELF file (programs, libraries, PAM modules, python's
# extensions) must resolve in the image's library directories or its own
# (glibc's gconv modules find their helpers through RUNPATH $ORIGIN).
check_needed() {
	libdirs="$stage/usr/lib/x86_64-linux-gnu $stage/usr/lib $stage/usr/lib64"
	bad=""
	for f in $(find "$stage/usr" -type f \( -perm -u+x -o -name '*.so*' \)); do
		head -c 4 "$f" | grep -q 'ELF' || continue
		for lib in $(objdump -p "$f" 2>/dev/null | awk '$1 == "NEEDED" { print $2 }'); do
			found=""
			for d in $libdirs "$(dirname "$f")"; do
				{ [ -e "$d/$lib" ] || [ -L "$d/$lib" ]; } && found=1
			done
			[ -n "$found" ] || bad="$bad ${f#"$stage"}:$lib"
		done
	done
	if [ -n "$bad" ]; then
		echo "mkdebian.sh: libraries missing from the image:" >&2
		echo "$bad" | tr ' ' '\n' >&2
		exit 1
	fi
}

stage=$(mktemp -d)
mkdir -p "$stage.work"
trap 'rm -rf "$stage" "$stage.work"' EXIT
fetch
touch "$stage.work/start"
unpack
configure
check_needed
fix_times
# 4 KiB blocks (lx's page), 128-byte inodes, no htree index: what fs/ext2.c
# writes (tools/mklxfs.sh); an inode per 16 KiB keeps lx's mount check short;
# a fixed UUID, hash seed and creation time: the same packages give the same
# image but for the inodes' change times (mke2fs copies the staged files' ctime)
rm -f "$out.tmp"
uuid=de61a712-0000-4000-8000-00000000000c
E2FSPROGS_FAKE_TIME=$epoch PATH="$PATH:/sbin:/usr/sbin" mke2fs -q -F -t ext2 -b 4096 -I 128 \
	-i 16384 -O ^dir_index -U $uuid -E root_owner=0:0,hash_seed=$uuid -d "$stage" "$out.tmp" \
	"${DEBIAN_EXT2_MB:-256}M" >"$stage.work/err" 2>&1 || { cat "$stage.work/err" >&2; exit 1; }
grep -v 'beyond 2038\|^Creating regular file' "$stage.work/err" >&2 || true
mv "$out.tmp" "$out"
