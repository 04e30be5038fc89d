#!/usr/bin/env python3
"""Makes a large, real-shaped PyTorch profiler (Kineto) trace for the importer benchmark by tiling
a real one: tests/data/pytorch/gpu/two_ranks/rank-0.json.gz (an NVIDIA job: cpu_op, cuda_runtime,
kernels incl. NCCL, memcpy/memset, ProfilerStep#551-552) repeated until the file reaches the
requested size. Each tile is shifted in time past the previous one, its ProfilerStep#N renumbered
to continue the sequence, and its correlation / External id values offset so that launch->kernel
links stay unique. Metadata (M) events are written once. One event per line, as Kineto writes
older traces; integer-microsecond timestamps like the source.

    benchmarks/import/make_large_trace.py [--size-mb 350] [--out /tmp/bigtrace/tiled.json]
"""
import argparse
import gzip
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "tests/data/pytorch/gpu/two_ranks/rank-0.json.gz")
STEP = re.compile(r"^ProfilerStep\s*#\s*(\d+)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=float, default=350.0, help="target size in MB (1e6 bytes)")
    parser.add_argument("--out", default="/tmp/bigtrace/tiled.json")
    parser.add_argument("--source", default=SOURCE)
    args = parser.parse_args()

    with gzip.open(args.source, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]
    starts = [e["ts"] for e in body if isinstance(e.get("ts"), (int, float))]
    ends = [e["ts"] + e.get("dur", 0) for e in body if isinstance(e.get("ts"), (int, float))]
    shift = int(max(ends) - min(starts)) + 1000  # us between tile starts
    steps = sorted({int(STEP.match(e["name"]).group(1)) for e in body
                    if e.get("cat") == "user_annotation" and STEP.match(e.get("name", ""))})
    step_count = max(steps) - min(steps) + 1 if steps else 0
    ids = [e["args"][k] for e in body for k in ("correlation", "External id")
           if isinstance(e.get("args"), dict) and isinstance(e["args"].get(k), int)]
    id_shift = max(ids) - min(ids) + 1 if ids else 0

    header = {k: v for k, v in trace.items() if k != "traceEvents"}
    target = int(args.size_mb * 1e6)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    written = 0
    tiles = 0
    with open(tmp, "w") as out:
        head = json.dumps(header)[:-1] + (", " if header else "") + '"traceEvents": [\n'
        out.write(head)
        written += len(head)
        lines = [json.dumps(e) for e in meta]
        while written < target:
            for e in body:
                e = dict(e)
                if isinstance(e.get("ts"), (int, float)):
                    e["ts"] = e["ts"] + tiles * shift
                m = STEP.match(e.get("name", "")) if step_count else None
                if m:
                    e["name"] = "ProfilerStep#%d" % (int(m.group(1)) + tiles * step_count)
                if isinstance(e.get("args"), dict) and id_shift:
                    a = dict(e["args"])
                    for k in ("correlation", "External id"):
                        if isinstance(a.get(k), int):
                            a[k] += tiles * id_shift
                    e["args"] = a
                lines.append(json.dumps(e))
            chunk = ",\n".join(lines)
            if tiles > 0 or meta:
                chunk = ("" if written == len(head) else ",\n") + chunk
            out.write(chunk)
            written += len(chunk)
            lines = []
            tiles += 1
        out.write("\n]}\n")
    os.replace(tmp, args.out)
    print("wrote %s: %.1f MB, %d tiles of %d events, steps #%d..#%d"
          % (args.out, os.path.getsize(args.out) / 1e6, tiles, len(body),
             min(steps) if steps else 0, (min(steps) + tiles * step_count - 1) if steps else 0))


if __name__ == "__main__":
    sys.exit(main())
