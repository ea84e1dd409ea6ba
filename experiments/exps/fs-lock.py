"""fs-lock: what the file system's lock costs when the device costs time.

Not a paper's experiment: the benchmark of issue 24. With a timed device
(ZN540 profile by default), a zone reset, a finish or a journal flush made
while the file system's lock is held stops every other file operation.
Runs:
  - fillrandom with 1, 2, 4 and 8 client threads, max_background_jobs to
    match (at least 2), 1 KiB values: 768 MiB of values on 64 zones of
    32 MiB, so that compactions free and reset zones during the run;
  - readrandomwriterandom with 4 threads (GET latency while writes, resets
    and flushes go on);
  - the main job's workload (sv-wla with BlobDB, baseline and baza+);
  - the FAR experiment's eager run (medium size).
Run it with two builds to compare before and after a change:
  /usr/bin/python3 experiments/run.py --zonekv=OLD/zonekv --src=. fs-lock --out=out/lock-before --seeds=3 --jobs=1
"""

import importlib.util
import os

import common

DESCRIPTION = "file-system lock under a timed device: fillrandom x threads, mixed, main job, FAR eager"
DEFAULT_SCALE = 1 / 32
PROFILE = "zn540"

THREADS = [1, 2, 4, 8]
VALUE = 1024
ZONES = 64
# A run that hangs (RocksDB retrying a background error forever) is killed.
RUN_TIMEOUT_S = 600
PAPER_ZONE = 1024 * common.MiB
PAPER_FILL = 24 * common.GiB  # bytes written by every fillrandom run, all threads together

METRICS = [
    ("ops/s", "workload.ops_per_sec", 1),
    ("stall s", "rocksdb.stall_time_s", 1),
    ("put p99 us", "workload.put_us_p99", 1),
    ("get p99 us", "workload.get_us_p99", 1),
    ("busy ratio", "fs.device.busy_ratio", 1),
    ("resets", "fs.ezrc", 1),
    ("lock hold p999 us", "fs.lock.hold_us.p999", 1),
    ("lock hold max us", "fs.lock.hold_us.max", 1),
    ("holds >= 1 ms", "fs.lock.hold_us.over_1ms", 1),
    ("lock wait p99 us", "fs.lock.wait_us.p99", 1),
    ("device calls held", "fs.lock.device_calls_held", 1),
    ("syncs/flush", "fs.journal.syncs_per_flush", 1),
]


def _sibling(name):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("zonekv_exp_lock_" + name, os.path.join(here, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fill_args(scale, threads, workload):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    total = int(PAPER_FILL * scale) // VALUE
    jobs = max(2, threads)
    return [
        "--device=" + common.device_spec(ZONES, zone, PROFILE),
        "--workload=" + workload,
        "--threads=%d" % threads,
        "--num=%d" % (total // threads),
        "--key_size=16",
        "--value_size=%d" % VALUE,
        "--write_buffer_size=" + common.size_flag(zone // 8),
        "--target_file_size_base=" + common.size_flag(zone // 8),
        "--max_background_jobs=%d" % jobs,
        "--max_background_flushes=-1",
        "--max_background_compactions=-1",
    ]


def runs(scale, seeds):
    out = []
    for t in THREADS:
        for seed in range(1, seeds + 1):
            out.append({"label": "fillrandom t=%d" % t, "scheme": "baseline", "seed": seed, "threads": t,
                        "args": _fill_args(scale, t, "fillrandom") + ["--scheme=baseline"]})
    for seed in range(1, seeds + 1):
        out.append({"label": "readrandomwriterandom t=4", "scheme": "baseline", "seed": seed, "threads": 4,
                    "args": _fill_args(scale, 4, "readrandomwriterandom") + ["--scheme=baseline"]})
    main = _sibling("main")
    for r in main.runs(scale, seeds):
        r = dict(r, label="main " + r["label"])
        out.append(r)
    far = _sibling("far")
    for r in far.runs(scale / 2, seeds):  # far's default scale (1/64) is half of ours
        if r.get("part") == "compare" and r["label"] == "EZReset medium":
            out.append(dict(r, label="FAR EZReset medium"))
    return out


def summarize(results, scale):
    text = ("The lock benchmark of issue 24 at scale %g: fillrandom of %d MiB of 1 KiB values on %d zones of %s, "
            "the main job's sv-wla runs and FAR's eager medium run. `device calls held` must be 0; `lock hold max` "
            "must stay far below one zone reset.\n\n"
            % (scale, int(PAPER_FILL * scale) >> 20, ZONES, common.size_flag(common.scaled_bytes(PAPER_ZONE, scale))))
    text += common.metric_table(results, METRICS) + "\n"
    return text


def plot(results, outdir):
    groups = ["t=%d" % t for t in THREADS]
    mean = lambda label, path: common.mean_spread(common.values(results, label, path))[0]  # noqa: E731
    return [
        common.bar_chart(common.outpath(outdir, "fs_lock_fillrandom.png"), "fillrandom throughput by client threads",
                         groups, {"ops/s": [mean("fillrandom " + g, "workload.ops_per_sec") for g in groups]},
                         "ops/s"),
        common.bar_chart(common.outpath(outdir, "fs_lock_hold.png"), "longest file-system lock hold", groups,
                         {"max hold us": [mean("fillrandom " + g, "fs.lock.hold_us.max") for g in groups]}, "us"),
    ]
