#!/usr/bin/env bash
# Builds the libFuzzer harness of the import's gzip reading (GzipSource, ISA-L's inflate, checked
# against zlib) in build-fuzz-gzip (clang, ASan, UBSan) and runs it on a working corpus seeded
# from fuzz/corpus/gzip_source.
#   fuzz/run_gzip.sh [seconds (default 600)] [extra libFuzzer flags...]
# Crashes, leaks and timeouts land in build-fuzz-gzip/findings/; copy each into
# fuzz/corpus/gzip_source/ (test_fuzz_gzip_source replays it) and fix it.
# Needs clang with its runtime (apt-get install -y clang libclang-rt-14-dev; clang-15 works too).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true

. fuzz/common.sh
ts_fuzz_run build-fuzz-gzip fuzz_gzip_source "$seconds" fuzz/corpus/gzip_source -- "$@"
