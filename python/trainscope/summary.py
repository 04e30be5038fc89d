"""The one paragraph trainscope.torch.profile and trainscope.keras.Verdict print when they stop:
the verdict, the top levers with what each would gain and its first fix, where the trace is."""

import textwrap

TOP_LEVERS = 3


def _lever(lever):
    projection = lever.get("projection") or {}
    text = lever["title"]
    speedup = projection.get("speedup", 1)
    if speedup and speedup > 1.005:
        text += " (%.2f× faster" % speedup
        text += ", %s)" % lever["fix"][0] if lever.get("fix") else ")"
    elif lever.get("fix"):
        text += " (%s)" % lever["fix"][0]
    return text


def paragraph(trace, kept=None, width=100):
    """The paragraph for the trainscope.Trace `trace`; `kept` is the trace file or folder the
    profiler wrote (default: trace.source)."""
    report = trace.report()
    words = [trace.verdict()]
    levers = report.get("levers") or []
    if levers:
        top = [_lever(l) for l in levers[:TOP_LEVERS]]
        words.append("Top levers: " + "; ".join(top) + ".")
    else:
        words.append("No lever applies.")
    source = kept or trace.source
    words.append("Trace kept in %s (open it with trainscope report or trainscope-gui)." % source)
    return textwrap.fill("trainscope: " + " ".join(words), width=width,
                         break_long_words=False, break_on_hyphens=False)
