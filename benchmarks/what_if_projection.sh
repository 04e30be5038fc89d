#!/usr/bin/env bash
# How well the report's "input fully hidden" projection of a naive run predicts a real rerun of
# the same job with the tuned pipeline: trains the job naive and tuned (each RUNS times, keeping
# the fastest, as a run of the job costs), and prints the projected and measured steady-state
# step times and their ratio. Timing on a shared machine belongs here, not in a test: the tuned
# run's input worker needs a core of its own, so run this on a quiet machine.
#   benchmarks/what_if_projection.sh [build-dir] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
runs="${2:-3}"
ts="$build/cli/trainscope"
[ -x "$ts" ] || { echo "what_if_projection: $ts is missing (run scripts/setup.sh)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ts" make-dataset --from synthetic:2048 --to "images:$work/digits" >/dev/null
job="--backend cpu --threads 1 --model mlp --dataset images:$work/digits --epochs 4 --batch 128 --quiet"
best() {  # best PIPELINE JQ_FIELD: the lowest figure of RUNS traced runs
  local pipeline="$1" field="$2" lowest=""
  for i in $(seq "$runs"); do
    "$ts" train $job --pipeline "$pipeline" --trace "$work/$pipeline$i.db" >/dev/null
    local v
    v="$("$ts" report --json "$work/$pipeline$i.db" | python3 -c "
import json, sys
j = json.load(sys.stdin)
print($field)")"
    lowest="$(python3 -c "print(min(x for x in [$v, ${lowest:-$v}]))")"
  done
  echo "$lowest"
}
projected="$(best naive "j['what_if']['input_hidden']['step_time_ms']")"
measured="$(best tuned "j['step_time_ms']['mean']")"
echo "naive run, input fully hidden (projected): $projected ms per step"
echo "tuned rerun, steady state (measured):      $measured ms per step"
python3 -c "print(f'projected / measured: {$projected / $measured:.2f}')"
