"""same-victim: BlobDB GC and zone cleaning aligned (Same-Victim GC paper,
000_9b699dbb0ebe7356): schemes baseline, baza, baza+.

The paper's setup at scale s: a 64 GB device of 64 zones of 1024 MB, 16 B
keys, 128 KiB values, SST and blob files of 64 MB (1/16 of a zone), 2 flush
+ 2 compaction threads, 4 subcompactions; fillrandom of 36 GB, and YCSB
WL(A) 80% update / 20% insert, WL(B) 80% update / 20% read, WL(C) 50%
update / 50% read (zipfian 0.99) after a load. The paper loads 24 GB and runs
24 GB of operations, as we do. Plus the small-zone
variant: zones of two blob files, on WL(A).
"""

import common

DESCRIPTION = "Same-Victim GC: baseline vs baza vs baza+ on fillrandom and WL(A/B/C), plus small zones"
DEFAULT_SCALE = 1 / 64

ZONES = 64
# The Same-Victim GC paper ran on a Western Digital ZN540.
PROFILE = "zn540"
PAPER_ZONE = 1024 * common.MiB
PAPER_FILE = 64 * common.MiB
PAPER_VALUE = 128 * 1024
FILL_GB = 36
LOAD_GB = 24
RUN_GB = 24
SCHEMES = ["baseline", "baza", "baza+"]
WORKLOADS = [("fillrandom", "fillrandom"), ("WL(A)", "sv-wla"), ("WL(B)", "sv-wlb"), ("WL(C)", "sv-wlc")]
DEVIATIONS = ("Ratios average over the workloads in which the baseline has a non-zero value. RocksDB 7.8 "
              "frees a blob file only when no SST links to it, so BlobDB's space amplification is higher than "
              "the paper's RocksDB 7.4 setup shows.")

METRICS = [
    ("ops/s", "workload.ops_per_sec", 1),
    ("put avg us", "workload.put_us_avg", 1),
    ("get avg us", "workload.get_us_avg", 1),
    ("ZC copy blob MiB", "fs.zc_copy_bytes.blob", 1 / common.MiB),
    ("BlobGC MiB", "rocksdb.blobgc_copy_bytes", 1 / common.MiB),
    ("space used", "fs.space_used_ratio_end", 1),
    ("compaction s", "rocksdb.compaction_time_s", 1),
    ("stall s", "rocksdb.stall_time_s", 1),
    ("host write MiB", "fs.host_write_bytes", 1 / common.MiB),
    ("resets ZC", "fs.resets_zc", 1),
]

# Relative to the baseline (averaged over the four workloads in the paper).
PAPER = {
    "baza": [
        ("space used at end", "fs.space_used_ratio_end", 0.67 / 0.83, "Fig. 6: 83% -> 67%"),
        ("compaction time", "rocksdb.compaction_time_s", 0.83, "Fig. 7: -17%"),
        ("throughput", "workload.ops_per_sec", 1.27, "Fig. 8: 1.27x"),
    ],
    "baza+": [
        ("ZC copy, blob", "fs.zc_copy_bytes.blob", 0.0, "Fig. 6: none"),
        ("space used at end", "fs.space_used_ratio_end", 0.61 / 0.83, "Fig. 6: 83% -> 61%"),
        ("BlobGC copy", "rocksdb.blobgc_copy_bytes", 0.67, "Fig. 7: -33%"),
        ("compaction time", "rocksdb.compaction_time_s", 0.5, "Fig. 7: -50%"),
        ("throughput", "workload.ops_per_sec", 1.44, "Fig. 8: 1.44x"),
    ],
}


def _geometry(scale, zone_files=16):
    file_size = common.scaled_bytes(PAPER_FILE, scale, unit=64 * 1024)
    zone = file_size * zone_files
    zones = ZONES * 16 // zone_files  # same device bytes
    value = max(1024, int(PAPER_VALUE * scale) // 1024 * 1024)
    return zones, zone, file_size, value


def _args(scale, workload, zone_files=16):
    zones, zone, file_size, value = _geometry(scale, zone_files)
    args = [
        "--device=" + common.device_spec(zones, zone, PROFILE),
        "--workload=" + workload,
        "--key_size=16",
        "--value_size=%d" % value,
    ] + common.same_victim_rocksdb_args(file_size)
    if workload == "fillrandom":
        args.append("--num=%d" % (int(FILL_GB * common.GiB * scale) // value))
    else:
        args.append("--recordcount=%d" % (int(LOAD_GB * common.GiB * scale) // value))
        args.append("--operationcount=%d" % (int(RUN_GB * common.GiB * scale) // value))
    return args


def runs(scale, seeds):
    out = []
    for wl_name, wl in WORKLOADS:
        for scheme in SCHEMES:
            for seed in range(1, seeds + 1):
                out.append({"label": "%s %s" % (scheme, wl_name), "scheme": scheme, "seed": seed, "workload": wl_name,
                            "args": _args(scale, wl) + ["--scheme=" + scheme]})
    for scheme in ("baseline", "baza+"):
        for seed in range(1, seeds + 1):
            out.append({"label": "%s small-zone WL(A)" % scheme, "scheme": scheme, "seed": seed,
                        "workload": "small-zone", "args": _args(scale, "sv-wla", zone_files=2) + ["--scheme=" + scheme]})
    return out


def _mean(results, label, path):
    return common.mean_spread(common.values(results, label, path))[0]


def summarize(results, scale):
    zones, zone, file_size, value = _geometry(scale)
    text = ("Scale %g of the Same-Victim GC paper: %d zones of %s, SST and blob files of %s, %d B values, "
            "fillrandom of %g GB x s, YCSB load %d GB x s then %d GB x s of operations.\n\n%s\n\n"
            % (scale, zones, common.size_flag(zone), common.size_flag(file_size), value, FILL_GB, LOAD_GB, RUN_GB,
               DEVIATIONS))
    for wl_name, _ in WORKLOADS:
        text += "### %s\n\n" % wl_name
        text += common.metric_table(results, METRICS, ["%s %s" % (s, wl_name) for s in SCHEMES]) + "\n\n"
        base_w = _mean(results, "baseline " + wl_name, "fs.host_write_bytes")
        base_zc = _mean(results, "baseline " + wl_name, "fs.zc_copy_bytes.blob")
        if base_w and base_w == base_w:
            text += ("Baseline ZC blob copy = %s%% of bytes written (paper, WL(A): ~80%%; BAZA 53 MB, BAZA+ 0).\n\n"
                     % common.fmt(100 * base_zc / base_w))
    rows = []
    for scheme, claims in PAPER.items():
        for title, path, paper_ratio, source in claims:
            rs = []
            for wl_name, _ in WORKLOADS:
                b = _mean(results, "baseline " + wl_name, path)
                o = _mean(results, "%s %s" % (scheme, wl_name), path)
                # A workload where the baseline has none of the metric (e.g. no
                # zone cleaning at all) says nothing about the ratio: skipped.
                if b == b and o == o and b:
                    rs.append(o / b)
            ratio = sum(rs) / len(rs) if rs else float("nan")
            rows.append([scheme + " / baseline", title, "%.2f" % paper_ratio, common.fmt(ratio),
                         common.agreement(ratio, paper_ratio), source])
    text += "### Paper vs ours (mean ratio over the four workloads)\n\n"
    text += common.table(["ratio", "metric", "paper", "ours", "verdict", "paper source"], rows) + "\n\n"
    text += "### Small zones (zone = 2 blob files), WL(A) (paper Fig. 10(b): baseline ~13 GB ZC copy, BAZA+ 0, 1.72x)\n\n"
    text += common.metric_table(results, METRICS, ["baseline small-zone WL(A)", "baza+ small-zone WL(A)"]) + "\n"
    return text


def plot(results, outdir):
    figs = []
    groups = [w for w, _ in WORKLOADS]
    for path, title, ylabel, mult, name in [
        ("fs.zc_copy_bytes.blob", "ZC valid-data copy (blob)", "MiB", 1 / common.MiB, "sv_zc_copy.png"),
        ("fs.space_used_ratio_end", "space used at end", "% of device", 100, "sv_space_used.png"),
        ("rocksdb.blobgc_copy_bytes", "BlobGC valid-data copy", "MiB", 1 / common.MiB, "sv_blobgc.png"),
        ("rocksdb.compaction_time_s", "cumulative compaction time", "s", 1, "sv_compaction.png"),
        ("workload.ops_per_sec", "throughput", "ops/s", 1, "sv_throughput.png"),
        ("workload.put_us_avg", "PUT latency", "us", 1, "sv_put.png"),
    ]:
        series = {s: [_mean(results, "%s %s" % (s, w), path) * mult for w in groups] for s in SCHEMES}
        figs.append(common.bar_chart(common.outpath(outdir, name), title, groups, series, ylabel))
    wla = [r for r in results if r.get("workload") == "WL(A)" and r["seed"] == 1]
    figs.append(common.timeseries_chart(common.outpath(outdir, "sv_free_ratio.png"), "free-space ratio, WL(A)", wla,
                                        "free_ratio", "free ratio", label_of=lambda r: r["scheme"]))
    return figs
