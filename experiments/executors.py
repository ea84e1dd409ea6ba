"""Where the runs of a sweep execute: this machine (`local`) or a Ray cluster
(`ray[:ADDRESS]`).

An executor runs one command line per submitted run and, when the run is
over, leaves two files in the sweep's log directory: `<stem>.log` (the
command's stdout and stderr, after a first line `$ <argv>`) and `<stem>.json`
(whatever the command wrote to `--json=<stem>.json`, if anything). Every
command runs with a scratch directory as its working directory and
`--json=<stem>.json` relative to it, so local and Ray runs execute the same
argv. An executor neither retries nor interprets results: run.py does.

Interface (run.py uses nothing else):
  submit(key, argv, stem, timeout_s)  starts a run; `key` names it in next_done()
  next_done() -> (key, outcome)       blocks until a submitted run is over
                                      (REQUIRES: a submitted run not yet returned)
  describe() -> str                   one line for the console and results.json
  close()                             cancels the runs not started; the local executor
                                      waits for those running (a terminal's Ctrl-C reaches
                                      them too), Ray's are killed with their workers
outcome: {"error": None or why the command could not run to its end (cannot be
started, killed after timeout_s, lost with its node), "exit": its exit status
or None, "host": the node it ran on, "wall_s": seconds}. A command that ran
and exited non-zero has error None and its exit status: run.py decides.
"""

import concurrent.futures
import os
import shutil
import socket
import subprocess
import tempfile
import time


def run_in_dir(argv, workdir, stem, timeout_s, on_start=None, missing_hint=None):
    """Runs argv with cwd `workdir`, stdout+stderr into workdir/<stem>.log.
    Returns an outcome (see the module docstring). `on_start`, if given, is
    passed to Popen as preexec_fn; `missing_hint`, if given, is what the
    error says to do when argv[0] is not an executable file."""
    host = socket.gethostname()
    log_path = os.path.join(workdir, stem + ".log")
    start = time.monotonic()
    outcome = {"error": None, "exit": None, "host": host}
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(argv) + "\n")
        log.flush()
        if missing_hint and not os.access(argv[0], os.X_OK):
            outcome["error"] = "%s is missing on node %s: %s" % (argv[0], host, missing_hint)
        else:
            try:
                proc = subprocess.run(argv, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s,
                                      preexec_fn=on_start)
                outcome["exit"] = proc.returncode
            except subprocess.TimeoutExpired:
                outcome["error"] = "killed after %d s" % timeout_s
            except OSError as e:
                outcome["error"] = "cannot run %s on %s: %s" % (argv[0], host, e)
        if outcome["error"]:
            log.write("zonekv experiment: %s\n" % outcome["error"])
    outcome["wall_s"] = time.monotonic() - start
    return outcome


class LocalExecutor:
    """Runs up to `jobs` commands at a time on this machine, each in the
    log directory itself (the log can be followed while the run goes on)."""

    def __init__(self, logdir, jobs):
        self._logdir = logdir
        self._jobs = jobs
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self._futures = {}

    def describe(self):
        return "local, %d job(s) at a time" % self._jobs

    def submit(self, key, argv, stem, timeout_s):
        fut = self._pool.submit(run_in_dir, argv, self._logdir, stem, timeout_s)
        self._futures[fut] = key

    def next_done(self):
        done, _ = concurrent.futures.wait(self._futures, return_when=concurrent.futures.FIRST_COMPLETED)
        fut = next(iter(done))
        return self._futures.pop(fut), fut.result()

    def close(self):
        for fut in self._futures:
            fut.cancel()
        self._pool.shutdown(wait=True)


def _ray_run(argv, stem, timeout_s):
    """The body of one Ray task: runs argv in a fresh scratch directory of
    the node and returns its outcome with the texts of its log and JSON (the
    driver writes them into the sweep's log directory: no shared file system
    is needed). The command is killed if the worker process dies."""
    workdir = tempfile.mkdtemp(prefix="zonekv-run-")
    try:
        on_start = None
        try:
            import ctypes
            import signal
            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1  # <linux/prctl.h>

            def on_start():
                libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
        outcome = run_in_dir(argv, workdir, stem, timeout_s, on_start,
                             missing_hint="every node of the Ray cluster needs the zonekv binary at this same "
                             "path (install it there, or build on a file system all nodes share)")
        for kind in ("log", "json"):
            path = os.path.join(workdir, "%s.%s" % (stem, kind))
            outcome[kind + "_text"] = None
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    outcome[kind + "_text"] = f.read()
        return outcome
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


class RayExecutor:
    """Runs each command as a Ray task that declares `cpus_per_run` CPUs (and
    `memory_per_run` bytes of Ray's `memory` resource, if not 0), on
    the cluster at `address` (None: Ray's own choice, i.e. $RAY_ADDRESS, else
    a Ray already running on this machine, else a new one started here;
    "local": always a new one here, for this sweep only). Ray's own task retries are off:
    run.py retries once and says so."""

    def __init__(self, logdir, address, cpus_per_run, memory_per_run=0):
        try:
            import ray
        except ImportError as e:
            raise RuntimeError("--executor=ray needs Ray in the interpreter running the sweep (%s): run "
                               "scripts/setup_ray.sh, or set ZONEKV_PYTHON to a python3 that has ray "
                               "(README: 'Sweeps on a Ray cluster')" % e) from e
        import logging
        import sys
        self._ray = ray
        self._logdir = logdir
        self._cpus = cpus_per_run
        self._memory = memory_per_run
        self._address = address
        self._refs = {}
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise RuntimeError("cannot reach a Ray cluster at %s: %s" % (address or "(auto)", e)) from e
        nodes = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
        self._nodes = len(nodes)
        self._cluster_cpus = sum(n.get("CPU", 0) for n in nodes)
        # A task runs on one node: one node must offer all it declares, or
        # the sweep would wait forever.
        if not any(n.get("CPU", 0) >= cpus_per_run and n.get("memory", 0) >= memory_per_run for n in nodes):
            ray.shutdown()
            raise RuntimeError(
                "no node of the Ray cluster offers --cpus_per_run=%g CPU(s) and --memory_per_run=%d bytes "
                "(largest node: %g CPU(s), %d bytes): no run could ever be scheduled" % (
                    cpus_per_run, memory_per_run, max((n.get("CPU", 0) for n in nodes), default=0),
                    max((n.get("memory", 0) for n in nodes), default=0)))
        # Ship the task's code with it: the nodes need Ray and the zonekv
        # binary, not this source tree.
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        resources = {"num_cpus": cpus_per_run}
        if memory_per_run:
            resources["memory"] = memory_per_run
        self._task = ray.remote(_ray_run).options(max_retries=0, **resources)

    def describe(self):
        return "ray at %s: %d node(s), %g CPU(s), %g CPU(s)%s per run" % (
            self._address or "(auto)", self._nodes, self._cluster_cpus, self._cpus,
            " and %.3g GiB" % (self._memory / 2**30) if self._memory else "")

    def submit(self, key, argv, stem, timeout_s):
        ref = self._task.remote(argv, stem, timeout_s)
        self._refs[ref] = (key, stem)

    def next_done(self):
        ray = self._ray
        ready, _ = ray.wait(list(self._refs), num_returns=1)
        key, stem = self._refs.pop(ready[0])
        try:
            outcome = ray.get(ready[0])
        except ray.exceptions.RayError as e:
            # The worker or its node died, or the task could not run at all.
            text = str(e).strip().splitlines()
            outcome = {"error": "lost on the Ray cluster: %s" % (text[0] if text else type(e).__name__),
                       "exit": None, "host": None, "wall_s": 0.0, "log_text": None, "json_text": None}
        # The run's files, as the local executor leaves them.
        log_text, json_text = outcome.pop("log_text"), outcome.pop("json_text")
        if log_text is None:
            log_text = "zonekv experiment: %s\n" % outcome["error"]
        with open(os.path.join(self._logdir, stem + ".log"), "w") as f:
            f.write(log_text)
        json_path = os.path.join(self._logdir, stem + ".json")
        if json_text is not None:
            with open(json_path, "w") as f:
                f.write(json_text)
        return key, outcome

    def close(self):
        for ref in self._refs:
            self._ray.cancel(ref, force=True)
        self._refs.clear()
        self._ray.shutdown()
