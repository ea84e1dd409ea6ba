#!/usr/bin/env python3
"""Summarizes the QEMU ZNS guest runs of scripts/qemu_test.sh as one JSON document.

Usage: qemu/summarize.py OUT_DIR CONFIG...

For each OUT_DIR/CONFIG:
  conformance/  the conformance guest: host timing (host.env), guest boot
                time (console.log), guest facts (share/facts.env), the
                GoogleTest report (share/zbd_test.json: counts and every
                failure) and zone commands counted from QEMU's own trace
                (qemu-trace.log), independent of zonekv
  bench/        the bench guest: the same, plus share/bench.json
  emulator_bench.json   the same bench on the host's emulator
and a side-by-side table of the bench metrics of the guest and the emulator.
"""
import collections
import json
import os
import re
import sys

# (name in the table, path in a bench JSON document)
BENCH_METRICS = [
    ("ops_per_sec", ("workload", "ops_per_sec")),
    ("mb_per_sec", ("workload", "mb_per_sec")),
    ("elapsed_s", ("workload", "elapsed_s")),
    ("put_us_p99", ("workload", "put_us_p99")),
    ("host_write_bytes", ("fs", "host_write_bytes")),
    ("zc_copy_bytes", ("fs", "zc_copy_bytes", "total")),
    ("resets_runtime", ("fs", "resets_runtime")),
    ("resets_zc", ("fs", "resets_zc")),
    ("ezrc", ("fs", "ezrc")),
    ("r_wp", ("fs", "r_wp")),
    ("fs_waf", ("fs", "fs_waf")),
    ("space_used_ratio_end", ("fs", "space_used_ratio_end")),
    ("device_resets", ("fs", "device", "resets")),
    ("device_finishes", ("fs", "device", "finishes")),
    ("blobgc_copy_bytes", ("rocksdb", "blobgc_copy_bytes")),
    ("compaction_count", ("rocksdb", "compaction_count")),
    ("flush_count", ("rocksdb", "flush_count")),
]


def read_env(path):
    values = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, sep, value = line.strip().partition("=")
                if sep:
                    values[key] = value.strip("'")
    return values


def read_json(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def gtest_summary(path):
    report = read_json(path)
    if report is None:
        return {"error": "no GoogleTest report (the suite did not run to the end)"}
    passed, skipped, failed = 0, [], []
    for suite in report.get("testsuites", []):
        for test in suite.get("testsuite", []):
            name = suite["name"] + "." + test["name"]
            if test.get("failures"):
                failed.append({"test": name, "failures": [x["failure"] for x in test["failures"]]})
            elif test.get("result") == "SKIPPED":
                skipped.append(name)
            else:
                passed += 1
    return {"passed": passed, "skipped": skipped, "failed": failed}


def trace_counts(path):
    counts = collections.Counter()
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                m = re.search(r"\b(pci_nvme_\w+)", line)
                if m:
                    counts[m.group(1)] += 1
    return dict(sorted(counts.items()))


def boot_seconds(path):
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        m = re.search(r"zonekv-guest: booted in ([0-9.]+) s", f.read())
    return float(m.group(1)) if m else None


def guest(d):
    return {
        "host": read_env(os.path.join(d, "host.env")),
        "guest_boot_s": boot_seconds(os.path.join(d, "console.log")),
        "guest": read_env(os.path.join(d, "share", "facts.env")),
        "qemu_trace_counts": trace_counts(os.path.join(d, "qemu-trace.log")),
    }


def metric(doc, path):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def main():
    out, configs = sys.argv[1], sys.argv[2:]
    summary = {}
    for cfg in configs:
        d = os.path.join(out, cfg)
        entry = {"conformance": guest(os.path.join(d, "conformance"))}
        entry["conformance"]["tests"] = gtest_summary(os.path.join(d, "conformance", "share", "zbd_test.json"))
        guest_bench = read_json(os.path.join(d, "bench", "share", "bench.json"))
        emulator_bench = read_json(os.path.join(d, "emulator_bench.json"))
        if guest_bench is not None or emulator_bench is not None:
            entry["bench"] = guest(os.path.join(d, "bench"))
            table = {}
            for name, path in BENCH_METRICS:
                table[name] = {"qemu_zbd": metric(guest_bench, path), "emulator": metric(emulator_bench, path)}
            counts = entry["bench"]["qemu_trace_counts"]
            # Resets of zones that held data and finishes, as QEMU counted them.
            table["device_resets"]["qemu_trace"] = counts.get("pci_nvme_zns_zone_reset", 0)
            table["device_finishes"]["qemu_trace"] = counts.get("pci_nvme_finish_zone", 0)
            entry["bench_comparison"] = table
        summary[cfg] = entry
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
