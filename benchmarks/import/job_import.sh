#!/usr/bin/env bash
# Import and report of a data-parallel job's Kineto traces at job scale: writes RANKS rank files of
# about MB megabytes each (`trainscope synth --kineto-job`: a straggler, a slow-input rank, a rank
# with more collectives), then times `trainscope report DIR` (the import into DIR's cache trace and
# the analysis) and prints the JSON read per second and the peak memory; then imports the same
# directory with build-dir/benchmarks/bench_import on one thread (`--threads 1`: one file after
# the other) and on every core (files parsed in parallel, written in file order), and prints the
# ratio of the two. Run it on a quiet machine.
#   benchmarks/import/job_import.sh [build-dir] [ranks (default 64)] [MB per rank (default 40)]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
ranks="${2:-64}"
mb="${3:-40}"
ts="$build/cli/trainscope"
[ -x "$ts" ] || { echo "job_import: $ts is missing (run scripts/setup.sh)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ts" synth --kineto-job "$work/job" --ranks "$ranks" --rank-mb "$mb"
bytes="$(du -sb "$work/job" | cut -f1)"
/usr/bin/time -f "%e %M" -o "$work/time" "$ts" report "$work/job" >"$work/report.txt"
read -r seconds rss_kb <"$work/time"
python3 - "$bytes" "$seconds" "$rss_kb" "$ranks" <<'PY'
import sys
b, s, kb, ranks = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
print(f"job_import: {ranks} ranks, {b / 1e9:.2f} GB of JSON: import + report {s:.2f} s "
      f"({b / 1e9 / s:.2f} GB/s), peak RSS {kb / 1024:.0f} MiB")
PY
grep -E "^straggler" "$work/report.txt" || true

bench="$build/benchmarks/bench_import"
[ -x "$bench" ] || { echo "job_import: $bench is missing: no threads ratio" >&2; exit 0; }
seq_json="$("$bench" --threads 1 "$work/one.db" "$work/job" | tail -1)"
rm -f "$work/one.db"
par_json="$("$bench" "$work/all.db" "$work/job" | tail -1)"
python3 - "$seq_json" "$par_json" <<'PY'
import json, sys
one, every = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"job_import: import alone, one thread {one['seconds']:.2f} s ({one['mb_per_s']:.0f} MB/s, "
      f"peak RSS {one['peak_rss_mb']:.0f} MB); every core {every['seconds']:.2f} s "
      f"({every['mb_per_s']:.0f} MB/s, peak RSS {every['peak_rss_mb']:.0f} MB): "
      f"{one['seconds'] / every['seconds']:.2f}x")
PY
