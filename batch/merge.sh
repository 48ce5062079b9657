#!/usr/bin/env bash
# Joins the shards batch/run-shard.sh wrote into the sweep's JSON, byte for
# byte what `vaxlab sweep ... --json` writes when the sweep runs whole:
#
#   RESULTS=/results batch/merge.sh            # -> $RESULTS/sweep.json, the table on stdout
#
# vaxlab merge refuses (exit 2, nothing written) shards of another sweep or
# image, a shard given twice or missing, a shard that did not finish.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=${VAXLAB_REPO:-$(cd "$here/.." && pwd)}
results=${RESULTS:-results}
shopt -s nullglob
shards=("$results"/shard-*-of-*.jsonl)
if [ ${#shards[@]} -eq 0 ]; then
  echo "merge.sh: no shards in $results (shard-INDEX-of-COUNT.jsonl)" >&2
  exit 2
fi
exec node "$repo/scripts/vaxlab.mjs" merge "${shards[@]}" --json "$results/sweep.json" "$@"
