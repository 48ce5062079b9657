#!/usr/bin/env bash
# Raw CPU speed, native vs WebAssembly (Node), on the same workload.
#
#   npm run bench:cpu [-- --instructions N --slice N --workload FILE.bin --mem MB]
#
# Workload: emu/bench/workload.s (a paged user-mode instruction mix),
# assembled by make into emu/build/workload.bin.  Builds what is missing first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh --no-chromium >&2

rc=0
emu/build/native/bench_cpu "$@" || rc=$?
node --import tsx emu/bench/bench-cpu-wasm.ts "$@" || rc=$?
exit $rc
