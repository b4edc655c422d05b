# SPDX-License-Identifier: MIT
# bash features, run by Debian's bash under lx and by the host's bash
# (tests/system/test_debian.py compares the two outputs line for line).
set -u
a=(one two "three four")
a+=(five)
echo "array: ${#a[@]} [${a[2]}] ${a[*]:1:2}"
declare -A m=([x]=1 [y]=22)
for k in $(printf '%s\n' "${!m[@]}" | sort); do echo "assoc: $k=${m[$k]}"; done
[[ abc == a* && 3 -lt 10 && ! -e /nonexistent ]] && echo "dbl: yes"
[[ foo-123 =~ ^([a-z]+)-([0-9]+)$ ]] && echo "regex: ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
cat <<END
heredoc: $((6 * 7)) ${a[0]}
END
cat <<'END'
quoted: $HOME stays
END
while read -r w n; do echo "read: $w $n"; done <<< "word 17"
trap 'echo "trap: USR1"' USR1
kill -USR1 $$
(exit 3) & (sleep 1; exit 5) &
wait -n; echo "wait -n: $?"
wait; echo "wait: $?"
f() { local x=$1; echo "func: $((x * 2))"; return 4; }
f 21; echo "status: $?"
out=$(for i in 1 2 3; do echo $i; done | tr '\n' ,); echo "pipe: $out"
echo "pipestatus: $(false | true; echo "${PIPESTATUS[@]}")"
set -m
sleep 1 & sleep 1 &
jobs | sed 's/ \+/ /g'
wait; echo "jobs: done"
sleep 5 & pid=$!
echo "jobs -p: $(jobs -p | grep -c "^$pid\$")"
kill $pid; wait $pid; echo "killed: $?"
# Set only now: a job killed before it has exec'd is still bash, and runs
# the EXIT trap (on Linux too), so an earlier trap made the output racy.
trap 'echo "trap: EXIT"' EXIT
(sleep 0.2; exit 6) &
fg %% >/dev/null; echo "fg: $?"
