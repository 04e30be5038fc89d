#!/usr/bin/env bash
# Builds a libFuzzer harness of the trace store in build-fuzz (clang, ASan, UBSan) and runs it:
#   fuzz/run_store.sh [--wal | --block | --rows] [seconds (default 1800)] [extra libFuzzer flags...]
#   (default)  fuzz_store_reader: a whole trace file through store::Reader, the analysis and the
#              Chrome export; inputs up to 1 MiB
#   --wal      fuzz_store_reader_wal: the same with a -wal file ([4-byte length][main][wal])
#   --block    fuzz_event_block: one staged event block through decode_block; up to 64 KiB
#   --rows     fuzz_analysis_rows: writer calls with any rows (fuzz/analysis_rows.hpp) through
#              the writer, the analysis, its reports and the Chrome export; up to 64 KiB
#   --report   fuzz_report_codec: a kept report's parts through ReportDecoder and the reports;
#              up to 256 KiB
#   --trust    fuzz_trust_checks: a trace file through the events' checksum and the kept
#              analysis's seal check, and as the import cache of a fixed source; up to 1 MiB
#   --merge    fuzz_job_merge: two part files ([4-byte length][rank 0][rank 1]) through
#              merge_job and the analysis; up to 1 MiB
# The working corpus (build-fuzz/corpus/<harness>) is seeded from fuzz/corpus/<harness>,
# fuzz/regressions/<harness>, the seeds make_store_seeds writes (small traces, finished and
# staged, and blocks) and, for the reader, traces/*.db. Crashes, leaks, timeouts and
# out-of-memory inputs land in build-fuzz/findings/<harness>-*; copy each into
# fuzz/regressions/<harness>/ (test_fuzz_<harness> replays them) and fix it.
# Needs clang with its runtime (fuzz/common.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
name=store_reader
max_len=1048576
case "${1:-}" in
  --wal) name=store_reader_wal; shift ;;
  --block) name=event_block; max_len=65536; shift ;;
  --rows) name=analysis_rows; max_len=65536; shift ;;
  --report) name=report_codec; max_len=262144; shift ;;
  --trust) name=trust_checks; shift ;;
  --merge) name=job_merge; shift ;;
esac
seconds="${1:-1800}"
shift || true

. fuzz/common.sh
ts_fuzz_build build-fuzz "fuzz_$name" make_store_seeds
ts_fuzz_env

corpus="build-fuzz/corpus/$name"
findings=build-fuzz/findings
mkdir -p "$corpus" "$findings"
seeds="$(mktemp -d)"
build-fuzz/make_store_seeds "$seeds"
case "$name" in
  trust_checks)
    cp -n "$seeds/store_reader"/* "$corpus"/
    TS_FUZZ_SEED_DIR="$corpus" "build-fuzz/fuzz_$name" -runs=0 >/dev/null 2>&1 || true ;;
  job_merge)  # each seed trace paired with the next: [length][part][part]
    prev=""
    for f in "$seeds/store_reader"/*; do
      [ -n "$prev" ] && python3 -c 'import sys,struct;a=open(sys.argv[1],"rb").read();b=open(sys.argv[2],"rb").read();sys.stdout.buffer.write(struct.pack("<I",len(a))+a+b)' "$prev" "$f" > "$corpus/pair_$(basename "$prev")"
      prev="$f"
    done ;;
  *) cp -n "$seeds/$name"/* "$corpus"/ ;;
esac
rm -rf "$seeds"
cp -n fuzz/corpus/"$name"/* fuzz/regressions/"$name"/* "$corpus"/ 2>/dev/null || true
if [ "$name" = store_reader ]; then
  for f in traces/*.db; do cp -n "$f" "$corpus/seed_$(basename "$f")"; done
fi

exec "build-fuzz/fuzz_$name" "$corpus" -artifact_prefix="$findings/$name-" -max_len="$max_len" \
     -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 "$@"
