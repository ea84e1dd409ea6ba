// zonekv experiment: run a named set of benchmarks (experiments/run.py).
//
// The orchestration and the plots are Python (experiments/); this command
// checks its flags, finds the runner and the running binary, and execs
// /usr/bin/python3 (Debian's, which has matplotlib), or, for
// --executor=ray[:ADDRESS], the python3 of the virtual environment
// build/ray-venv that scripts/setup_ray.sh makes (Debian's python3 with its
// packages, plus Ray from PyPI). $ZONEKV_PYTHON replaces either.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "zonekv/emulated_device.h"
#include "zonekv/flags.h"

namespace zonekv {

namespace {

const char kPython[] = "/usr/bin/python3";

const char kSynopsis[] =
    "NAME [flags]   |   zonekv experiment --list\n\n"
    "Runs experiment NAME (a set of 'zonekv bench' runs: schemes x workloads x seeds), in\n"
    "parallel, and writes DIR/results.json, DIR/summary.md and PNG figures into --out.\n"
    "--executor=ray[:ADDRESS] runs each run as a Ray task (a Ray started here, or the cluster\n"
    "at ADDRESS); install Ray first with scripts/setup_ray.sh (README: 'Sweeps on a Ray cluster').\n"
    "A run that fails is retried once; rerunning into the same --out reuses the runs done there.\n"
    "--scale: zone counts and ratios stay, byte sizes are multiplied by it (experiments/README.md).\n"
    "Experiments live in experiments/exps/ (see experiments/README.md).";

std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "zonekv";
  buf[n] = '\0';
  return buf;
}

// The interpreter that runs experiments/run.py for `executor`: $ZONEKV_PYTHON,
// else Debian's for `local`, else the Ray environment of scripts/setup_ray.sh.
// Sets *python, or returns why there is none.
Status PythonFor(const std::string& executor, const std::string& source_dir, std::string* python) {
  const char* env = std::getenv("ZONEKV_PYTHON");
  if (env != nullptr && env[0] != '\0') {
    *python = env;
  } else if (executor == "local") {
    *python = kPython;
  } else {
    *python = source_dir + "/build/ray-venv/bin/python3";
    if (access(python->c_str(), X_OK) != 0) {
      return Status::NotFound("--executor=" + executor + " needs Ray, and " + *python +
                              " does not exist: run scripts/setup_ray.sh (installs Ray from PyPI into "
                              "build/ray-venv), or set ZONEKV_PYTHON to a python3 that has ray and matplotlib");
    }
  }
  if (access(python->c_str(), X_OK) != 0) {
    return Status::NotFound(*python + " not found; run scripts/setup.sh (needs python3 and python3-matplotlib)");
  }
  return Status::OK();
}

// The source tree holding experiments/: $ZONEKV_SOURCE_DIR, else the one
// this binary was built from.
std::string SourceDir() {
  const char* env = std::getenv("ZONEKV_SOURCE_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  return ZONEKV_SOURCE_DIR;
}

}  // namespace

int ExperimentCommand(int argc, char** argv) {
  Flags flags("experiment");
  flags.Define("list", "false", "list the experiments and exit", true);
  flags.Define("scale", "", "size factor (default: the experiment's own, see --list)");
  flags.Define("out", "", "output directory (default: out/NAME)");
  flags.Define("seeds", "1", "runs per configuration, with seeds first_seed..first_seed+N-1");
  flags.Define("first_seed", "1", "the first seed, in [1, 1000000] (more seeds for an earlier sweep)");
  flags.Define("jobs", "2", "runs executed in parallel (--executor=local)");
  flags.Define("executor", "local",
               "where the runs execute: local (this machine), ray (Ray's choice: $RAY_ADDRESS, else a Ray "
               "running here, else a new one started here), ray:local (a new Ray here) or ray:ADDRESS "
               "(an existing cluster, e.g. ray:10.0.0.1:6379 or ray:auto)");
  flags.Define("cpus_per_run", "1", "CPUs each run declares to Ray (--executor=ray), in (0, 1024]");
  flags.Define("memory_per_run", "0",
               "memory each run declares to Ray (--executor=ray), e.g. 24G; a ram: device holds all its "
               "data in memory (0: none declared)");
  flags.Define("timing", "",
               "device timing profile for every run (default: the profile of the paper the experiment "
               "reproduces; see docs/device-timing.md)");
  flags.Define("time_scale", "",
               "multiply every modelled device latency of every run by this factor, in (0, 1e6] "
               "(default: the profile's own, 1)");
  flags.Define("only", "",
               "run only the runs whose label matches this Python regular expression (re.search), e.g. "
               "'baza\\+space (50|60)%'; the summary covers those (default: every run)");
  bool help = false;
  Status s = flags.Parse(argc, argv, 2, &help);
  if (help) {
    std::printf("%s", flags.Usage(kSynopsis).c_str());
    return 0;
  }
  bool list = false;
  uint64_t seeds = 0, first_seed = 0, jobs = 0;
  double scale = 0;
  if (s.ok()) s = flags.Bool("list", &list);
  if (s.ok()) s = flags.Uint("seeds", &seeds);
  if (s.ok()) s = flags.Uint("first_seed", &first_seed);
  if (s.ok()) s = flags.Uint("jobs", &jobs);
  if (s.ok() && !flags.Str("scale").empty()) s = flags.Double("scale", &scale);
  if (s.ok() && !flags.Str("scale").empty() && !(scale > 0 && scale <= 1)) {
    s = Status::InvalidArgument("--scale=" + flags.Str("scale") + ": must be in (0, 1]");
  }
  double time_scale = 0;
  if (s.ok() && !flags.Str("time_scale").empty()) {
    s = flags.Double("time_scale", &time_scale);
    if (s.ok() && !(time_scale > 0 && time_scale <= 1e6)) {
      s = Status::InvalidArgument("--time_scale=" + flags.Str("time_scale") + ": must be in (0, 1e6]");
    }
  }
  const std::string executor = flags.Str("executor");
  if (s.ok() && executor != "local" && executor != "ray" &&
      (executor.rfind("ray:", 0) != 0 || executor.size() == 4)) {
    s = Status::InvalidArgument("--executor=" + executor + ": expected local, ray or ray:ADDRESS");
  }
  double cpus_per_run = 0;
  if (s.ok()) s = flags.Double("cpus_per_run", &cpus_per_run);
  if (s.ok() && !(cpus_per_run > 0 && cpus_per_run <= 1024)) {
    s = Status::InvalidArgument("--cpus_per_run=" + flags.Str("cpus_per_run") + ": must be in (0, 1024]");
  }
  uint64_t memory_per_run = 0;
  if (s.ok()) s = flags.Bytes("memory_per_run", &memory_per_run);
  if (s.ok() && seeds == 0) s = Status::InvalidArgument("--seeds must be at least 1");
  if (s.ok() && (first_seed == 0 || first_seed > 1000000)) {
    s = Status::InvalidArgument("--first_seed must be in [1, 1000000]");
  }
  if (s.ok() && (jobs == 0 || jobs > 64)) s = Status::InvalidArgument("--jobs must be in [1, 64]");
  if (s.ok() && !flags.Str("timing").empty()) {
    // The device spec parser knows the profiles and names them in its error.
    EmulatedDeviceOptions probe;
    s = ParseEmulatedOptions("timing=" + flags.Str("timing"), true, &probe);
    if (!s.ok()) s = Status::InvalidArgument("--timing=" + flags.Str("timing") + ": " + s.message());
  }
  if (s.ok() && !list && flags.positionals().size() != 1) {
    s = Status::InvalidArgument(flags.positionals().empty()
                                    ? "name an experiment (see 'zonekv experiment --list')"
                                    : "expected one experiment name, got " +
                                          std::to_string(flags.positionals().size()));
  }
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv experiment: %s\n", s.ToString().c_str());
    return 2;
  }

  std::string runner = SourceDir() + "/experiments/run.py";
  if (access(runner.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "zonekv experiment: %s\n",
                 Status::NotFound(runner + " not found; set ZONEKV_SOURCE_DIR to the zonekv source tree")
                     .ToString()
                     .c_str());
    return 1;
  }
  std::string python;
  s = PythonFor(list ? "local" : executor, SourceDir(), &python);
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv experiment: %s\n", s.ToString().c_str());
    return 1;
  }

  std::vector<std::string> args = {python, runner, "--zonekv=" + SelfPath(), "--src=" + SourceDir()};
  if (list) {
    args.push_back("--list");
  } else {
    args.push_back(flags.positionals()[0]);
    if (!flags.Str("scale").empty()) args.push_back("--scale=" + flags.Str("scale"));
    if (!flags.Str("out").empty()) args.push_back("--out=" + flags.Str("out"));
    args.push_back("--seeds=" + std::to_string(seeds));
    args.push_back("--first_seed=" + std::to_string(first_seed));
    args.push_back("--jobs=" + std::to_string(jobs));
    if (!flags.Str("timing").empty()) args.push_back("--timing=" + flags.Str("timing"));
    if (!flags.Str("time_scale").empty()) args.push_back("--time_scale=" + flags.Str("time_scale"));
    args.push_back("--executor=" + executor);
    args.push_back("--cpus_per_run=" + flags.Str("cpus_per_run"));
    args.push_back("--memory_per_run=" + std::to_string(memory_per_run));
    if (!flags.Str("only").empty()) args.push_back("--only=" + flags.Str("only"));
  }
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  execv(python.c_str(), cargs.data());
  std::fprintf(stderr, "zonekv experiment: %s\n",
               Status::IOError("cannot run " + python + ": " + std::strerror(errno)).ToString().c_str());
  return 1;
}

}  // namespace zonekv
