"""trainscope.torch.profile around a PyTorch training loop (Debian's python3-torch, CPU): the
loop's slow DataLoader makes it input-bound, and the paragraph printed when the block ends says
so, names the input pipeline lever and where the trace is kept."""

import io
import os
import subprocess
import sys
import time
import unittest

import helpers

import trainscope

SAMPLE_SLEEP_S = 0.004  # each sample takes this long to load: the loop waits for input


class SlowDataset:
    def __init__(self, torch, n):
        self.torch = torch
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(SAMPLE_SLEEP_S)
        g = self.torch.Generator().manual_seed(i)
        return self.torch.randn(32, generator=g), i % 4


class TorchProfileTest(helpers.TempDirTest):
    def train(self, **profile_args):
        import torch

        import trainscope.torch

        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 4))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = torch.utils.data.DataLoader(SlowDataset(torch, 96), batch_size=8)
        out = io.StringIO()
        with trainscope.torch.profile(os.path.join(self.tmp, "profile"), file=out,
                                      **profile_args) as prof:
            for x, y in loader:
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                prof.step()
        return prof, out.getvalue()

    def test_an_input_bound_loop_prints_its_verdict(self):
        prof, printed = self.train(wait=1, warmup=1, active=5)
        self.assertEqual(len(prof.written), 1)
        kept = prof.written[0]
        self.assertTrue(os.path.isfile(kept))
        self.assertTrue(kept.endswith(".pt.trace.json"))
        report = prof.trace.report()
        # Kineto JSON, or the legacy array of a torch built without Kineto (Debian 12's 1.13)
        self.assertIn(report["source"]["format"], ("kineto", "legacy array"))
        self.assertEqual(report["phases"]["whole_run"]["steps"], 5)
        self.assertEqual(report["verdict"], "high")
        self.assertEqual([l["id"] for l in report["levers"]][:1], ["input_pipeline"])
        one_line = " ".join(printed.split())
        self.assertEqual(printed.strip(), prof.summary)
        self.assertIn(" ".join(prof.trace.verdict().split()), one_line)
        self.assertIn("Top levers: Input pipeline", one_line)
        self.assertIn(kept, one_line)
        self.assertEqual(printed.count("\n\n"), 0)  # one paragraph

    def test_trainscope_after_torch(self):
        source = self.copy_data("pytorch/input_bound.pt.trace.json.gz")
        code = ("import torch, trainscope\n"
                "print(trainscope.open(%r).report()['verdict'])\n" % source)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertEqual(out.stdout.strip(), "high")

    def test_a_loop_shorter_than_the_schedule_is_an_error(self):
        with self.assertRaises(trainscope.Error) as e:
            self.train(wait=50, warmup=1, active=5)
        self.assertIn("recorded no step", str(e.exception))


if __name__ == "__main__":
    helpers.main(skip_unless_importable="torch")
