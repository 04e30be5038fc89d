#!/usr/bin/env python3
"""Runs `trainscope train --trace` once under each fault and prints what happened.

    scripts/fault-probes.py [BUILD_DIR (default build)] [--only NAME ...]

Faults: SIGKILL, SIGINT and SIGTERM in the second epoch; a disk that fills up during the capture
(a tmpfs of 2 MiB, full before the first commit, and of 4 MiB, full midway; needs root); no OpenCL runtime (an ICD loader that finds no vendor file), with
--backend auto and --backend opencl. For each: the exit status, the time from the signal to the
exit, the last line on stderr, whether `trainscope report` opens the trace (its status and
warnings), the events stored, and for a signal how much of the run before it is missing from the
trace (the signal's CLOCK_MONOTONIC time minus the end of the last stored event). The tests that
check the same behaviour are tests/cli/test_train_faults.cpp and
tests/profiler/test_capture*.cpp; this script gives the figures.
"""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

TRAIN = ["train", "--backend", "cpu", "--epochs", "100000", "--dataset", "synthetic:2048"]


def run(binary, args, env=None, timeout=600):
    return subprocess.run([binary] + args, capture_output=True, text=True, env=env,
                          timeout=timeout)


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def trace_figures(binary, trace):
    """What `report` says of the trace, and its events once indexed (a copy, recovered)."""
    out = {}
    report = run(binary, ["report", trace])
    out["report_status"] = report.returncode
    warnings = [l.strip() for l in report.stdout.splitlines() if "warning" in l.lower()]
    out["report_says"] = warnings[0] if warnings else last_line(report.stderr) or "no warning"
    if not os.path.exists(trace):
        return out
    work = tempfile.mkdtemp(prefix="probe_copy_")
    try:
        copy = os.path.join(work, "copy.db")
        for suffix in ("", "-wal"):
            if os.path.exists(trace + suffix):
                shutil.copy(trace + suffix, copy + suffix)
        rec = run(binary, ["recover", copy])
        out["recover_status"] = rec.returncode
        db = sqlite3.connect(copy)
        out["events"], out["last_end_ns"] = db.execute(
            "SELECT count(*), max(start_ns + dur_ns) FROM events").fetchone()
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        db.close()
        for key in ("capture.events_lost", "capture.write_error", "capture.end_ns"):
            if key in meta:
                out[key] = meta[key]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def probe_signal(binary, sig, work):
    trace = os.path.join(work, f"sig{sig}.db")
    summary = os.path.join(work, f"sig{sig}.json")
    child = subprocess.Popen([binary] + TRAIN + ["--trace", trace, "--summary-json", summary],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    for line in child.stdout:
        if "Epoch 2/" in line or time.monotonic() > deadline:
            break
    time.sleep(1.0)
    sent_ns = time.monotonic_ns()
    child.send_signal(sig)
    try:
        rest, err = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        rest, err = child.communicate()
    exit_ms = (time.monotonic_ns() - sent_ns) / 1e6
    f = {"exit": child.returncode, "exit_after_ms": round(exit_ms),
         "stderr": last_line(err) or "(nothing)",
         "summary_written": os.path.exists(summary) and os.path.getsize(summary) > 0}
    f.update(trace_figures(binary, trace))
    if f.get("last_end_ns") is not None:
        f["missing_before_signal_ms"] = round((sent_ns - f.pop("last_end_ns")) / 1e6, 1)
    return f


def probe_disk_full(binary, work, size):
    if os.geteuid() != 0:
        return {"skipped": "needs root to mount a tmpfs"}
    mnt = os.path.join(work, "small")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mnt]).returncode != 0:
        return {"skipped": "cannot mount a tmpfs"}
    try:
        trace = os.path.join(mnt, "run.db")
        r = run(binary, ["train", "--backend", "cpu", "--epochs", "8", "--dataset",
                         "synthetic:4096", "--summary-json", os.path.join(work, "full.json"),
                         "--trace", trace])
        f = {"exit": r.returncode, "stderr_lines": len(r.stderr.splitlines()),
             "stderr": last_line(r.stderr) or "(nothing)",
             "trained_to_the_end": "Epoch 8/8" in r.stdout,
             "trace_line": next((l for l in r.stdout.splitlines() if l.startswith("Trace:")), "")}
        f.update(trace_figures(binary, trace))
        f.pop("last_end_ns", None)
        return f
    finally:
        subprocess.run(["umount", "-l", mnt])


def probe_no_opencl(binary, work, backend):
    env = dict(os.environ, OCL_ICD_VENDORS="/nonexistent", OCL_ICD_FILENAMES="")
    trace = os.path.join(work, f"noocl_{backend}.db")
    r = run(binary, ["train", "--backend", backend, "--epochs", "1", "--dataset", "synthetic:64",
                     "--quiet", "--trace", trace], env=env)
    f = {"exit": r.returncode, "stderr": r.stderr.strip() or "(nothing)"}
    if os.path.exists(trace):
        f.update(trace_figures(binary, trace))
        f.pop("last_end_ns", None)
    else:
        f["trace"] = "not written"
    return f


def main():
    args = sys.argv[1:]
    only = []
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1:]
        args = args[:i]
    build = args[0] if args else "build"
    binary = os.path.abspath(os.path.join(build, "cli", "trainscope"))
    if not os.access(binary, os.X_OK):
        sys.exit(f"fault-probes: no {binary} (build it first)")
    probes = [("SIGKILL", lambda w: probe_signal(binary, signal.SIGKILL, w)),
              ("SIGINT", lambda w: probe_signal(binary, signal.SIGINT, w)),
              ("SIGTERM", lambda w: probe_signal(binary, signal.SIGTERM, w)),
              ("disk full at once (2 MiB)", lambda w: probe_disk_full(binary, w, "2m")),
              ("disk full midway (4 MiB)", lambda w: probe_disk_full(binary, w, "4m")),
              ("no OpenCL, --backend auto", lambda w: probe_no_opencl(binary, w, "auto")),
              ("no OpenCL, --backend opencl", lambda w: probe_no_opencl(binary, w, "opencl"))]
    for name, probe in probes:
        if only and not any(o.lower() in name.lower() for o in only):
            continue
        work = tempfile.mkdtemp(prefix="fault_probe_")
        try:
            figures = probe(work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"{name}:")
        for key, value in figures.items():
            print(f"  {key}: {value}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
