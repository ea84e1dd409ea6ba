"""Helpers for experiment modules: metric lookup, statistics over seeds,
markdown tables, scaling, and matplotlib figures in the papers' style."""

import math
import os
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The scale used when neither the command line nor the module sets one.
DEFAULT_SCALE = 0.01
MiB = 1 << 20
GiB = 1 << 30


def get(doc, path, default=None):
    """The value at a dotted path ("fs.zc_copy_bytes.blob") of a JSON dict."""
    cur = doc
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def scaled_bytes(paper_bytes, scale, unit=MiB):
    """paper_bytes * scale rounded to a multiple of `unit` (at least one unit)."""
    return max(unit, int(round(paper_bytes * scale / unit)) * unit)


def size_flag(n):
    """Bytes as a zonekv size flag value ("64M", "4096")."""
    for suffix, mult in (("G", GiB), ("M", MiB), ("K", 1024)):
        if n % mult == 0:
            return "%d%s" % (n // mult, suffix)
    return str(n)


def device_spec(zones, zone_bytes, profile, max_open=14, extra=""):
    """An emulated device in RAM: `zones` zones of `zone_bytes`, open and
    active limits `max_open`, and the timing profile `profile` (the runner's
    --timing replaces it in every run). `extra` adds spec keys ("finish=pad")."""
    spec = "ram:zones=%d,zone_size=%s,max_open=%d,max_active=%d,timing=%s" % (
        zones, size_flag(zone_bytes), max_open, max_open, profile)
    return spec + ("," + extra if extra else "")


def timing_of(results):
    """'profile (time_scale x)' of the device the bench runs used, from
    their JSON config; several values joined when runs differ."""
    seen = []
    for r in ok(results):
        if get(r["json"], "config.device") is None:  # not a bench run (e.g. `zonekv ftl synth`)
            continue
        t = get(r["json"], "config.device.timing") or {}
        name = t.get("profile") or t.get("model") or "none"
        if t.get("time_scale", 1) != 1:
            name += " (time_scale %g)" % t["time_scale"]
        if name not in seen:
            seen.append(name)
    return ", ".join(seen) if seen else "n/a"


def same_victim_rocksdb_args(file_size):
    """The Same-Victim GC paper's RocksDB setup: BlobDB with blob GC, SST and
    blob files of `file_size` bytes, 2 flush + 2 compaction threads, 4
    subcompactions (shared by the `main` and `same-victim` experiments)."""
    return [
        "--threads=1",
        "--enable_blob_files=true",
        "--min_blob_size=0",
        "--blob_file_size=" + size_flag(file_size),
        "--enable_blob_garbage_collection=true",
        "--write_buffer_size=" + size_flag(file_size),
        "--target_file_size_base=" + size_flag(file_size),
        "--max_bytes_for_level_base=" + size_flag(4 * file_size),
        "--max_background_flushes=2",
        "--max_background_compactions=2",
        "--max_subcompactions=4",
    ]


def ok(results):
    """The runs that succeeded."""
    return [r for r in results if not r.get("error") and r.get("json")]


def labels(results):
    """Run labels in first-seen order."""
    seen = []
    for r in results:
        if r["label"] not in seen:
            seen.append(r["label"])
    return seen


def values(results, label, path, **match):
    """The metric at `path` for every successful run with this label (and
    whose extra keys equal `match`), one value per seed."""
    out = []
    for r in ok(results):
        if r["label"] != label or any(r.get(k) != v for k, v in match.items()):
            continue
        v = get(r["json"], path)
        if isinstance(v, (int, float)):
            out.append(float(v))
    return out


def sweep_values(results, path, **match):
    """The metric at `path` of every successful run whose keys equal `match`
    (e.g. sweep="size", policy="ccb", x=100), one value per seed."""
    out = []
    for r in ok(results):
        if all(r.get(k) == v for k, v in match.items()):
            v = get(r["json"], path)
            if isinstance(v, (int, float)):
                out.append(float(v))
    return out


def sweep_median(results, path, **match):
    """The median of sweep_values (NaN if no run matches)."""
    xs = sweep_values(results, path, **match)
    return statistics.median(xs) if xs else float("nan")


def sweep_xs(results, sweep):
    """The sorted x coordinates of the runs of one sweep."""
    return sorted({r["x"] for r in results if r.get("sweep") == sweep})


def median_range_cell(xs, digits=3):
    """'median [min-max]' over seeds, the median alone for one value."""
    if not xs:
        return "n/a"
    m = statistics.median(xs)
    if len(xs) == 1:
        return fmt(m, digits)
    return "%s [%s-%s]" % (fmt(m, digits), fmt(min(xs), digits), fmt(max(xs), digits))


def mean_spread(xs):
    """(mean, standard deviation) of a list; (nan, nan) if empty, spread 0 for one value."""
    if not xs:
        return float("nan"), float("nan")
    if len(xs) == 1:
        return xs[0], 0.0
    return statistics.fmean(xs), statistics.stdev(xs)


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if abs(x) >= 1e5 or (x != 0 and abs(x) < 1e-3):
        return "%.*g" % (digits, x)
    return "%.*f" % (digits if abs(x) < 10 else max(0, digits - 2), x)


def cell(xs, scale=1.0, digits=3):
    """'mean ± sd' of xs (multiplied by scale), or 'n/a' when no run has the
    metric (failed runs are counted in the table's `runs` column)."""
    if not xs:
        return "n/a"
    m, s = mean_spread([x * scale for x in xs])
    return fmt(m, digits) if len(xs) == 1 else "%s ± %s" % (fmt(m, digits), fmt(s, digits))


def table(header, rows):
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def metric_table(results, metrics, row_labels=None):
    """Scheme (label) x metric table, mean ± sd over seeds. metrics: list of
    (column title, dotted path, multiplier)."""
    rows = []
    for label in row_labels or labels(results):
        n = len(values(results, label, "workload.ops"))
        rows.append([label, str(n)] + [cell(values(results, label, path), mult) for _, path, mult in metrics])
    return table(["scheme", "runs"] + [t for t, _, _ in metrics], rows)


def agreement(ours_ratio, paper_ratio):
    """Says whether our ratio (scheme / baseline) goes the paper's way and is
    roughly as large: 'agrees', 'same direction, magnitude differs',
    'differs' (the paper saw no change, we do) or 'disagrees'."""
    if ours_ratio is None or math.isnan(ours_ratio):
        return "n/a"
    if paper_ratio == 1:
        return "agrees" if abs(ours_ratio - 1) <= 0.1 else "differs"
    if paper_ratio == 0:
        return "agrees" if ours_ratio <= 0.1 else "same direction, magnitude differs" if ours_ratio < 1 else "disagrees"
    if (ours_ratio - 1) * (paper_ratio - 1) <= 0:
        return "disagrees"
    if ours_ratio <= 0 or math.isinf(ours_ratio):
        return "same direction, magnitude differs"
    # Within a factor of two of the paper's effect size, on a log scale.
    k = math.log(ours_ratio) / math.log(paper_ratio)
    return "agrees" if 0.5 <= k <= 2 else "same direction, magnitude differs"


def _nan(x):
    return x is None or (isinstance(x, float) and math.isnan(x))


def bar_chart(path, title, groups, series, ylabel, errors=None):
    """Grouped bars: groups on the x axis, one bar per series (dict name ->
    list of values per group, NaN for missing)."""
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(groups) + 1), 3.2))
    n = max(1, len(series))
    width = 0.8 / n
    for i, (name, ys) in enumerate(series.items()):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        err = errors.get(name) if errors else None
        # Failed configurations (NaN) are drawn as zero-height bars.
        ys = [0.0 if _nan(y) else y for y in ys]
        if err is not None:
            err = [0.0 if _nan(e) else e for e in err]
        ax.bar(xs, ys, width, label=name, yerr=err, capsize=3)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def timeseries_chart(path, title, results, key, ylabel, label_of=None):
    """One line per successful run: timeseries[key] against t_s."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for r in ok(results):
        ts = r["json"].get("timeseries") or []
        if not ts:
            continue
        name = label_of(r) if label_of else "%s (seed %s)" % (r["label"], r["seed"])
        ax.plot([s.get("t_s", 0) for s in ts], [s.get(key) or 0 for s in ts], label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if ax.get_lines():
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def outpath(outdir, name):
    return os.path.join(outdir, name)
