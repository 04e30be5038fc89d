#!/usr/bin/env bash
# Runs every command block of README.md and docs/*.md marked runnable, as written, against a
# build: a fenced ```sh block right after a line that holds only `<!-- runnable -->`. Each block runs on its own
# in a new directory holding what the docs' commands name relative to the repository root:
# `build` (a link to the build tree), copies of `traces/` and `tests/data/` (so that import
# caches and outputs land in the scratch directory, never in the source tree). A block fails the
# test when any of its commands exits non-zero (bash -e, pipefail) or runs past a minute.
#
#   run_doc_commands.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src="$(cd "${1:?usage: run_doc_commands.sh SOURCE_DIR BUILD_DIR}" && pwd)"
build="$(cd "${2:?usage: run_doc_commands.sh SOURCE_DIR BUILD_DIR}" && pwd)"
[ -x "$build/cli/trainscope" ] || { echo "docs: $build/cli/trainscope is not built" >&2; exit 2; }

marker='<!-- runnable -->'
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Extracts the marked blocks of each file into $work/blocks/NNN.sh, each starting with a comment
# that names its file and line. A marker not followed by a ```sh fence is an error.
mkdir -p "$work/blocks"
cd "$src"
shopt -s nullglob
files=(README.md docs/*.md)
shopt -u nullglob
awk -v marker="$marker" -v out="$work/blocks" '
  FNR == 1 { armed = 0; inblock = 0 }
  inblock && /^ *```/ { inblock = 0; close(file); next }
  inblock { sub(indent, ""); print > file; next }
  armed {
    armed = 0
    if ($0 ~ /^ *```sh *$/) {
      n++; inblock = 1; file = sprintf("%s/%03d.sh", out, n)
      match($0, /^ */); indent = "^" substr($0, 1, RLENGTH)
      print "# " FILENAME ":" FNR > file
      next
    }
    printf "docs: %s:%d: %s is not followed by a ```sh block\n", FILENAME, FNR - 1, marker > "/dev/stderr"
    bad = 1
  }
  { line = $0; gsub(/^[ \t]+|[ \t]+$/, "", line) }
  line == marker { armed = 1 }
  END { exit bad }
' "${files[@]}" || exit 1

blocks=("$work"/blocks/*.sh)
[ -e "${blocks[0]}" ] || { echo "docs: no block of ${files[*]} is marked $marker" >&2; exit 1; }

failed=0
for block in "${blocks[@]}"; do
  where="$(head -n1 "$block" | cut -c3-)"
  dir="$work/run-$(basename "$block" .sh)"
  mkdir -p "$dir/tests" "$dir/home"
  ln -s "$build" "$dir/build"
  cp -r "$src/traces" "$dir/traces"
  cp -r "$src/tests/data" "$dir/tests/data"
  if (cd "$dir" && env HOME="$dir/home" XDG_CACHE_HOME="$dir/home/.cache" TRAINSCOPE_NO_FETCH=1 \
    QT_QPA_PLATFORM=offscreen timeout 60 bash -e -o pipefail "$block") >"$dir.log" 2>&1; then
    echo "ok      $where"
  else
    echo "FAILED  $where (exit $?):"
    sed 's/^/    | /' "$block" | tail -n +2
    sed 's/^/    > /' "$dir.log" | tail -n 40
    failed=1
  fi
  rm -rf "$dir" "$dir.log"
done
echo "docs: ${#blocks[@]} runnable blocks of README.md and docs/"
exit "$failed"
