#!/usr/bin/env bash
# Writes a copy of traces/input_bound.db whose commonest event name ("read image file", 257
# events) is MB megabytes long: the probe of the viewer and the trace commands with a huge name.
#   scripts/long-name-trace.sh OUT [MB (default 15)]
# then e.g.  QT_QPA_PLATFORM=offscreen /usr/bin/time -v trainscope-gui OUT --screenshot x.png
# Needs the sqlite3 command-line shell.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/long-name-trace.sh OUT [MB]}"
mb="${2:-15}"
cp traces/input_bound.db "$out"
rm -f "$out-wal" "$out-shm" "$out-journal"
sqlite3 "$out" "UPDATE string SET text = 'read image file ' || hex(zeroblob($mb * 500000))
                WHERE id = (SELECT name FROM label WHERE id = 1); VACUUM;"
echo "$out: label 1 named by $(sqlite3 "$out" "SELECT length(s.text) FROM label l JOIN string s ON s.id = l.name WHERE l.id = 1") bytes"
