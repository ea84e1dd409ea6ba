"""main: the default experiment of scripts/main_job.sh.

The baseline against the best scheme available, on the Same-Victim GC
paper's write-only YCSB mix WL(A) (80% update / 20% insert, zipfian 0.99)
with BlobDB on, at that paper's setup scaled down: 64 zones of 1024 MiB,
64 MiB SST and blob files, 128 KiB values, 24 GiB of operations, 2 flush +
2 compaction threads, 4 subcompactions, 24 GiB loaded first.
"""

import common

# The scheme compared against the baseline: the best one for this workload
# (Same-Victim GC's BAZA + Z_Cutoff). Repoint it as better schemes land and
# add the paper's claims for it to PAPER below. `coop` (issue 20) composes
# every paper's mechanism; it runs beside them until it is the best.
BEST = "baza+"
SCHEMES = ["baseline", BEST, "coop"]

DESCRIPTION = ("baseline vs %s and coop on sv-wla (YCSB 80%% update / 20%% insert) with BlobDB on a timed ZN540, "
               "~1.5-2 min" % BEST)
DEFAULT_SCALE = 1 / 32

PAPER_ZONE = 1024 * common.MiB
PAPER_FILE = 64 * common.MiB
PAPER_VALUE = 128 * 1024
PAPER_LOAD = 24 * common.GiB
PAPER_RUN = 24 * common.GiB
ZONES = 64
# The Same-Victim GC paper ran on a Western Digital ZN540.
PROFILE = "zn540"

# What the papers report for a scheme relative to the baseline: (metric
# title, dotted path, paper's ratio scheme / baseline, where it is stated).
PAPER = {
    "far": [
        ("EZRC (zone resets)", "fs.ezrc", 0.5, "FAR, HotStorage'23: lifetime 2x (abstract)"),
        ("R_WP", "fs.r_wp", 0.92 / 0.55, "FAR Table 2: EZReset 0.55, FAR 0.92"),
        ("throughput", "workload.ops_per_sec", 1.0, "FAR Fig. 6(a): same throughput as EZReset"),
    ],
    # Fig. 10(a) is the paper's run on a real ZN540 (64 of its zones, WL(A)),
    # the device our default profile models; Figs. 6-8 ran on ConfZNS.
    "baza+": [
        ("ZC copy, blob", "fs.zc_copy_bytes.blob", 0.0, "Same-Victim GC Fig. 10(a), ZN540: baseline ~9 GB, BAZA+ none"),
        ("BlobGC copy", "rocksdb.blobgc_copy_bytes", 0.4, "Same-Victim GC Fig. 10(a), ZN540: about -60%"),
        ("throughput", "workload.ops_per_sec", 1.09, "Same-Victim GC Fig. 10(a), ZN540: 1.09x"),
        ("space used at end", "fs.space_used_ratio_end", 0.61 / 0.83, "Same-Victim GC Fig. 6 (ConfZNS): 83% -> 61%"),
        ("compaction time", "rocksdb.compaction_time_s", 0.5, "Same-Victim GC Fig. 7 (ConfZNS): -50%"),
        ("throughput (ConfZNS)", "workload.ops_per_sec", 1.44, "Same-Victim GC Fig. 8 (ConfZNS): 1.44x"),
    ],
}

METRICS = [
    ("ops/s", "workload.ops_per_sec", 1),
    ("CPU us/op", "workload.cpu_us_per_op", 1),
    ("put avg us", "workload.put_us_avg", 1),
    ("put p99 us", "workload.put_us_p99", 1),
    ("ZC copy blob MiB", "fs.zc_copy_bytes.blob", 1 / common.MiB),
    ("ZC copy sst MiB", "fs.zc_copy_bytes.sst", 1 / common.MiB),
    ("resets runtime", "fs.resets_runtime", 1),
    ("resets ZC", "fs.resets_zc", 1),
    ("EZRC", "fs.ezrc", 1),
    ("R_WP", "fs.r_wp", 1),
    ("FS WAF", "fs.fs_waf", 1),
    ("space used", "fs.space_used_ratio_end", 1),
    ("I/O block s", "fs.io_block_time_s", 1),
    ("BlobGC MiB", "rocksdb.blobgc_copy_bytes", 1 / common.MiB),
    ("compaction s", "rocksdb.compaction_time_s", 1),
    ("stall s", "rocksdb.stall_time_s", 1),
    ("device busy", "fs.device.busy_ratio", 1),
    ("die s program", "fs.device.die_program_us", 1e-6),
    ("die s erase", "fs.device.die_erase_us", 1e-6),
    ("limit ratio", "workload.limit_ratio", 1),
]


def geometry(scale):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    file_size = common.scaled_bytes(PAPER_FILE, scale, unit=64 * 1024)
    value = max(1024, int(PAPER_VALUE * scale) // 1024 * 1024)
    records = int(PAPER_LOAD * scale) // value
    ops = int(PAPER_RUN * scale) // value
    return zone, file_size, value, records, ops


def runs(scale, seeds):
    zone, file_size, value, records, ops = geometry(scale)
    device = common.device_spec(ZONES, zone, PROFILE)
    args = [
        "--device=" + device,
        "--workload=sv-wla",
        "--key_size=16",
        "--value_size=%d" % value,
        "--recordcount=%d" % records,
        "--operationcount=%d" % ops,
    ] + common.same_victim_rocksdb_args(file_size)
    out = []
    for scheme in SCHEMES:
        for seed in range(1, seeds + 1):
            out.append({"label": scheme, "scheme": scheme, "seed": seed, "args": args + ["--scheme=" + scheme]})
    return out


def _ratio(results, path, scheme):
    base = common.mean_spread(common.values(results, "baseline", path))[0]
    ours = common.mean_spread(common.values(results, scheme, path))[0]
    if base != base or ours != ours:  # NaN: a side failed
        return float("nan")
    if base == 0:
        # Both zero (e.g. no zone cleaning at all): the metric says nothing here.
        return float("nan") if ours == 0 else float("inf")
    return ours / base


def summarize(results, scale):
    zone, file_size, value, records, ops = geometry(scale)
    text = ("Setup at scale %g of the Same-Victim GC paper: %d zones of %s, SST and blob files of %s, "
            "values of %d B, %d records loaded, %d operations (sv-wla), 1 client thread. "
            "Ratios below are means over seeds, scheme / baseline.\n\n"
            % (scale, ZONES, common.size_flag(zone), common.size_flag(file_size), value, records, ops))
    text += common.metric_table(results, METRICS, SCHEMES) + "\n"
    for scheme in SCHEMES[1:]:
        claims = PAPER.get(scheme)
        if not claims:
            continue
        rows = []
        for title, path, paper_ratio, source in claims:
            ours = _ratio(results, path, scheme)
            rows.append([title, "%.2f" % paper_ratio, common.fmt(ours), common.agreement(ours, paper_ratio), source])
        text += "\n%s / baseline, paper vs ours:\n\n" % scheme
        text += common.table(["metric", "paper", "ours", "verdict", "paper source"], rows) + "\n"
    return text


def plot(results, outdir):
    figures = []
    groups = SCHEMES

    def bars(name, title, path, mult, ylabel):
        ys, errs = [], []
        for s in groups:
            m, sd = common.mean_spread([v * mult for v in common.values(results, s, path)])
            ys.append(m)
            errs.append(sd)
        return common.bar_chart(common.outpath(outdir, name), title, groups, {ylabel: ys}, ylabel,
                                errors={ylabel: errs})

    figures.append(bars("main_zc_copy.png", "ZC valid-data copy (blob)", "fs.zc_copy_bytes.blob", 1 / common.MiB,
                        "MiB"))
    figures.append(bars("main_space_used.png", "space used at end", "fs.space_used_ratio_end", 100, "% of device"))
    figures.append(bars("main_ezrc.png", "zone resets (EZRC)", "fs.ezrc", 1, "resets"))
    figures.append(bars("main_throughput.png", "throughput", "workload.ops_per_sec", 1, "ops/s"))
    figures.append(bars("main_blobgc.png", "BlobGC valid-data copy", "rocksdb.blobgc_copy_bytes", 1 / common.MiB,
                        "MiB"))
    figures.append(common.timeseries_chart(common.outpath(outdir, "main_free_ratio.png"), "free-space ratio",
                                           results, "free_ratio", "free ratio"))
    figures.append(common.timeseries_chart(common.outpath(outdir, "main_resets.png"), "cumulative zone resets",
                                           results, "resets", "resets"))
    return figures
