#!/usr/bin/python3
"""The experiment runner behind `zonekv experiment` (see README.md).

Usage (normally through the zonekv binary):
  run.py --zonekv=BIN --src=DIR --list
  run.py --zonekv=BIN --src=DIR NAME [--scale=S] [--out=DIR] [--seeds=N] [--first_seed=K] [--jobs=J] [--timing=PROFILE]
         [--time_scale=X] [--executor=local|ray|ray:ADDRESS] [--cpus_per_run=C]
         [--memory_per_run=BYTES]

--executor: where the runs execute (executors.py): `local` (default; --jobs
runs at a time on this machine) or Ray tasks declaring --cpus_per_run CPUs
(and --memory_per_run bytes, if not 0) each, on the cluster at ADDRESS
(`ray` alone: $RAY_ADDRESS, else a Ray running here, else a new one started
here; `ray:local`: a new one here for this sweep). Each run of the sweep
executes the same command line either way.

Rerunning into the same --out reuses the runs that already succeeded there
with the same command line and zonekv binary; a run that fails without its own result is
retried once (see sweep()).

--timing replaces the device timing profile of every run (each experiment
defaults to the profile of the paper it reproduces; see docs/device-timing.md).
--time_scale multiplies every modelled latency of every run by X (a device X
times slower; the summary names it).

Exit status: 0 all runs succeeded (a run that ran out of space counts as
succeeded where its experiment measures that outcome), 1 a run failed
(results are still written), 2 usage error.
"""

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
import common  # noqa: E402
import executors  # noqa: E402

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


def argv_of(zonekv, r, json_name, scale):
    """The command line of run r; it writes its JSON to json_name, relative
    to the directory it runs in (see executors.py)."""
    if "args" in r:
        args = list(r["args"])
        if not any(a.startswith("--seed=") or a == "--seed" for a in args):
            args.append("--seed=%s" % r["seed"])
        if not any(a.startswith("--scale=") or a == "--scale" for a in args):
            args.append("--scale=%r" % scale)
        return [zonekv, "bench"] + args + ["--json=" + json_name, "--progress=off"]
    return [zonekv] + list(r["cmd"]) + ["--json=" + json_name]


def log_tail(path, lines=12):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)\n"


def result_of(r, argv, outcome, logdir, stem):
    """The result dict of run r (experiments/README.md) from its executor
    outcome and the files it left in logdir."""
    json_path = os.path.join(logdir, stem + ".json")
    log_path = os.path.join(logdir, stem + ".log")
    result = {k: v for k, v in r.items() if k not in ("args", "cmd")}
    result["argv"] = argv
    result["host"] = outcome["host"]
    result["wall_s"] = outcome["wall_s"]
    error = None
    if outcome["error"]:
        error = "%s (see %s)" % (outcome["error"], log_path)
    elif outcome["exit"] is not None and outcome["exit"] < 0:
        sig = -outcome["exit"]
        name = signal.Signals(sig).name if sig in signal.valid_signals() else "?"
        error = "killed by signal %d (%s) (see %s)" % (sig, name, log_path)
    elif outcome["exit"] != 0:
        error = "exit status %d (see %s)" % (outcome["exit"], log_path)
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
    result["outcome"] = outcome_of(error, doc)
    result["log"] = log_path
    return result


def outcome_of(error, doc):
    """"completed", "no_space" (the run's own JSON says it ran out of space)
    or "failed"."""
    if error is None:
        return "completed"
    if doc is not None and doc.get("error_code") == "NoSpace":
        return "no_space"
    return "failed"


def is_failure(r):
    """Whether run r failed: any error, except running out of space in a run
    whose experiment measures that (its spec says "no_space_ok": True)."""
    return r["error"] is not None and not (r.get("no_space_ok") and r.get("outcome") == "no_space")


def record_path(logdir, stem):
    """Where a finished run's result (without its JSON) is kept, so that a
    later invocation into the same directory can reuse it."""
    return os.path.join(logdir, stem + ".run.json")


def binary_id(path):
    """The SHA-256 of the file at `path` (the zonekv binary), or None if it
    cannot be read: a rebuilt binary does not reuse earlier results."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def reusable(logdir, stem, argv, zonekv_sha256):
    """The result of an earlier invocation of this run into the same log
    directory, if it succeeded with exactly this command line and binary;
    else None."""
    try:
        with open(record_path(logdir, stem)) as f:
            rec = json.load(f)
        with open(os.path.join(logdir, stem + ".json")) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    if (not isinstance(rec, dict) or rec.get("error") or rec.get("argv") != argv or doc.get("error") or
            zonekv_sha256 is None or rec.get("zonekv_sha256") != zonekv_sha256):
        return None
    rec["json"] = doc
    return rec


def sweep(runs, executor, logdir, scale, zonekv, timeout_s, say):
    """Runs every run of `runs` on `executor` and returns their results, in
    order. A run whose successful result an earlier invocation left in
    logdir (same command line, same zonekv binary) is not run again. A run that fails without a
    result of its own (the command crashed, was killed or could not start,
    or its node was lost; not a run whose JSON reports an error, which the
    same seed would repeat) is reported with the end of its log and run once
    more; the first attempt's log is kept as <stem>.attempt1.log. `say`
    prints a progress line."""
    results = [None] * len(runs)
    argvs, stems = [], []
    for r in runs:
        stems.append(run_file_stem(r))
        argvs.append(argv_of(zonekv, r, stems[-1] + ".json", scale))
    sha = binary_id(zonekv)
    todo = []
    for i, r in enumerate(runs):
        rec = reusable(logdir, stems[i], argvs[i], sha)
        if rec is None:
            todo.append(i)
            continue
        res = {k: v for k, v in r.items() if k not in ("args", "cmd")}
        res.update({k: rec.get(k) for k in ("argv", "host", "wall_s", "attempts", "first_attempt", "json", "error",
                                            "zonekv_sha256")})
        res["log"] = os.path.join(logdir, stems[i] + ".log")
        res["outcome"] = "completed"
        res["reused"] = True
        results[i] = res
    if len(todo) < len(runs):
        say("  %d of %d runs already done in %s by this binary (their results are reused; delete the directory "
            "to redo them)"
            % (len(runs) - len(todo), len(runs), logdir))

    def submit(i):
        for name in (stems[i] + ".json", stems[i] + ".run.json"):
            if os.path.exists(os.path.join(logdir, name)):
                os.remove(os.path.join(logdir, name))
        executor.submit(i, argvs[i], stems[i], timeout_s)

    first = {}
    for i in todo:
        submit(i)
    pending, done = len(todo), len(runs) - len(todo)
    while pending:
        i, outcome = executor.next_done()
        pending -= 1
        r = result_of(runs[i], argvs[i], outcome, logdir, stems[i])
        own_error = r["json"] is not None and r["json"].get("error")
        if r["error"] and not own_error and i not in first:
            kept = os.path.join(logdir, stems[i] + ".attempt1.log")
            os.replace(r["log"], kept)
            first[i] = {"error": r["error"].replace(r["log"], kept), "host": r["host"], "log": kept}
            say("  %s seed %s FAILED on %s: %s; retrying once. End of its log:\n%s"
                % (r["label"], r["seed"], r["host"] or "?", first[i]["error"],
                   "".join("    | " + line for line in log_tail(kept).splitlines(True))))
            submit(i)
            pending += 1
            continue
        r["attempts"] = 2 if i in first else 1
        r["first_attempt"] = first.get(i)
        r["reused"] = False
        r["zonekv_sha256"] = sha
        with open(record_path(logdir, stems[i]), "w") as f:
            json.dump({k: v for k, v in r.items() if k != "json"}, f, indent=1)
        results[i] = r
        done += 1
        say("  [%d/%d] %s seed %s: %s (%.1f s%s)" % (done, len(runs), r["label"], r["seed"],
                                                     "FAILED: " + r["error"] if r["error"] else "ok", r["wall_s"],
                                                     ", second attempt" if i in first else ""))
        if r["error"] and not own_error:
            say("    end of its log:\n" + "".join("    | " + line for line in log_tail(r["log"]).splitlines(True)))
    return results


def make_executor(spec, logdir, jobs, cpus_per_run, memory_per_run=0):
    """The executor named by --executor: local, ray, ray:ADDRESS."""
    if spec == "local":
        return executors.LocalExecutor(logdir, jobs)
    if spec == "ray" or spec.startswith("ray:"):
        address = spec[4:] or None
        if spec.startswith("ray:") and not address:
            raise UsageError("--executor=ray: needs an address after the colon (or use --executor=ray)")
        try:
            return executors.RayExecutor(logdir, address, cpus_per_run, memory_per_run)
        except RuntimeError as e:
            raise UsageError(str(e)) from e
    raise UsageError("--executor=%s: expected local, ray or ray:ADDRESS" % spec)


def main(argv):
    p = argparse.ArgumentParser(prog="zonekv experiment")
    p.add_argument("--zonekv", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--list", action="store_true")
    p.add_argument("--scale", type=float)
    p.add_argument("--out")
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--first_seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timing")
    p.add_argument("--time_scale", type=float)
    p.add_argument("--executor", default="local")
    p.add_argument("--cpus_per_run", type=float, default=1.0)
    p.add_argument("--memory_per_run", type=int, default=0)
    p.add_argument("--only")
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
    if not 0 < a.cpus_per_run <= 1024:
        raise UsageError("--cpus_per_run=%g must be in (0, 1024]" % a.cpus_per_run)
    if a.memory_per_run < 0:
        raise UsageError("--memory_per_run=%d must not be negative" % a.memory_per_run)
    if not 1 <= a.jobs <= 64:
        raise UsageError("--jobs=%d must be in [1, 64]" % a.jobs)
    zonekv = os.path.abspath(a.zonekv)
    scale = a.scale if a.scale is not None else getattr(mod, "DEFAULT_SCALE", common.DEFAULT_SCALE)
    out = a.out or os.path.join("out", a.name)
    logdir = os.path.join(out, "logs")
    os.makedirs(logdir, exist_ok=True)

    if not 1 <= a.first_seed <= 1_000_000:
        raise UsageError("--first_seed=%d must be in [1, 1000000]" % a.first_seed)
    # Seeds first_seed..first_seed+seeds-1: more seeds for an earlier sweep,
    # whose results.json can then be merged with this one's.
    runs = [r for r in mod.runs(scale, a.first_seed + a.seeds - 1) if r["seed"] >= a.first_seed]
    check_runs(a.name, runs)
    if a.only:
        try:
            pattern = re.compile(a.only)
        except re.error as e:
            raise UsageError("--only=%s is not a regular expression: %s" % (a.only, e)) from e
        runs = [r for r in runs if pattern.search(r["label"])]
        if not runs:
            raise UsageError("--only=%s matches no run of experiment %s (labels such as %r)"
                             % (a.only, a.name, mod.runs(scale, 1)[0]["label"]))
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

    def say(line):
        print(line, file=sys.stderr, flush=True)

    timeout_s = getattr(mod, "RUN_TIMEOUT_S", RUN_TIMEOUT_S)
    executor = make_executor(a.executor, logdir, a.jobs, a.cpus_per_run, a.memory_per_run)
    try:
        say("zonekv experiment %s: %d runs, scale %g, %d seed(s), on %s, output in %s"
            % (a.name, len(runs), scale, a.seeds, executor.describe(), out))
        wall_start = time.monotonic()
        results = sweep(runs, executor, logdir, scale, zonekv, timeout_s, say)
        sweep_wall_s = time.monotonic() - wall_start
        where = executor.describe()
    finally:
        executor.close()

    doc = {"experiment": a.name, "description": mod.DESCRIPTION, "scale": scale, "seeds": a.seeds,
           "first_seed": a.first_seed,
           "jobs": a.jobs, "executor": a.executor, "executor_detail": where, "cpus_per_run": a.cpus_per_run,
           "memory_per_run": a.memory_per_run,
           "timing_override": a.timing, "time_scale_override": a.time_scale, "zonekv": zonekv,
           "started_utc": started, "sweep_wall_s": sweep_wall_s, "runs": results}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)

    failed = [r for r in results if is_failure(r)]
    out_of_space = [r for r in results if r["error"] and not is_failure(r)]
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
    if out_of_space:
        summary += "\n\n## Runs that ran out of space (an outcome this experiment measures)\n\n"
        for r in out_of_space:
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
