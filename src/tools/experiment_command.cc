// zonekv experiment: run a named set of benchmarks (experiments/run.py).
//
// The orchestration and the plots are Python (experiments/); this command
// checks its flags, finds the runner and the running binary, and execs
// /usr/bin/python3 (Debian's, which has matplotlib).
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
    "--scale: zone counts and ratios stay, byte sizes are multiplied by it (experiments/README.md).\n"
    "Experiments live in experiments/exps/ (see experiments/README.md).";

std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "zonekv";
  buf[n] = '\0';
  return buf;
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
  flags.Define("seeds", "1", "runs per configuration, with seeds 1..N");
  flags.Define("jobs", "2", "runs executed in parallel");
  flags.Define("timing", "",
               "device timing profile for every run (default: the profile of the paper the experiment "
               "reproduces; see docs/device-timing.md)");
  flags.Define("time_scale", "",
               "multiply every modelled device latency of every run by this factor, in (0, 1e6] "
               "(default: the profile's own, 1)");
  bool help = false;
  Status s = flags.Parse(argc, argv, 2, &help);
  if (help) {
    std::printf("%s", flags.Usage(kSynopsis).c_str());
    return 0;
  }
  bool list = false;
  uint64_t seeds = 0, jobs = 0;
  double scale = 0;
  if (s.ok()) s = flags.Bool("list", &list);
  if (s.ok()) s = flags.Uint("seeds", &seeds);
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
  if (s.ok() && seeds == 0) s = Status::InvalidArgument("--seeds must be at least 1");
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
  if (access(kPython, X_OK) != 0) {
    std::fprintf(stderr, "zonekv experiment: %s\n",
                 Status::NotFound(std::string(kPython) +
                                  " not found; run scripts/setup.sh (needs python3 and python3-matplotlib)")
                     .ToString()
                     .c_str());
    return 1;
  }

  std::vector<std::string> args = {kPython, runner, "--zonekv=" + SelfPath(), "--src=" + SourceDir()};
  if (list) {
    args.push_back("--list");
  } else {
    args.push_back(flags.positionals()[0]);
    if (!flags.Str("scale").empty()) args.push_back("--scale=" + flags.Str("scale"));
    if (!flags.Str("out").empty()) args.push_back("--out=" + flags.Str("out"));
    args.push_back("--seeds=" + std::to_string(seeds));
    args.push_back("--jobs=" + std::to_string(jobs));
    if (!flags.Str("timing").empty()) args.push_back("--timing=" + flags.Str("timing"));
    if (!flags.Str("time_scale").empty()) args.push_back("--time_scale=" + flags.Str("time_scale"));
  }
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  execv(kPython, cargs.data());
  std::fprintf(stderr, "zonekv experiment: %s\n",
               Status::IOError(std::string("cannot run ") + kPython + ": " + std::strerror(errno)).ToString().c_str());
  return 1;
}

}  // namespace zonekv
