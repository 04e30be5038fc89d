#!/usr/bin/env python3
"""Peer comparison: what HolisticTraceAnalysis (HTA) says about PyTorch profiler traces, and,
with --trainscope, what `trainscope report --json` says about the same files.

For each PATH (a Kineto trace file, *.json or *.json.gz, or a directory of per-rank traces of
one job), HTA loads it (TraceAnalysis; a single file is symlinked into a temporary directory,
because HTA reads directories) and this prints, per rank:

  - the load time (TraceAnalysis construction: parse, align, filter), in seconds;
  - get_temporal_breakdown(): idle / compute / non-compute time (us) and % of the kernel span;
  - get_idle_time_breakdown(): per stream, host wait / kernel wait / other (us);
  - get_gpu_kernel_breakdown(): time per kernel type and HTA's top kernels;
  - every device event name HTA keeps (rows with stream != -1) with count and total us.

Each analysis is run on its own; one that raises (several do on CPU-only traces) is reported
as an error and the others still run. benchmarks/peers/README.md says what HTA's figures mean.

--json OUT writes the same figures as JSON, one entry per PATH keyed by the PATH relative to
OUT's directory, for C++ tests to use as the peer reference (tests/data/pytorch/gpu/
hta_reference.json was made this way).

--trainscope BIN also runs `BIN report --json FILE` on every file (each rank's file of a
directory) and prints our figures next to HTA's. A failing trainscope (no importer yet, a crash)
is printed and does not stop the comparison.

Not a CI dependency. Setup (Python 3.11):

    python3 -m venv /tmp/venv-torch
    /tmp/venv-torch/bin/pip install holistictraceanalysis      # HTA 0.5.0, pandas 3.x

Run from the repository root:

    /tmp/venv-torch/bin/python benchmarks/peers/hta_compare.py tests/data/pytorch/gpu/two_ranks
    /tmp/venv-torch/bin/python benchmarks/peers/hta_compare.py --trainscope build/cli/trainscope \\
        tests/data/pytorch/gpu/*.json.gz
    cd tests/data/pytorch/gpu && /tmp/venv-torch/bin/python ../../../../benchmarks/peers/hta_compare.py \\
        --json hta_reference.json *.json.gz two_ranks
"""
import argparse
import contextlib
import gzip
import io
import json
import logging
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback


def hta_version():
    try:
        from importlib.metadata import version
        return version("HolisticTraceAnalysis")
    except Exception:  # pragma: no cover
        return "unknown"


def quiet_hta():
    """HTA logs every parse step at INFO/WARNING; keep errors only (our report says enough)."""
    for name in ("hta", "hta.configs.config"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        from hta.configs.config import logger
        logger.setLevel(logging.ERROR)
    except Exception:
        pass


def num(x):
    """JSON-safe number: numpy scalars to Python, NaN to None, integral floats to int."""
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return x
    if math.isnan(f):
        return None
    return int(f) if f.is_integer() else round(f, 4)


def err(e):
    return {"error": "%s: %s" % (type(e).__name__, e)}


@contextlib.contextmanager
def trace_dir_for(path):
    """HTA reads a directory: a directory is used as is, a file is symlinked into a temp dir."""
    if os.path.isdir(path):
        yield path
        return
    tmp = tempfile.mkdtemp(prefix="hta_")
    try:
        os.symlink(os.path.abspath(path), os.path.join(tmp, os.path.basename(path)))
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load(path):
    """Returns (TraceAnalysis, load seconds, captured HTA output)."""
    from hta.trace_analysis import TraceAnalysis
    captured = io.StringIO()
    with trace_dir_for(path) as d:
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(captured):
            analyzer = TraceAnalysis(trace_dir=d)
        load_s = time.perf_counter() - t0
    return analyzer, load_s, captured.getvalue()


def temporal(analyzer):
    df = analyzer.get_temporal_breakdown(visualize=False)
    out = {}
    for row in df.to_dict("records"):
        out[str(int(row["rank"]))] = {
            "idle_us": num(row["idle_time(us)"]),
            "compute_us": num(row["compute_time(us)"]),
            "non_compute_us": num(row["non_compute_time(us)"]),
            "kernel_span_us": num(row["kernel_time(us)"]),
            "idle_pct": num(row["idle_time_pctg"]),
            "compute_pct": num(row["compute_time_pctg"]),
            "non_compute_pct": num(row["non_compute_time_pctg"]),
        }
    return out


def idle(analyzer, rank, kernel_delay):
    df, _ = analyzer.get_idle_time_breakdown(ranks=[rank], visualize=False,
                                             consecutive_kernel_delay=kernel_delay)
    streams = {}
    for row in df.to_dict("records"):
        s = streams.setdefault(str(int(row["stream"])), {
            "host_wait_us": 0, "kernel_wait_us": 0, "other_us": 0})
        s[row["idle_category"] + "_us"] = num(row["idle_time"])
    total = {k: num(sum(s[k] or 0 for s in streams.values()))
             for k in ("host_wait_us", "kernel_wait_us", "other_us")}
    return {"consecutive_kernel_delay": kernel_delay, "streams": streams,
            "sum_over_streams": total}


def kernel_breakdown(analyzer, top):
    by_type, per_kernel = analyzer.get_gpu_kernel_breakdown(visualize=False, num_kernels=top)
    return {
        "by_type": [{"kernel_type": r["kernel_type"], "sum_us": num(r["sum"]),
                     "pct": num(r["percentage"])} for r in by_type.to_dict("records")],
        "top": [{"rank": num(r["rank"]), "kernel_type": r["kernel_type"], "name": r["name"],
                 "sum_us": num(r["sum (us)"]), "mean_us": num(r["mean (us)"]),
                 "min_us": num(r["min (us)"]), "max_us": num(r["max (us)"])}
                for r in per_kernel.to_dict("records")],
    }


def device_events(analyzer, rank):
    """Every row HTA keeps with stream != -1 (what its temporal breakdown spans), by name."""
    from hta.utils.utils import get_kernel_type
    df = analyzer.t.get_trace(rank)
    sym = analyzer.t.symbol_table.get_sym_table()
    dev = df[df["stream"].ne(-1)]
    rows = []
    for (cat, name), g in dev.groupby(["cat", "name"]):
        n = sym[name]
        rows.append({"name": n, "cat": sym[cat], "kernel_type": get_kernel_type(n),
                     "count": int(len(g)), "total_us": num(g["dur"].sum())})
    rows.sort(key=lambda r: (-(r["total_us"] or 0), r["name"]))
    return rows


def steps(analyzer):
    try:
        return [int(s) for s in analyzer.get_profiler_steps()]
    except Exception:
        return []


def analyse(path, args):
    res = {"path": path}
    try:
        analyzer, load_s, _ = load(path)
    except Exception as e:  # noqa: BLE001
        res.update(err(e))
        res["load_error_trace"] = traceback.format_exc(limit=3)
        return res
    res["load_s"] = round(load_s, 3)
    ranks = analyzer.t.get_ranks()
    res["ranks"] = [int(r) for r in ranks]
    res["files"] = {str(int(r)): os.path.basename(analyzer.t.trace_files[r]) for r in ranks}
    res["profiler_steps"] = steps(analyzer)
    try:
        tb = temporal(analyzer)
    except Exception as e:  # noqa: BLE001
        tb = {str(int(r)): err(e) for r in ranks}
    per_rank = {}
    for r in ranks:
        key = str(int(r))
        entry = {"temporal_breakdown": tb.get(key, {"error": "no row for this rank"})}
        try:
            entry["idle_breakdown"] = idle(analyzer, r, args.kernel_delay)
        except Exception as e:  # noqa: BLE001
            entry["idle_breakdown"] = err(e)
        try:
            entry["device_events"] = device_events(analyzer, r)
        except Exception as e:  # noqa: BLE001
            entry["device_events"] = err(e)
        per_rank[key] = entry
    res["per_rank"] = per_rank
    try:
        res["kernel_breakdown"] = kernel_breakdown(analyzer, args.top)
    except Exception as e:  # noqa: BLE001
        res["kernel_breakdown"] = err(e)
    return res


# ---------------------------------------------------------------- trainscope ----------------------

RANK_RE = re.compile(r'"rank":\s*(\d+)')


def file_rank(path):
    """distributedInfo.rank the way HTA finds it (first match of "rank": N), default 0."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", errors="replace") as f:
            head = f.read(1 << 20)
        m = RANK_RE.search(head)
        return int(m.group(1)) if m else 0
    except OSError:
        return 0


def trainscope_reports(binary, path, hta_res):
    """{rank: report dict or {"error": ...}} for PATH (each rank's file of a directory)."""
    if os.path.isdir(path):
        files = {}
        for r, name in (hta_res.get("files") or {}).items():
            files[r] = os.path.join(path, name)
        if not files:
            for name in sorted(os.listdir(path)):
                if name.endswith((".json", ".gz")):
                    p = os.path.join(path, name)
                    files[str(file_rank(p))] = p
    else:
        files = {str(r): path for r in (hta_res.get("ranks") or [file_rank(path)])}
    out = {}
    for r, f in files.items():
        try:
            p = subprocess.run([binary, "report", "--json", f], capture_output=True, text=True,
                               timeout=600)
        except Exception as e:  # noqa: BLE001
            out[r] = err(e)
            continue
        if p.returncode != 0:
            msg = (p.stderr or p.stdout).strip().splitlines()
            out[r] = {"error": "exit %d: %s" % (p.returncode, msg[-1] if msg else "")}
            continue
        try:
            out[r] = json.loads(p.stdout)
        except ValueError as e:
            out[r] = {"error": "not JSON: %s" % e}
    return out


# ---------------------------------------------------------------- printing ------------------------

def fmt(x, unit=""):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "%.3f%s" % (x, unit)
    return "%s%s" % (x, unit)


def ms(us):
    return None if us is None else us / 1000.0


def print_result(res, ours, top):
    print("=" * 100)
    print(res["path"])
    if "error" in res:
        print("  HTA failed to load it: %s" % res["error"])
        for r, rep in (ours or {}).items():
            print_ours_only(r, rep)
        return
    print("  HTA load: %.3f s; ranks %s; ProfilerStep numbers %s"
          % (res["load_s"], res["ranks"], res["profiler_steps"] or "none"))
    for r, entry in res["per_rank"].items():
        rep = (ours or {}).get(r)
        print("  -- rank %s" % r)
        tb = entry["temporal_breakdown"]
        ib = entry["idle_breakdown"]
        if rep is not None and "error" in rep:
            print("    trainscope: %s" % rep["error"])
            rep = None
        dev = (rep or {}).get("device", {})
        rows = []
        if rep is not None:
            rows.append(("steps (HTA: kept by its filter)", len(res["profiler_steps"]),
                         rep.get("steps")))
            rows.append(("verdict / input %", "-", "%s / %s" % (rep.get("verdict"),
                                                               fmt(rep.get("input_pct")))))
        if "error" in tb:
            print("    temporal breakdown: %s" % tb["error"])
        else:
            rows += [
                ("span ms: kernels | sum of steps", ms(tb["kernel_span_us"]),
                 sum((rep or {}).get("breakdown_ms", {}).values()) if rep else None),
                ("device busy %", num(100 - tb["idle_pct"]), dev.get("busy_pct")),
                ("device idle %", tb["idle_pct"], dev.get("idle_pct")),
                ("device idle (ms)", ms(tb["idle_us"]), dev.get("idle_ms")),
                ("compute % | compute ms", tb["compute_pct"],
                 (rep or {}).get("breakdown_ms", {}).get("device_compute")),
                ("non-compute %", tb["non_compute_pct"], None),
            ]
        if "error" in ib:
            print("    idle breakdown: %s" % ib["error"])
        if rows:
            print("    %-34s %16s %16s" % ("figure", "HTA", "trainscope"))
            for name, a, b in rows:
                print("    %-34s %16s %16s" % (name, fmt(a), fmt(b)))
        if "error" not in ib:
            t = ib["sum_over_streams"]
            print("    HTA idle by category, sum over streams (ms): host wait %s, kernel wait %s, "
                  "other %s" % (fmt(ms(t["host_wait_us"])), fmt(ms(t["kernel_wait_us"])),
                                fmt(ms(t["other_us"]))))
        cause = dev.get("idle_by_cause_ms")
        if cause:
            print("    trainscope idle by cause (ms): input %s, host %s, sync %s, other %s"
                  % tuple(fmt(cause.get(k)) for k in ("input", "host", "sync", "other")))
        if "error" not in ib:
            for stream, v in sorted(ib["streams"].items(), key=lambda kv: int(kv[0])):
                print("    HTA idle, stream %-4s host wait %12s us  kernel wait %10s us  "
                      "other %12s us" % (stream, fmt(v["host_wait_us"]), fmt(v["kernel_wait_us"]),
                                         fmt(v["other_us"])))
        de = entry["device_events"]
        if isinstance(de, dict):
            print("    device events: %s" % de["error"])
            continue
        if not de:
            print("    device events: none (HTA keeps no row with stream != -1)")
            continue
        ours_k = {k["name"]: k for k in (rep or {}).get("kernels", [])}
        print("    %-60s %7s %12s | %7s %12s" % ("device event (HTA rows with stream != -1)",
                                                  "count", "total ms", "ours", "total ms"))
        for k in de[:top]:
            o = ours_k.get(k["name"], {})
            print("    %-60s %7d %12.3f | %7s %12s" % (
                (k["name"][:50] + " [" + k["cat"] + "]")[:60], k["count"], k["total_us"] / 1e3,
                fmt(o.get("count")), fmt(o.get("total_ms"))))
        if len(de) > top:
            print("    ... %d more names" % (len(de) - top))
    kb = res.get("kernel_breakdown", {})
    if "error" in kb:
        print("  kernel breakdown: %s" % kb["error"])
    elif kb:
        print("  HTA kernel types (all ranks): " + ", ".join(
            "%s %s us (%s%%)" % (t["kernel_type"], t["sum_us"], t["pct"]) for t in kb["by_type"]))


def print_ours_only(r, rep):
    if "error" in rep:
        print("  trainscope rank %s: %s" % (r, rep["error"]))
        return
    dev = rep.get("device", {})
    print("  trainscope rank %s: steps %s, verdict %s, input %s %%, device busy %s %%, idle %s %%"
          % (r, rep.get("steps"), rep.get("verdict"), fmt(rep.get("input_pct")),
             fmt(dev.get("busy_pct")), fmt(dev.get("idle_pct"))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="trace file (*.json, *.json.gz) or directory of per-rank traces")
    parser.add_argument("--trainscope", metavar="BIN",
                        help="also run `BIN report --json FILE` and print our figures beside")
    parser.add_argument("--json", metavar="OUT", help="write HTA's figures as JSON to OUT")
    parser.add_argument("--top", type=int, default=10, help="kernels to print (default 10)")
    parser.add_argument("--kernel-delay", type=int, default=30,
                        help="HTA consecutive_kernel_delay (default 30, HTA's default; compared "
                             "with gaps in the trace's us)")
    parser.add_argument("--verbose", action="store_true", help="keep HTA's own log lines")
    args = parser.parse_args()
    if not args.verbose:
        quiet_hta()
    import pandas
    results = []
    for path in args.paths:
        res = analyse(path, args)
        ours = trainscope_reports(args.trainscope, path, res) if args.trainscope else None
        print_result(res, ours, args.top)
        results.append(res)
    if args.json:
        base = os.path.dirname(os.path.abspath(args.json))
        doc = {
            "generated_by": "benchmarks/peers/hta_compare.py",
            "hta_version": hta_version(),
            "pandas_version": pandas.__version__,
            "python": sys.version.split()[0],
            "units": "us for *_us (HTA's dataframe time base: the trace's us, ns-resolution "
                     "traces rounded to whole us), % of the kernel span for *_pct, seconds "
                     "for load_s (machine-dependent)",
            "traces": {},
        }
        for res in results:
            key = os.path.relpath(os.path.abspath(res["path"]), base)
            doc["traces"][key] = {k: v for k, v in res.items() if k != "path"}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=False)
            f.write("\n")
        print("wrote %s" % args.json)


if __name__ == "__main__":
    main()
