"""smoke: seconds-long check of the whole pipeline (bench -> JSON -> summary -> figures)."""

import common

DESCRIPTION = ("seconds-long check of the machinery: baseline on a tiny fillrandom and ycsb-a, and a tiny "
               "host-FTL run")
DEFAULT_SCALE = 1.0

# A small device and a small LSM so that flushes, compactions and zone
# resets all happen within seconds.
DEVICE = "ram:zones=32,zone_size=4M,max_open=14,max_active=14,timing=zn540"
ROCKSDB = ["--write_buffer_size=1M", "--target_file_size_base=1M", "--max_bytes_for_level_base=4M"]
WORKLOADS = [
    ("fillrandom", ["--workload=fillrandom", "--num=20000", "--value_size=1000"]),
    ("ycsb-a", ["--workload=ycsb-a", "--num=10000", "--value_size=1000"]),
]
SCHEMES = ["baseline"]
# A `cmd` run: the host FTL under CCB on a small zipfian workload. Unlike the
# RocksDB runs (whose flushes and compactions follow thread timing), its
# decisions depend on the seed alone, which tests/experiments/ray_test.py
# relies on to compare executors.
FTL_LABEL = "host-ftl ccb"
FTL = ["ftl", "synth", "--backing=meta", "--device_bytes=64M", "--zone_size=1M", "--op=0.1", "--policy=ccb",
       "--workload=zipfian", "--writes=40000"]

METRICS = [
    ("ops/s", "workload.ops_per_sec", 1),
    ("put p99 us", "workload.put_us_p99", 1),
    ("get p99 us", "workload.get_us_p99", 1),
    ("host writes MiB", "fs.host_write_bytes", 1 / common.MiB),
    ("ZC copy blob MiB", "fs.zc_copy_bytes.blob", 1 / common.MiB),
    ("resets (EZRC)", "fs.ezrc", 1),
    ("space used", "fs.space_used_ratio_end", 1),
    ("BlobGC MiB", "rocksdb.blobgc_copy_bytes", 1 / common.MiB),
    ("flushes", "rocksdb.flush_count", 1),
    ("compactions", "rocksdb.compaction_count", 1),
]


def runs(scale, seeds):
    out = []
    for scheme in SCHEMES:
        for workload, args in WORKLOADS:
            for seed in range(1, seeds + 1):
                out.append({"label": "%s %s" % (scheme, workload), "scheme": scheme, "seed": seed,
                            "workload": workload,
                            "args": ["--device=" + DEVICE, "--scheme=" + scheme] + ROCKSDB + args})
    for seed in range(1, seeds + 1):
        out.append({"label": FTL_LABEL, "scheme": "ccb", "seed": seed, "cmd": FTL + ["--seed=%d" % seed]})
    return out


def _bench_labels(results):
    return [l for l in common.labels(results) if l != FTL_LABEL]


def summarize(results, scale):
    return ("No paper figure: this experiment only checks that runs, JSON, summary and figures work "
            "(sizes are fixed; the scale is not used).\n\n" +
            common.metric_table(results, METRICS, _bench_labels(results)) + "\n\n" +
            "Host FTL (`zonekv ftl synth`, ccb, zipfian, 64 MiB): WAF %s, GC victims %s.\n" % (
                common.cell(common.values(results, FTL_LABEL, "results.steady.waf")),
                common.cell(common.values(results, FTL_LABEL, "results.measured.gc_victims"))))


def plot(results, outdir):
    labels = _bench_labels(results)
    ys = [common.mean_spread(common.values(results, l, "workload.ops_per_sec"))[0] for l in labels]
    errs = [common.mean_spread(common.values(results, l, "workload.ops_per_sec"))[1] for l in labels]
    return [
        common.bar_chart(common.outpath(outdir, "smoke_throughput.png"), "smoke: throughput", labels,
                         {"ops/s": ys}, "ops/s", errors={"ops/s": errs}),
        common.timeseries_chart(common.outpath(outdir, "smoke_free_ratio.png"), "smoke: free-space ratio",
                                results, "free_ratio", "free ratio"),
    ]
