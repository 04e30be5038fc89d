"""trainscope.keras.Verdict: a Keras callback that profiles some training steps with
TensorFlow's profiler and prints trainscope's verdict when fit() ends.

    import trainscope.keras
    model.fit(x, y, epochs=2, callbacks=[trainscope.keras.Verdict(profile_batch=(10, 20))])
"""

import os
import sys

import tensorflow as tf

import trainscope

from .summary import paragraph

DEFAULT_DIR = "trainscope_profile"


class Verdict(tf.keras.callbacks.Callback):
    """Profiles the training batches profile_batch=(first, last) (counted from 1 over the whole
    fit, as the TensorBoard callback counts them) with tf.profiler.experimental into `log_dir`
    (a TensorBoard log directory: plugins/profile/RUN/HOST.xplane.pb), then, when fit() ends,
    imports that profile and prints one paragraph: the verdict, the top levers, where the
    profile is kept. self.trace is then the trainscope.Trace."""

    def __init__(self, profile_batch=(10, 20), log_dir=DEFAULT_DIR, *, step_marker=None,
                 verbose=True, file=None):
        super().__init__()
        try:
            first, last = (int(b) for b in profile_batch)
        except (TypeError, ValueError):
            raise trainscope.Error("profile_batch takes (first, last) batch numbers, not %r"
                                   % (profile_batch,)) from None
        if first < 1 or last < first:
            raise trainscope.Error("profile_batch=(%d, %d) is not a range of batches counted "
                                   "from 1" % (first, last))
        self.first, self.last = first, last
        self.log_dir = os.fspath(log_dir)
        self.step_marker = step_marker
        self.verbose = verbose
        self.file = file
        self.trace = None
        self.summary = None
        self._batch = 0  # batches begun, over every epoch
        self._profiling = False
        self._profiled = False

    def on_train_batch_begin(self, batch, logs=None):
        self._batch += 1
        if self._batch == self.first and not self._profiled:
            tf.profiler.experimental.start(self.log_dir)
            self._profiling = True

    def on_train_batch_end(self, batch, logs=None):
        if self._profiling and self._batch >= self.last:
            self._stop()

    def _stop(self):
        tf.profiler.experimental.stop()
        self._profiling = False
        self._profiled = True

    def on_train_end(self, logs=None):
        if self._profiling:  # fit ended inside the range: keep what was recorded
            self._stop()
        if not self._profiled:
            raise trainscope.Error(
                "fit() ended after %d batches, before batch %d where profile_batch=(%d, %d) "
                "starts: nothing was profiled" % (self._batch, self.first, self.first, self.last))
        self.trace = trainscope.open(self.log_dir, step_marker=self.step_marker)
        self.summary = paragraph(self.trace, kept=self.log_dir)
        if self.verbose:
            print(self.summary, file=self.file or sys.stdout, flush=True)
