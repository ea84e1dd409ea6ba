"""far: runtime zone reset, eager vs lazy vs FAR (FAR paper, 001_5de7bb6258bf3236).

The paper's setup at scale s: 40 zones of 512 MiB, 16 B keys and 1 KiB values,
fillrandom of 9 / 12 / 15 GB, 64 MB memtables and L0 files, L1 of 256 MB
growing x10, greedy zone cleaning below 20% free space. Compared:
EZReset (eager), LZReset (lazy, T_WP = 1.0) and FAR (T = 0.7, linear); then
FAR's sweep T in {1.0, 0.7, 0.4} x func in {linear, log, exp} on the medium
workload. Byte sizes are multiplied by the scale; zone count, key and value
sizes and the ratios between them are kept.
"""

import common

DESCRIPTION = "runtime reset: eager vs lazy vs FAR (three workload sizes) and FAR's T x func sweep"
DEFAULT_SCALE = 1 / 64

ZONES = 40
# FAR ran on its Cosmos+ OpenSSD ZNS prototype.
PROFILE = "cosmos"
PAPER_ZONE = 512 * common.MiB
PAPER_MEMTABLE = 64 * common.MiB
PAPER_L1 = 256 * common.MiB
SIZES = [("small", 9), ("medium", 12), ("large", 15)]  # GB written by fillrandom
VALUE = 1024
RESETS = [
    ("EZReset", ["--reset=eager"]),
    ("LZReset", ["--reset=lazy", "--reset_lazy_twp=1.0"]),
    ("FAR", ["--reset=far", "--reset_far_t=0.7", "--reset_far_func=linear"]),
]
SWEEP_T = [1.0, 0.7, 0.4]
SWEEP_FUNC = ["linear", "log", "exp"]

METRICS = [
    ("MB/s", "workload.mb_per_sec", 1),
    ("N_runtime", "fs.resets_runtime", 1),
    ("N_ZC", "fs.resets_zc", 1),
    ("EZRC", "fs.ezrc", 1),
    ("R_WP", "fs.r_wp", 1),
    ("ZC copy MiB", "fs.zc_copy_bytes.sst", 1 / common.MiB),
    ("stall s", "rocksdb.stall_time_s", 1),
    ("I/O block s", "fs.io_block_time_s", 1),
    ("space used", "fs.space_used_ratio_end", 1),
    ("die s erase", "fs.device.die_erase_us", 1e-6),
]

# Paper claims relative to EZReset: (metric, path, ratio, source).
PAPER = {
    "LZReset": [
        ("run time", "workload.elapsed_s", 1.3, "Fig. 8 (top): LZReset ~30% longer run time"),
        ("EZRC", "fs.ezrc", 0.5, "Fig. 6(b): LZReset and FAR about half of EZReset's resets"),
        ("R_WP", "fs.r_wp", 1.0 / 0.55, "Table 2: R_WP 0.55 (EZ) vs 1.0 (LZ)"),
    ],
    "FAR": [
        ("run time", "workload.elapsed_s", 1.0, "Fig. 8 (top): FAR as fast as EZReset"),
        ("EZRC", "fs.ezrc", 0.5, "abstract: device lifetime about 2x EZReset's"),
        ("R_WP", "fs.r_wp", 0.92 / 0.55, "Table 2: R_WP 0.55 (EZ) vs 0.92 (FAR)"),
    ],
}


def _args(scale, gb):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    memtable = common.scaled_bytes(PAPER_MEMTABLE, scale, unit=64 * 1024)
    l1 = common.scaled_bytes(PAPER_L1, scale, unit=64 * 1024)
    num = int(gb * common.GiB * scale) // VALUE
    return [
        "--device=" + common.device_spec(ZONES, zone, PROFILE),
        "--scheme=baseline",  # the paper's ZenFS; the reset policy under study is a flag
        "--workload=fillrandom",
        "--num=%d" % num,
        "--key_size=16",
        "--value_size=%d" % VALUE,
        "--write_buffer_size=" + common.size_flag(memtable),
        "--target_file_size_base=" + common.size_flag(memtable),
        "--max_bytes_for_level_base=" + common.size_flag(l1),
        "--max_bytes_for_level_multiplier=10",
        "--zc=greedy",
        "--zc_trigger_free_pct=20",
    ]


def runs(scale, seeds):
    out = []
    for size, gb in SIZES:
        for name, flags in RESETS:
            for seed in range(1, seeds + 1):
                out.append({"label": "%s %s" % (name, size), "scheme": name, "seed": seed, "size": size,
                            "part": "compare", "args": _args(scale, gb) + flags})
    for t in SWEEP_T:
        for func in SWEEP_FUNC:
            for seed in range(1, seeds + 1):
                out.append({"label": "FAR(T=%.1f,%s)" % (t, func), "scheme": "far", "seed": seed, "t": t,
                            "func": func, "part": "sweep",
                            "args": _args(scale, 12) + ["--reset=far", "--reset_far_t=%g" % t, "--reset_far_func=" + func]})
    return out


def _mean(results, label, path):
    return common.mean_spread(common.values(results, label, path))[0]


def summarize(results, scale):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    text = ("Scale %g of the FAR paper: %d zones of %s, fillrandom of %s GB x %g, 16 B keys, %d B values, "
            "greedy zone cleaning below 20%% free.\n\n" % (scale, ZONES, common.size_flag(zone),
                                                        "/".join(str(g) for _, g in SIZES), scale, VALUE))
    for size, _ in SIZES:
        text += "### %s workload\n\n" % size
        text += common.metric_table(results, METRICS, ["%s %s" % (n, size) for n, _ in RESETS]) + "\n\n"
        rows = []
        for scheme, claims in PAPER.items():
            for title, path, paper_ratio, source in claims:
                base = _mean(results, "EZReset " + size, path)
                ours = _mean(results, "%s %s" % (scheme, size), path)
                ratio = ours / base if base and base == base and ours == ours else float("nan")
                rows.append([scheme + " / EZReset", title, "%.2f" % paper_ratio, common.fmt(ratio),
                             common.agreement(ratio, paper_ratio), source])
        text += common.table(["ratio", "metric", "paper", "ours", "verdict", "paper source"], rows) + "\n\n"
    text += "### R_WP (mean write-pointer position at runtime reset; paper Table 2: 0.55 / 1.0 / 0.92)\n\n"
    rows = [[size] + [common.cell(common.values(results, "%s %s" % (n, size), "fs.r_wp")) for n, _ in RESETS]
            for size, _ in SIZES]
    text += common.table(["workload"] + [n for n, _ in RESETS], rows) + "\n\n"
    text += ("### FAR sweep on the medium workload (paper Fig. 5: lower T -> fewer resets but lower throughput; "
             "exp fastest 61.45 MB/s, log slowest 57.54 MB/s, linear 61.65 MB/s with log's reset count)\n\n")
    labels = ["FAR(T=%.1f,%s)" % (t, f) for t in SWEEP_T for f in SWEEP_FUNC]
    text += common.metric_table(results, METRICS[:5], labels) + "\n"
    return text


def plot(results, outdir):
    figs = []
    groups = [s for s, _ in SIZES]
    for path, title, ylabel, mult, name in [
        ("workload.mb_per_sec", "throughput", "MB/s", 1, "far_throughput.png"),
        ("fs.ezrc", "zone resets (EZRC)", "resets", 1, "far_ezrc.png"),
        ("rocksdb.stall_time_s", "write-stall time", "s", 1, "far_stall.png"),
    ]:
        series = {n: [_mean(results, "%s %s" % (n, g), path) * mult for g in groups] for n, _ in RESETS}
        figs.append(common.bar_chart(common.outpath(outdir, name), title, groups, series, ylabel))
    # EZRC split into runtime and ZC resets, medium workload.
    names = [n for n, _ in RESETS]
    figs.append(common.bar_chart(
        common.outpath(outdir, "far_ezrc_split.png"), "EZRC split (medium)", names,
        {"N_runtime": [_mean(results, n + " medium", "fs.resets_runtime") for n in names],
         "N_ZC": [_mean(results, n + " medium", "fs.resets_zc") for n in names]}, "resets"))
    tgroups = ["T=%.1f" % t for t in SWEEP_T]
    for path, title, ylabel, name in [("workload.mb_per_sec", "FAR sweep: throughput", "MB/s", "far_sweep_tput.png"),
                                      ("fs.ezrc", "FAR sweep: zone resets", "resets", "far_sweep_resets.png")]:
        series = {f: [_mean(results, "FAR(T=%.1f,%s)" % (t, f), path) for t in SWEEP_T] for f in SWEEP_FUNC}
        figs.append(common.bar_chart(common.outpath(outdir, name), title, tgroups, series, ylabel))
    compare_medium = [r for r in results if r.get("part") == "compare" and r.get("size") == "medium" and r["seed"] == 1]
    figs.append(common.timeseries_chart(common.outpath(outdir, "far_free_ratio.png"), "free-space ratio (medium)",
                                        compare_medium, "free_ratio", "free ratio", label_of=lambda r: r["scheme"]))
    figs.append(common.timeseries_chart(common.outpath(outdir, "far_resets.png"), "cumulative resets (medium)",
                                        compare_medium, "resets", "resets", label_of=lambda r: r["scheme"]))
    return figs
