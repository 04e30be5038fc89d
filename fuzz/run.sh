#!/usr/bin/env bash
# Builds the libFuzzer harness of the Chrome/Kineto JSON importer in build-fuzz (clang, ASan,
# UBSan) and runs it on a working corpus seeded from fuzz/corpus/chrome_import and the small
# JSON traces of tests/data.
#   fuzz/run.sh [seconds (default 1800)] [extra libFuzzer flags...]
# Crashes, leaks and timeouts land in build-fuzz/findings/; copy each into
# fuzz/regressions/chrome_import/ (test_fuzz_chrome_import replays them) and fix it.
# Needs clang with its runtime: apt-get install -y clang libclang-rt-14-dev (clang-15 works too).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
shift || true

. fuzz/common.sh
ts_fuzz_build build-fuzz fuzz_chrome_import

corpus=build-fuzz/corpus/chrome_import
findings=build-fuzz/findings
mkdir -p "$corpus" "$findings"
cp -n fuzz/corpus/chrome_import/* fuzz/regressions/chrome_import/* "$corpus"/ 2>/dev/null || true
# Seeds from the fixtures: the small traces, decompressed, cut to the fuzzer's input size.
for f in tests/data/pytorch/gpu/cuda_event_sync.json.gz tests/data/pytorch/gpu/triton_example.json.gz \
         tests/data/pytorch/gpu/cpu_only_rank-34.pt.trace.json.gz; do
  zcat "$f" | head -c 65536 >"$corpus/seed_$(basename "$f" .gz)"
done

ts_fuzz_env
exec build-fuzz/fuzz_chrome_import "$corpus" -artifact_prefix="$findings/" -max_len=65536 \
     -len_control=100 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 "$@"
