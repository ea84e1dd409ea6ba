#!/usr/bin/env python3
"""Stock db_bench on zonekv beside stock db_bench on tmpfs (issue 17).

Runs Debian's db_bench (through `zonekv run`) with the same options on:
  tmpfs        RocksDB's own file system on /dev/shm (the reference)
  zonekv       zonekv:// on an image in /dev/shm, device timing none
  zonekv-TIMED zonekv:// on an image in /dev/shm, a timed profile
for fillrandom, overwrite and readrandom, 1 KiB and 16 KiB values, several
runs interleaved, and prints the median ops/s per cell with the spread and
the ratio to tmpfs. A benchmark, not a test. Debian's db_bench is built with
assertions on: compare it with itself only.

Usage: scripts/stock_db_bench.py [--zonekv=build/src/tools/zonekv] [--runs=3]
       [--timing=zn540] [--mib=400] [--out=out/stock-db-bench.json]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

BENCHES = ["fillrandom", "overwrite", "readrandom"]
LINE = re.compile(r"^(\w+)\s+:\s+([\d.]+) micros/op (\d+) ops/sec")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("failed (rc %d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zonekv", default="build/src/tools/zonekv")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timing", default="zn540")
    ap.add_argument("--mib", type=int, default=400, help="user data per pass, MiB")
    ap.add_argument("--out", default="out/stock-db-bench.json")
    a = ap.parse_args()
    z = a.zonekv
    img = "/dev/shm/zonekv-stock.img"
    ref = "/dev/shm/zonekv-stock-ref"
    targets = ["tmpfs", "zonekv", "zonekv-" + a.timing]
    results = {}  # (value, target, bench) -> [ops/s]
    config = {"runs": a.runs, "timing": a.timing, "mib_per_pass": a.mib, "targets": targets,
              "device": "image in /dev/shm: 64 zones x 64 MiB, max_open 14, max_active 14, scheme baza+ (default)"}
    for r in range(a.runs):
        for value in (1024, 16384):
            num = a.mib * 1024 * 1024 // value
            opts = ["--num=%d" % num, "--value_size=%d" % value, "--key_size=16", "--seed=%d" % (r + 1),
                    "--compression_type=none", "--threads=1", "--histogram=false",
                    "--benchmarks=" + ",".join(BENCHES)]
            config.setdefault("db_bench_options_%d" % value, []).append(opts)  # one list per run
            for t in targets:
                if t == "tmpfs":
                    shutil.rmtree(ref, ignore_errors=True)
                    cmd = [z, "run", "db_bench", "--db=" + ref] + opts
                else:
                    if os.path.exists(img):
                        os.remove(img)
                    run([z, "device", "create", img, "--zones=64", "--zone_size=64M", "--max_open=14",
                         "--max_active=14"])
                    run([z, "fs", "mkfs", "--device=" + img])
                    uri = "zonekv://" + img + ("" if t == "zonekv" else "?timing:" + a.timing)
                    cmd = [z, "run", "db_bench", "--fs_uri=" + uri, "--db=/db"] + opts
                out = run(cmd)
                for line in out.splitlines():
                    m = LINE.match(line)
                    if m and m.group(1) in BENCHES:
                        results.setdefault("%d|%s|%s" % (value, t, m.group(1)), []).append(int(m.group(3)))
                print("run %d value %d %s done" % (r + 1, value, t), file=sys.stderr)
    shutil.rmtree(ref, ignore_errors=True)
    if os.path.exists(img):
        os.remove(img)
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"config": config, "ops_per_sec": results}, f, indent=2)
    print("| value | benchmark | " + " | ".join("%s ops/s (min-max)" % t for t in targets) +
          " | " + " | ".join("%s / tmpfs (per-run min-max)" % t for t in targets[1:]) + " |")
    print("|---" * (2 + 2 * len(targets) - 1) + "|")
    for value in (1024, 16384):
        for b in BENCHES:
            cells, med = [], {}
            for t in targets:
                v = results.get("%d|%s|%s" % (value, t, b), [])
                med[t] = statistics.median(v) if v else 0
                cells.append("%.0f (%d-%d)" % (med[t], min(v), max(v)) if v else "-")
            # The ratio of medians, and the range of the per-run ratios
            # (run i on a target against run i on tmpfs: they ran side by side).
            ratios = []
            ref_runs = results.get("%d|tmpfs|%s" % (value, b), [])
            for t in targets[1:]:
                runs = results.get("%d|%s|%s" % (value, t, b), [])
                per_run = [x / y for x, y in zip(runs, ref_runs) if y]
                if not med["tmpfs"] or not per_run:
                    ratios.append("-")
                else:
                    ratios.append("%.2f (%.2f-%.2f)" % (med[t] / med["tmpfs"], min(per_run), max(per_run)))
            print("| %d KiB | %s | %s | %s |" % (value // 1024, b, " | ".join(cells), " | ".join(ratios)))


if __name__ == "__main__":
    main()
