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

. fuzz/common.sh
ts_fuzz_run build-fuzz-xplane fuzz_xplane_import "$seconds" fuzz/corpus/xplane_import fuzz/regressions/xplane_import -- "$@"
