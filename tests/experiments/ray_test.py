#!/usr/bin/python3
"""--executor=ray against --executor=local, on a Ray started on this machine.

  - `zonekv experiment smoke --seeds=2` on both executors runs the same command
    lines and makes the same decisions per seed: the host-FTL runs' JSON is
    equal apart from timings, and every RocksDB run records the same effective
    configuration and seed (their flushes and compactions follow thread
    timing, so their counts differ between two local runs too);
  - a run lost with its Ray worker is reported and retried once;
  - a zonekv binary missing on a node is a clear error.

Usage: ray_test.py ZONEKV_BINARY. Needs Ray: it runs under the interpreter of
scripts/setup_ray.sh (build/ray-venv) or $ZONEKV_PYTHON, and exits 77
(ctest: skipped) with a message when neither has Ray.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77

try:
    import ray  # noqa: F401
except ImportError:
    python = os.environ.get("ZONEKV_PYTHON") or os.path.join(ROOT, "build", "ray-venv", "bin", "python3")
    if os.access(python, os.X_OK) and not os.environ.get("ZONEKV_RAY_TEST_REEXEC"):
        os.environ["ZONEKV_RAY_TEST_REEXEC"] = "1"
        os.execv(python, [python] + sys.argv)
    print("SKIPPED: Ray is not installed (%s has no ray): scripts/setup_ray.sh installs it into build/ray-venv "
          "(CI: ZONEKV_RAY=1)" % (python if os.access(python, os.X_OK) else sys.executable))
    sys.exit(SKIP)

sys.path.insert(0, os.path.join(ROOT, "experiments"))
sys.dont_write_bytecode = True
import executors  # noqa: E402
import run  # noqa: E402

ZONEKV = None  # set from argv
FAKE = os.path.join(HERE, "fake_zonekv.py")

# Leaf keys that are measured time or rates of it (kiops, ns per hook, us
# per victim) or the count of timing samples taken (hook_samples: a sample
# cut by preemption is dropped), not decisions.
TIMING_KEY = re.compile(r"(^kiops|_ns_per_\w+|_us_per_\w+|_per_core|_ns|_us|_s|_samples|interrupted_sections)$")


def flatten(doc, prefix=""):
    out = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.update(flatten(v, prefix + "." + k if prefix else k))
    else:
        out[prefix] = doc
    return out


def decisions(doc):
    return {k: v for k, v in flatten(doc).items() if not TIMING_KEY.search(k.rsplit(".", 1)[-1])}


class SameDecisionsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="zonekv-ray-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def experiment(self, executor):
        out = os.path.join(self.dir, executor.replace(":", "-"))
        proc = subprocess.run([ZONEKV, "experiment", "smoke", "--seeds=2", "--out=" + out, "--executor=" + executor],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout)
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        self.assertTrue(os.path.exists(os.path.join(out, "summary.md")))
        self.assertTrue(os.path.exists(os.path.join(out, "smoke_throughput.png")))
        return doc

    def test_smoke_makes_the_same_decisions_per_seed(self):
        local = self.experiment("local")
        on_ray = self.experiment("ray:local")
        self.assertEqual(on_ray["executor"], "ray:local")
        self.assertIn("ray at local", on_ray["executor_detail"])
        runs_l = {(r["label"], r["seed"]): r for r in local["runs"]}
        runs_r = {(r["label"], r["seed"]): r for r in on_ray["runs"]}
        self.assertEqual(sorted(runs_l), sorted(runs_r))
        ftl_compared = 0
        for key, a in runs_l.items():
            b = runs_r[key]
            self.assertIsNone(a["error"], key)
            self.assertIsNone(b["error"], key)
            self.assertEqual(a["argv"], b["argv"], key)
            self.assertEqual(a["json"]["config"], b["json"]["config"], key)
            if a["argv"][1] == "ftl":
                da, db = decisions(a["json"]), decisions(b["json"])
                self.assertIn("results.steady.waf", da)
                self.assertIn("results.measured.gc_victims", da)
                self.assertEqual(da, db, key)
                ftl_compared += 1
            else:
                self.assertEqual(a["json"]["workload"]["ops"], b["json"]["workload"]["ops"], key)
        self.assertEqual(ftl_compared, 2)
        # Different seeds do make different decisions (the comparison can fail).
        self.assertNotEqual(decisions(runs_l[("host-ftl ccb", 1)]["json"])["results.measured.gc_writes"],
                            decisions(runs_l[("host-ftl ccb", 2)]["json"])["results.measured.gc_writes"])


class RayFailureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="zonekv-ray-test-")
        cls.logdir = os.path.join(cls.dir, "logs")
        os.makedirs(cls.logdir)
        cls.ex = executors.RayExecutor(cls.logdir, "local", 1)

    @classmethod
    def tearDownClass(cls):
        cls.ex.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def sweep(self, zonekv, runs):
        said = []
        return run.sweep(runs, self.ex, self.logdir, 1.0, zonekv, 120, said.append), "\n".join(said)

    def test_run_lost_with_its_worker_is_retried_once(self):
        state = os.path.join(self.dir, "state-killer")
        (r,), said = self.sweep(FAKE, [{"label": "killer", "scheme": "", "seed": 1,
                                        "cmd": ["x", "--mode=killer", "--state=" + state]}])
        self.assertIsNone(r["error"])
        self.assertEqual(r["attempts"], 2)
        self.assertIn("lost on the Ray cluster", r["first_attempt"]["error"])
        self.assertIn("retrying once", said)
        self.assertEqual(r["json"]["workload"]["ops"], 1)

    def test_binary_missing_on_the_node(self):
        missing = os.path.join(self.dir, "no-such-dir", "zonekv")
        (r,), said = self.sweep(missing, [{"label": "missing", "scheme": "", "seed": 1, "cmd": ["ftl", "synth"]}])
        self.assertIn(missing + " is missing on node", r["error"])
        self.assertIn("same path", r["error"])
        self.assertEqual(r["attempts"], 2)
        with open(r["log"]) as f:
            self.assertIn("is missing on node", f.read())


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        print("usage: ray_test.py ZONEKV_BINARY", file=sys.stderr)
        sys.exit(2)
    ZONEKV = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
