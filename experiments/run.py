#!/usr/bin/python3
"""The experiment runner behind `zonekv experiment` (see README.md).

Usage (normally through the zonekv binary):
  run.py --zonekv=BIN --src=DIR --list
  run.py --zonekv=BIN --src=DIR NAME [--scale=S] [--out=DIR] [--seeds=N] [--jobs=J] [--timing=PROFILE]
         [--time_scale=X]

--timing replaces the device timing profile of every run (each experiment
defaults to the profile of the paper it reproduces; see docs/device-timing.md).
--time_scale multiplies every modelled latency of every run by X (a device X
times slower; the summary names it).

Exit status: 0 all runs succeeded, 1 a run failed (results are still written),
2 usage error.
"""

import argparse
import concurrent.futures
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
import common  # noqa: E402

# Longest a single run may take before it is killed and reported as failed
# (a module may set its own RUN_TIMEOUT_S).
RUN_TIMEOUT_S = 3600


class UsageError(Exception):
    pass


def experiment_names():
    d = os.path.join(HERE, "exps")
    return sorted(f[:-3] for f in os.listdir(d) if f.endswith(".py") and not f.startswith("_"))


def load_experiment(name):
    path = os.path.join(HERE, "exps", name + ".py")
    if not os.path.exists(path):
        raise UsageError("unknown experiment '%s' (known: %s)" % (name, ", ".join(experiment_names())))
    spec = importlib.util.spec_from_file_location("zonekv_exp_" + name.replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for attr in ("DESCRIPTION", "runs", "summarize", "plot"):
        if not hasattr(mod, attr):
            raise UsageError("experiment module %s lacks %s (see experiments/README.md)" % (path, attr))
    return mod


def check_runs(name, runs):
    seen = set()
    for r in runs:
        for k in ("label", "scheme", "seed"):
            if k not in r:
                raise UsageError("experiment %s: a run lacks '%s': %r" % (name, k, r))
        if ("args" in r) == ("cmd" in r):
            raise UsageError("experiment %s: run %s needs exactly one of 'args' or 'cmd'" % (name, r["label"]))
        key = (r["label"], r["seed"])
        if key in seen:
            raise UsageError("experiment %s: run label %s seed %s is not unique" % (name, r["label"], r["seed"]))
        seen.add(key)


def with_device_key(args, key, value):
    """`args` with `key=value` in every emulated `--device=ram:|meta:` spec
    (replacing the key or adding it)."""
    out = []
    for a in args:
        if a.startswith("--device=ram:") or a.startswith("--device=meta:"):
            head, _, keys = a.partition(":")
            items = [k for k in keys.split(",") if k and not k.startswith(key + "=")]
            a = head + ":" + ",".join(items + ["%s=%s" % (key, value)])
        out.append(a)
    return out


def run_file_stem(r):
    safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in r["label"])
    return "%s-seed%s" % (safe, r["seed"])


def argv_of(zonekv, r, json_path, scale):
    if "args" in r:
        args = list(r["args"])
        if not any(a.startswith("--seed=") or a == "--seed" for a in args):
            args.append("--seed=%s" % r["seed"])
        if not any(a.startswith("--scale=") or a == "--scale" for a in args):
            args.append("--scale=%r" % scale)
        return [zonekv, "bench"] + args + ["--json=" + json_path, "--progress=off"]
    return [zonekv] + list(r["cmd"]) + ["--json=" + json_path]


def execute(zonekv, r, logdir, scale, timeout_s=RUN_TIMEOUT_S):
    stem = run_file_stem(r)
    json_path = os.path.join(logdir, stem + ".json")
    log_path = os.path.join(logdir, stem + ".log")
    if os.path.exists(json_path):
        os.remove(json_path)
    argv = argv_of(zonekv, r, json_path, scale)
    result = {k: v for k, v in r.items() if k not in ("args", "cmd")}
    result["argv"] = argv
    start = time.monotonic()
    error = None
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(argv) + "\n")
        log.flush()
        try:
            proc = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s)
            if proc.returncode != 0:
                error = "exit status %d (see %s)" % (proc.returncode, log_path)
        except subprocess.TimeoutExpired:
            error = "killed after %d s (see %s)" % (timeout_s, log_path)
        except OSError as e:
            error = "cannot run %s: %s" % (argv[0], e)
    result["wall_s"] = time.monotonic() - start
    doc = None
    if os.path.exists(json_path):
        try:
            with open(json_path) as f:
                doc = json.load(f)
        except ValueError as e:
            error = error or "unreadable JSON %s: %s" % (json_path, e)
    elif error is None:
        error = "no JSON written (see %s)" % log_path
    if doc is not None and doc.get("error"):
        error = "%s (see %s)" % (doc["error"], log_path)
    result["json"] = doc
    result["error"] = error
    result["log"] = log_path
    return result


def main(argv):
    p = argparse.ArgumentParser(prog="zonekv experiment")
    p.add_argument("--zonekv", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--list", action="store_true")
    p.add_argument("--scale", type=float)
    p.add_argument("--out")
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timing")
    p.add_argument("--time_scale", type=float)
    p.add_argument("name", nargs="?")
    a = p.parse_args(argv)

    if a.list:
        for name in experiment_names():
            try:
                mod = load_experiment(name)
                scale = getattr(mod, "DEFAULT_SCALE", common.DEFAULT_SCALE)
                print("%-12s %s (default --scale=%g)" % (name, mod.DESCRIPTION, scale))
            except Exception as e:  # a broken module must not hide the others
                print("%-12s (cannot load: %s)" % (name, e))
        return 0

    if not a.name:
        raise UsageError("name an experiment (see 'zonekv experiment --list')")
    mod = load_experiment(a.name)
    scale = a.scale if a.scale is not None else getattr(mod, "DEFAULT_SCALE", common.DEFAULT_SCALE)
    out = a.out or os.path.join("out", a.name)
    logdir = os.path.join(out, "logs")
    os.makedirs(logdir, exist_ok=True)

    runs = mod.runs(scale, a.seeds)
    check_runs(a.name, runs)
    if a.timing:
        if not all(c.isalnum() or c in "_-" for c in a.timing):
            raise UsageError("--timing=%s is not a profile name (see docs/device-timing.md)" % a.timing)
        for r in runs:
            if "args" in r:
                r["args"] = with_device_key(r["args"], "timing", a.timing)
    if a.time_scale is not None:
        if not 0 < a.time_scale <= 1e6:
            raise UsageError("--time_scale=%g must be in (0, 1e6]" % a.time_scale)
        for r in runs:
            if "args" in r:
                r["args"] = with_device_key(r["args"], "time_scale", "%g" % a.time_scale)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    print("zonekv experiment %s: %d runs, scale %g, %d seed(s), %d job(s), output in %s"
          % (a.name, len(runs), scale, a.seeds, a.jobs, out), file=sys.stderr, flush=True)

    results = [None] * len(runs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        timeout_s = getattr(mod, "RUN_TIMEOUT_S", RUN_TIMEOUT_S)
        futures = {pool.submit(execute, a.zonekv, r, logdir, scale, timeout_s): i for i, r in enumerate(runs)}
        done = 0
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            done += 1
            r = results[i]
            print("  [%d/%d] %s seed %s: %s (%.1f s)" % (done, len(runs), r["label"], r["seed"],
                                                        "FAILED: " + r["error"] if r["error"] else "ok",
                                                        r["wall_s"]), file=sys.stderr, flush=True)

    doc = {"experiment": a.name, "description": mod.DESCRIPTION, "scale": scale, "seeds": a.seeds,
           "jobs": a.jobs, "timing_override": a.timing, "time_scale_override": a.time_scale, "zonekv": a.zonekv, "started_utc": started, "runs": results}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)

    failed = [r for r in results if r["error"]]
    summary = "# Experiment `%s`\n\n%s\n\nScale %g, %d seed(s), device timing profile: %s.\n\n" % (
        a.name, mod.DESCRIPTION, scale, a.seeds, common.timing_of(results))
    broken = None
    try:
        summary += mod.summarize(results, scale)
    except Exception as e:  # results.json is written; say what broke
        broken = "summarize() of experiments/exps/%s.py failed: %r" % (a.name, e)
        summary += "\n\n%s\n" % broken
    figures = []
    try:
        figures = mod.plot(results, out) or []
    except Exception as e:  # the table is still worth having
        summary += "\n\nPlotting failed: %r\n" % e
    if figures:
        summary += "\n\nFigures: " + ", ".join(os.path.basename(f) for f in figures) + "\n"
    if failed:
        summary += "\n\n## Failed runs\n\n"
        for r in failed:
            summary += "- %s seed %s: %s\n" % (r["label"], r["seed"], r["error"])
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary)
    print(summary)
    print("wrote %s, %s and %d figure(s)" % (os.path.join(out, "results.json"), os.path.join(out, "summary.md"),
                                            len(figures)), file=sys.stderr)
    if failed:
        print("zonekv experiment %s: %d of %d runs failed" % (a.name, len(failed), len(runs)), file=sys.stderr)
        return 1
    if broken:
        print("zonekv experiment %s: %s" % (a.name, broken), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print("zonekv experiment: InvalidArgument: %s" % e, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("zonekv experiment: interrupted", file=sys.stderr)
        sys.exit(1)
