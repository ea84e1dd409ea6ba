#!/usr/bin/python3
"""A stand-in for the zonekv binary in the runner tests: behaves as its
--mode says, writes the JSON zonekv would (to --json=PATH), and appends one
line per invocation to STATE/calls.

  --mode=ok        writes {"config": {...}, "workload": {"ops": 1}} and exits 0
  --mode=flaky     the first invocation for this --state prints "boom" and
                   exits 3 without JSON; later ones behave as ok
  --mode=broken    prints "broken forever" and exits 4, every time
  --mode=terminated  the first invocation is killed by SIGTERM (as by someone
                   else's cleanup); later ones behave as ok
  --mode=nospace   writes JSON with "error": "NoSpace: ..." (error_code
                   NoSpace) and exits 1 (the run's own result, which the same
                   seed would repeat)
  --mode=ioerror   the same with "IOError: ..." (error_code IOError)
  --mode=killer    the first invocation kills its parent process (a Ray
                   worker: the run is lost with it); later ones behave as ok
For `zonekv bench` command lines (as `zonekv experiment smoke` makes), the
mode is --mode, else ok, except that --workload=ycsb-a is broken.
"""

import json
import os
import signal
import sys


def main(argv):
    opts = {}
    for a in argv:
        if a.startswith("--") and "=" in a:
            k, _, v = a[2:].partition("=")
            opts[k] = v
    state = opts.get("state") or os.getcwd()
    os.makedirs(state, exist_ok=True)
    calls_path = os.path.join(state, "calls")
    with open(calls_path, "a") as f:
        f.write(" ".join(argv) + "\n")
    with open(calls_path) as f:
        calls = len(f.readlines())
    mode = opts.get("mode", "broken" if opts.get("workload") == "ycsb-a" else "ok")
    if mode == "flaky" and calls == 1:
        print("boom: first attempt")
        return 3
    if mode == "killer" and calls == 1:
        print("killing my parent, pid %d" % os.getppid(), flush=True)
        os.kill(os.getppid(), signal.SIGKILL)
        return 9
    if mode == "terminated" and calls == 1:
        os.kill(os.getpid(), signal.SIGTERM)
    if mode == "broken":
        print("broken forever")
        return 4
    doc = {"config": {"seed": int(opts.get("seed", 0)), "flags": opts}, "workload": {"ops": 1, "ops_per_sec": 1.0}}
    if mode == "nospace":
        doc["error"], doc["error_code"] = "NoSpace: the device is full", "NoSpace"
    if mode == "ioerror":
        doc["error"], doc["error_code"] = "IOError: the device failed a write", "IOError"
    with open(opts["json"], "w") as f:
        json.dump(doc, f)
    return 1 if mode in ("nospace", "ioerror") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
