"""trainscope.torch.profile: PyTorch's profiler around a training loop, then trainscope's verdict.

    import trainscope.torch
    with trainscope.torch.profile(wait=1, warmup=1, active=5) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

On leaving the block the Kineto trace torch.profiler wrote is imported and one paragraph printed:
the verdict, the top levers, where the trace is kept. prof.trace is then the trainscope.Trace.
"""

import os
import socket
import sys
import time

import trainscope

from .summary import paragraph

DEFAULT_DIR = "trainscope_profile"


class profile:
    """A context manager around torch.profiler.profile with a schedule: skips `wait` steps,
    warms up for `warmup`, records `active` (`repeat` cycles; 0: until the block ends), each
    cycle written to DIR/WORKER.MILLISECONDS.pt.trace.json as tensorboard_trace_handler names
    it (TensorBoard's profiler plugin reads the folder too). Call step() once per training
    step. Other keyword arguments go to torch.profiler.profile (activities, record_shapes,
    profile_memory, with_stack, ...). `step_marker` is trainscope's --step-marker, for loops
    that mark their steps with a record_function of their own instead of calling step()."""

    def __init__(self, dir=DEFAULT_DIR, *, wait=1, warmup=1, active=5, repeat=1,
                 worker_name=None, step_marker=None, verbose=True, file=None, **profiler_args):
        import torch.profiler  # here, so that `import trainscope` never needs torch

        self._torch_profiler = torch.profiler
        self.dir = os.fspath(dir)
        self.schedule = dict(wait=wait, warmup=warmup, active=active, repeat=repeat)
        self.worker_name = worker_name or "%s_%d" % (socket.gethostname(), os.getpid())
        self.step_marker = step_marker
        self.verbose = verbose
        self.file = file
        self.profiler_args = profiler_args
        self.written = []  # the trace files written, in order
        self.trace = None  # the trainscope.Trace of the last one, after the block
        self.summary = None  # the paragraph printed
        self.profiler = None  # the torch.profiler.profile

    def _write(self, prof):
        os.makedirs(self.dir, exist_ok=True)
        name = "%s.%d.pt.trace.json" % (self.worker_name, int(time.time() * 1000))
        path = os.path.join(self.dir, name)
        prof.export_chrome_trace(path)
        self.written.append(path)

    def __enter__(self):
        tp = self._torch_profiler
        self.profiler = tp.profile(schedule=tp.schedule(**self.schedule),
                                   on_trace_ready=self._write, **self.profiler_args)
        self.profiler.__enter__()
        return self

    def step(self):
        """Marks the end of a training step (torch.profiler.profile.step)."""
        self.profiler.step()

    def __exit__(self, exc_type, exc, tb):
        self.profiler.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return False
        if not self.written:
            raise trainscope.Error(
                "the profiler recorded no step: call step() once per training step (the "
                "schedule waits %(wait)d steps and warms up for %(warmup)d before it records)"
                % self.schedule)
        self.trace = trainscope.open(self.written[-1], step_marker=self.step_marker)
        self.summary = paragraph(self.trace, kept=self.written[-1])
        if self.verbose:
            print(self.summary, file=self.file or sys.stdout, flush=True)
        return False
