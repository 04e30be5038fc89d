"""trainscope's Python API against the CLI: the same reports, checks, diffs and errors, the
tables agreeing with the report, the events of a window, with and without pandas."""

import json
import math
import os
import subprocess
import sys
import unittest

import helpers

import trainscope

INPUT_BOUND = helpers.sample("input_bound.db")
TUNED = helpers.sample("tuned.db")


def rows(table):
    """A table as a list of dicts, whichever form it came in."""
    if isinstance(table, list):
        return table
    return table.to_dict("records")


class ReportTest(unittest.TestCase):
    def test_report_is_what_report_json_prints(self):
        status, out, err = helpers.run_cli("report", INPUT_BOUND, "--json")
        self.assertEqual(status, 0, err)
        self.assertEqual(trainscope.open(INPUT_BOUND).report(), json.loads(out))

    def test_report_options_are_the_cli_flags(self):
        status, out, err = helpers.run_cli("report", TUNED, "--json", "--steps", "3-8",
                                           "--gpu-hour-price", "4")
        self.assertEqual(status, 0, err)
        t = trainscope.open(TUNED, steps=(3, 8), gpu_hour_price=4)
        self.assertEqual(t.report(), json.loads(out))
        self.assertEqual(t.report()["phases"]["analysed_steps"], [3, 8])

    def test_verdict(self):
        t = trainscope.open(INPUT_BOUND)
        self.assertEqual(t.report()["verdict"], "high")
        self.assertEqual(t.verdict(), t.report()["verdict_sentence"])
        self.assertTrue(t.text().startswith(t.verdict()))


class TablesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.trace = trainscope.open(INPUT_BOUND)
        cls.report = cls.trace.report()

    def test_steps_add_up_to_the_report(self):
        steps = rows(self.trace.steps())
        analysed = [s for s in steps if not s["warmup"]]
        self.assertEqual(len(analysed), self.report["steps"])
        self.assertEqual(len(steps), self.report["phases"]["whole_run"]["steps"])
        mean = sum(s["step_time_ms"] for s in analysed) / len(analysed)
        self.assertAlmostEqual(mean, self.report["step_time_ms"]["mean"], places=2)
        parts = [k for k in steps[0] if k.endswith("_ms") and not k.startswith("idle_")
                 and k not in ("step_time_ms", "device_busy_ms")]
        self.assertEqual(sorted(p[:-3] for p in parts), sorted(self.report["breakdown_ms"]))
        for s in steps:
            self.assertAlmostEqual(sum(s[p] for p in parts), s["step_time_ms"], places=6)
        input_bound = sum(1 for s in analysed if s["input_bound"])
        self.assertEqual(input_bound, self.report["input_bound_steps"])
        self.assertEqual(sum(1 for s in analysed if s["verdict"] == "high"),
                         self.report["input_bound_steps_high"])

    def test_kernels_stages_levers_ranks_are_the_reports(self):
        self.assertEqual([k["name"] for k in rows(self.trace.kernels())],
                         [k["name"] for k in self.report["kernels"]])
        self.assertEqual([s["stage"] for s in rows(self.trace.stages())],
                         [s["stage"] for s in self.report["pipeline"]["stages"]])
        levers = rows(self.trace.levers())
        self.assertEqual([l["id"] for l in levers], [l["id"] for l in self.report["levers"]])
        self.assertEqual(levers[0]["projection.speedup"],
                         self.report["levers"][0]["projection"]["speedup"])
        self.assertEqual(rows(self.trace.ranks()), [])

    def test_idle_gaps_are_the_reports(self):
        gaps = rows(self.trace.idle_gaps())
        self.assertEqual(len(gaps), self.report["device"]["idle_gaps"])
        # The report's idle time is of the analysed steps; the gaps are listed in every step.
        analysed = {s["step"] for s in rows(self.trace.steps()) if not s["warmup"]}
        for cause, ms in self.report["device"]["idle_by_cause_ms"].items():
            listed = sum(g["dur_us"] for g in gaps
                         if g["cause"] == cause and g["step"] in analysed) / 1e3
            self.assertAlmostEqual(listed, ms, delta=0.01, msg=cause)
        self.assertTrue(all(g["end_ns"] > g["start_ns"] for g in gaps))


class ImportTest(helpers.TempDirTest):
    def test_pytorch_trace_is_imported_once_and_cached_beside_it(self):
        source = self.copy_data("pytorch/input_bound.pt.trace.json.gz")
        t = trainscope.open(source)
        self.assertEqual(t.path, source + ".trainscope.db")
        self.assertTrue(os.path.exists(t.path))
        status, out, err = helpers.run_cli("report", source, "--json")
        self.assertEqual(status, 0, err)
        self.assertNotIn("imported", err)  # the CLI reuses the Python import
        self.assertEqual(t.report(), json.loads(out))
        self.assertEqual(t.report()["source"]["format"], "kineto")

    def test_two_rank_pytorch_folder(self):
        folder = self.copy_data("pytorch/two_ranks")
        ranks = rows(trainscope.open(folder).ranks())
        self.assertEqual(len(ranks), 2)
        self.assertEqual(sorted(r["rank"] for r in ranks), [0, 1])
        steps = rows(trainscope.open(folder).steps())
        self.assertEqual(sorted({s["rank"] for s in steps}), [0, 1])

    def test_tensorflow_log_dir(self):
        logdir = self.copy_data("tensorflow/naive")
        t = trainscope.open(logdir)
        status, out, err = helpers.run_cli("report", logdir, "--json")
        self.assertEqual(status, 0, err)
        self.assertEqual(t.report(), json.loads(out))
        self.assertGreater(len(rows(t.steps())), 0)

    def test_step_marker(self):
        source = self.copy_data("pytorch/no_step_markers.pt.trace.json.gz")
        marker = r"enumerate\(DataLoader\)"
        status, out, err = helpers.run_cli("report", source, "--json", "--step-marker", marker)
        self.assertEqual(status, 0, err)
        self.assertEqual(trainscope.open(source, step_marker=marker).report(), json.loads(out))
        for marker in ("nothing-matches", "a("):
            status, _, err = helpers.run_cli("report", source, "--step-marker", marker)
            self.assertEqual(status, 2)
            with self.assertRaises(trainscope.Error) as e:
                trainscope.open(source, step_marker=marker).report()
            self.assertEqual("trainscope: " + str(e.exception) + "\n", err.splitlines(True)[-1])


class ErrorTest(helpers.TempDirTest):
    def assert_cli_error(self, args, call):
        status, _, err = helpers.run_cli(*args)
        self.assertEqual(status, 2, err)
        with self.assertRaises(trainscope.Error) as e:
            call()
        self.assertIsInstance(e.exception, RuntimeError)
        self.assertEqual("trainscope: " + str(e.exception) + "\n", err)

    def test_missing_file(self):
        missing = os.path.join(self.tmp, "missing.db")
        self.assert_cli_error(["report", missing], lambda: trainscope.open(missing))

    def test_foreign_file(self):
        foreign = os.path.join(self.tmp, "notes.json")
        with open(foreign, "w") as f:
            f.write("hello")
        self.assert_cli_error(["report", foreign], lambda: trainscope.open(foreign))

    def test_step_range_without_steps(self):
        self.assert_cli_error(["report", INPUT_BOUND, "--steps", "900-901"],
                              lambda: trainscope.open(INPUT_BOUND, steps=(900, 901)).report())

    def test_bad_arguments(self):
        for call in (lambda: trainscope.open(INPUT_BOUND, steps=(5, 2)).report(),
                     lambda: trainscope.open(INPUT_BOUND, skip_warmup=-1).report(),
                     lambda: trainscope.open(INPUT_BOUND, skip_warmup="some"),
                     lambda: trainscope.open(INPUT_BOUND, gpu_hour_price=-1).report(),
                     lambda: trainscope.open(INPUT_BOUND).events(category="kernels"),
                     lambda: trainscope.open(INPUT_BOUND).events(start=10, end=5)):
            with self.assertRaises(trainscope.Error):
                call()


class CheckTest(unittest.TestCase):
    def test_violations_are_the_lines_check_prints(self):
        status, out, err = helpers.run_cli("check", INPUT_BOUND, "--max-input-pct", "20",
                                           "--max-device-idle-pct", "99")
        self.assertEqual(status, 1)
        violations = trainscope.check(INPUT_BOUND, max_input_pct=20, max_device_idle_pct=99)
        self.assertEqual([v["flag"] for v in violations], ["max-input-pct"])
        self.assertEqual([v["line"] + "\n" for v in violations], err.splitlines(True))
        self.assertGreater(violations[0]["value"], 20)
        every = trainscope.check(INPUT_BOUND, max_input_pct=20, max_device_idle_pct=99,
                                 all_limits=True)
        self.assertEqual([l["line"] for l in every if not l["violated"]],
                         out.splitlines()[:-1])

    def test_holding_limits_and_baseline(self):
        self.assertEqual(trainscope.check(TUNED, max_input_pct=50), [])
        status, _, err = helpers.run_cli("check", INPUT_BOUND, "--baseline", TUNED,
                                         "--max-step-time-increase-pct", "10")
        self.assertEqual(status, 1)
        violations = trainscope.check(INPUT_BOUND, baseline=TUNED, max_step_time_increase_pct=10)
        self.assertEqual([v["line"] + "\n" for v in violations], err.splitlines(True))

    def test_no_limit_is_the_cli_usage_error(self):
        status, _, err = helpers.run_cli("check", INPUT_BOUND)
        self.assertEqual(status, 2)
        with self.assertRaises(trainscope.Error) as e:
            trainscope.check(INPUT_BOUND)
        self.assertEqual("trainscope: " + str(e.exception) + "\n", err)
        with self.assertRaises(trainscope.Error):
            trainscope.check(INPUT_BOUND, baseline=TUNED)


class DiffTest(unittest.TestCase):
    def test_diff_is_what_diff_json_prints(self):
        status, out, err = helpers.run_cli("diff", INPUT_BOUND, TUNED, "--json")
        self.assertEqual(status, 0, err)
        self.assertEqual(trainscope.diff(INPUT_BOUND, TUNED), json.loads(out))


class EventsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.trace = trainscope.open(INPUT_BOUND)

    def test_every_event_and_one_category(self):
        every = rows(self.trace.events())
        self.assertEqual(len(every), self.trace.report()["events"])
        kernels = rows(self.trace.events(category="kernel"))
        self.assertTrue(kernels)
        self.assertTrue(all(e["category"] == "kernel" for e in kernels))
        self.assertEqual(len(kernels), sum(1 for e in every if e["category"] == "kernel"))
        names = {k["name"] for k in self.trace.report()["kernels"]}
        self.assertTrue(names <= {e["name"] for e in kernels})

    def test_window_and_limit(self):
        steps = [s for s in rows(self.trace.steps()) if not s["warmup"]]
        start = steps[2]["start_ns"]
        end = start + int(steps[2]["step_time_ms"] * 1e6)
        window = rows(self.trace.events(start=start, end=end))
        self.assertTrue(window)
        self.assertTrue(all(e["start_ns"] < end and e["start_ns"] + e["dur_ns"] >= start
                            for e in window))
        self.assertLess(len(window), len(rows(self.trace.events())))
        with self.assertRaises(trainscope.Error) as e:
            self.trace.events(limit=10)
        self.assertIn("limit=10", str(e.exception))
        self.assertEqual(len(rows(self.trace.events(start=start, end=end, limit=len(window)))),
                         len(window))
        self.assertEqual(len(rows(self.trace.events(limit=None))),
                         self.trace.report()["events"])


class WithoutPandasTest(unittest.TestCase):
    def test_lists_of_dicts_without_pandas_and_numpy(self):
        code = (
            "import sys, json\n"
            "sys.modules['pandas'] = None\n"
            "sys.modules['numpy'] = None\n"
            "import trainscope\n"
            "t = trainscope.open(%r)\n"
            "steps = t.steps()\n"
            "assert isinstance(steps, list) and isinstance(steps[0], dict), type(steps)\n"
            "assert isinstance(steps[0]['verdict'], str)\n"
            "events = t.events(category='kernel')\n"
            "assert isinstance(events, list) and events[0]['category'] == 'kernel'\n"
            "assert isinstance(t.kernels(), list) and isinstance(t.idle_gaps(), list)\n"
            "print(json.dumps([len(steps), len(events), steps[1]['step_time_ms']]))\n"
            % INPUT_BOUND)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout
        n_steps, n_events, step_ms = json.loads(out)
        t = trainscope.open(INPUT_BOUND)
        self.assertEqual(n_steps, len(rows(t.steps())))
        self.assertEqual(n_events, len(rows(t.events(category="kernel"))))
        self.assertTrue(math.isclose(step_ms, rows(t.steps())[1]["step_time_ms"]))


if __name__ == "__main__":
    helpers.main()
