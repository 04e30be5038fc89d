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

cxx=""
for c in clang++ clang++-15 clang++-14; do
  if command -v "$c" >/dev/null; then cxx="$c"; break; fi
done
[ -n "$cxx" ] || { echo "fuzz/run.sh: no clang++ (apt-get install -y clang libclang-rt-14-dev)" >&2; exit 2; }
cc="${cxx/++/}"

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S fuzz -B build-fuzz "${generator[@]}" -DTRAINSCOPE_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build build-fuzz --target fuzz_chrome_import -j "$(nproc)"

corpus=build-fuzz/corpus/chrome_import
findings=build-fuzz/findings
mkdir -p "$corpus" "$findings"
cp -n fuzz/corpus/chrome_import/* fuzz/regressions/chrome_import/* "$corpus"/ 2>/dev/null || true
# Seeds from the fixtures: the small traces, decompressed, cut to the fuzzer's input size.
for f in tests/data/pytorch/gpu/cuda_event_sync.json.gz tests/data/pytorch/gpu/triton_example.json.gz \
         tests/data/pytorch/gpu/cpu_only_rank-34.pt.trace.json.gz; do
  zcat "$f" | head -c 65536 >"$corpus/seed_$(basename "$f" .gz)"
done

# Scratch files (the input and the trace of each run) on tmpfs when there is one.
[ -d /dev/shm ] && export TMPDIR="${TMPDIR:-/dev/shm}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/fuzz/ubsan.supp}"
symbolizer="$(command -v llvm-symbolizer || ls /usr/lib/llvm-1[45]/bin/llvm-symbolizer 2>/dev/null | head -1 ||
              command -v addr2line || true)"
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"
exec build-fuzz/fuzz_chrome_import "$corpus" -artifact_prefix="$findings/" -max_len=65536 \
     -len_control=100 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 "$@"
