#!/usr/bin/env bash
# The main job: the story of an input-bound training run and its fix, on built-in data, no
# network, in well under a minute on 2 cores.
#   1. writes the built-in synthetic digits as a folder of PNG files (decoding them is real work);
#   2. trains the default model on it with the naive input pipeline (the training thread reads
#      and decodes every batch when it needs it), tracing it;
#   3. trains it again with the tuned pipeline (parallel decode, cache, prefetch), tracing it;
#   4. shows what the naive run's trace says (input-bound, the slow stage named), the diff of the
#      two runs (step time, input share, device idle, samples/s) and what the fix saves;
#   5. opens the viewer on the pair (its compare view) when there is a display.
#   scripts/demo.sh [extra trainscope train arguments for both runs...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${TRAINSCOPE_BUILD_DIR:-build}"
bin="$build_dir/cli/trainscope"
gui="$build_dir/gui/app/trainscope-gui"
demo="$build_dir/demo"
mkdir -p "$demo"

say() { printf '\n== %s\n\n' "$*"; }

if [ ! -d "$demo/digits" ]; then
  say "Writing the built-in digits as an image folder"
  "$bin" make-dataset --from synthetic --to "images:$demo/digits"
fi

say "1/2 Training with the naive input pipeline (traced into $demo/naive.db)"
"$bin" train --dataset "images:$demo/digits" --pipeline naive --epochs 5 \
  --trace "$demo/naive.db" "$@"

say "2/2 Training with the tuned input pipeline (traced into $demo/tuned.db)"
"$bin" train --dataset "images:$demo/digits" --pipeline tuned --epochs 5 \
  --trace "$demo/tuned.db" "$@"

say "What the naive run's trace says: trainscope report $demo/naive.db"
"$bin" report "$demo/naive.db"

say "What the tuned pipeline changed: trainscope diff $demo/naive.db $demo/tuned.db"
diff_text="$("$bin" diff "$demo/naive.db" "$demo/tuned.db")"
printf '%s\n' "$diff_text"

say "The saving"
printf '%s\n' "$diff_text" | sed -n '1p; s/^Saving: //p'

if [ -x "$gui" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  say "Opening the viewer on the two runs: trainscope-gui $demo/naive.db --compare $demo/tuned.db"
  exec "$gui" "$demo/naive.db" --compare "$demo/tuned.db"
fi
printf '\nNo display: open the two runs later with\n  %s %s --compare %s\n' \
  "$gui" "$demo/naive.db" "$demo/tuned.db"
