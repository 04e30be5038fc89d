#!/usr/bin/env bash
# Runs every test twice: with the machine's OpenCL devices (PoCL here), then with no OpenCL
# device at all (an empty ICD vendor directory), where OpenCL tests skip and training falls back
# to the CPU backend. Each pass must run every test that tests/expected_tests.txt expects of this
# build's configuration: a test that was not built, not registered or not run fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TRAINSCOPE_BUILD_DIR:-build}"
jobs="$(nproc)"
manifest=tests/expected_tests.txt

cache_bool() {  # cache_bool VAR: ON or OFF as the build's CMakeCache has it
  local v
  v="$(sed -n "s/^$1:BOOL=//p" "$build_dir/CMakeCache.txt")"
  case "${v^^}" in ON | TRUE | 1 | YES) echo ON ;; *) echo OFF ;; esac
}

[ -f "$build_dir/CMakeCache.txt" ] || { echo "test: $build_dir is not configured (run scripts/setup.sh)" >&2; exit 2; }
python_on() {  # the Python module is built (not in a sanitizer build: python/CMakeLists.txt)
  [ "$(cache_bool TRAINSCOPE_WITH_PYTHON)" = ON ] && [ "$(cache_bool TRAINSCOPE_SANITIZE)" = OFF ] &&
    [ "$(cache_bool TRAINSCOPE_TSAN)" = OFF ] && echo ON || echo OFF
}
python_has() {  # python_has MODULE: ON when the module's Python imports MODULE (torch, tensorflow)
  local py
  py="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
  [ "$(python_on)" = ON ] && [ -n "$py" ] && "$py" -c "import $1" 2>/dev/null && echo ON || echo OFF
}
declare -A part_on=([opencl]="$(cache_bool TRAINSCOPE_WITH_OPENCL)" [gui]="$(cache_bool TRAINSCOPE_WITH_GUI)"
  [tracing]="$(cache_bool TRAINSCOPE_WITH_TRACING)" [mpi]="$(cache_bool TRAINSCOPE_WITH_MPI)"
  [python]="$(python_on)" [torch]="$(python_has torch)" [tensorflow]="$(python_has tensorflow)")
expected=()
while read -r name part _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [ -z "$part" ] || [ "${part_on[$part]:-ON}" = ON ]; then expected+=("$name"); fi
done <"$manifest"
echo "test: $build_dir expects ${#expected[@]} tests (OpenCL ${part_on[opencl]}, viewer ${part_on[gui]}, MPI ${part_on[mpi]})"

registered="$(ctest --test-dir "$build_dir" -N | sed -n 's/^ *Test *#[0-9]*: *//p' | sort)"
problems=0
for t in "${expected[@]}"; do
  grep -qx "$t" <<<"$registered" || { echo "test: $t is not registered: the build did not make it" >&2; problems=1; }
done
while read -r t; do
  [ -z "$t" ] && continue
  grep -q "^$t\( \|$\)" "$manifest" || { echo "test: $t is registered but not listed in $manifest" >&2; problems=1; }
done <<<"$registered"
((problems == 0)) || exit 1

# run_pass LABEL [env assignments...]: one ctest run, then every expected test must have run.
run_pass() {
  local label="$1"; shift
  local junit
  junit="$(mktemp --suffix=.xml)"
  echo "== tests $label"
  local rc=0
  env "$@" ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --output-junit "$junit" || rc=$?
  local missing=0
  for t in "${expected[@]}"; do  # status "run" (passed) or "fail" ran; "notrun" did not
    grep -qE "<testcase name=\"$t\"[^>]*status=\"(run|fail)\"" "$junit" ||
      { echo "test: $t did not run ($label)" >&2; missing=1; }
  done
  rm -f "$junit"
  ((rc == 0 && missing == 0)) || exit 1
  echo "test: all ${#expected[@]} tests ran and passed ($label)"
}

run_pass "with the OpenCL devices of this machine"
empty_icd="$(mktemp -d)"
trap 'rm -rf "$empty_icd"' EXIT
run_pass "with no OpenCL device" OCL_ICD_VENDORS="$empty_icd"
