#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage: persist.sh KERNEL SERVER IMAGE RESULTS
# The costs of Mungi's persistence: boots Pecan's Mungi server twice under
# icount on a fresh 16 MiB disk image (cache=writethrough), first with
# phase=write (checkpoints), then with phase=read and the capability the
# first boot printed (first touch of persisted pages).  Consoles go to
# RESULTS.write.log and RESULTS.read.log; META, RESULT and STATUS lines to
# RESULTS.  Fails unless both boots printed "mpbench: done".
set -e
kernel=$1 server=$2 image=$3 results=$4
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$(dirname "$results")"
disk=$results.img
rm -f "$disk"
start=$(date +%s)
boot() {
	"$top/tools/run" --icount --timeout 600 --kernel "$kernel" --root "$server" --module "$image" \
		--disk "$disk" --disk-mb 16 --root-args "$1" </dev/null >"$2" 2>&1 || true
	tr -d '\r' <"$2" >"$2.tmp" && mv "$2.tmp" "$2"
}
boot "phase=write" "$results.write.log"
cap=$(sed -n 's/^MPBENCH \(o=[0-9a-f:]*\).*/\1/p' "$results.write.log")
boot "phase=read $cap" "$results.read.log"
end=$(date +%s)
rm -f "$disk"
status=0
for log in "$results.write.log" "$results.read.log"; do
	grep -q '^mpbench: done' "$log" || status=1
done
{
	echo "META producer=pecan-mungi-persist system=mungi method=icount"
	echo "META commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "META qemu=$(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //; s/ .*//')"
	echo "META kernel=pecan:$(basename "$(dirname "$kernel")")"
	echo "META host_seconds=$((end - start))"
	echo "META disk=16MiB,raw,cache=writethrough"
	grep -h -E '^RESULT ' "$results.write.log" "$results.read.log" || true
	echo "STATUS system=mungi prog=mpbench status=$status"
} >"$results"
if [ $status != 0 ]; then
	echo "persist.sh: a boot did not finish; console tails:" >&2
	tail -n 20 "$results.write.log" "$results.read.log" >&2
	exit 1
fi
