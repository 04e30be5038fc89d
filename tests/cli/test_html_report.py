#!/usr/bin/python3
"""report --html, diff --html, report/check --markdown: the files to share and the CI summaries.

Runs the trainscope binary (argv[1]) from the repository root. The HTML must be well-formed (every
element closed in order, one inline script, nothing loaded from elsewhere) and say what
`report --json` says: the verdict, the step count, the lever ids, the kernel names, one table row
per step, stage and rank. A trace with hostile names renders them escaped and cut. The Markdown
check's pass/fail rows match its exit status, and an existing summary file is appended to.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = None
VOID = {"meta", "br", "img", "hr", "input", "link", "area", "base", "col", "embed", "source",
        "track", "wbr"}


class Page(html.parser.HTMLParser):
    """A strict reader: records misnested or unclosed elements, tables' rows and attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.scripts = [], [], []
        self.tables = {}   # id -> list of rows: (row attrs, [cell text])
        self.by_id = {}    # id -> (tag, attrs)
        self.cards = {}    # data-key -> value text
        self.text = []
        self._table, self._row, self._cell, self._card, self._in_v = None, None, None, None, False
        self._script = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            if a["id"] in self.by_id:
                self.errors.append("duplicate id " + a["id"])
            self.by_id[a["id"]] = (tag, a)
        for name, value in attrs:
            if name in ("src", "href") or (value and "url(" in value):
                self.errors.append("external reference %s=%r" % (name, value))
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None and self.stack[-1:] == ["tbody"]:
            self._row = (a, [])
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "div" and "data-key" in a:
            self._card = a["data-key"]
        elif tag == "div" and a.get("class") == "v" and self._card:
            self._in_v = True
            self.cards[self._card] = ""
        elif tag == "script":
            self._script = []
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else ""))
            return
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None:
            self._row[1].append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "div" and self._in_v:
            self._in_v = False
            self._card = None
        elif tag == "script":
            self.scripts.append("".join(self._script))
            self._script = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._in_v:
            self.cards[self._card] += data
        if self._script is not None:
            self._script.append(data)


def run(*args, ok=(0,)):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if r.returncode not in ok:
        raise AssertionError("trainscope %s: exit %d\n%s" % (" ".join(args), r.returncode, r.stderr))
    return r


def parse(path):
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    page = Page()
    page.feed(raw)
    page.close()
    return raw, page


def rows(page, table):
    return page.tables.get(table, [])


class HtmlReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def out(self, name):
        return os.path.join(self.dir.name, name)

    def check_well_formed(self, raw, page):
        self.assertTrue(raw.startswith("<!DOCTYPE html>"))
        self.assertEqual(page.errors, [])
        self.assertEqual(page.stack, [], "elements left open")
        self.assertEqual(len(page.scripts), 1, "one inline script: the table sorting")
        self.assertNotIn("http://", raw.replace('xmlns="http://www.w3.org/2000/svg"', ""))
        self.assertNotIn("https://", raw)
        self.assertNotIn("@import", raw)
        self.assertNotIn("@font-face", raw)

    def check_against_json(self, trace, *flags):
        out = self.out("report.html")
        report = json.loads(run("report", trace, "--json", "--html", out, *flags).stdout)
        raw, page = parse(out)
        self.check_well_formed(raw, page)
        self.assertEqual(page.by_id["verdict"][1]["data-verdict"], report["verdict"])
        self.assertIn(report["verdict_sentence"], "".join(page.text))
        self.assertEqual(page.cards["steps"].replace(" ", ""), str(report["steps"]))
        self.assertEqual([a["data-lever"] for a, _ in rows(page, "levers-table")],
                         [l["id"] for l in report["levers"]])
        kernels = [cells[0] for _, cells in rows(page, "kernels-table")]
        self.assertEqual(len(kernels), min(1000, len(report["kernels"])))
        for shown, k in zip(kernels, report["kernels"]):
            self.assertEqual(shown, k["name"] if len(k["name"]) <= 120 else k["name"][:120] + "…")
        steps = rows(page, "steps-table")
        if report["phases"]["whole_run"]["steps"] <= 2000:
            self.assertEqual(len([a for a, _ in steps if "data-warmup" not in a]), report["steps"])
            self.assertEqual(len(steps), report["phases"]["whole_run"]["steps"])
        self.assertEqual(len(rows(page, "stages-table")), len(report["pipeline"]["stages"]))
        self.assertEqual(len(rows(page, "ranks-table")), len(report["ranks"]))
        job = report["job"]
        self.assertEqual(len(rows(page, "job-table")), 4 if job else 0)
        self.assertEqual([c[0] for _, c in rows(page, "holding-back-table")],
                         [str(h["rank"]) for h in job["holding_back"]] if job else [])
        self.assertEqual(raw.count("<svg"), 3, "step-time chart, timeline strip, breakdown bar")
        return report, page

    def test_sample_traces_match_their_json(self):
        for trace in ("traces/input_bound.db", "traces/tuned.db", "traces/opencl.db"):
            with self.subTest(trace=trace):
                report, page = self.check_against_json(trace)
                self.assertGreater(len(rows(page, "kernels-table")), 0)

    def test_imported_pytorch_trace_of_two_ranks(self):
        # A copy: direct use writes the import's cache beside the source, never into the tree.
        scratch = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, scratch)
        ranks = shutil.copytree("tests/data/pytorch/two_ranks", os.path.join(scratch, "two_ranks"))
        report, page = self.check_against_json(ranks)
        self.assertEqual(len(report["ranks"]), 2)
        self.assertIn("rank 1", "".join(page.text))
        # Rank 1 waits for input: the one rank holding the job back, named with its cause.
        self.assertEqual([c[3] for _, c in rows(page, "holding-back-table")], ["input"])
        md = run("report", ranks, "--markdown", "-").stdout
        self.assertIn("| 1 | ", md)
        self.assertIn(" | input | ", md)

    def test_flags_move_the_step_classes(self):
        report, page = self.check_against_json("traces/input_bound.db",
                                               "--step-input-threshold", "90")
        bound = [c[-1] for a, c in rows(page, "steps-table") if "input-bound" in c[-1]]
        self.assertEqual(len(bound), report["input_bound_steps"])

    def test_diff_html(self):
        out = self.out("diff.html")
        d = json.loads(run("diff", "traces/input_bound.db", "traces/tuned.db", "--json",
                           "--html", out).stdout)
        raw, page = parse(out)
        self.check_well_formed(raw, page)
        self.assertEqual([a["data-lever"] for a, _ in rows(page, "levers-table")],
                         [l["id"] for l in d["levers"]])
        self.assertEqual(len(rows(page, "kernels-table")), len(d["kernels"]))
        self.assertEqual(raw.count("<svg"), 2, "each run's step-time chart")

    def test_bad_outputs_are_refused(self):
        trace = self.out("copy.db")
        with open("traces/tuned.db", "rb") as src, open(trace, "wb") as dst:
            dst.write(src.read())
        size = os.path.getsize(trace)
        for args in (["report", trace, "--html", trace], ["report", trace, "--html", ""],
                     ["report", trace, "--html", "-"], ["report", trace, "--markdown", trace],
                     ["report", trace, "--markdown", "-", "--json"],
                     ["report", trace, "--baseline", trace],
                     ["check", trace, "--max-input-pct", "5", "--markdown", trace],
                     ["diff", trace, "traces/input_bound.db", "--html", trace],
                     ["report", trace, "--html", self.dir.name]):
            with self.subTest(args=args):
                r = run(*args, ok=(2,))
                self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertEqual(os.path.getsize(trace), size)


def hostile_trace(path, long_name):
    """A PyTorch trace whose kernel and operator names are HTML, Markdown and 15 MB long."""
    names = ['<script>alert("x")</script>', "a\"b'c&d</td></tr></table>",
             "**bold** | [link](http://example.com) $x$ `code` <b>", long_name]
    events = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}}]
    t = 1000.0
    for step in range(1, 7):
        events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step,
                       "pid": 1, "tid": 1, "ts": t, "dur": 1000.0})
        for i, name in enumerate(names):
            if name is long_name and step != 3:
                continue  # once is enough: 15 MB of JSON
            start = t + 10 + i * 200
            if name is not long_name:
                events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1,
                               "ts": start, "dur": 150.0})
            events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                           "ts": start + 20, "dur": 100.0 + i,
                           "args": {"device": 0, "stream": 7}})
        t += 1000.0
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f)
    return names


class Hostile(unittest.TestCase):
    def test_hostile_names_render_escaped(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "hostile.pt.trace.json")
            long_name = "L" * (15 << 20)
            names = hostile_trace(trace, long_name)
            out, md = os.path.join(d, "r.html"), os.path.join(d, "r.md")
            report = json.loads(run("report", trace, "--json", "--html", out,
                                    "--markdown", md).stdout)
            self.assertLess(os.path.getsize(out), 1 << 20, "long names are cut for display")
            raw, page = parse(out)
            self.assertEqual(page.errors, [])
            self.assertEqual(page.stack, [])
            self.assertEqual(len(page.scripts), 1)
            self.assertNotIn("<script>alert", raw)
            self.assertNotIn("<b>", raw)
            kernels = {c[0] for _, c in rows(page, "kernels-table")}
            self.assertEqual(len(kernels), len(report["kernels"]))
            for name in names[:3]:
                self.assertIn(name, kernels)
            self.assertIn("L" * 120 + "…", kernels)
            with open(md, encoding="utf-8") as f:
                summary = f.read()
            self.assertLess(len(summary), 100000)
            self.assertNotIn("<script>", summary)


class Markdown(unittest.TestCase):
    def test_check_rows_match_the_exit_status(self):
        cases = [(["--max-input-pct", "99"], 0), (["--max-input-pct", "1"], 1),
                 (["--max-input-pct", "99", "--max-device-idle-pct", "1"], 1),
                 (["--baseline", "traces/tuned.db", "--max-step-time-increase-pct", "1000"], 0)]
        for limits, status in cases:
            with self.subTest(limits=limits):
                r = run("check", "traces/input_bound.db", *limits, "--markdown", "-", ok=(0, 1))
                self.assertEqual(r.returncode, status)
                lines = r.stdout.splitlines()
                self.assertTrue(lines[0].startswith("### ✅ trainscope check passed" if status == 0
                                                    else "### ❌ trainscope check failed"))
                limit_rows = [l for l in lines if l.startswith("| ✅ pass") or
                              l.startswith("| ❌ fail")]
                self.assertEqual(len(limit_rows), len([a for a in limits if a.startswith("--max")]))
                failed = [l for l in limit_rows if l.startswith("| ❌ fail")]
                self.assertEqual(bool(failed), status == 1)
                # stderr names exactly the violated limits; stdout is the summary alone.
                self.assertEqual(len(failed), r.stderr.count(" exceeds "))
                self.assertIn("Step time, steps", r.stdout)
                if "--baseline" in limits:
                    self.assertIn("**Against the baseline** traces/tuned.db", r.stdout)

    def test_an_existing_file_is_appended_to(self):
        with tempfile.TemporaryDirectory() as d:
            summary = os.path.join(d, "summary.md")
            with open(summary, "w") as f:
                f.write("# Earlier step\nkept\n")
            run("check", "traces/tuned.db", "--max-input-pct", "50", "--markdown", summary)
            run("report", "traces/input_bound.db", "--markdown", summary)
            with open(summary, encoding="utf-8") as f:
                text = f.read()
            self.assertTrue(text.startswith("# Earlier step\nkept\n\n### ✅ trainscope check"))
            self.assertEqual(text.count("### "), 2)
            self.assertIn("### trainscope report: traces/input\\_bound.db", text)
            fresh = os.path.join(d, "new.md")
            run("report", "traces/tuned.db", "--markdown", fresh)
            with open(fresh, encoding="utf-8") as f:
                self.assertTrue(f.read().startswith("### trainscope report"))

    def test_report_markdown_sparkline_has_a_block_per_step(self):
        report = json.loads(run("report", "traces/input_bound.db", "--json").stdout)
        md = run("report", "traces/input_bound.db", "--markdown", "-").stdout
        line = next(l for l in md.splitlines() if l.startswith("Step time, steps"))
        spark = line.rsplit(": ", 1)[1]
        self.assertEqual(len(spark), report["steps"])
        self.assertTrue(set(spark) <= set("▁▂▃▄▅▆▇█"))
        self.assertEqual([l for l in md.splitlines() if l.startswith("| ") and "×" in l][0]
                         .split(" | ")[0], "| " + report["levers"][0]["title"])


if __name__ == "__main__":
    BIN = sys.argv.pop(1)
    unittest.main()
