#!/bin/sh
# Shows that test_cpu reports failures: every test in must_fail.vt and each
# error in malformed.vt must come out as a failure, and nothing may crash.
#   usage (from emu/): tests/cpu-selftest/run.sh [path/to/test_cpu]
set -u
dir=$(dirname "$0")
bin=${1:-build/native/test_cpu}
status=0
out=$("$bin" "$dir/must_fail.vt" "$dir/malformed.vt")
rc=$?
echo "$out"
echo "----"
ntests=$(grep -c '^test ' "$dir/must_fail.vt")
nfile=3   # malformed.vt: a directive outside a test, a test without a name, a code block without end
want="0 passed, $((ntests + nfile)) failed"
if [ "$(echo "$out" | tail -n 1)" != "$want" ]; then
    echo "selftest: summary should be '$want'"; status=1
fi
[ "$rc" -eq 1 ] || { echo "selftest: exit status $rc, expected 1"; status=1; }
grep '^test ' "$dir/must_fail.vt" | sed 's/^test *//' | while IFS= read -r name; do
    echo "$out" | grep -F -q "must_fail.vt:" || exit 1
    echo "$out" | grep '^FAIL ' | grep -F -q " $name: " || { echo "selftest: no FAIL for '$name'"; exit 1; }
done || status=1
[ $status -eq 0 ] && echo "selftest: ok ($want, as it should be)"
exit $status
