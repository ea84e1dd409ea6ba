"""ccb: host-FTL GC victim policies (Constant Time Garbage Collection in SSDs, paper 004).

Three sweeps, each a figure of the paper:
  size     CPU overhead per I/O against device size (paper Fig. 4: 100 GB .. 2 TB,
           1 MiB zones, 10% over-provisioning), every policy, plus the
           maintenance/selection split at the largest size (paper Fig. 2)
  threads  CPU overhead against concurrent writers (paper Fig. 5: 1 TB, 1..64)
  zone     steady-state WAF against zone size (paper Fig. 6: 256 KiB .. 512 MiB)
           per workload

Scaling (experiments/README.md): the CPU sweeps keep the 1 MiB zone (256 blocks per
zone, which sets the per-selection cost of greedy/CCB/FeGC) and scale the
number of zones with the device size by `scale`. The zone sweep uses a
device of 128 GiB * scale but never fewer than 64 zones, so the largest zone
sizes run on larger devices (the paper's device size is not stated).

Cost: at the default scale 0.01 the 250 runs of one seed take ~40 min with 2
jobs on 2 cores; the 256 and 512 MiB zone-sweep points (16-32 GiB devices)
take most of it. Use --seeds=3 for smoother CPU curves (medians are shown).

Keys read from `zonekv ftl synth --json` (documented here as README asks):
  results.steady.{waf, maintenance_ns_per_io, selection_ns_per_io,
                  policy_ns_per_io, lock_wait_ns_per_io}   second half of the run
  results.{sim_iops_per_core, process_cpu_ns_per_op}
  memory.{policy_bytes_per_zone, policy_overhead_pct}
  config.ftl.geometry.nr_zones
"""

import math
import statistics

import common

DESCRIPTION = "host FTL GC policies: CPU per I/O vs device size and threads, WAF vs zone size (CCB paper)"
DEFAULT_SCALE = 0.01

GiB = common.GiB
MiB = common.MiB
KiB = 1024

ALL_POLICIES = ["greedy", "cost-benefit", "fast-cb", "approx-cb", "fegc", "ccb"]
# The paper's Fig. 4-6 compare these four.
PAPER_POLICIES = ["greedy", "approx-cb", "fegc", "ccb"]

SIZES_GB = [100, 250, 500, 1000, 2000]
THREADS = [1, 2, 4, 8, 16, 32, 64]
ZONE_SIZES = [256 * KiB * (2 ** i) for i in range(12)]  # 256 KiB .. 512 MiB
WORKLOADS = ["ycsb-a", "zipfian", "hotcold", "uniform"]
CPU_WORKLOAD = "zipfian"

# What the paper reports in its text (figures give no other numbers).
PAPER = {
    "ccb_cpu_reduction_2tb": 0.74,  # "CCB has 74% less CPU overhead" than the others at 2 TB
    "thread_growth": {"ccb": 0.15, "approx-cb": 0.30, "fegc": 0.86},  # 1 -> 64 threads
    "memory_pct": {"greedy": 0.0007, "cost-benefit": 0.0007, "approx-cb": 0.0014, "fegc": 0.001},
}


def _device_bytes(gb, scale):
    # Whole 1 MiB zones; at least 64 so that 10% OP exceeds the GC watermarks.
    zones = max(64, int(round(gb * 1e9 * scale / MiB)))
    return zones * MiB


def _zone_device_bytes(zone, scale):
    return max(64 * zone, int(128 * GiB * scale) // zone * zone)


def runs(scale, seeds):
    out = []
    for seed in range(1, seeds + 1):
        for gb in SIZES_GB:
            dev = _device_bytes(gb, scale)
            for p in ALL_POLICIES:
                out.append({
                    "label": "size %s %s" % (p, gb), "scheme": p, "seed": seed,
                    "sweep": "size", "policy": p, "x": gb,
                    "cmd": ["ftl", "synth", "--backing=meta", "--device_bytes=" + common.size_flag(dev),
                            "--zone_size=1M", "--op=0.1", "--policy=" + p, "--workload=" + CPU_WORKLOAD,
                            "--writes=%d" % (dev // 4096), "--seed=%d" % seed]})
        dev = _device_bytes(1000, scale)
        for t in THREADS:
            for p in PAPER_POLICIES:
                out.append({
                    "label": "threads %s %d" % (p, t), "scheme": p, "seed": seed,
                    "sweep": "threads", "policy": p, "x": t,
                    "cmd": ["ftl", "synth", "--backing=meta", "--device_bytes=" + common.size_flag(dev),
                            "--zone_size=1M", "--op=0.1", "--policy=" + p, "--workload=" + CPU_WORKLOAD,
                            "--threads=%d" % t, "--writes=%d" % (dev // 4096), "--seed=%d" % seed]})
        for w in WORKLOADS:
            for z in ZONE_SIZES:
                dev = _zone_device_bytes(z, scale)
                for p in PAPER_POLICIES:
                    out.append({
                        "label": "zone %s %s %s" % (w, p, common.size_flag(z)), "scheme": p, "seed": seed,
                        "sweep": "zone", "policy": p, "workload": w, "x": z,
                        "cmd": ["ftl", "synth", "--backing=meta", "--device_bytes=" + common.size_flag(dev),
                                "--zone_size=" + common.size_flag(z), "--op=0.1", "--policy=" + p,
                                "--workload=" + w, "--seed=%d" % seed]})
    return out


def _mean(results, path, **match):
    """The median over seeds of the metric at `path` for the matching runs
    (NaN if none): per-I/O timings on a shared 2-core machine have outliers
    of +-15 ns, and the median keeps one noisy run from bending a curve."""
    xs = []
    for r in common.ok(results):
        if all(r.get(k) == v for k, v in match.items()):
            v = common.get(r["json"], path)
            if isinstance(v, (int, float)):
                xs.append(float(v))
    return statistics.median(xs) if xs else float("nan")


def _xs(results, sweep):
    return sorted({r["x"] for r in results if r.get("sweep") == sweep})


def _pct(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or b == 0:
        return float("nan")
    return a / b - 1


def summarize(results, scale):
    lines = []
    sizes = _xs(results, "size")
    lines.append("Scale %g: device sizes are the paper's x scale (1 MiB zones kept, so zones = %s); "
                 "zone sweep device = max(128 GiB x scale, 64 zones). CPU workload: %s. "
                 "CPU overhead = policy hook time (maintenance) + victim selection time per user write, "
                 "in the steady second half of each run. Cells are medians over seeds.\n"
                 % (scale, ", ".join(str(_device_bytes(g, scale) // MiB) for g in sizes), CPU_WORKLOAD))

    lines.append("## CPU overhead vs device size (ns per I/O; paper Fig. 4)\n")
    rows = []
    for p in ALL_POLICIES:
        rows.append([p] + [common.fmt(_mean(results, "results.steady.policy_ns_per_io", sweep="size",
                                            policy=p, x=g)) for g in sizes])
    lines.append(common.table(["policy"] + ["%d GB" % g for g in sizes], rows))
    if sizes:
        big = sizes[-1]
        lines.append("\n## Split at %d GB (paper Fig. 2): maintenance vs selection, ns per I/O\n" % big)
        rows = []
        for p in ALL_POLICIES:
            m = _mean(results, "results.steady.maintenance_ns_per_io", sweep="size", policy=p, x=big)
            s = _mean(results, "results.steady.selection_ns_per_io", sweep="size", policy=p, x=big)
            mem = _mean(results, "memory.policy_bytes_per_zone", sweep="size", policy=p, x=big)
            pct = _mean(results, "memory.policy_overhead_pct", sweep="size", policy=p, x=big)
            paper_pct = PAPER["memory_pct"].get(p)
            rows.append([p, common.fmt(m), common.fmt(s), common.fmt(mem), common.fmt(pct, 2),
                         "~%g%%" % paper_pct if paper_pct else "n/a"])
        lines.append(common.table(["policy", "maintenance", "selection", "policy bytes/zone",
                                   "memory % of capacity", "paper memory %"], rows))
        ccb = _mean(results, "results.steady.policy_ns_per_io", sweep="size", policy="ccb", x=big)
        others = [_mean(results, "results.steady.policy_ns_per_io", sweep="size", policy=p, x=big)
                  for p in ("approx-cb", "fegc")]
        others = [o for o in others if not math.isnan(o)]
        if others and not math.isnan(ccb):
            best = min(others)
            red = 1 - ccb / best
            paper = PAPER["ccb_cpu_reduction_2tb"]
            lines.append("\nCCB vs the cheaper of approx-cb/fegc at %d GB: %.0f%% less CPU (paper: %.0f%% at 2 TB) "
                         "-> %s.\n" % (big, 100 * red, 100 * paper,
                                       common.agreement(ccb / best, 1 - paper)))
        g = _mean(results, "results.steady.policy_ns_per_io", sweep="size", policy="greedy", x=big)
        if not math.isnan(g) and not math.isnan(ccb):
            lines.append("CCB / greedy CPU at %d GB: %.2f (paper: \"almost the same\").\n" % (big, ccb / g))

    threads = _xs(results, "threads")
    if threads:
        lines.append("\n## CPU overhead vs writer threads (ns per I/O, 1 TB x scale; paper Fig. 5)\n")
        lines.append("policy = hook + selection time; wait = time spent acquiring the FTL lock. "
                     "This machine has 2 cores, so beyond 2 threads writers mostly wait.\n")
        rows = []
        for p in PAPER_POLICIES:
            row = [p]
            for t in threads:
                pol = _mean(results, "results.steady.policy_ns_per_io", sweep="threads", policy=p, x=t)
                wait = _mean(results, "results.steady.lock_wait_ns_per_io", sweep="threads", policy=p, x=t)
                row.append("%s / %s" % (common.fmt(pol), common.fmt(wait)))
            first = _mean(results, "results.steady.policy_ns_per_io", sweep="threads", policy=p, x=threads[0])
            last = _mean(results, "results.steady.policy_ns_per_io", sweep="threads", policy=p, x=threads[-1])
            growth = _pct(last, first)
            paper = PAPER["thread_growth"].get(p)
            row.append(common.fmt(100 * growth, 2) + "%")
            row.append("+%.0f%%" % (100 * paper) if paper is not None else "n/a")
            rows.append(row)
        lines.append(common.table(["policy"] + ["%d thr (policy / wait)" % t for t in threads]
                                  + ["growth %d->%d" % (threads[0], threads[-1]), "paper growth 1->64"], rows))

    zones = _xs(results, "zone")
    if zones:
        lines.append("\n## Steady-state WAF vs zone size (paper Fig. 6)\n")
        for w in WORKLOADS:
            rows = []
            for p in PAPER_POLICIES:
                rows.append([p] + [common.fmt(_mean(results, "results.steady.waf", sweep="zone", workload=w,
                                                    policy=p, x=z)) for z in zones])
            lines.append("\n### %s\n" % w)
            lines.append(common.table(["policy"] + [common.size_flag(z) for z in zones], rows))
            at1m = {p: _mean(results, "results.steady.waf", sweep="zone", workload=w, policy=p, x=MiB)
                    for p in PAPER_POLICIES}
            if not any(math.isnan(v) for v in at1m.values()):
                lines.append("\nAt 1 MiB: CCB/greedy = %.3f, CCB/FeGC = %.3f, CCB/approx-cb = %.3f "
                             "(paper: CCB comparable to the CB family and at or below greedy on skewed "
                             "workloads).\n" % (at1m["ccb"] / at1m["greedy"], at1m["ccb"] / at1m["fegc"],
                                                at1m["ccb"] / at1m["approx-cb"]))
    return "\n".join(lines) + "\n"


def _line_chart(path, title, xs, series, xlabel, ylabel, logx=True, logy=False):
    fig, ax = common.plt.subplots(figsize=(5, 3.4))
    for name, ys in series.items():
        ax.plot(xs, ys, marker="o", label=name)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    common.plt.close(fig)
    return path


def plot(results, outdir):
    paths = []
    sizes = _xs(results, "size")
    if sizes:
        series = {p: [_mean(results, "results.steady.policy_ns_per_io", sweep="size", policy=p, x=g)
                      for g in sizes] for p in ALL_POLICIES}
        paths.append(_line_chart(common.outpath(outdir, "ccb_cpu_vs_size.png"),
                                 "GC CPU per I/O vs device size (paper Fig. 4)", sizes, series,
                                 "device size (paper GB; run scaled)", "ns per I/O", logx=False, logy=True))
        big = sizes[-1]
        groups = ALL_POLICIES
        paths.append(common.bar_chart(
            common.outpath(outdir, "ccb_cpu_split.png"), "CPU split at %d GB (paper Fig. 2)" % big, groups,
            {"maintenance": [_mean(results, "results.steady.maintenance_ns_per_io", sweep="size", policy=p, x=big)
                             for p in groups],
             "selection": [_mean(results, "results.steady.selection_ns_per_io", sweep="size", policy=p, x=big)
                           for p in groups]},
            "ns per I/O"))
    threads = _xs(results, "threads")
    if threads:
        series = {p: [_mean(results, "results.steady.policy_ns_per_io", sweep="threads", policy=p, x=t)
                      for t in threads] for p in PAPER_POLICIES}
        paths.append(_line_chart(common.outpath(outdir, "ccb_cpu_vs_threads.png"),
                                 "GC CPU per I/O vs threads (paper Fig. 5)", threads, series,
                                 "writer threads", "ns per I/O (hooks + selection)"))
        series = {p: [_mean(results, "results.steady.lock_wait_ns_per_io", sweep="threads", policy=p, x=t)
                      for t in threads] for p in PAPER_POLICIES}
        paths.append(_line_chart(common.outpath(outdir, "ccb_lock_wait_vs_threads.png"),
                                 "FTL lock wait per I/O vs threads", threads, series,
                                 "writer threads", "ns per I/O", logy=True))
    zones = _xs(results, "zone")
    if zones:
        fig, axes = common.plt.subplots(1, len(WORKLOADS), figsize=(4 * len(WORKLOADS), 3.4))
        for ax, w in zip(axes, WORKLOADS):
            for p in PAPER_POLICIES:
                ax.plot([z / MiB for z in zones],
                        [_mean(results, "results.steady.waf", sweep="zone", workload=w, policy=p, x=z)
                         for z in zones], marker="o", label=p)
            ax.axvline(1, color="grey", linestyle=":", linewidth=1)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("zone size (MiB)")
            ax.set_ylabel("WAF (steady)")
            ax.set_title(w)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        fig.suptitle("WAF vs zone size (paper Fig. 6)")
        fig.tight_layout()
        path = common.outpath(outdir, "ccb_waf_vs_zone_size.png")
        fig.savefig(path, dpi=120)
        common.plt.close(fig)
        paths.append(path)
    return paths
