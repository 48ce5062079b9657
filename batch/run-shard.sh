#!/usr/bin/env bash
# One shard of a vaxlab sweep, as a batch engine's task runs it: the shard's
# index comes from the engine — a Kubernetes Indexed Job's
# JOB_COMPLETION_INDEX, a Slurm array's SLURM_ARRAY_TASK_ID, or SHARD_INDEX
# given by hand — and the count from SHARD_COUNT.  The shard's units go to
# $RESULTS/shard-INDEX-of-COUNT.jsonl; when every shard is there,
# batch/merge.sh (vaxlab merge) joins them into the sweep's JSON.
#
#   SHARD_COUNT=4 RESULTS=/results SHARD_INDEX=0 batch/run-shard.sh syscall --param iterations=20000 --set hz=50,100,250,1000
#
# Everything after the script's name is `vaxlab sweep`'s (the experiment, its
# --set/--param, --jobs...); every shard must be given the same.  Exit: the
# sweep's (0 every unit ok, 1 a unit failed, 2 refused, 3 no image or wasm).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=${VAXLAB_REPO:-$(cd "$here/.." && pwd)}
index=${JOB_COMPLETION_INDEX:-${SLURM_ARRAY_TASK_ID:-${SHARD_INDEX:-}}}
count=${SHARD_COUNT:-${SLURM_ARRAY_TASK_COUNT:-}}
results=${RESULTS:-results}

if [ -z "$index" ]; then
  echo "run-shard.sh: no shard index: set JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID (Slurm) or SHARD_INDEX" >&2
  exit 2
fi
if [ -z "$count" ]; then
  echo "run-shard.sh: no shard count: set SHARD_COUNT (the Job's completions, the array's size)" >&2
  exit 2
fi
if [ $# -eq 0 ]; then
  echo "run-shard.sh: give the sweep: EXPERIMENT --set NAME=V1,V2,... (as for vaxlab sweep)" >&2
  exit 2
fi
mkdir -p "$results"
out="$results/shard-$index-of-$count.jsonl"
exec node "$repo/scripts/vaxlab.mjs" sweep "$@" --shard "$index/$count" --jsonl "$out"
