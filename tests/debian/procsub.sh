# SPDX-License-Identifier: MIT
# process substitution: bash opens /dev/fd/N of a pipe (tests/system/test_debian.py)
diff <(printf 'a\nb\n') <(printf 'a\nc\n'); echo "diff: $?"
while read -r l; do echo "line: $l"; done < <(printf 'x\ny\n')
