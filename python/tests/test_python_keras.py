"""trainscope.keras.Verdict in a Keras fit() (where tensorflow is importable; CTest reports the
test as skipped elsewhere): a model fed by a slow tf.data pipeline is input-bound, and the
callback profiles the batches asked for and prints the verdict when fit() ends."""

import io
import os
import subprocess
import sys
import time
import unittest

import helpers

import trainscope

BATCH_SLEEP_S = 0.02  # each batch takes this long to make: the model waits for input


class KerasVerdictTest(helpers.TempDirTest):
    def fit(self, profile_batch, epochs=2, steps=8):
        import numpy as np
        import tensorflow as tf

        import trainscope.keras

        def slow_batch(x, y):
            def wait(x):
                time.sleep(BATCH_SLEEP_S)
                return x

            x = tf.numpy_function(wait, [x], tf.float32)
            x.set_shape([None, 16])
            return x, y

        rng = np.random.default_rng(0)
        x = rng.standard_normal((steps * 16, 16)).astype("float32")
        y = rng.integers(0, 4, steps * 16)
        data = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).map(slow_batch)
        model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(32, "relu"),
                                     tf.keras.layers.Dense(4)])
        model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        out = io.StringIO()
        verdict = trainscope.keras.Verdict(profile_batch=profile_batch,
                                           log_dir=os.path.join(self.tmp, "logs"), file=out)
        model.fit(data, epochs=epochs, callbacks=[verdict], verbose=0)
        return verdict, out.getvalue()

    def test_fit_prints_the_verdict_of_the_profiled_batches(self):
        verdict, printed = self.fit(profile_batch=(3, 10))
        self.assertTrue(os.path.isdir(os.path.join(self.tmp, "logs", "plugins", "profile")))
        report = verdict.trace.report()
        self.assertEqual(report["source"]["format"], "xplane")
        self.assertGreaterEqual(report["phases"]["whole_run"]["steps"], 6)
        self.assertEqual(report["verdict"], "high")
        self.assertEqual(printed.strip(), verdict.summary)
        one_line = " ".join(printed.split())
        self.assertIn(" ".join(verdict.trace.verdict().split()), one_line)
        self.assertIn(os.path.join(self.tmp, "logs"), one_line)

    def test_a_range_past_the_end_of_fit_is_an_error(self):
        with self.assertRaises(trainscope.Error) as e:
            self.fit(profile_batch=(100, 110))
        self.assertIn("nothing was profiled", str(e.exception))

    def test_trainscope_after_tensorflow(self):
        # Both carry TensorFlow's profiler protobuf messages: imported after TensorFlow,
        # trainscope must still load and read a TensorFlow profile.
        logdir = self.copy_data("tensorflow/naive")
        code = ("import tensorflow, trainscope\n"
                "print(trainscope.open(%r).report()['source']['format'])\n" % logdir)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertEqual(out.stdout.strip(), "xplane")

    def test_a_bad_range_is_an_error(self):
        import trainscope.keras

        for bad in ((0, 3), (5, 2), "3-5"):
            with self.assertRaises(trainscope.Error):
                trainscope.keras.Verdict(profile_batch=bad)


if __name__ == "__main__":
    helpers.main(skip_unless_importable="tensorflow")
