#!/usr/bin/env bash
# Runs every test twice: with the machine's OpenCL devices (PoCL here), then with no OpenCL
# device at all (an empty ICD vendor directory), where OpenCL tests skip and training falls back
# to the CPU backend.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TRAINSCOPE_BUILD_DIR:-build}"
jobs="$(nproc)"

echo "== tests with the OpenCL devices of this machine"
ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"

echo "== tests with no OpenCL device"
empty_icd="$(mktemp -d)"
trap 'rm -rf "$empty_icd"' EXIT
OCL_ICD_VENDORS="$empty_icd" ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
