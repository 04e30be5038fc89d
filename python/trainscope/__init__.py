"""trainscope from Python: why is my training slow, and what is it costing me?

    import trainscope
    t = trainscope.open("run.db")          # or a PyTorch trace, or a TensorFlow log directory
    print(t.report()["verdict"])
    t.steps()                              # a pandas DataFrame (a list of dicts without pandas)

The import and analysis are trainscope's C++ (the same as the trainscope CLI's, run with the GIL
released); docs/python.md describes the API.
"""

import json as _json
import os as _os
import sys as _sys

from ._tables import from_columns as _from_columns
from ._tables import from_rows as _from_rows


def _load_core():
    # The native part links its own protobuf (for TensorFlow profiles). A TensorFlow imported
    # before it exports a protobuf of its own to every library loaded later, and the two would
    # register the same message types in one pool (a fatal error): loaded with RTLD_DEEPBIND,
    # the module and its libraries bind to their own first.
    flags = _sys.getdlopenflags()
    if hasattr(_os, "RTLD_DEEPBIND"):
        _sys.setdlopenflags(flags | _os.RTLD_DEEPBIND)
    try:
        from . import _core
    finally:
        _sys.setdlopenflags(flags)
    return _core


_core = _load_core()

__all__ = ["Error", "Trace", "open", "diff", "check", "EVENT_LIMIT"]

#: The version of trainscope this module was built from (as `trainscope --version`).
__version__ = _core.__version__

#: What the CLI would print as one line and exit 2 for: an unreadable or foreign file, a trace
#: without steps, a bad argument. A RuntimeError; str(e) is the CLI's message.
Error = _core.Error

#: At most this many events come back from Trace.events() unless its limit says otherwise.
EVENT_LIMIT = 1_000_000


def _text(value):
    return "" if value is None else str(value)


def _path(value):
    return _os.fspath(value)


def _skip_warmup(value):
    """'auto' (or None) -> None (the analysis's rule); a number of steps -> int."""
    if value is None or value == "auto":
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise Error("skip_warmup takes 'auto' or a number of steps, not %r" % (value,))
    return value


def _steps(value):
    if value is None:
        return None
    try:
        first, last = value
        return (int(first), int(last))
    except (TypeError, ValueError):
        raise Error("steps takes (first, last) step numbers, not %r" % (value,)) from None


class Trace:
    """One trace, opened by trainscope.open(). Every table comes from one analysis, made on
    first use with the options given to open() (the same as `trainscope report`'s)."""

    def __init__(self, path, trace, options):
        self.source = _path(path)
        self._trace = trace
        self._options = options
        # The trainscope trace to read: the file itself, or its import (made now or reused).
        self.path = _core.resolve(self.source, trace)
        self._analysis = None
        self._report = None
        self._gaps = None

    def __repr__(self):
        return "trainscope.Trace(%r)" % self.source

    def _analyse(self, keep_gaps):
        o = self._options
        return _core.analyse(self.source, self._trace, o["steps"], o["skip_warmup"],
                             o["gpu_hour_price"], o["step_input_threshold"],
                             o["step_input_high_threshold"], keep_gaps)

    def _analysed(self):
        if self._analysis is None:
            # Without the idle gaps listed, as report --json: a kept analysis is reused.
            self._analysis = self._analyse(False)
        return self._analysis

    def report(self):
        """What `trainscope report --json` prints, as Python objects (a dict)."""
        if self._report is None:
            self._report = _json.loads(self._analysed().json())
        return self._report

    def verdict(self):
        """The verdict in one sentence, as the report's first line."""
        return self._analysed().verdict_sentence()

    def text(self, wide=False):
        """What `trainscope report` prints."""
        return self._analysed().text(wide)

    def levers(self):
        """The levers table: one row per change worth making, largest saving first
        (projection.* columns: the projected step time, speed-up and saving)."""
        return _from_rows(self.report()["levers"],
                          ["id", "title", "evidence", "points_at", "already_on", "fix",
                           "projection.step_time_ms", "projection.speedup", "confidence"])

    def steps(self):
        """One row per step of the trace (warm-up steps too, marked `warmup`): its time, the
        parts of it (ms), input %, verdict, device busy time and idle time by cause."""
        return _from_columns(self._analysed().steps())

    def kernels(self):
        """The kernel table: one row per kernel name of the analysed steps, by total time."""
        return _from_rows(self.report()["kernels"],
                          ["name", "count", "total_ms", "share_pct", "mean_us", "min_us",
                           "max_us"])

    def stages(self):
        """The input pipeline's stages (read, decode, map, batch) over all workers."""
        return _from_rows(self.report()["pipeline"]["stages"],
                          ["stage", "main_event", "count", "total_ms", "us_per_sample",
                           "threads", "utilisation_pct"])

    def idle_gaps(self):
        """Every gap in which the device sat idle inside the analysed steps, with its cause."""
        if self._gaps is None:
            self._gaps = self._analyse(True)
        return _from_columns(self._gaps.idle_gaps())

    def ranks(self):
        """One row per process (rank) of a trace of several; empty for one process."""
        return _from_rows(self.report()["ranks"], ["rank", "process", "name", "steps"])

    def events(self, category=None, start=None, end=None, limit=EVENT_LIMIT):
        """The events overlapping [start, end) (nanoseconds on the trace's clock, as the steps'
        start_ns), of one category ("kernel", "input_wait", ...) or all. More than `limit`
        events is an Error: narrow the window, or pass a larger limit (None: no limit). Columns
        are numpy arrays (names as categoricals) when numpy is importable, so a large window
        costs no Python object per event."""
        return _from_columns(_core.events(self.path, self.source, category, start, end, limit))


def _trace_request(step_marker, run, allow_partial):
    return _core.TraceRequest(_text(step_marker), _text(run), bool(allow_partial))


def open(path, step_marker=None, run=None, *, allow_partial=False, steps=None,
         skip_warmup="auto", gpu_hour_price=2.50, step_input_threshold=5.0,
         step_input_high_threshold=20.0):
    """Opens a trace the trainscope CLI opens: a trainscope trace (.db), a PyTorch profiler
    trace (.json, .json.gz, or a directory of per-rank traces) or a TensorFlow profile (a log
    directory, a run directory or an .xplane.pb file), importing another tool's trace into a
    cache beside it (reused while it is unchanged). step_marker and run are the CLI's
    --step-marker and --run, allow_partial its --allow-partial (analyse an import that lost
    more than 1 % of the events it read); the other keyword options are report's --steps
    (first, last), --skip-warmup, --gpu-hour-price, --step-input-threshold and
    --step-input-high-threshold."""
    options = {
        "steps": _steps(steps),
        "skip_warmup": _skip_warmup(skip_warmup),
        "gpu_hour_price": float(gpu_hour_price),
        "step_input_threshold": float(step_input_threshold),
        "step_input_high_threshold": float(step_input_high_threshold),
    }
    return Trace(path, _trace_request(step_marker, run, allow_partial), options)


def diff(a, b, step_marker=None, run=None, *, allow_partial=False, steps=None,
         skip_warmup="auto", gpu_hour_price=2.50):
    """What `trainscope diff A B --json` prints, as Python objects: B against the baseline A."""
    return _json.loads(_core.diff_json(_path(a), _path(b),
                                       _trace_request(step_marker, run, allow_partial),
                                       _steps(steps), _skip_warmup(skip_warmup),
                                       float(gpu_hour_price)))


def _limit(value):
    return None if value is None else float(value)


def check(path, max_input_pct=None, max_device_idle_pct=None, *, baseline=None,
          max_step_time_increase_pct=None, allow_partial=False, step_marker=None, run=None,
          steps=None, skip_warmup="auto", all_limits=False):
    """`trainscope check`: measures the trace against the limits given (at least one) and
    returns the violated ones, an empty list when all hold. Each is a dict: flag (the CLI's
    flag, or "complete-trace" for a partial trace), measured, value, limit, violated and line
    (the line check prints). all_limits=True returns every limit measured, held or not.
    allow_partial: a partial trace warns instead of failing (check's --allow-partial), and an
    import that lost events is analysed."""
    result = _core.check(_path(path), _limit(max_input_pct), _limit(max_device_idle_pct),
                         None if baseline is None else _path(baseline),
                         _limit(max_step_time_increase_pct), bool(allow_partial),
                         _trace_request(step_marker, run, allow_partial), _steps(steps),
                         _skip_warmup(skip_warmup))
    limits = result["limits"]
    return limits if all_limits else [l for l in limits if l["violated"]]
