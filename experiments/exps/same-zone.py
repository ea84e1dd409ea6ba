"""same-zone: Same-Zone Compaction (002_901bff6a30fec079): ZACA, ACC and CAZA.

The paper's setup at scale s: a 67 GB device of 67 zones of 1 GiB, 16 B keys
and 1 KiB values, 4 flush + 4 compaction threads, 8 subcompactions, greedy
zone cleaning; db_bench fillrandom of 72 GB and YCSB with zipfian (0.99),
latest and uniform request distributions on a 36 GB dataset. Schemes:
baseline (RocksDB's own leveled compaction + LIZA), n-liza (the paper's
baseline as it describes it: RocksDB's own compaction picking the largest
file first, compaction_pri=kByCompensatedSize, which the paper calls SICA;
RocksDB 7.8 defaults to kMinOverlappingRatio), s-liza (SICA + LIZA: the
baseline on our external compactor), a-liza (ACC + LIZA), caza (SICA + CAZA),
a-caza (ACC + CAZA); beyond the paper, a-caza+ (A-CAZA whose zaca picks the
group that empties the zones it touches, per byte written:
--zaca_score=kill-per-write, docs/formulas.md), n-caza (CAZA on
RocksDB's native compaction), h-caza (native compaction above ACC's
turning point, ACC's picker below: docs/compaction.md) and h-caza+ (h-caza
with a-caza+'s score, and sica's levels in RocksDB's min-overlap order, as
its native phases); then ACC's turning point
{0, 25, 30, 50}% with and without the level constraint, on fillrandom.

Deviations: the paper does not name the YCSB operation mix; we use YCSB A
(50% read / 50% update) with each request distribution. Under the external
compactor RocksDB 7.8 forms no subcompactions (kCompactionStyleNone), so
the 8 subcompactions apply to native compaction (and h-caza's L0 jobs) only. The baseline's S_same and
S_inval come from observing RocksDB's own compactions (OnCompactionBegin /
Completed and the zone layout), trivial moves excluded. fillrandom writes
48 GB x s instead of 72: at 72 GB x 1/128 the CompactFiles-based schemes
(caza, a-caza, most ACC settings) fill our 67 zones of 8 MiB for real (NoSpace
with nothing reclaimable: live data plus the LSM's temporary space), while the
native baseline and a-liza finish. YCSB loads 24 GB x s instead of 36: at
1/128 the LSM holds 1.7x its dataset (obsolete versions awaiting compaction),
so 36 GB x s (288 MiB) reached 480-499 MiB live on the 536 MiB device and
the external compactor's schemes hit NoSpace with nothing reclaimable (s-liza
zipfian in 2 of 3 seeds); 24 GB x s keeps every scheme's zone cleaning busy
(GBs copied per run) and the experiment within 10 minutes on 2 cores.
"""

import common

DESCRIPTION = ("ZACA/ACC compaction and CAZA allocation: baseline, n-liza, a-liza, caza, a-caza, a-caza+, n-caza, "
               "h-caza, h-caza+; "
               "ACC turning-point sweep")
DEFAULT_SCALE = 1 / 128

ZONES = 67
# Same-Zone Compaction ran on ConfZNS (8 channels x 2 dies, 16 KiB pages).
PROFILE = "confzns"
PAPER_ZONE = 1024 * common.MiB
PAPER_MEMTABLE = 64 * common.MiB
PAPER_L1 = 256 * common.MiB
VALUE = 1024
FILL_GB = 48  # the paper writes 72 GB; see the deviations above
YCSB_GB = 24  # the paper loads 36 GB; see the deviations above
SCHEMES = ["baseline", "n-liza", "s-liza", "a-liza", "caza", "a-caza", "a-caza+", "n-caza", "h-caza", "h-caza+"]
# (scheme, reference, what the reference is): the paper's A-CAZA against
# each baseline, a-caza+ against the baseline, and CAZA at native speed (issue 19, docs/compaction.md) against
# RocksDB's own compaction, with the paper's score (h-caza) and the kill score (h-caza+).
COMPARISONS = [("a-caza", "baseline", "RocksDB's native compaction"),
               ("a-caza", "n-liza", "the paper's baseline: RocksDB's native compaction, largest file first"),
               ("a-caza", "s-liza", "the same external compactor, sica + liza"),
               ("a-caza+", "baseline", "zaca scored by the zones a job empties, per byte written"),
               ("n-caza", "baseline", "CAZA on native compaction"),
               ("h-caza", "baseline", "hybrid: native above ACC's turning point, acc below"),
               ("h-caza+", "baseline", "hybrid, its picker phases with the kill score and min-overlap order")]
WORKLOADS = [("fillrandom", None), ("zipfian", "zipfian"), ("latest", "latest"), ("uniform", "uniform")]
TURNING_POINTS = [0, 25, 30, 50]

METRICS = [
    ("KOPS/s", "workload.ops_per_sec", 1e-3),
    ("put avg us", "workload.put_us_avg", 1),
    ("ZC copy MiB", "fs.zc_copy_bytes.sst", 1 / common.MiB),
    ("resets", "fs.ezrc", 1),
    ("S_same", "controllers.compactor.metrics.s_same_mean", 1),
    ("S_inval", "controllers.compactor.metrics.s_inval_mean", 1),
    ("compaction read MiB/s", "controllers.compactor.metrics.read_mb_per_s", 1),
    ("flushes/s", "rocksdb.flushes_per_sec", 1),
    ("compactions/s", "rocksdb.compactions_per_sec", 1),
    ("I/O block s", "fs.io_block_time_s", 1),
    ("stall s", "rocksdb.stall_time_s", 1),
]

# A-CAZA relative to the baseline (paper, averages over the four workloads).
PAPER = [
    ("ZC copy", "fs.zc_copy_bytes.sst", 0.30, "Fig. 10: -70% on average (-80% fillrandom)"),
    ("PUT throughput", "workload.ops_per_sec", 1.16, "Fig. 15: +16%"),
    ("zone resets", "fs.ezrc", 1 - 0.086, "Fig. 12: -8.6%"),
    ("flushes/s", "rocksdb.flushes_per_sec", 1.26, "Sec. VII-D: 1.26x"),
    ("compactions/s", "rocksdb.compactions_per_sec", 1.1, "Sec. VII-D: 1.1x"),
]


def _args(scale, workload, dist):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    memtable = common.scaled_bytes(PAPER_MEMTABLE, scale, unit=64 * 1024)
    l1 = common.scaled_bytes(PAPER_L1, scale, unit=64 * 1024)
    args = [
        "--device=" + common.device_spec(ZONES, zone, PROFILE),
        "--key_size=16",
        "--value_size=%d" % VALUE,
        "--write_buffer_size=" + common.size_flag(memtable),
        "--target_file_size_base=" + common.size_flag(memtable),
        "--max_bytes_for_level_base=" + common.size_flag(l1),
        "--max_background_flushes=4",
        "--max_background_compactions=4",
        "--max_subcompactions=8",
        "--zc=greedy",
    ]
    if dist is None:
        args += ["--workload=fillrandom", "--num=%d" % (int(FILL_GB * common.GiB * scale) // VALUE)]
    else:
        n = int(YCSB_GB * common.GiB * scale) // VALUE
        args += ["--workload=ycsb-a", "--requestdistribution=" + dist, "--recordcount=%d" % n,
                 "--operationcount=%d" % n]
    return args


def runs(scale, seeds):
    out = []
    for wl, dist in WORKLOADS:
        for scheme in SCHEMES:
            for seed in range(1, seeds + 1):
                out.append({"label": "%s %s" % (scheme, wl), "scheme": scheme, "seed": seed, "workload": wl,
                            "part": "schemes", "args": _args(scale, wl, dist) + ["--scheme=" + scheme]})
    for constraint in ("true", "false"):
        for tp in TURNING_POINTS:
            for seed in range(1, seeds + 1):
                out.append({"label": "a-caza tp=%d lc=%s" % (tp, constraint), "scheme": "a-caza", "seed": seed,
                            "part": "sweep", "tp": tp, "lc": constraint,
                            "args": _args(scale, "fillrandom", None) + [
                                "--scheme=a-caza", "--acc_turning_point_pct=%d" % tp,
                                "--acc_level_constraint=" + constraint]})
    return out


def _mean(results, label, path):
    return common.mean_spread(common.values(results, label, path))[0]


def _ran(results):
    """The schemes and workloads of the scheme part that have runs (an --only
    run leaves the others out: no rows, comparisons or bars for them)."""
    runs = [r for r in results if r.get("part") == "schemes"]
    schemes = [s for s in SCHEMES if any(r.get("scheme") == s for r in runs)]
    workloads = [(w, d) for w, d in WORKLOADS if any(r.get("workload") == w for r in runs)]
    return schemes, workloads


def _swept(results):
    return any(r.get("part") == "sweep" for r in results)


def summarize(results, scale):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    schemes, workloads = _ran(results)
    text = ("Scale %g of the Same-Zone Compaction paper: %d zones of %s, 16 B keys, %d B values, fillrandom of "
            "%d GB x s, YCSB A on %d GB x s (load, then as many operations), greedy zone cleaning.\n\n"
            % (scale, ZONES, common.size_flag(zone), VALUE, FILL_GB, YCSB_GB))
    for wl, _ in workloads:
        text += "### %s\n\n" % wl
        text += common.metric_table(results, METRICS, ["%s %s" % (s, wl) for s in schemes]) + "\n\n"
    for scheme, ref, what in COMPARISONS:
        if scheme not in schemes or ref not in schemes:
            continue
        rows = []
        for title, path, paper_ratio, source in PAPER:
            rs = []
            for wl, _ in workloads:
                b, o = _mean(results, "%s %s" % (ref, wl), path), _mean(results, "%s %s" % (scheme, wl), path)
                if b == b and o == o and b:
                    rs.append(o / b)
            ratio = sum(rs) / len(rs) if rs else float("nan")
            rows.append([title, "%.2f" % paper_ratio, common.fmt(ratio), common.agreement(ratio, paper_ratio), source])
        text += "### %s / %s (%s), paper's A-CAZA vs ours (mean over workloads)\n\n" % (scheme, ref, what)
        text += common.table(["metric", "paper", "ours", "verdict", "paper source"], rows) + "\n\n"
        ds = []
        for metric, path, paper in (("S_same", "controllers.compactor.metrics.s_same_mean", "+0.05"),
                                    ("S_inval", "controllers.compactor.metrics.s_inval_mean", "+0.10")):
            diffs = [_mean(results, "%s %s" % (scheme, wl), path) - _mean(results, "%s %s" % (ref, wl), path)
                     for wl, _ in workloads]
            diffs = [d for d in diffs if d == d]
            ds.append([metric, paper, common.fmt(sum(diffs) / len(diffs)) if diffs else "n/a"])
        text += "%s - %s:\n\n" % (scheme, ref)
        text += common.table(["metric", "paper", "ours"], ds) + "\n\n"
    if _swept(results):
        text += "### ACC turning point sweep, fillrandom (paper Fig. 13)\n\n"
        text += common.metric_table(results, METRICS, ["a-caza tp=%d lc=%s" % (tp, lc) for lc in ("true", "false")
                                                       for tp in TURNING_POINTS]) + "\n"
    return text


def plot(results, outdir):
    figs = []
    schemes, workloads = _ran(results)
    groups = [w for w, _ in workloads]
    for path, title, ylabel, mult, name in [
        ("fs.zc_copy_bytes.sst", "ZC valid-data copy", "MiB", 1 / common.MiB, "sz_zc_copy.png"),
        ("workload.ops_per_sec", "PUT throughput", "KOPS/s", 1e-3, "sz_throughput.png"),
        ("controllers.compactor.metrics.s_same_mean", "S_same", "S_same", 1, "sz_s_same.png"),
        ("controllers.compactor.metrics.s_inval_mean", "S_inval", "S_inval", 1, "sz_s_inval.png"),
        ("fs.ezrc", "zone resets", "resets", 1, "sz_resets.png"),
    ]:
        if not schemes:
            break
        series = {s: [_mean(results, "%s %s" % (s, w), path) * mult for w in groups] for s in schemes}
        figs.append(common.bar_chart(common.outpath(outdir, name), title, groups, series, ylabel))
    if not _swept(results):
        return figs
    tps = [str(t) for t in TURNING_POINTS]
    for path, title, ylabel, mult, name in [
        ("workload.ops_per_sec", "ACC sweep: PUT throughput", "KOPS/s", 1e-3, "sz_acc_tput.png"),
        ("rocksdb.stall_time_s", "ACC sweep: write stall", "s", 1, "sz_acc_stall.png"),
        ("fs.io_block_time_s", "ACC sweep: I/O blocking", "s", 1, "sz_acc_block.png"),
    ]:
        series = {("level constraint" if lc == "true" else "no constraint"):
                  [_mean(results, "a-caza tp=%d lc=%s" % (tp, lc), path) * mult for tp in TURNING_POINTS]
                  for lc in ("false", "true")}
        figs.append(common.bar_chart(common.outpath(outdir, name), title, tps, series, ylabel))
    return figs
