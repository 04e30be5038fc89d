#!/usr/bin/env python3
"""Times HolisticTraceAnalysis (HTA) loading one PyTorch profiler trace (or a directory of
per-rank traces): only the TraceAnalysis construction, which parses the JSON into pandas frames,
aligns the ranks and filters the last ProfilerStep, no analysis.

Prints a human line and one JSON line:

    {"path": ..., "bytes": ..., "load_s": ..., "peak_rss_mb": ..., "peak_rss_children_mb": ...,
     "baseline_rss_mb": ..., "events": ..., "ranks": [...], "backend": ..., "hta_version": ...}

load_s is wall time of the construction (time.perf_counter). peak_rss_mb is
resource.getrusage(RUSAGE_SELF).ru_maxrss of this process (one file is parsed in-process);
baseline_rss_mb is the same figure taken just before the load (Python + pandas + HTA imported),
so the load's own cost is roughly the difference. With more than one rank HTA parses in a fork
pool, whose peak shows in peak_rss_children_mb (RUSAGE_CHILDREN, the largest child). events is
the number of rows HTA keeps (all ranks).

Used by the importer benchmark, which tiles a real trace to ~350 MB and times trainscope's
importer beside this. Not a CI dependency. Setup (Python 3.11):

    python3 -m venv /tmp/venv-torch
    /tmp/venv-torch/bin/pip install holistictraceanalysis      # HTA 0.5.0
    # --backend ijson*: also /tmp/venv-torch/bin/pip install ijson

    /tmp/venv-torch/bin/python benchmarks/peers/hta_load_time.py FILE_OR_DIR [--backend json]
"""
import argparse
import json
import logging
import os
import resource
import shutil
import sys
import tempfile
import time


def rss_mb(who):
    return resource.getrusage(who).ru_maxrss / 1024.0  # Linux: kilobytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", metavar="FILE_OR_DIR")
    parser.add_argument("--backend", default="json",
                        choices=["json", "ijson", "ijson_batched", "ijson_batch_and_compress"],
                        help="HTA parser backend (default json, HTA 0.5.0's default)")
    parser.add_argument("--verbose", action="store_true", help="keep HTA's own log lines")
    args = parser.parse_args()

    import pandas  # noqa: F401  (imported before the baseline, as HTA imports it)
    from hta.common.trace_parser import set_default_trace_parsing_backend
    from hta.configs.parser_config import ParserBackend
    from hta.trace_analysis import TraceAnalysis
    if not args.verbose:
        from hta.configs.config import logger
        logger.setLevel(logging.ERROR)
    set_default_trace_parsing_backend(ParserBackend(args.backend))

    path = args.path
    tmp = None
    if os.path.isdir(path):
        trace_dir = path
        size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)
                   if f.endswith((".json", ".gz")))
    else:
        tmp = tempfile.mkdtemp(prefix="hta_load_")
        os.symlink(os.path.abspath(path), os.path.join(tmp, os.path.basename(path)))
        trace_dir = tmp
        size = os.path.getsize(path)
    try:
        baseline = rss_mb(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        analyzer = TraceAnalysis(trace_dir=trace_dir)
        load_s = time.perf_counter() - t0
        peak = rss_mb(resource.RUSAGE_SELF)
        peak_children = rss_mb(resource.RUSAGE_CHILDREN)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    ranks = analyzer.t.get_ranks()
    events = sum(len(analyzer.t.get_trace(r)) for r in ranks)
    try:
        from importlib.metadata import version
        hta_version = version("HolisticTraceAnalysis")
    except Exception:
        hta_version = "unknown"
    res = {"path": path, "bytes": size, "load_s": round(load_s, 3),
           "peak_rss_mb": round(peak, 1), "peak_rss_children_mb": round(peak_children, 1),
           "baseline_rss_mb": round(baseline, 1), "events": events,
           "ranks": [int(r) for r in ranks], "backend": args.backend,
           "hta_version": hta_version, "python": sys.version.split()[0]}
    print("HTA %s loaded %s (%.1f MB, %d rows kept, ranks %s) in %.3f s; peak RSS %.1f MB "
          "(%.1f MB before the load; children %.1f MB)"
          % (hta_version, path, size / 1e6, events, res["ranks"], load_s, peak, baseline,
             peak_children))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
