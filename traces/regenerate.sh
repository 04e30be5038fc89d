#!/usr/bin/env bash
# Re-captures the sample traces with the real engine and rewrites their golden report files
# (traces/<name>.report.json = `trainscope report --json traces/<name>.db`).
#
# usage: traces/regenerate.sh [--reports-only] [BUILD_DIR]
#   BUILD_DIR       the build folder holding cli/trainscope (default: build, or
#                   $TRAINSCOPE_BUILD_DIR)
#   --reports-only  keep the traces, rewrite only the golden files (after a deliberate change
#                   to the analysis or to report --json)
#
# The OpenCL sample needs an OpenCL device (PoCL is enough); the script stops when none is
# found rather than record a CPU run under that name. Each trace is compacted afterwards
# (VACUUM into 4 KiB pages: capture writes 64 KiB pages, which makes a small trace ~1 MB);
# that changes the file's layout, not one row of it.
set -euo pipefail
cd "$(dirname "$0")/.."

reports_only=0
if [[ "${1:-}" == "--reports-only" ]]; then
  reports_only=1
  shift
fi
build_dir="${1:-${TRAINSCOPE_BUILD_DIR:-build}}"
bin="$build_dir/cli/trainscope"
[[ -x "$bin" ]] || { echo "regenerate.sh: no $bin; build the trainscope target first" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "regenerate.sh: needs the sqlite3 shell" >&2; exit 2; }

names=(input_bound tuned opencl)

capture() {
  local name="$1"
  shift
  local out="traces/$name.db"
  rm -f "$out" "$out-wal" "$out-shm"
  "$bin" train --quiet --seed 1 --trace "$out" "$@"
  sqlite3 "$out" "PRAGMA page_size = 4096; VACUUM;"
  echo "captured $out ($(stat -c %s "$out") bytes): trainscope train $*"
}

if [[ $reports_only == 0 ]]; then
  "$bin" devices | grep -q '^\[0\]' || {
    echo "regenerate.sh: no OpenCL device for traces/opencl.db (install PoCL)" >&2
    exit 2
  }
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  "$bin" make-dataset --from synthetic:256 --to "images:$work/digits" >/dev/null

  # The same job twice, naive against tuned (`trainscope diff traces/input_bound.db
  # traces/tuned.db`): an MLP on the CPU backend (1 thread) over 256 PNG digits from an image
  # folder, 2 epochs of 8 steps, with augmentation.
  # Input-bound: every sample read, decoded and augmented on the training thread, one at a time.
  capture input_bound --backend cpu --threads 1 --model mlp --dataset "images:$work/digits" \
    --epochs 2 --batch 32 --pipeline naive --augment crop:2,flip
  # Tuned: the same with a parallel worker, a memory cache (epoch 1 fills it) and a deep prefetch
  # buffer (8 batches ride out the scheduling stalls of a loaded machine).
  capture tuned --backend cpu --threads 1 --model mlp --dataset "images:$work/digits" \
    --epochs 2 --batch 32 --pipeline tuned --augment crop:2,flip --prefetch 8
  # OpenCL: kernels, launches, copies on two queues and synchronisation.
  capture opencl --backend opencl --model mlp --dataset synthetic:256 --epochs 1 --batch 32 \
    --pipeline tuned
  backend="$(sqlite3 traces/opencl.db "SELECT value FROM meta WHERE key = 'engine.backend'")"
  [[ "$backend" == opencl ]] || { echo "regenerate.sh: opencl.db ran on $backend" >&2; exit 1; }
fi

for name in "${names[@]}"; do
  "$bin" report --json "traces/$name.db" >"traces/$name.report.json"
  echo "wrote traces/$name.report.json: $(grep -m1 '"verdict"' "traces/$name.report.json")"
done
