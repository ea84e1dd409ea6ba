"""coop: every paper's headline workload against every paper's best scheme
and `coop`, the scheme that composes them all (issue 20).

Workloads, each on its own paper's device, geometry and timing profile, as
that paper's experiment builds them (at `--scale` times that experiment's
default scale; Same-Victim's and GC vs GC-free's at 4x that, see SV_FACTOR
and GC_FACTOR):

  Same-Victim GC   YCSB WL(A) with BlobDB        (same-victim, zn540)
  FAR              fillrandom, the medium size   (far, cosmos)
  Same-Zone        fillrandom                    (same-zone, confzns)
  GC vs GC-free    fillrandom, FINISH pads       (gc-vs-gcfree, confznspp)
  full device      BlobDB overwrite at 60% live  (fill, zn540)

Schemes: baseline, the best scheme of each paper (baza+, far, a-caza,
baza+space; the GC-vs-GC-free study's best, host GC with the occupancy
threshold at 100%, is the baseline itself) and coop. Every scheme runs every
workload: the matrix says whether one scheme is best everywhere.

One deviation from the per-paper experiments: a workload keeps its device,
data and RocksDB flags, but not the policy flags those experiments add to
recreate a paper's environment (FAR's and Same-Zone's greedy cleaning below
20% free, GC-vs-GC-free's cleaning and finish settings). Each scheme runs
with its own policies, as a user who picks it gets them.
"""

import importlib.util
import math
import os

import common

DESCRIPTION = ("every paper's headline workload x (baseline, each paper's best, coop), timed: throughput and "
               "device write amplification normalised to the baseline, a heatmap of each")
# A factor on each paper experiment's own default scale.
DEFAULT_SCALE = 1.0

SCHEMES = ["baseline", "baza+", "far", "a-caza", "baza+space", "coop"]
FILL_LEVEL = 60  # % of the device's capacity in live data
FILL_NAME = "fill %d%%" % FILL_LEVEL
FILL_SCALE = 0.0625  # the fill experiment's device at 1/16: 64 zones of 4 MiB
# GC vs GC-free's fillrandom at 4x that experiment's default scale (1/8 of the
# study's: 64 zones of 32 MiB, 375k operations): at 1/32 a run lasts 2 s.
GC_FACTOR = 4
# Same-Victim's WL(A) at 4x that experiment's default scale (1/16 of the
# study's: 64 zones of 64 MiB, 196,608 records of 8 KiB). At 1/64 a run lasts
# 6 s, CPU-bound with the dies 10-15% busy: zone cleaning hardly costs time,
# and seeds spread +-5-8%. At 1/16 runs last 20-30 s and the baseline's zone
# cleaning copies 2.2-2.5 GiB (notes/issue-20.md, session 14).
SV_FACTOR = 4

# Flags that choose policies: dropped from a workload's command so that each
# scheme runs with its own (see the module docstring).
POLICY_FLAGS = ("--alloc", "--blob_alloc", "--zc", "--reset", "--finish", "--compaction", "--acc_", "--space_gc",
                "--blob_gc_cutoff", "--hybrid_")


def _module(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location("zonekv_coop_" + name.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _without_policy(args):
    return [a for a in args if not a.startswith(POLICY_FLAGS + ("--scheme=",))]


def _workloads(scale):
    """(name, paper, primary metric title, primary path, higher is better,
    the paper's best scheme, flags, effective scale) per workload."""
    sv, far, sz, gc, fill = (_module(n) for n in ("same-victim", "far", "same-zone", "gc-vs-gcfree", "fill"))
    s_far, s_sz = (m.DEFAULT_SCALE * scale for m in (far, sz))
    s_sv = sv.DEFAULT_SCALE * SV_FACTOR * scale
    s_gc = gc.DEFAULT_SCALE * GC_FACTOR * scale
    s_fill = FILL_SCALE * scale
    fill_args = None
    for r in fill.runs(s_fill, 1):
        if r["level"] == FILL_LEVEL:
            fill_args = r["args"]
            break
    return [
        ("Same-Victim WL(A)", "Same-Victim GC", "ops/s", "workload.ops_per_sec", True, "baza+",
         sv._args(s_sv, "sv-wla"), s_sv),
        ("FAR fillrandom", "FAR", "zone resets (EZRC)", "fs.ezrc", False, "far", far._args(s_far, 12), s_far),
        ("Same-Zone fillrandom", "Same-Zone Compaction", "ops/s", "workload.ops_per_sec", True, "a-caza",
         sz._args(s_sz, "fillrandom", None), s_sz),
        ("GC-vs-GC-free fillrandom", "GC vs GC-free", "MB/s", "workload.mb_per_sec", True, "baseline",
         gc._base(s_gc), s_gc),
        (FILL_NAME, "issue 16", "ops completed", "workload.ops", True, "baza+space", fill_args,
         s_fill),
    ]


def runs(scale, seeds):
    out = []
    for name, _, _, _, _, _, args, eff in _workloads(scale):
        base = _without_policy(args) + ["--scale=%r" % eff]
        for seed in range(1, seeds + 1):
            for scheme in SCHEMES:  # interleaved: every scheme of a seed runs side by side
                # Running out of space is what the fill row measures, not a failure of the run.
                out.append({"label": "%s | %s" % (scheme, name), "scheme": scheme, "seed": seed, "workload": name,
                            "no_space_ok": name == FILL_NAME, "args": base + ["--scheme=" + scheme]})
    return out


def _user_bytes(doc):
    cfg = common.get(doc, "config.workload") or {}
    key = cfg.get("key_size") or 16
    value = cfg.get("value_size") or 0
    writes = common.get(doc, "workload.writes") or 0
    if "load" in (cfg.get("phases") or []):  # YCSB's load phase is not in workload.writes
        writes += cfg.get("recordcount") or 0
    return writes * (key + value)


def _device_wa(doc):
    """Device write amplification: bytes the device programs (host writes,
    FINISH padding included) / user bytes written (keys and values)."""
    user = _user_bytes(doc)
    host = common.get(doc, "fs.device.host_write_bytes") or 0
    pad = common.get(doc, "fs.device.finish_pad_bytes") or 0
    return (host + pad) / user if user else float("nan")


def _per_seed(results, scheme, workload, f, failed_too=False):
    """f(json) of every run of (scheme, workload) that completed; with
    failed_too, also of those that ended in an error but left a JSON (a
    NoSpace run still reports how far it got). The throughput and write
    amplification of a run that stopped early compare with nothing."""
    xs = [f(r["json"]) for r in results
          if r["scheme"] == scheme and r["workload"] == workload and r.get("json")
          and (failed_too or not r.get("error"))]
    return [x for x in xs if x is not None]  # (a metric an older binary did not report)


def _mean(xs):
    xs = [x for x in xs if not (x is None or (isinstance(x, float) and math.isnan(x)))]
    return sum(xs) / len(xs) if xs else float("nan")


def _ratio(results, scheme, workload, f):
    base = _mean(_per_seed(results, "baseline", workload, f))
    ours = _mean(_per_seed(results, scheme, workload, f))
    return ours / base if base and base == base and ours == ours else float("nan")


def _zc_copy(doc):
    return sum(common.get(doc, "fs.zc_copy_bytes." + k) or 0 for k in ("blob", "sst", "wal", "other"))


def _tput(doc):
    return common.get(doc, "workload.ops_per_sec")


def _failed(results, scheme, workload):
    rs = [r for r in results if r["scheme"] == scheme and r["workload"] == workload]
    return sum(1 for r in rs if r.get("error")), len(rs)


def _geomean(xs):
    xs = [x for x in xs if x == x and x > 0 and not math.isinf(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def summarize(results, scale):
    wls = _workloads(scale)
    text = ("Each workload at `--scale` x its paper experiment's default scale (effective scale in the table), "
            "on its paper's timing profile. Cells: mean over seeds, ratio to the baseline on the same workload; "
            "device WA = device writes (host + FINISH padding) / user bytes. A run that ended in an error "
            "(NoSpace) counts as failed, and its throughput and WA are left out (n/a where no run completed); "
            "how far it got is in the primary-metric table below.\n\n")
    # A run matrix cut down with --only leaves workloads and schemes out: no row for them.
    ran = {(r["scheme"], r["workload"]) for r in results}
    wls = [w for w in wls if any((s, w[0]) in ran for s in SCHEMES)]
    rows = []
    for name, paper, _, _, _, best, _, eff in wls:
        first = True
        for scheme in SCHEMES:
            failed, n = _failed(results, scheme, name)
            if n == 0:
                continue
            tput = _per_seed(results, scheme, name, _tput)
            wa = _per_seed(results, scheme, name, _device_wa)
            rows.append([name if first else "", scheme + (" (paper's best)" if scheme == best else ""),
                         "%d/%d" % (n - failed, n), common.cell(tput), common.fmt(_ratio(results, scheme, name, _tput), 3),
                         common.cell(wa), common.fmt(_ratio(results, scheme, name, _device_wa), 3),
                         common.cell(_per_seed(results, scheme, name, lambda d: common.get(d, "fs.ezrc"))),
                         common.cell(_per_seed(results, scheme, name, _zc_copy), 1 / common.MiB),
                         common.cell(_per_seed(results, scheme, name, lambda d: common.get(d, "workload.cpu_us_per_op")))])
            first = False
    text += common.table(["workload", "scheme", "runs ok", "ops/s", "ops/s / base", "device WA", "WA / base",
                          "EZRC", "ZC copy MiB", "CPU us/op"], rows) + "\n\n"

    text += "### coop against each paper's best, on that paper's primary metric\n\n"
    rows = []
    for name, paper, title, path, higher, best, _, eff in wls:
        partial = path == "workload.ops"  # how far a run got: failed runs count too
        b = _per_seed(results, best, name, lambda d, p=path: common.get(d, p), failed_too=partial)
        c = _per_seed(results, "coop", name, lambda d, p=path: common.get(d, p), failed_too=partial)
        bm, bs = common.mean_spread(b)
        cm, cs = common.mean_spread(c)
        if bm != bm or cm != cm:
            verdict = "n/a"
        else:
            spread = max(bs, cs)
            better = cm - bm if higher else bm - cm
            verdict = "better" if better > spread else "within spread" if better >= -spread else "worse"
        rows.append([name, paper, "%g" % eff, title, best, common.cell(b), common.cell(c),
                     common.fmt(cm / bm if bm else float("nan"), 3), verdict])
    text += common.table(["workload", "paper", "scale", "primary metric", "paper's best", "best", "coop",
                          "coop / best", "coop vs best"], rows) + "\n\n"

    text += "### Combined: geometric mean over the workloads of each ratio to the baseline\n\n"
    rows = []
    for scheme in [s for s in SCHEMES if any((s, w[0]) in ran for w in wls)]:
        t = _geomean([_ratio(results, scheme, w[0], _tput) for w in wls])
        wa = _geomean([_ratio(results, scheme, w[0], _device_wa) for w in wls])
        failed = sum(_failed(results, scheme, w[0])[0] for w in wls)
        rows.append([scheme, common.fmt(t, 3), common.fmt(wa, 3), str(failed)])
    text += common.table(["scheme", "throughput / baseline", "device WA / baseline", "failed runs"], rows) + "\n"
    return text


def _row(results, workload, f, ops_fallback):
    """(row label suffix, ratio per scheme): f's ratio to the baseline; where
    no baseline run completed (the fill level), the ratio of operations
    done, failed runs included, since that is then the difference."""
    if _per_seed(results, "baseline", workload, f) or not ops_fallback:
        return "", [_ratio(results, s, workload, f) for s in SCHEMES]
    base = _mean(_per_seed(results, "baseline", workload, _ops, failed_too=True))
    ratios = [_mean(_per_seed(results, s, workload, _ops, failed_too=True)) / base if base else float("nan")
              for s in SCHEMES]
    return " (ops done)", ratios


def _ops(doc):
    return common.get(doc, "workload.ops")


def _heatmap(path, title, results, wls, f, better_high):
    import matplotlib.pyplot as plt
    rows = [_row(results, w[0], f, ops_fallback=better_high) for w in wls]
    grid = [r[1] for r in rows]
    fig, ax = plt.subplots(figsize=(1.3 * len(SCHEMES) + 3, 0.6 * len(wls) + 1.5))
    vals = [v for row in grid for v in row if v == v and not math.isinf(v)]
    span = max([abs(math.log(v)) for v in vals if v > 0] + [0.05])
    shown = [[math.log(v) if v == v and v > 0 and not math.isinf(v) else float("nan") for v in row] for row in grid]
    cmap = "RdYlGn" if better_high else "RdYlGn_r"
    im = ax.imshow(shown, cmap=cmap, vmin=-span, vmax=span, aspect="auto")
    ax.set_xticks(range(len(SCHEMES)))
    ax.set_xticklabels(SCHEMES)
    ax.set_yticks(range(len(wls)))
    ax.set_yticklabels([w[0] + r[0] for w, r in zip(wls, rows)])
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            ax.text(j, i, common.fmt(v, 2), ha="center", va="center", fontsize=8)
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label="log(ratio to baseline)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot(results, outdir):
    wls = _workloads(DEFAULT_SCALE)  # for their names only, which do not depend on the scale
    return [
        _heatmap(common.outpath(outdir, "coop_throughput.png"), "throughput / baseline", results, wls, _tput, True),
        _heatmap(common.outpath(outdir, "coop_device_wa.png"), "device write amplification / baseline", results, wls,
                 _device_wa, False),
    ]
