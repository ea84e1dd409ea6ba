"""gc-vs-gcfree: finish (occupancy) threshold, DLWA, host GC vs GC-free
(the GC-vs-GC-free study, 003_723460dfa98abd14).

The study's setup at scale s: a 16 GiB device of 64 zones of 256 MiB, max
open and active 32, fillrandom of 3M x (16 B key, 1 KiB value), no
compression, on ConfZNS++ whose FINISH pads the zone with dummy writes.
Here: the emulated device with FINISH model `pad` and the ConfZNS++ timing
model (so padding costs program time), occupancy threshold 10..100% (finish
a zone once it is that full; = 100 - ZenFS's finish_threshold), host GC
(ZenFS-style cleaning) vs GC-free (cleaning off). Then the gc_start_level
sweep and an overwrite-heavy workload where host GC matters.
"""

import common

DESCRIPTION = "occupancy threshold 10..100% x {host GC, GC-free}: throughput, DLWA, space amp; GC start sweep"
DEFAULT_SCALE = 1 / 32

ZONES = 64
# The GC-vs-GC-free study ran on ConfZNS++, whose FINISH pads the zone.
PROFILE = "confznspp"
PAPER_ZONE = 256 * common.MiB
PAPER_OPS = 3000000
PAPER_MEMTABLE = 64 * common.MiB  # RocksDB's default write_buffer_size and target_file_size_base
VALUE = 1024
THRESHOLDS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
MODES = [("host GC", ["--zc=zenfs"]), ("GC-free", ["--zc=off"])]
START_LEVELS = [10, 20, 30, 40]
# The overwrite part writes 3x the study's operations twice (fill, then
# overwrite): 550 MiB of values on the 512 MiB device at 1/32, so space runs
# short and host GC matters (GC-free then ends in NoSpace with hundreds of
# MiB reclaimable; host GC completes).
OVERWRITE_FACTOR = 3

METRICS = [
    ("MB/s", "workload.mb_per_sec", 1),
    ("put avg us", "workload.put_us_avg", 1),
    ("put p99 us", "workload.put_us_p99", 1),
    ("pad MiB", "fs.finish_pad_bytes", 1 / common.MiB),
    ("DLWA", "fs.dlwa", 1),
    ("finishes", "fs.finishes", 1),
    ("space used", "fs.space_used_ratio_end", 1),
    ("space amp", "fs.space_amp", 1),
    ("ZC copy MiB", "fs.zc_copy_bytes.sst", 1 / common.MiB),
    ("I/O block s", "fs.io_block_time_s", 1),
]


def _device(scale):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    return common.device_spec(ZONES, zone, PROFILE, max_open=32, extra="finish=pad")


def _base(scale, workload="fillrandom", ops_factor=1):
    memtable = common.scaled_bytes(PAPER_MEMTABLE, scale, unit=64 * 1024)
    return [
        "--device=" + _device(scale),
        "--scheme=baseline",  # the paper's ZenFS; the finish and cleaning settings under study are flags
        "--workload=" + workload,
        "--num=%d" % int(PAPER_OPS * scale * ops_factor),
        "--key_size=16",
        "--value_size=%d" % VALUE,
        "--compression=none",
        "--write_buffer_size=" + common.size_flag(memtable),
        "--target_file_size_base=" + common.size_flag(memtable),
        "--max_bytes_for_level_base=" + common.size_flag(4 * memtable),
    ]


def runs(scale, seeds):
    out = []
    for mode, flags in MODES:
        for occ in THRESHOLDS:
            for seed in range(1, seeds + 1):
                out.append({"label": "%s occ=%d" % (mode, occ), "scheme": mode, "seed": seed, "part": "threshold",
                            "occ": occ, "args": _base(scale) + flags + ["--finish_threshold_pct=%d" % (100 - occ)]})
    for level in START_LEVELS:
        for seed in range(1, seeds + 1):
            out.append({"label": "host GC start=%d" % level, "scheme": "host GC", "seed": seed, "part": "start",
                        "level": level,
                        "args": _base(scale) + ["--zc=zenfs", "--zc_start_level_pct=%d" % level,
                                                "--finish_threshold_pct=0"]})
    for mode, flags in MODES:
        for seed in range(1, seeds + 1):
            out.append({"label": "%s overwrite" % mode, "scheme": mode, "seed": seed, "part": "overwrite",
                        "no_space_ok": True,  # GC-free is expected to run out of space here
                        "args": _base(scale, "fillrandom,overwrite", OVERWRITE_FACTOR) + flags +
                                ["--finish_threshold_pct=0"]})
    return out


def _series(results, mode, path, mult=1.0):
    return [common.mean_spread(common.values(results, "%s occ=%d" % (mode, o), path))[0] * mult for o in THRESHOLDS]


def summarize(results, scale):
    zone = common.scaled_bytes(PAPER_ZONE, scale)
    text = ("Scale %g of the study: %d zones of %s (max open/active 32), fillrandom of %d x (16 B, %d B), "
            "no compression, FINISH pads (ConfZNS++ timing profile).\n\n"
            % (scale, ZONES, common.size_flag(zone), int(PAPER_OPS * scale), VALUE))
    labels = ["%s occ=%d" % (m, o) for m, _ in MODES for o in THRESHOLDS]
    text += common.metric_table(results, METRICS, labels) + "\n\n"
    rows = []
    for mode, _ in MODES:
        tput = _series(results, mode, "workload.mb_per_sec")
        pad = _series(results, mode, "fs.finish_pad_bytes")
        rising = all(b >= a * 0.9 for a, b in zip(tput, tput[1:]) if a == a and b == b)
        rows.append([mode, "15 -> 38 MB/s, rising", "%s -> %s MB/s (%s)" % (
            common.fmt(tput[0]), common.fmt(tput[-1]), "rising" if rising and tput[-1] > tput[0] else "not monotone"),
            "0 at 80%", "%s MiB at 80%%" % common.fmt(pad[THRESHOLDS.index(80)] / common.MiB)])
    text += "Paper vs ours (study slides 'Results'):\n\n"
    text += common.table(["mode", "paper throughput", "ours", "paper dummy writes", "ours"], rows) + "\n\n"
    gc = _series(results, "host GC", "workload.mb_per_sec")
    free = _series(results, "GC-free", "workload.mb_per_sec")
    ratios = [a / b for a, b in zip(gc, free) if a == a and b == b and b]
    text += ("Host GC / GC-free throughput per threshold (paper: nearly identical on fillrandom): %s\n\n"
             % ", ".join(common.fmt(r, 2) for r in ratios))
    text += "### gc_start_level sweep (occupancy 100%, host GC)\n\n"
    text += common.metric_table(results, METRICS, ["host GC start=%d" % l for l in START_LEVELS]) + "\n\n"
    text += "### fillrandom then overwrite (occupancy 100%)\n\n"
    text += common.metric_table(results, METRICS, ["%s overwrite" % m for m, _ in MODES]) + "\n\n"
    rows = []
    for mode, _ in MODES:
        rs = [r for r in results if r["label"] == "%s overwrite" % mode]
        for r in rs:
            doc = r.get("json") or {}
            outcome = r.get("outcome") or ("completed" if not r.get("error") else "failed")
            rows.append([mode, str(r["seed"]), outcome, "%d" % (common.get(doc, "workload.ops") or 0),
                         common.fmt(common.get(doc, "workload.elapsed_s")),
                         common.fmt((common.get(doc, "fs.reclaimable_bytes") or 0) / common.MiB)
                         if outcome == "no_space" else "-"])
    text += ("How each overwrite run ended (the study: GC-free must end in a clean NoSpace, not a hang, when the "
             "garbage is stranded in zones):\n\n")
    text += common.table(["mode", "seed", "outcome", "ops done", "s", "reclaimable MiB at the end"], rows) + "\n"
    return text


def plot(results, outdir):
    import matplotlib.pyplot as plt

    figs = []
    for path, title, ylabel, mult, name in [
        ("workload.mb_per_sec", "fillrandom: throughput", "MB/s", 1, "gc_throughput.png"),
        ("workload.put_us_avg", "fillrandom: latency", "us/op", 1, "gc_latency.png"),
        ("fs.finish_pad_bytes", "FINISH dummy writes (DLWA)", "MiB", 1 / common.MiB, "gc_dlwa.png"),
        ("fs.space_amp", "space amplification", "ratio", 1, "gc_space_amp.png"),
    ]:
        fig, ax = plt.subplots(figsize=(5.5, 3.2))
        for mode, _ in MODES:
            ax.plot(THRESHOLDS, _series(results, mode, path, mult), marker="o", label=mode)
        ax.set_xlabel("occupancy threshold (%)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = common.outpath(outdir, name)
        fig.savefig(p, dpi=120)
        plt.close(fig)
        figs.append(p)
    levels = [str(l) for l in START_LEVELS]
    figs.append(common.bar_chart(
        common.outpath(outdir, "gc_start_level.png"), "gc_start_level sweep", levels,
        {"MB/s": [common.mean_spread(common.values(results, "host GC start=%d" % l, "workload.mb_per_sec"))[0]
                  for l in START_LEVELS]}, "MB/s"))
    return figs
