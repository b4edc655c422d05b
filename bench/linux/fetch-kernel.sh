#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: fetch-kernel.sh OUTDIR
# Puts Debian's cloud kernel into OUTDIR/vmlinuz (and its version into
# OUTDIR/kernel-version) from the versioned package that the metapackage
# linux-image-cloud-amd64 depends on: apt-get download + dpkg-deb -x, nothing
# installed on the host.  The .deb is kept in OUTDIR so reruns need no network.
set -e
out=$1
[ -n "$out" ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$out"
cd "$out"

resolve() {
	apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}
refresh() {
	SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
}
# Prints the .deb's name, downloading it unless it is here already.
fetch() {
	[ -n "$pkg" ] || return 1
	deb=$(ls "$pkg"_*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		apt-get download -q "$pkg" >&2 || return 1
		deb=$(ls "$pkg"_*.deb | head -n 1)
	fi
	echo "$deb"
}
# an empty or stale package list (the version rotated out of the archive): refresh once
pkg=$(resolve)
deb=$(fetch) || { refresh; pkg=$(resolve); deb=$(fetch); } || {
	echo "$0: could not fetch Debian's cloud kernel package" \
		"(${pkg:-the linux-image-* package that linux-image-cloud-amd64 depends on}, about 27 MB)" \
		"with apt-get: is the network or the Debian archive unreachable? The Linux guest" \
		"of make test and make bench needs it; once fetched it is kept in $out." >&2
	exit 1
}
rm -rf root && mkdir root
dpkg-deb -x "$deb" root
img=$(ls root/boot/vmlinuz-* | head -n 1)
[ -f "$img" ] || { echo "$0: no /boot/vmlinuz-* in $deb" >&2; exit 1; }
cp "$img" vmlinuz.tmp
echo "${img#root/boot/vmlinuz-} (${deb})" > kernel-version
rm -rf root
mv vmlinuz.tmp vmlinuz
