# Sourced by the run scripts of fuzz/ (from the repository root).
#   ts_fuzz_build BUILD_DIR TARGET...  configures fuzz/ into BUILD_DIR with clang
#                                      (-DTRAINSCOPE_FUZZ=ON) and builds the targets
#   ts_fuzz_env                        exports the sanitizer options, the symbolizer and TMPDIR
#                                      (tmpfs when there is one, for the scratch files of each run)
# Needs clang with its runtime: apt-get install -y clang libclang-rt-14-dev (clang-15 works too).

ts_fuzz_build() {
  local build="$1" cxx="" c
  shift
  for c in clang++ clang++-15 clang++-14; do
    if command -v "$c" >/dev/null; then cxx="$c"; break; fi
  done
  [ -n "$cxx" ] || { echo "fuzz: no clang++ (apt-get install -y clang libclang-rt-14-dev)" >&2; exit 2; }
  local generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  cmake -S fuzz -B "$build" "${generator[@]}" -DTRAINSCOPE_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_C_COMPILER="${cxx/++/}" >/dev/null
  cmake --build "$build" --target "$@" -j "$(nproc)"
}

ts_fuzz_env() {
  if [ -d /dev/shm ]; then export TMPDIR="${TMPDIR:-/dev/shm}"; fi
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/fuzz/ubsan.supp}"
  local symbolizer
  symbolizer="$(command -v llvm-symbolizer || ls /usr/lib/llvm-1[45]/bin/llvm-symbolizer 2>/dev/null | head -1 ||
                command -v addr2line || true)"
  if [ -n "$symbolizer" ]; then export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"; fi
}

#   ts_fuzz_run BUILD_DIR HARNESS SECONDS SEED_DIR... [-- extra libFuzzer flags]
#                                      builds HARNESS, seeds BUILD_DIR/corpus/NAME (HARNESS without
#                                      "fuzz_") from the SEED_DIRs and runs it for SECONDS; findings in
#                                      BUILD_DIR/findings/
ts_fuzz_run() {
  local build="$1" harness="$2" seconds="$3"
  shift 3
  local seeds=()
  while (($#)) && [ "$1" != "--" ]; do seeds+=("$1"); shift; done
  if (($#)); then shift; fi
  ts_fuzz_build "$build" "$harness"
  local corpus="$build/corpus/${harness#fuzz_}" findings="$build/findings" d
  mkdir -p "$corpus" "$findings"
  for d in "${seeds[@]}"; do cp -n "$d"/* "$corpus"/ 2>/dev/null || true; done
  ts_fuzz_env
  exec "$build/$harness" "$corpus" -artifact_prefix="$findings/" -max_len=65536 \
       -len_control=100 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" \
       -print_final_stats=1 "$@"
}
