#!/usr/bin/python3
"""The experiment runner's failure handling, on the local executor, with a
stand-in for zonekv (fake_zonekv.py): a failed run is reported with its log
and retried once; a run's own error (JSON "error") is not retried; partial
results are kept; rerunning into the same directory skips runs already done.
No Ray needed (tests/experiments/ray_test.py compares Ray with local)."""

import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
sys.dont_write_bytecode = True

import executors  # noqa: E402
import run  # noqa: E402

FAKE = os.path.join(HERE, "fake_zonekv.py")


def calls(state):
    path = os.path.join(state, "calls")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return len(f.readlines())


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="zonekv-runner-test-")
        self.logdir = os.path.join(self.dir, "logs")
        os.makedirs(self.logdir)
        self.said = []

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_spec(self, label, mode, seed=1):
        state = os.path.join(self.dir, "state-%s-%d" % (label, seed))
        return {"label": label, "scheme": "", "seed": seed,
                "cmd": ["synth", "--mode=" + mode, "--state=" + state, "--seed=%d" % seed]}, state

    def sweep(self, runs, jobs=2):
        ex = executors.LocalExecutor(self.logdir, jobs)
        try:
            return run.sweep(runs, ex, self.logdir, 1.0, FAKE, 60, self.said.append)
        finally:
            ex.close()

    def test_failed_run_is_reported_with_its_log_and_retried_once(self):
        spec, state = self.run_spec("flaky", "flaky")
        (r,) = self.sweep([spec])
        self.assertIsNone(r["error"])
        self.assertEqual(calls(state), 2)
        self.assertEqual(r["attempts"], 2)
        self.assertIn("exit status 3", r["first_attempt"]["error"])
        # The first attempt's log is kept and its end was printed.
        with open(r["first_attempt"]["log"]) as f:
            self.assertIn("boom: first attempt", f.read())
        said = "\n".join(self.said)
        self.assertIn("retrying once", said)
        self.assertIn("boom: first attempt", said)
        self.assertEqual(r["json"]["workload"]["ops"], 1)

    def test_run_killed_by_a_signal_is_named_and_retried(self):
        spec, state = self.run_spec("terminated", "terminated")
        (r,) = self.sweep([spec])
        self.assertIsNone(r["error"])
        self.assertEqual(calls(state), 2)
        self.assertIn("killed by signal 15 (SIGTERM)", r["first_attempt"]["error"])

    def test_run_failing_twice_is_reported_and_the_others_kept(self):
        bad, bad_state = self.run_spec("broken", "broken")
        good, _ = self.run_spec("good", "ok")
        results = self.sweep([bad, good])
        self.assertEqual(calls(bad_state), 2)  # once, then once more: no further retries
        self.assertIn("exit status 4", results[0]["error"])
        self.assertEqual(results[0]["attempts"], 2)
        self.assertIn("broken forever", "\n".join(self.said))
        self.assertIsNone(results[1]["error"])
        self.assertEqual(results[1]["attempts"], 1)

    def test_a_runs_own_error_is_not_retried(self):
        spec, state = self.run_spec("full", "nospace")
        (r,) = self.sweep([spec])
        self.assertEqual(calls(state), 1)
        self.assertIn("NoSpace", r["error"])
        self.assertEqual(r["attempts"], 1)
        self.assertIsNotNone(r["json"])

    def test_running_out_of_space_fails_a_run_only_where_it_is_not_measured(self):
        measured, _ = self.run_spec("fill 80%", "nospace")
        measured["no_space_ok"] = True
        unexpected, _ = self.run_spec("fillrandom", "nospace")
        other_error, _ = self.run_spec("fill 70%", "ioerror")
        other_error["no_space_ok"] = True
        good, _ = self.run_spec("good", "ok")
        results = self.sweep([measured, unexpected, other_error, good])
        self.assertEqual([r["outcome"] for r in results], ["no_space", "no_space", "failed", "completed"])
        self.assertEqual([run.is_failure(r) for r in results], [False, True, True, False])
        self.assertIn("NoSpace", results[0]["error"])  # the message stays for the summary

    def test_rerun_skips_runs_done_and_redoes_the_rest(self):
        good, good_state = self.run_spec("good", "ok")
        bad, bad_state = self.run_spec("broken", "broken")
        first = self.sweep([good, bad])
        self.assertEqual((calls(good_state), calls(bad_state)), (1, 2))
        second = self.sweep([good, bad])
        # The successful run is reused, with its JSON; the failed one runs again.
        self.assertEqual((calls(good_state), calls(bad_state)), (1, 4))
        self.assertTrue(second[0]["reused"])
        self.assertEqual(second[0]["json"], first[0]["json"])
        self.assertEqual(second[0]["argv"], first[0]["argv"])
        self.assertFalse(second[1]["reused"])
        self.assertIn("1 of 2 runs already done", "\n".join(self.said))
        # A different command line for the same run is not "done".
        changed = dict(good, cmd=good["cmd"] + ["--extra=1"])
        (third,) = self.sweep([changed])
        self.assertEqual(calls(good_state), 2)
        self.assertFalse(third["reused"])

    def test_a_rebuilt_binary_reruns_everything(self):
        binary = os.path.join(self.dir, "zonekv")
        shutil.copy(FAKE, binary)
        spec, state = self.run_spec("good", "ok")
        ex = executors.LocalExecutor(self.logdir, 1)
        try:
            run.sweep([spec], ex, self.logdir, 1.0, binary, 60, self.said.append)
            run.sweep([spec], ex, self.logdir, 1.0, binary, 60, self.said.append)
            self.assertEqual(calls(state), 1)
            with open(binary, "a") as f:
                f.write("# rebuilt\n")
            (r,) = run.sweep([spec], ex, self.logdir, 1.0, binary, 60, self.said.append)
        finally:
            ex.close()
        self.assertEqual(calls(state), 2)
        self.assertFalse(r["reused"])

    def test_retried_then_done_run_is_skipped_later(self):
        spec, state = self.run_spec("flaky", "flaky")
        self.sweep([spec])
        (again,) = self.sweep([spec])
        self.assertEqual(calls(state), 2)
        self.assertTrue(again["reused"])
        self.assertEqual(again["attempts"], 2)


class CommandLineTest(unittest.TestCase):
    """run.py end to end on the `smoke` experiment, whose ycsb-a runs the
    stand-in fails: everything that can be written is, and exit status is 1."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="zonekv-runner-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def main(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = run.main(["--zonekv=" + FAKE, "--src=" + ROOT, "smoke", "--out=" + self.dir, "--seeds=2"] +
                          list(extra))
        return rc, err.getvalue()

    def test_partial_results_are_kept_and_a_rerun_reuses_them(self):
        rc, err = self.main()
        self.assertEqual(rc, 1)
        with open(os.path.join(self.dir, "results.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["executor"], "local")
        errors = {(r["label"], r["seed"]): r["error"] for r in doc["runs"]}
        self.assertEqual(len(errors), 6)
        failed = sorted(k for k, e in errors.items() if e)
        self.assertEqual(failed, [("baseline ycsb-a", 1), ("baseline ycsb-a", 2)])
        with open(os.path.join(self.dir, "summary.md")) as f:
            summary = f.read()
        self.assertIn("## Failed runs", summary)
        self.assertIn("baseline ycsb-a seed 2", summary)
        self.assertIn("retrying once", err)
        # 4 runs succeeded: a rerun into the same directory runs only the 2 others (twice each).
        calls_before = calls(os.path.join(self.dir, "logs"))
        rc, err = self.main()
        self.assertEqual(rc, 1)
        self.assertIn("4 of 6 runs already done", err)
        self.assertEqual(calls(os.path.join(self.dir, "logs")) - calls_before, 4)

    def test_first_seed_runs_the_later_seeds_only(self):
        rc, _ = self.main("--first_seed=3")
        with open(os.path.join(self.dir, "results.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["first_seed"], 3)
        self.assertEqual(sorted({r["seed"] for r in doc["runs"]}), [3, 4])
        self.assertEqual(len(doc["runs"]), 6)
        with self.assertRaises(run.UsageError) as cm:
            self.main("--first_seed=0")
        self.assertIn("--first_seed=0", str(cm.exception))

    def test_bad_executor_is_a_usage_error(self):
        with self.assertRaises(run.UsageError) as cm:
            self.main("--executor=spark")
        self.assertIn("--executor=spark", str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
