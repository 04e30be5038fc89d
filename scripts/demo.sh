#!/usr/bin/env bash
# The main job: trains the default model on the built-in synthetic digits with tracing on, then
# opens the viewer on the trace it captured, or prints the report when there is no display (or
# no viewer was built).
#   scripts/demo.sh [extra trainscope train arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TRAINSCOPE_BUILD_DIR:-build}"
trace="$build_dir/demo.db"

"$build_dir/cli/trainscope" train --model mlp --dataset synthetic --epochs 5 --trace "$trace" "$@"

gui="$build_dir/gui/app/trainscope-gui"
if [ -x "$gui" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  echo "demo: opening $trace in trainscope-gui"
  exec "$gui" "$trace"
fi
echo
echo "demo: no display for the viewer; the report of $trace:"
echo
exec "$build_dir/cli/trainscope" report "$trace"
