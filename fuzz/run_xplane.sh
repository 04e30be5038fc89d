#!/usr/bin/env bash
# Builds the libFuzzer harness of the TensorFlow profile importer in build-fuzz-xplane (clang,
# ASan, UBSan) and runs it on a working corpus seeded from fuzz/corpus/xplane_import (small
# hand-written XSpace files, fuzz/make_xplane_corpus.sh) and fuzz/regressions/xplane_import.
#   fuzz/run_xplane.sh [seconds (default 1800)] [extra libFuzzer flags...]
# Crashes, leaks and timeouts land in build-fuzz-xplane/findings/; copy each into
# fuzz/regressions/xplane_import/ (test_fuzz_xplane_import replays them) and fix it.
# Needs clang with its runtime (apt-get install -y clang libclang-rt-14-dev; clang-15 works too)
# and protobuf (libprotobuf-dev protobuf-compiler).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
shift || true

cxx=""
for c in clang++ clang++-15 clang++-14; do
  if command -v "$c" >/dev/null; then cxx="$c"; break; fi
done
[ -n "$cxx" ] || { echo "fuzz/run_xplane.sh: no clang++ (apt-get install -y clang libclang-rt-14-dev)" >&2; exit 2; }
cc="${cxx/++/}"

build=build-fuzz-xplane
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S fuzz -B "$build" "${generator[@]}" -DTRAINSCOPE_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$build" --target fuzz_xplane_import -j "$(nproc)"

corpus="$build/corpus/xplane_import"
findings="$build/findings"
mkdir -p "$corpus" "$findings"
cp -n fuzz/corpus/xplane_import/* fuzz/regressions/xplane_import/* "$corpus"/ 2>/dev/null || true

# Scratch files (the input and the trace of each run) on tmpfs when there is one.
[ -d /dev/shm ] && export TMPDIR="${TMPDIR:-/dev/shm}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
symbolizer="$(command -v llvm-symbolizer || ls /usr/lib/llvm-1[45]/bin/llvm-symbolizer 2>/dev/null | head -1 ||
              command -v addr2line || true)"
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"
exec "$build/fuzz_xplane_import" "$corpus" -artifact_prefix="$findings/" -max_len=65536 \
     -len_control=100 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 "$@"
