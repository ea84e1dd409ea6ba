"""fill: how full can the device get? A fill-level sweep (issue 16).

BlobDB overwrites of 16 KiB values with live data at 20, 30, ... 80% of the
device: a fillrandom load and three overwrite passes over the key space, per
scheme. Per level: completed, or NoSpace and after how many operations;
throughput; write amplification (device writes / user writes); zone-cleaning
copy; blob GC copy (RocksDB's own and the space-pressure GC's).

No paper reports this; the issue asks that overwrites complete up to 70% live
data with the best scheme. The device is the issue's (64 zones of 64 MiB,
open/active 14, blob files of 256 MiB, 64 MiB memtables) at scale 1; byte
sizes shrink with the scale (the scaling rule in experiments/README.md),
values stay 16 KiB.

A second sweep holds the level at 70% and the zone size, blob files and
memtables fixed, and grows the device to 128 and 256 zones, for the best
scheme: what a collection needs before it frees anything (the recovery
reserve, the WAL, the zones writers hold open, one collection's room) is a
number of zones, so it weighs less on a device with more of them.

A third holds 70% on 256 zones and changes one of the issue's other axes at
a time: values of 4 and 32 KiB, open/active limits of 8, blob files of 16
MiB (at scale 1).
"""

import common

DESCRIPTION = ("fill-level sweep: BlobDB overwrites at 20-80% live data, and 70% on 128 and 256 zones and "
               "with other values, limits and blob files; completed or NoSpace, WA, copies")
DEFAULT_SCALE = 0.25

ZONES = 64
ZONE_BYTES = 64 * common.MiB
BLOB_FILE_BYTES = 256 * common.MiB
MEMTABLE_BYTES = 64 * common.MiB
OPEN_ACTIVE = 14
VALUE_BYTES = 16384
KEY_BYTES = 16  # db_bench's default key size, which `zonekv bench` uses
LEVELS = [20, 30, 40, 50, 60, 70, 80]
SCHEMES = ["baseline", "baza+", "baza+space", "coop"]  # coop: the default, best on the coop matrix (issue 20)
PROFILE = "zn540"
PASSES = ["fillrandom", "overwrite", "overwrite", "overwrite"]
# The device-size sweep: this level, these zone counts, these schemes.
SIZE_LEVEL = 70
SIZE_ZONES = [128, 256]
SIZE_SCHEMES = ["coop"]


# The other axes at this level, one at a time from the device's
# settings, on the device of this many zones (where the base setting
# completes): label suffix, value bytes, open/active limit, blob file bytes
# (scale 1; None: the base setting).
AXIS_ZONES = 256
AXES = [("4 KiB values", 4096, None, None),
        ("32 KiB values", 32768, None, None),
        ("open/active 8", None, 8, None),
        ("16 MiB blob files", None, None, 16 * common.MiB)]


def _num(level, scale, zones=ZONES, value_bytes=VALUE_BYTES):
    device = zones * common.scaled_bytes(ZONE_BYTES, scale)
    return int(level / 100.0 * device / value_bytes)


def _run(scheme, level, zones, seed, scale, axis=None):
    _, value, open_active, blob_file = axis or (None, None, None, None)
    value = value or VALUE_BYTES
    open_active = open_active or OPEN_ACTIVE
    blob_file = blob_file or BLOB_FILE_BYTES
    rocksdb = ["--enable_blob_files=true", "--min_blob_size=4096", "--enable_blob_garbage_collection=true",
               "--blob_file_size=" + common.size_flag(common.scaled_bytes(blob_file, scale)),
               "--write_buffer_size=" + common.size_flag(common.scaled_bytes(MEMTABLE_BYTES, scale))]
    num = _num(level, scale, zones, value)
    label = "%s %d%%" % (scheme, level) + ("" if zones == ZONES else " %d zones" % zones)
    if axis:
        label += ", " + axis[0]
    return {"label": label, "scheme": scheme, "seed": seed, "level": level, "zones": zones, "num": num,
            "axis": axis[0] if axis else None, "value_bytes": value, "no_space_ok": True,
            "args": ["--device=" + common.device_spec(zones, common.scaled_bytes(ZONE_BYTES, scale), PROFILE,
                                                      max_open=open_active),
                     "--scheme=" + scheme, "--workload=" + ",".join(PASSES), "--num=%d" % num,
                     "--value_size=%d" % value] + rocksdb}


def runs(scale, seeds):
    out = []
    for level in LEVELS:
        for scheme in SCHEMES:
            for seed in range(1, seeds + 1):
                out.append(_run(scheme, level, ZONES, seed, scale))
    for zones in SIZE_ZONES:
        for scheme in SIZE_SCHEMES:
            for seed in range(1, seeds + 1):
                out.append(_run(scheme, SIZE_LEVEL, zones, seed, scale))
    for axis in AXES:
        for scheme in SIZE_SCHEMES:
            for seed in range(1, seeds + 1):
                out.append(_run(scheme, SIZE_LEVEL, AXIS_ZONES, seed, scale, axis))
    return out


def _metrics(r):
    """The run's figures (None where the run left no JSON)."""
    doc = r.get("json")
    if not doc:
        return None
    ops = common.get(doc, "workload.ops") or 0
    user = ops * (r.get("value_bytes", VALUE_BYTES) + KEY_BYTES)
    host = common.get(doc, "fs.host_write_bytes") or 0
    dlwa = common.get(doc, "fs.dlwa") or 1.0
    zc = sum(common.get(doc, "fs.zc_copy_bytes." + k) or 0 for k in ("blob", "sst", "wal", "other"))
    return {
        "done": not r.get("error"),
        "no_space": r.get("outcome") == "no_space",
        "ops": ops,
        "planned": r["num"] * len(PASSES),
        "ops_per_sec": common.get(doc, "workload.ops_per_sec") or 0.0,
        "wa": host * dlwa / user if user else float("nan"),
        "zc_mib": zc / common.MiB,
        "blobgc_mib": (common.get(doc, "rocksdb.blobgc_copy_bytes") or 0) / common.MiB,
        "space_gc_rounds": common.get(doc, "controllers.space_gc.rounds"),
    }


def _cells(results, scheme, level, zones=ZONES, axis=None):
    rs = [r for r in results if r["scheme"] == scheme and r["level"] == level and r.get("zones", ZONES) == zones
          and r.get("axis") == axis]
    ms = [m for m in (_metrics(r) for r in rs) if m]
    return rs, ms


def _row(results, scheme, level, zones, axis=None):
    """The table row of one cell, or None where it did not run."""
    rs, ms = _cells(results, scheme, level, zones, axis)
    if not rs:
        return None
    done = sum(1 for m in ms if m["done"])
    status = "%d/%d completed" % (done, len(rs))
    full = [m for m in ms if m["no_space"]]
    if full:
        status += "; NoSpace after %s of %d ops" % (", ".join("%d" % m["ops"] for m in full), full[0]["planned"])
    broken = [m for m in ms if not m["done"] and not m["no_space"]]
    if broken:
        status += "; %d failed otherwise (see Failed runs)" % len(broken)
    return [scheme, status,
            common.cell([m["ops_per_sec"] for m in ms], 1, 4),
            common.cell([m["wa"] for m in ms]),
            common.cell([m["zc_mib"] for m in ms], 1, 4),
            common.cell([m["blobgc_mib"] for m in ms], 1, 4),
            common.cell([m["space_gc_rounds"] for m in ms if m["space_gc_rounds"] is not None], 1, 3)]


def summarize(results, scale):
    zone = common.scaled_bytes(ZONE_BYTES, scale)
    text = ("Device: %d zones of %s (%s in all), timing %s; 16 KiB values, blob files of %s, memtables of %s; "
            "a fillrandom load then 3 overwrite passes. Scale %g. No paper figure: the issue's target is "
            "completion up to 70%% live data with the best scheme.\n\n" %
            (ZONES, common.size_flag(zone), common.size_flag(ZONES * zone), common.timing_of(results),
             common.size_flag(common.scaled_bytes(BLOB_FILE_BYTES, scale)),
             common.size_flag(common.scaled_bytes(MEMTABLE_BYTES, scale)), scale))
    metrics = ["runs", "ops/s", "WA (device / user)", "ZC copy MiB", "blob GC copy MiB", "space-GC rounds"]
    rows = []
    for level in LEVELS:
        for scheme in SCHEMES:
            row = _row(results, scheme, level, ZONES)
            if row:
                rows.append(["%d%%" % level] + row)
    if rows:
        text += common.table(["live data", "scheme"] + metrics, rows)
    rows = {zones: [] for zones in [ZONES] + SIZE_ZONES}
    for zones in rows:
        for scheme in SIZE_SCHEMES:
            row = _row(results, scheme, SIZE_LEVEL, zones)
            if row:
                rows[zones].append(["%d x %s" % (zones, common.size_flag(zone))] + row)
    if any(rows[zones] for zones in SIZE_ZONES):
        text += ("\n\n%d%% live data on larger devices (the same zones, blob files and memtables; more of "
                 "them):\n\n" % SIZE_LEVEL)
        text += common.table(["device (zones x size)", "scheme"] + metrics, sum(rows.values(), []))
    rows = {name: [] for name in [None] + [a[0] for a in AXES]}
    for name in rows:
        for scheme in SIZE_SCHEMES:
            row = _row(results, scheme, SIZE_LEVEL, AXIS_ZONES, name)
            if row:
                rows[name].append([name or "none"] + row)
    if any(rows[a[0]] for a in AXES):
        text += ("\n\n%d%% live data on %d zones, one setting changed at a time (the issue's other axes: values "
                 "of 4 to 32 KiB, open/active limits of 8 to 14, blob files of 16 to 256 MiB at scale 1):\n\n" %
                 (SIZE_LEVEL, AXIS_ZONES))
        text += common.table(["changed", "scheme"] + metrics, sum(rows.values(), []))
    text += ("\n\nops/s, WA and copies are over the operations a run made (up to NoSpace for a failed run); "
             "mean ± sd over seeds. WA = host writes x DLWA / (ops x (value + 16 B)).\n")
    return text


def plot(results, outdir):
    import matplotlib.pyplot as plt

    figures = []
    if not any(_cells(results, scheme, level)[1] for scheme in SCHEMES for level in LEVELS):
        return figures  # only larger devices ran: the figures are of the 64-zone levels
    for key, ylabel, name in (("wa", "write amplification (device / user)", "fill_wa.png"),
                              ("ops_per_sec", "ops/s", "fill_throughput.png")):
        fig, ax = plt.subplots(figsize=(6, 4))
        for scheme in SCHEMES:
            xs, ys, fx, fy = [], [], [], []
            for level in LEVELS:
                _, ms = _cells(results, scheme, level)
                if not ms:
                    continue
                m = common.mean_spread([x[key] for x in ms])[0]
                xs.append(level)
                ys.append(m)
                if any(not x["done"] for x in ms):
                    fx.append(level)
                    fy.append(m)
            if xs:
                line, = ax.plot(xs, ys, marker="o", label=scheme)
                if fx:
                    ax.scatter(fx, fy, marker="x", s=80, color=line.get_color())
        ax.set_xlabel("live data, % of device (x: a run hit NoSpace)")
        ax.set_ylabel(ylabel)
        ax.set_title("fill: " + ylabel)
        ax.grid(alpha=0.3)
        ax.legend()
        path = common.outpath(outdir, name)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        figures.append(path)
    return figures
