#!/usr/bin/env bash
# Time to boot 4.3BSD on the native build: host seconds from start to the
# single-user "#" and to the multi-user "login:", through the real /boot,
# on a scratch copy of the reference RP06 image.  Prints one line each,
# with the instructions executed and the virtual seconds they represent.
# Then boot against restore (scripts/bench-restore.ts): host ms to each
# prompt, booting or restoring a snapshot saved there, native and wasm.
#
#   npm run bench:boot [-- EXTRA VAX780 OPTIONS, e.g. --no-idle-skip]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh --no-chromium >&2
make -C emu images >&2
ref=emu/build/images/43bsd-rp06.dsk
[ -f "$ref" ] || { echo "bench-boot: $ref missing (needs ../shared/bsd/ref)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'timeout 300\nexpect \\n# \n' > "$tmp/single.txt"
printf 'timeout 300\nexpect login: \n' > "$tmp/multi.txt"
for run in single multi; do
  best=""
  for i in 1 2 3; do
    cp "$ref" "$tmp/disk.dsk"
    line=$(emu/build/vax780 --disk hp0="$tmp/disk.dsk" --boot "$run" --script "$tmp/$run.txt" --quiet --stats "$@" 2>&1 >/dev/null | tail -n 1)
    secs=$(sed -E 's/.* ([0-9.]+) host s.*/\1/' <<<"$line")
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$secs; bestline=$line; fi
  done
  target=$([ "$run" = single ] && echo '"#"' || echo '"login:"')
  echo "boot to $target ($run-user, via /boot), best of 3: $bestline"
done
# Booting against restoring a snapshot saved at the same prompt, native and wasm side by side.
node --import tsx scripts/bench-restore.ts "$ref"
