#!/usr/bin/python3
"""The coop experiment's module (experiments/exps/coop.py): the run matrix it
builds and the ratios its summary computes, on made-up results (no zonekv
runs)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
sys.dont_write_bytecode = True

import run as runner  # noqa: E402  (loads experiments as it does for a user)

coop = runner.load_experiment("coop")


def doc(ops_per_sec, writes=1000, host=4_000_000, pad=0, value=1024):
    return {"config": {"workload": {"key_size": 16, "value_size": value, "phases": ["run"]}},
            "workload": {"ops_per_sec": ops_per_sec, "ops": writes, "writes": writes, "mb_per_sec": 1.0},
            "fs": {"ezrc": 10, "device": {"host_write_bytes": host, "finish_pad_bytes": pad},
                   "zc_copy_bytes": {"blob": 0, "sst": 0, "wal": 0, "other": 0}}}


class CoopTest(unittest.TestCase):
    def test_every_scheme_runs_every_workload_with_only_its_own_policies(self):
        runs = coop.runs(1.0, 2)
        workloads = {r["workload"] for r in runs}
        self.assertEqual(len(workloads), 5)
        self.assertEqual(len(runs), 5 * len(coop.SCHEMES) * 2)
        self.assertEqual(len({(r["label"], r["seed"]) for r in runs}), len(runs))
        for r in runs:
            schemes = [a for a in r["args"] if a.startswith("--scheme=")]
            self.assertEqual(schemes, ["--scheme=" + r["scheme"]])
            policy = [a for a in r["args"] if a.startswith(coop.POLICY_FLAGS)]
            self.assertEqual(policy, [], r["label"])
            self.assertEqual(len([a for a in r["args"] if a.startswith("--scale=")]), 1)
        # The paper experiments' environment flags are what got dropped.
        # Same-Victim's and GC-vs-GC-free's workloads run at 4x their experiments' default scale.
        wla = [r for r in runs if r["workload"].startswith("Same-Victim")][0]
        self.assertIn("--scale=0.0625", wla["args"])
        far = [r for r in runs if r["workload"].startswith("FAR")][0]
        self.assertNotIn("--zc=greedy", far["args"])
        self.assertTrue(any(a.startswith("--device=") and "timing=cosmos" in a for a in far["args"]))

    def test_ratios_are_to_the_baseline_and_failed_runs_do_not_count(self):
        w = coop._workloads(1.0)[0][0]
        results = [
            {"scheme": "baseline", "workload": w, "seed": 1, "json": doc(100, host=4_000_000)},
            {"scheme": "coop", "workload": w, "seed": 1, "json": doc(150, host=2_000_000, pad=1_040_000)},
            # A run that stopped early: its throughput compares with nothing.
            {"scheme": "coop", "workload": w, "seed": 2, "json": doc(1), "error": "NoSpace"},
        ]
        self.assertAlmostEqual(coop._ratio(results, "coop", w, coop._tput), 1.5)
        # device WA = (host + padding) / (writes x (key + value)): 3.04 MB / 1.04 MB vs 4 MB / 1.04 MB.
        self.assertAlmostEqual(coop._device_wa(results[1]["json"]), 3_040_000 / 1_040_000)
        self.assertAlmostEqual(coop._ratio(results, "coop", w, coop._device_wa), 3_040_000 / 4_000_000)
        self.assertEqual(coop._failed(results, "coop", w), (1, 2))
        text = coop.summarize(results, 1.0)
        self.assertIn("| 1/2 | 150", text)

    def test_a_cut_down_matrix_has_rows_only_for_what_ran(self):
        wls = [w[0] for w in coop._workloads(1.0)]
        results = [
            {"scheme": "baseline", "workload": wls[0], "seed": 1, "json": doc(100, host=4_000_000)},
            {"scheme": "coop", "workload": wls[0], "seed": 1, "json": doc(150, host=2_000_000)},
        ]
        text = coop.summarize(results, 1.0)
        self.assertIn("| %s | baseline | 1/1 |" % wls[0], text)
        self.assertIn("|  | coop | 1/1 | 150", text)
        for w in wls[1:]:
            self.assertNotIn(w, text)
        self.assertNotIn("a-caza", text)
        self.assertNotIn("0/0", text)

    def test_a_row_whose_baseline_never_completed_compares_operations_done(self):
        w = coop._workloads(1.0)[-1][0]
        results = [
            {"scheme": "baseline", "workload": w, "seed": 1, "json": doc(500, writes=100), "error": "NoSpace"},
            {"scheme": "coop", "workload": w, "seed": 1, "json": doc(50, writes=400)},
        ]
        suffix, ratios = coop._row(results, w, coop._tput, ops_fallback=True)
        self.assertEqual(suffix, " (ops done)")
        self.assertAlmostEqual(ratios[coop.SCHEMES.index("coop")], 4.0)
        _, wa = coop._row(results, w, coop._device_wa, ops_fallback=False)
        self.assertNotEqual(wa[coop.SCHEMES.index("coop")], wa[coop.SCHEMES.index("coop")])  # NaN: nothing to compare


if __name__ == "__main__":
    unittest.main()
