#!/usr/bin/env bash
# The importer's speed and memory on a ~350 MB real-shaped PyTorch trace, and HTA's loading time
# on the same file when HTA is installed (benchmarks/peers/README.md says how).
#   benchmarks/import/bench_import.sh [build-dir (default build)] [size in MB (default 350)]
# Makes the trace with make_large_trace.py if it is missing (TRAINSCOPE_BIG_TRACE names another
# file), imports it 3 times with build-dir/benchmarks/bench_import (best time reported: MB/s,
# events/s, peak RSS and its ratio to the JSON size), imports its gzip version once (the inflating
# thread), then runs benchmarks/peers/hta_load_time.py on the plain file and prints HTA's time
# over ours.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
size="${2:-350}"
trace="${TRAINSCOPE_BIG_TRACE:-/tmp/bigtrace/tiled_${size}mb.json}"
out="$(mktemp -d)/bench_import.db"
trap 'rm -rf "$(dirname "$out")"' EXIT

if [ ! -f "$trace" ]; then
  python3 benchmarks/import/make_large_trace.py --size-mb "$size" --out "$trace"
fi
cmake --build "$build" --target bench_import >/dev/null ||
  { [ -x "$build/benchmarks/bench_import" ] && echo "(build failed: using the bench_import already built)"; }
echo "== trainscope import of $trace"
ours="$("$build/benchmarks/bench_import" --repeat 3 "$out" "$trace" | tee /dev/stderr | tail -1)"

if [ "${TRAINSCOPE_BENCH_GZIP:-1}" = 1 ]; then
  gz="$trace.gz"
  [ -f "$gz" ] || gzip -1 -k -c "$trace" >"$gz"
  echo "== trainscope import of $gz (inflated on a second thread)"
  "$build/benchmarks/bench_import" "$out" "$gz" | head -1
fi

hta_python=/tmp/venv-torch/bin/python
if [ -x "$hta_python" ] && "$hta_python" -c "import hta" 2>/dev/null; then
  echo "== HTA loading the same file (benchmarks/peers/hta_load_time.py)"
  hta="$("$hta_python" benchmarks/peers/hta_load_time.py "$trace" | tee /dev/stderr | tail -1)"
  python3 - "$ours" "$hta" <<'PY'
import json, sys
ours, hta = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("HTA load %.2f s / trainscope import %.3f s = %.0fx; peak RSS %.0f MB vs %.0f MB"
      % (hta["load_s"], ours["seconds"], hta["load_s"] / ours["seconds"],
         hta["peak_rss_mb"], ours["peak_rss_mb"]))
PY
else
  echo "(HTA not installed in /tmp/venv-torch: no peer comparison; see benchmarks/peers/README.md)"
fi
