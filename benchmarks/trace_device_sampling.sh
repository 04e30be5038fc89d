#!/usr/bin/env bash
# What device events cost, and what recording them on a sample of steps saves: trains the same
# job untraced and traced with --trace-device on, every:4, auto and off, alternated in ROUNDS
# rounds (so that a busy moment of a shared machine weighs on every mode alike), and prints per
# backend the median samples/s of each mode, its overhead against the untraced runs
# (untraced / traced - 1), the device events per step and the event cost the capture measured
# at start-up (meta capture.device_event_cost_ns; OpenCL only). On a shared machine whole-run
# rates drift with the load; the every:4 runs also give a figure immune to that: the median step
# time of their steps with device events over that of their steps without (interleaved, one in
# four), i.e. what device events add to a step, and the overhead of sampling is a quarter of it.
#   benchmarks/trace_device_sampling.sh [build-dir] [steps] [rounds] [backends]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
steps="${2:-300}"
rounds="${3:-5}"
backends="${4:-opencl cpu}"
ts="$build/cli/trainscope"
[ -x "$ts" ] || { echo "trace_device_sampling: $ts is missing (run scripts/setup.sh)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
modes="untraced on every:4 auto off"
for round in $(seq "$rounds"); do
  for backend in $backends; do
    for mode in $modes; do
      name="$backend-${mode/:/}-$round"
      trace=()
      [ "$mode" = untraced ] || trace=(--trace "$work/$name.db" --trace-device "$mode")
      "$ts" train --backend "$backend" --steps "$steps" --quiet \
        --summary-json "$work/$name.json" "${trace[@]}" >/dev/null
    done
  done
done
python3 - "$work" "$rounds" "$backends" "$modes" <<'PY'
import json, sqlite3, statistics, sys
work, rounds, backends, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
def meta(db, key):
    row = sqlite3.connect(db).execute("select value from meta where key = ?", (key,)).fetchone()
    return row[0] if row else "-"
def device_events_per_step(db):
    con = sqlite3.connect(db)
    steps = con.execute("select count(*) from steps").fetchone()[0]
    dev = con.execute("select count(*) from events e join tracks t on e.track = t.id "
                      "where t.kind = 'device_queue' and e.step is not null").fetchone()[0]
    return dev / steps if steps else 0
def sampled_over_unsampled(db):
    con = sqlite3.connect(db)
    held = {r[0] for r in con.execute("select distinct e.step from events e join tracks t "
                                      "on e.track = t.id where t.kind = 'device_queue'")}
    rows = con.execute("select step, dur_ns from steps where step >= 2").fetchall()
    sampled = [d for n, d in rows if n in held]
    unsampled = [d for n, d in rows if n not in held]
    return statistics.median(sampled) / statistics.median(unsampled) if sampled and unsampled else 0
for backend in backends:
    rate = {m: statistics.median(json.load(open(f"{work}/{backend}-{m.replace(':', '')}-{r}.json"))["samples_per_s"]
                                 for r in range(1, rounds + 1)) for m in modes}
    print(f"{backend}: median samples/s over {rounds} rounds")
    for m in modes:
        line = f"  {m:9s} {rate[m]:10.0f}"
        if m != "untraced":
            db = f"{work}/{backend}-{m.replace(':', '')}-1.db"
            line += (f"  overhead {100 * (rate['untraced'] / rate[m] - 1):6.1f} %"
                     f"  device events/step {device_events_per_step(db):5.1f}"
                     f"  K {meta(db, 'capture.device_event_every')}"
                     f"  event cost {meta(db, 'capture.device_event_cost_ns')} ns")
        print(line)
    ratio = statistics.median(sampled_over_unsampled(f"{work}/{backend}-every4-{r}.db")
                              for r in range(1, rounds + 1))
    print(f"  every:4 runs: steps with device events take {ratio:.3f}x those without "
          f"(median of {rounds} runs)")
PY
