#!/usr/bin/python3
"""The fill experiment's module (experiments/exps/fill.py): its run matrix,
with the device-size sweep at 70% live data, and its summary on made-up
results (no zonekv runs)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
sys.dont_write_bytecode = True

import run as runner  # noqa: E402  (loads experiments as it does for a user)

fill = runner.load_experiment("fill")


def flag(run, name):
    values = [a.split("=", 1)[1] for a in run["args"] if a.startswith("--" + name + "=")]
    return values[0] if len(values) == 1 else None


def result(run, ops, error=None, value_bytes=16384):
    doc = {"workload": {"ops": ops, "ops_per_sec": 100.0},
           "fs": {"host_write_bytes": 3 * ops * (value_bytes + 16), "dlwa": 1.0, "zc_copy_bytes": {"blob": 0}},
           "rocksdb": {"blobgc_copy_bytes": 0}}
    r = dict(run, json=doc, wall_s=1.0)
    if error:
        r["error"] = error
        r["outcome"] = "no_space"
    return r


class FillTest(unittest.TestCase):
    def test_larger_devices_run_the_level_with_the_same_zones_and_files(self):
        scale = 1 / 16
        runs = fill.runs(scale, 2)
        self.assertEqual(len({(r["label"], r["seed"]) for r in runs}), len(runs))
        base = [r for r in runs if r["zones"] == fill.ZONES]
        self.assertEqual(len(base), len(fill.LEVELS) * len(fill.SCHEMES) * 2)
        ref = [r for r in base if r["level"] == fill.SIZE_LEVEL and r["scheme"] == "coop"][0]
        for zones in fill.SIZE_ZONES:
            sized = [r for r in runs if r["zones"] == zones and r["axis"] is None]
            self.assertEqual(len(sized), len(fill.SIZE_SCHEMES) * 2)
            for r in sized:
                self.assertEqual(r["level"], fill.SIZE_LEVEL)
                self.assertIn("zones=%d," % zones, flag(r, "device"))
                # The zone size, blob files and memtables are the 64-zone device's.
                self.assertEqual(flag(r, "device").split(",")[1:], flag(ref, "device").split(",")[1:])
                for name in ("blob_file_size", "write_buffer_size", "value_size", "workload"):
                    self.assertEqual(flag(r, name), flag(ref, name), name)
                # The same share of a device zones/64 times larger.
                self.assertEqual(int(flag(r, "num")), fill._num(fill.SIZE_LEVEL, scale, zones))
                self.assertAlmostEqual(int(flag(r, "num")) / int(flag(ref, "num")), zones / fill.ZONES, places=3)

    def test_the_summary_shows_each_device_size_apart(self):
        scale = 1 / 16
        runs = [r for r in fill.runs(scale, 1) if r["level"] == fill.SIZE_LEVEL and r["scheme"] == "coop"]
        small = [r for r in runs if r["zones"] == fill.ZONES][0]
        large = [r for r in runs if r["zones"] == 256][0]
        planned = int(flag(small, "num")) * len(fill.PASSES)
        results = [result(small, 1234, error="NoSpace: no zone"), result(large, int(flag(large, "num")) * 4)]
        text = fill.summarize(results, scale)
        self.assertIn("| 70%% | coop | 0/1 completed; NoSpace after 1234 of %d ops |" % planned, text)
        self.assertIn("| 64 x 4M | coop | 0/1 completed; NoSpace after 1234 of %d ops |" % planned, text)
        self.assertIn("| 256 x 4M | coop | 1/1 completed |", text)
        self.assertNotIn("128 x 4M", text)  # did not run
        # Without a larger device's run, no second table; without a 64-zone run, no first.
        self.assertNotIn("larger devices", fill.summarize(results[:1], scale))
        only_large = fill.summarize(results[1:], scale)
        self.assertNotIn("| live data |", only_large)
        self.assertIn("| 256 x 4M | coop | 1/1 completed |", only_large)

    def test_each_axis_run_changes_one_setting_of_the_large_device(self):
        scale = 1 / 16
        runs = fill.runs(scale, 2)
        base = [r for r in runs if r["zones"] == fill.AXIS_ZONES and r["axis"] is None and r["seed"] == 1][0]
        axis_runs = [r for r in runs if r["axis"] is not None]
        self.assertEqual(len(axis_runs), len(fill.AXES) * len(fill.SIZE_SCHEMES) * 2)
        names = ("device", "blob_file_size", "write_buffer_size", "value_size", "num", "workload", "scheme")
        changed = {}
        for r in axis_runs:
            self.assertEqual(r["level"], fill.SIZE_LEVEL)
            self.assertIn(r["axis"], r["label"])
            diff = [n for n in names if flag(r, n) != flag(base, n)]
            changed[r["axis"]] = diff
            self.assertEqual(int(flag(r, "num")), fill._num(fill.SIZE_LEVEL, scale, fill.AXIS_ZONES,
                                                             int(flag(r, "value_size"))))
        # Values change the key count with them (the same live bytes); nothing else changes more than one flag.
        self.assertEqual(changed["4 KiB values"], ["value_size", "num"])
        self.assertEqual(int(flag(base, "num")) * 4, int(flag([r for r in axis_runs if r["axis"] == "4 KiB values"][0],
                                                               "num")))
        self.assertEqual(changed["32 KiB values"], ["value_size", "num"])
        self.assertEqual(changed["open/active 8"], ["device"])
        self.assertIn("max_open=8,max_active=8", flag([r for r in axis_runs if r["axis"] == "open/active 8"][0],
                                                      "device"))
        self.assertEqual(changed["16 MiB blob files"], ["blob_file_size"])
        self.assertEqual(flag([r for r in axis_runs if r["axis"] == "16 MiB blob files"][0], "blob_file_size"), "1M")

    def test_the_summary_shows_each_axis_apart_with_its_own_value_size(self):
        scale = 1 / 16
        runs = [r for r in fill.runs(scale, 1) if r["zones"] == fill.AXIS_ZONES]
        base = [r for r in runs if r["axis"] is None][0]
        small = [r for r in runs if r["axis"] == "4 KiB values"][0]
        narrow = [r for r in runs if r["axis"] == "open/active 8"][0]
        results = [result(base, int(flag(base, "num")) * 4),
                   result(small, int(flag(small, "num")) * 4, value_bytes=4096),
                   result(narrow, 777, error="NoSpace: no zone")]
        text = fill.summarize(results, scale)
        self.assertIn("one setting changed at a time", text)
        self.assertIn("| none | coop | 1/1 completed |", text)
        # WA over the run's own value size: 3.00, not a quarter of it.
        self.assertRegex(text, r"\| 4 KiB values \| coop \| 1/1 completed \| [^|]+ \| 3\.000 \|")
        self.assertIn("| open/active 8 | coop | 0/1 completed; NoSpace after 777 of", text)
        self.assertNotIn("32 KiB values", text)  # did not run
        # The axis runs are not mistaken for the device-size table's 256-zone cell.
        self.assertEqual(text.count("| 256 x 4M | coop | 1/1 completed |"), 1)
        self.assertNotIn("one setting changed", fill.summarize(results[:1], scale))


if __name__ == "__main__":
    unittest.main()
