"""What the Python tests share: the repository's sample traces, copies of imported ones in a
temporary directory (an import writes its cache beside the source), and the trainscope CLI to
compare against."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACES = os.path.join(ROOT, "traces")
DATA = os.path.join(ROOT, "tests", "data")
# The exit status CTest reads as "skipped" (SKIP_RETURN_CODE in python/tests/CMakeLists.txt).
SKIP = 77


def sample(name):
    return os.path.join(TRACES, name)


def cli():
    """The trainscope program of this build (TRAINSCOPE_CLI, set by CTest)."""
    path = os.environ.get("TRAINSCOPE_CLI", os.path.join(ROOT, "build", "cli", "trainscope"))
    if not os.access(path, os.X_OK):
        raise AssertionError("the trainscope program is not built at %s (build the target "
                             "trainscope)" % path)
    return path


def run_cli(*args):
    """(exit status, stdout, stderr) of `trainscope ARGS`."""
    p = subprocess.run([cli(), *args], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="trainscope-python-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def copy_data(self, relative):
        """A copy of tests/data/RELATIVE (file or directory) in the temporary directory, without
        any import cache the repository's copy may have beside it."""
        source = os.path.join(DATA, relative)
        target = os.path.join(self.tmp, os.path.basename(relative))
        if os.path.isdir(source):
            shutil.copytree(source, target,
                            ignore=shutil.ignore_patterns("*.trainscope.db*"))
        else:
            shutil.copy(source, target)
        return target


def main(skip_unless_importable=None):
    """Runs the calling module's tests; exits SKIP when `skip_unless_importable` (a module name)
    cannot be imported, saying so."""
    if skip_unless_importable:
        try:
            __import__(skip_unless_importable)
        except ImportError as e:
            test = os.path.splitext(os.path.basename(sys.argv[0]))[0]
            print("%s: skipped: %s is not importable by %s (%s)"
                  % (test, skip_unless_importable, sys.executable, e))
            sys.exit(SKIP)
    unittest.main(module="__main__", verbosity=2)
