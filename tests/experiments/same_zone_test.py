#!/usr/bin/python3
"""The same-zone experiment's summary (experiments/exps/same-zone.py) on
made-up results (no zonekv runs): a run cut down with --only reports only
the schemes and workloads that ran, and compares only pairs that both ran."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
sys.dont_write_bytecode = True

import run as runner  # noqa: E402  (loads experiments as it does for a user)

sz = runner.load_experiment("same-zone")


def run(scheme, workload, ops, zc_mib, seed=1):
    doc = {"workload": {"ops": 1000, "ops_per_sec": ops, "put_us_avg": 10.0},
           "fs": {"zc_copy_bytes": {"sst": zc_mib * 1024 * 1024}, "ezrc": 100}}
    return {"label": "%s %s" % (scheme, workload), "scheme": scheme, "workload": workload, "part": "schemes",
            "seed": seed, "wall_s": 1.0, "json": doc}


class SameZoneSummaryTest(unittest.TestCase):
    def test_a_cut_down_run_reports_only_what_ran(self):
        results = [run("baseline", "fillrandom", 10000, 100), run("a-caza", "fillrandom", 12000, 30)]
        text = sz.summarize(results, 1 / 128)
        self.assertIn("| baseline fillrandom | 1 |", text)
        self.assertIn("| a-caza fillrandom | 1 |", text)
        for absent in ("s-liza", "n-caza", "h-caza", "a-liza", "### zipfian", "turning point sweep"):
            self.assertNotIn(absent, text)
        # a-caza against the baseline, both ran: throughput 1.2x, ZC copy 0.3x.
        self.assertIn("### a-caza / baseline", text)
        self.assertIn("| PUT throughput | 1.16 | 1.200 | agrees |", text)
        self.assertIn("| ZC copy | 0.30 | 0.300 | agrees |", text)

    def test_the_hybrid_with_the_kill_score_is_compared_with_the_baseline(self):
        results = [run("baseline", "zipfian", 10000, 100), run("h-caza+", "zipfian", 9500, 40)]
        text = sz.summarize(results, 1 / 128)
        self.assertIn("### h-caza+ / baseline", text)
        self.assertIn("| ZC copy | 0.30 | 0.400 |", text)
        self.assertNotIn("### h-caza / baseline", text)

    def test_no_comparison_without_its_reference(self):
        text = sz.summarize([run("a-caza", "zipfian", 5000, 10)], 1 / 128)
        self.assertIn("| a-caza zipfian | 1 |", text)
        self.assertNotIn("### a-caza /", text)


if __name__ == "__main__":
    unittest.main()
