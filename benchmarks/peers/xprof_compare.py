#!/usr/bin/env python3
"""XProf's own input-pipeline analysis of TensorFlow profiles, next to trainscope's.

For each PROFILE (a single *.xplane.pb, a TensorBoard run dir plugins/profile/<run>/, or a
logdir; every run dir found is one profiling session, all its <host>.xplane.pb files together,
as XProf does) this runs XProf's converter for the `input_pipeline_analyzer` tool
(xprof.convert.raw_to_tool_data.xspace_to_tool_data, which calls XProf's C++ converter) and
prints XProf's figures:

  - verdict and summary sentence ("Your program is HIGHLY input-bound because ...");
  - input % = 100 * sum(input ms) / sum(step time ms) over the steps XProf kept, computed from
    XProf's own per-step table (the same number as in XProf's sentence when the sentence is
    about input);
  - step count, step names, and mean/min/max/stddev step time (XProf's own summary fields);
  - the average step-time breakdown and the host-side input op table (XProf's "Section 3"),
    with the stage of largest self time, which is what XProf points at.

XProf 2.24 has no `tf_data_bottleneck_analysis` tool any more (its C++ converter answers
"not a known xplane tool"); the script asks for it and records the answer.

--tf-builtin also runs the copy of the converter built into TensorFlow (tensorflow.python.
profiler.internal._pywrap_profiler_plugin), which returns the InputPipelineAnalysisResult
protobuf with its exact `input_percent` field; it keeps every step (XProf 2.24 drops the first
and the last step when it has more than 5).

--trainscope BIN also runs `BIN report --json PROFILE` and prints our verdict, input_pct, steps,
step_time_ms.mean and bottleneck_stage next to XProf's (a failure is reported, not fatal).

--json OUT writes everything as JSON.

Not a CI dependency. Setup (Python 3.11):

    python3 -m venv /tmp/venv-tf
    /tmp/venv-tf/bin/pip install tensorflow-cpu==2.21.0 xprof==2.24.2 tensorboard==2.21.0
    /tmp/venv-tf/bin/pip install --no-deps tf-keras==2.21.0   # only to make fixtures

(xprof alone is enough without --tf-builtin.) Run from the repository root:

    /tmp/venv-tf/bin/python benchmarks/peers/xprof_compare.py tests/data/tensorflow/naive \\
        tests/data/tensorflow/tuned --tf-builtin --trainscope build/cli/trainscope \\
        --json /tmp/xprof.json
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

VERDICT_WORDS = {  # XProf's word -> trainscope's vocabulary (report --json: high|moderate|none)
    "HIGHLY": "high", "MODERATELY": "moderate", "POTENTIALLY": "none", "NOT": "none",
}


def sessions_of(path):
    """[(label, [xplane files])]: one entry per run dir (all hosts of a session together)."""
    if os.path.isfile(path):
        return [(path, [path])]
    files = sorted(glob.glob(os.path.join(path, "**", "*.xplane.pb"), recursive=True))
    if not files:
        raise SystemExit(f"{path}: no *.xplane.pb found")
    by_run = {}
    for f in files:
        by_run.setdefault(os.path.dirname(f), []).append(f)
    if len(by_run) == 1:
        return [(path, next(iter(by_run.values())))]
    return [(run_dir, fs) for run_dir, fs in sorted(by_run.items())]


def as_float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def parse_input_pipeline_json(data):
    """XProf's input_pipeline_analyzer JSON: a list of Google-Charts DataTables
    [0] step-time summary ("cols"/"rows" empty on CPU), [1] per-step table + summary properties
    "p", [2] host-side input op table + category totals, [3] recommendations (links),
    [4] diagnostics."""
    tables = json.loads(data)
    steps_table = tables[1]
    props = steps_table.get("p", {})
    cols = [c["id"] for c in steps_table["cols"]]
    steps = []
    for row in steps_table.get("rows", []):
        values = {cols[i]: cell.get("v") for i, cell in enumerate(row["c"])}
        values.pop("tooltip", None)
        steps.append(values)
    conclusion = props.get("input_conclusion", "")
    m = re.search(r"is (HIGHLY|MODERATELY|POTENTIALLY|NOT) input-bound", conclusion)
    word = m.group(1) if m else None
    m_pct = re.search(r"because (?:only )?([0-9.]+)% of the total step time", conclusion)
    total_step = sum(s.get("stepTimeMs") or 0.0 for s in steps)
    total_input = sum(s.get("infeedTimeMs") or 0.0 for s in steps)
    breakdown_avg = {}
    for key, label in (("device_compute", "device_compute_time_ms_avg"),
                       ("device_to_device", "device_to_device_time_ms_avg"),
                       ("device_collectives", "device_collectives_time_ms_avg"),
                       ("host_compute", "host_compute_time_ms_avg"),
                       ("kernel_launch", "kernel_launch_time_ms_avg"),
                       ("input", "infeed_time_ms_avg"),
                       ("output", "outfeed_time_ms_avg"),
                       ("compile", "compile_time_ms_avg"),
                       ("all_others", "other_time_ms_avg")):
        breakdown_avg[key] = as_float(props.get(label))

    ops_table = tables[2] if len(tables) > 2 else {"cols": [], "rows": []}
    op_cols = [c["id"] for c in ops_table.get("cols", [])]
    input_ops = []
    for row in ops_table.get("rows", []):
        values = {op_cols[i]: cell.get("v") for i, cell in enumerate(row["c"])}
        input_ops.append({
            "name": values.get("opName"), "count": values.get("count"),
            "total_ms": values.get("timeInMs"), "self_ms": values.get("selfTimeInMs"),
            "self_share": values.get("selfTimeInPercent"), "category": values.get("category"),
        })
    input_ops.sort(key=lambda o: -(o["self_ms"] or 0.0))
    recommendations = []
    if len(tables) > 3 and tables[3]:
        for row in tables[3].get("rows", []):
            recommendations.append(re.sub(r"<[^>]+>", "", row["c"][0].get("v", "")))
    return {
        "verdict": word.lower() if word else "unknown",
        "verdict_trainscope_vocab": VERDICT_WORDS.get(word, "unknown"),
        "summary": conclusion,
        "next_step": props.get("summary_nextstep"),
        "summary_pct": float(m_pct.group(1)) if m_pct else None,
        "input_pct": round(100.0 * total_input / total_step, 3) if total_step else None,
        "steps": len(steps),
        "step_names": [s.get("stepnum") for s in steps],
        "step_time_ms": {
            "mean": as_float(props.get("steptime_ms_average")),
            "min": as_float(props.get("steptime_ms_minimum")),
            "max": as_float(props.get("steptime_ms_maximum")),
            "stddev": as_float(props.get("steptime_ms_standard_deviation")),
            "mean_from_table": round(total_step / len(steps), 4) if steps else None,
        },
        "hardware_type": props.get("hardware_type"),
        "breakdown_ms_avg": breakdown_avg,
        "per_step": steps,
        "input_time_breakdown_us": {k: as_float(v) for k, v in ops_table.get("p", {}).items()},
        "input_ops": input_ops,
        "slowest_stage": input_ops[0]["name"] if input_ops else None,
        "recommendations": recommendations,
    }


def staged_copies(files, tmp):
    """XProf writes cache files (ALL_HOSTS.op_stats.pb, ...) next to the .xplane.pb files it
    converts and reuses them later: convert copies in a fresh temp run dir instead, so the
    fixtures stay untouched and no stale result is ever read."""
    run_dir = os.path.join(tmp, "plugins", "profile", "run")
    os.makedirs(run_dir, exist_ok=True)
    out = []
    for f in files:
        dst = os.path.join(run_dir, os.path.basename(f))
        shutil.copyfile(f, dst)
        out.append(dst)
    return out


def run_xprof(files):
    from xprof.convert import raw_to_tool_data
    data, _ = raw_to_tool_data.xspace_to_tool_data(
        files, "input_pipeline_analyzer", {"use_saved_result": False})
    if data is None:
        raise RuntimeError("XProf's input_pipeline_analyzer returned nothing")
    result = parse_input_pipeline_json(data)
    # The tf.data bottleneck tool of older TensorBoard profile plugins.
    try:
        from xprof.convert import _pywrap_profiler_plugin
        raw, ok = _pywrap_profiler_plugin.xspace_to_tools_data(
            files, "tf_data_bottleneck_analysis", {})
        result["tf_data_bottleneck_analysis"] = (
            {"available": True, "data": raw.decode() if isinstance(raw, bytes) else raw} if ok
            else {"available": False,
                  "answer": raw.decode() if isinstance(raw, bytes) else str(raw)})
    except Exception as e:  # noqa: BLE001 - report whatever the converter said
        result["tf_data_bottleneck_analysis"] = {"available": False, "answer": str(e)}
    return result


def run_tf_builtin(files):
    from tensorflow.python.profiler.internal import _pywrap_profiler_plugin as tf_plugin
    from xprof.protobuf import input_pipeline_pb2
    raw, ok = tf_plugin.xspace_to_tools_data(files, "input_pipeline_analyzer", {})
    if not ok:
        return {"error": raw.decode() if isinstance(raw, bytes) else str(raw)}
    res = input_pipeline_pb2.InputPipelineAnalysisResult()
    res.ParseFromString(raw)
    step_ms = []
    for any_msg in res.step_details:
        d = input_pipeline_pb2.PerGenericStepDetails()
        any_msg.Unpack(d)
        step_ms.append((d.step_name, d.step_time_ms))
    bottleneck = input_pipeline_pb2.BottleneckAnalysis()
    res.recommendation.bottleneck_analysis.Unpack(bottleneck)
    import tensorflow as tf
    return {
        "tensorflow_version": tf.__version__,
        "input_percent": round(res.input_percent, 3),
        "input_classification": bottleneck.input_classification,
        "input_statement": bottleneck.input_statement,
        "steps": len(step_ms),
        "step_names": [n for n, _ in step_ms],
        "step_time_ms_mean": round(res.step_time_summary.average, 4),
    }


def run_trainscope(binary, profile):
    try:
        proc = subprocess.run([binary, "report", "--json", profile], capture_output=True,
                              text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: " + (proc.stderr or proc.stdout).strip()[-400:]}
    try:
        rep = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        return {"error": f"not JSON ({e}): {proc.stdout[:200]}"}
    return {
        "verdict": rep.get("verdict"),
        "input_pct": rep.get("input_pct"),
        "steps": rep.get("steps"),
        "step_time_ms_mean": (rep.get("step_time_ms") or {}).get("mean"),
        "bottleneck_stage": rep.get("bottleneck_stage"),
    }


def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}{unit}"
    return f"{v}{unit}"


def print_session(s):
    x = s["xprof"]
    print(f"== {s['profile']}  ({len(s['xplane_files'])} host file(s): "
          f"{', '.join(os.path.basename(f) for f in s['xplane_files'])})")
    print(f"   XProf {s['xprof_version']}: {x['summary']}")
    print(f"   verdict {x['verdict']} (trainscope words: {x['verdict_trainscope_vocab']}), "
          f"input {fmt(x['input_pct'], ' %')}, steps {x['steps']} {x['step_names']}, "
          f"step time mean {fmt(x['step_time_ms']['mean'], ' ms')} "
          f"(min {fmt(x['step_time_ms']['min'])}, max {fmt(x['step_time_ms']['max'])})")
    b = x["breakdown_ms_avg"]
    print("   avg breakdown ms: " + ", ".join(f"{k} {v}" for k, v in b.items() if v))
    print(f"   slowest input stage (self time): {x['slowest_stage']}")
    for op in x["input_ops"][:5]:
        print(f"      {op['name']:60s} n={fmt(op['count'])} self {fmt(op['self_ms'], ' ms')} "
              f"total {fmt(op['total_ms'], ' ms')} [{op['category']}]")
    tfd = x["tf_data_bottleneck_analysis"]
    print(f"   tf_data_bottleneck_analysis: "
          f"{'available' if tfd['available'] else 'not available: ' + tfd['answer'][:100]}")
    if "tf_builtin" in s:
        t = s["tf_builtin"]
        if "error" in t:
            print(f"   TF built-in converter: error {t['error']}")
        else:
            print(f"   TF {t['tensorflow_version']} built-in converter: input_percent "
                  f"{t['input_percent']} % ({t['input_classification']}), steps {t['steps']}, "
                  f"step time mean {t['step_time_ms_mean']} ms")
    if "trainscope" in s:
        t = s["trainscope"]
        if "error" in t:
            print(f"   trainscope: failed ({t['error'][:200]})")
        else:
            print("   {:22s} {:>12s} {:>12s}".format("", "XProf", "trainscope"))
            rows = (("verdict", x["verdict_trainscope_vocab"], t["verdict"]),
                    ("input %", x["input_pct"], t["input_pct"]),
                    ("steps", x["steps"], t["steps"]),
                    ("step time mean ms", x["step_time_ms"]["mean"], t["step_time_ms_mean"]),
                    ("bottleneck stage", x["slowest_stage"], t["bottleneck_stage"]))
            for label, a, b2 in rows:
                print(f"   {label:22s} {fmt(a):>12s} {fmt(b2):>12s}")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("profiles", nargs="+", metavar="PROFILE")
    parser.add_argument("--trainscope", metavar="BIN", help="also run BIN report --json PROFILE")
    parser.add_argument("--tf-builtin", action="store_true",
                        help="also run TensorFlow's built-in copy of the converter")
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    parser.add_argument("--relative-to", default=None,
                        help="write paths in the JSON relative to this dir (default: cwd)")
    args = parser.parse_args()

    import xprof.version
    rel = args.relative_to or os.getcwd()
    out = {"xprof_version": xprof.version.__version__, "tool": "input_pipeline_analyzer",
           "sessions": []}
    status = 0
    for profile in args.profiles:
        for label, files in sessions_of(profile):
            session = {
                "profile": os.path.relpath(label, rel),
                "xplane_files": [os.path.relpath(f, rel) for f in files],
                "xprof_version": out["xprof_version"],
            }
            with tempfile.TemporaryDirectory(prefix="xprof-compare-") as tmp:
                try:
                    session["xprof"] = run_xprof(staged_copies(files, os.path.join(tmp, "x")))
                except Exception as e:  # noqa: BLE001
                    print(f"== {label}: XProf failed: {e}", file=sys.stderr)
                    status = 1
                    continue
                if args.tf_builtin:
                    try:
                        session["tf_builtin"] = run_tf_builtin(
                            staged_copies(files, os.path.join(tmp, "t")))
                    except Exception as e:  # noqa: BLE001
                        session["tf_builtin"] = {"error": str(e)}
            if args.trainscope:
                session["trainscope"] = run_trainscope(args.trainscope, label)
            out["sessions"].append(session)
            print_session(session)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=False)
            f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
