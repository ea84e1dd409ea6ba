#!/usr/bin/python3
"""The ccb experiment's summary (experiments/exps/ccb.py) on made-up results
(no zonekv runs): a sweep cut down with --only reports only the policies
that ran, and claims nothing about a policy that did not."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
sys.dont_write_bytecode = True

import run as runner  # noqa: E402  (loads experiments as it does for a user)

ccb = runner.load_experiment("ccb")


def run(policy, gb, ns, waf):
    steady = {"policy_ns_per_io": ns, "waf": waf, "maintenance_ns_per_hook": ns / 2, "hooks_per_io": 0.8,
              "selection_us_per_victim": 0.5, "maintenance_ns_per_io": ns / 2, "selection_ns_per_io": ns / 2}
    return {"sweep": "size", "policy": policy, "scheme": policy, "x": gb, "seed": 1, "wall_s": 1.0,
            "json": {"results": {"steady": steady}}}


class CcbSummaryTest(unittest.TestCase):
    def test_a_cut_down_sweep_reports_only_the_policies_that_ran(self):
        results = [run("ccb", 100, 10.0, 3.0), run("ccb", 2000, 10.5, 2.9)]
        text = ccb.summarize(results, 0.01)
        self.assertIn("| ccb | 10.0 | 10.5 |", text)
        for p in ("greedy", "approx-cb", "fegc", "fast-cb"):
            self.assertNotIn("| %s |" % p, text)
        # No cost-benefit run: no verdict on CCB's WAF against it.
        self.assertNotIn("CCB / CB", text)
        self.assertIn("max/min - 1 = 5%", text)

    def test_ccb_against_cost_benefit_where_both_ran(self):
        results = [run("ccb", 100, 10.0, 3.03), run("cost-benefit", 100, 40.0, 3.0)]
        text = ccb.summarize(results, 0.01)
        self.assertIn("| ccb / cost-benefit | 1.0100 |", text)
        self.assertIn("Largest |CCB / CB - 1| = 1.00%", text)


if __name__ == "__main__":
    unittest.main()
