#!/usr/bin/env bash
# Installs the Debian packages trainscope needs (skipping those already present), then
# configures and builds it in ./build (Release; Ninja when available).
#   scripts/setup.sh [extra cmake arguments...]
#   TRAINSCOPE_BUILD_DIR=build-asan scripts/setup.sh -DTRAINSCOPE_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libeigen3-dev libsqlite3-dev sqlite3 zlib1g-dev libisal-dev libpng-dev libjpeg-dev
  ocl-icd-opencl-dev opencl-headers libclblast-dev pocl-opencl-icd clinfo
  rapidjson-dev nlohmann-json3-dev libpugixml-dev libprotobuf-dev protobuf-compiler
  libopenmpi-dev openmpi-bin
  libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev xvfb xauth
  python3-dev pybind11-dev python3-torch python3-pandas
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build_dir="${TRAINSCOPE_BUILD_DIR:-build}"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
elif (($#)); then
  cmake "$build_dir" "$@"
fi
cmake --build "$build_dir" -j "$(nproc)"
# `import trainscope` from this build (python/link_into_site.sh), when the module is built.
if [ -d "$build_dir/python/trainscope" ]; then python/link_into_site.sh "$build_dir"; fi
echo "setup: built into $build_dir"
