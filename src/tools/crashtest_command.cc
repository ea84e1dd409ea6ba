// `zonekv crashtest`: the randomised crash and fault campaign
// (zonekv/crashtest.h, docs/testing.md), and its hidden writer process.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "commands.h"
#include "zonekv/crashtest.h"
#include "zonekv/flags.h"

namespace zonekv {

namespace {

const char kSynopsis[] =
    "[--kills=N] [--seed=S] [--duration=2s] [--faults=powerloss,ioerror] [--json=FILE] [--dir=DIR]\n\n"
    "Runs RocksDB on zonekv over an image-file device in a writer process (puts, deletes,\n"
    "DeleteRange, BlobDB values, synced and unsynced writes, logged as acknowledged), then\n"
    "SIGKILLs it -- or, with --faults, cuts its device's power (unflushed writes dropped or\n"
    "torn) or fails one of its device commands -- at a time drawn from the seed; reopens the\n"
    "database and checks that fsck is clean and that every acknowledged synced write (and\n"
    "every acknowledged write before it) survived, and nothing deleted came back. Each image\n"
    "draws a scheme, policy knobs and a geometry from the seed. One line per kill, then a\n"
    "summary; exit 1 on a failure, naming the seed and kill that reproduce it.";

// "2s", "1.5s", "500ms" -> milliseconds.
Status ParseDurationMs(const std::string& text, uint64_t* ms) {
  std::string number = text;
  double scale = 0;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "ms") == 0) {
    number = text.substr(0, text.size() - 2);
    scale = 1;
  } else if (text.size() > 1 && text.back() == 's') {
    number = text.substr(0, text.size() - 1);
    scale = 1000;
  }
  double v = 0;
  if (scale == 0 || !ParseDouble(number, &v).ok() || v < 0) {
    return Status::InvalidArgument("--duration='" + text + "' is not a duration such as 2s or 500ms");
  }
  *ms = static_cast<uint64_t>(v * scale + 0.5);
  return Status::OK();
}

// The writer is this binary, run through /proc/self/exe so that a rebuild
// during a campaign does not change it under the campaign's feet.
std::string SelfPath() { return access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : ""; }

}  // namespace

int CrashTestCommand(int argc, char** argv) {
  Flags flags("crashtest");
  flags.Define("kills", "10", "runs: writer kills and, with --faults, fault runs");
  flags.Define("seed", "", "campaign seed (default: drawn from the clock and printed)");
  flags.Define("duration", "2s", "longest a writer runs before its kill or fault (the shortest is a tenth)");
  flags.Define("faults", "", "also inject these, comma-separated: powerloss, ioerror");
  flags.Define("json", "", "write the configuration, every run and the summary here");
  flags.Define("dir", "", "keep images and logs here (default: a fresh directory under $TMPDIR or /tmp)");
  flags.Define("first_kill", "0", "start at the image of this kill (0-based; to reproduce a failure)");
  bool help = false;
  Status s = flags.Parse(argc, argv, 2, &help);
  if (help) {
    std::printf("%s", flags.Usage(kSynopsis).c_str());
    return 0;
  }
  CrashTestOptions o;
  if (s.ok() && !flags.positionals().empty()) {
    s = Status::InvalidArgument("unexpected argument '" + flags.positionals()[0] + "'");
  }
  if (s.ok()) s = flags.Uint("kills", &o.kills);
  if (s.ok()) s = flags.Uint("first_kill", &o.first_kill);
  if (s.ok()) s = ParseDurationMs(flags.Str("duration"), &o.duration_ms);
  if (s.ok() && !flags.Str("seed").empty()) s = flags.Uint("seed", &o.seed);
  if (s.ok() && flags.Str("seed").empty()) {
    o.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000000 + 1;
  }
  const std::string faults = flags.Str("faults");
  for (size_t i = 0, j; s.ok() && i < faults.size(); i = j + 1) {
    j = faults.find(',', i);
    if (j == std::string::npos) j = faults.size();
    if (j > i) o.faults.push_back(faults.substr(i, j - i));
  }
  o.dir = flags.Str("dir");
  o.self = SelfPath();
  if (s.ok()) s = o.Validate();
  if (s.ok() && !flags.Str("json").empty() && !std::ofstream(flags.Str("json"), std::ios::app)) {
    s = Status::InvalidArgument("--json=" + flags.Str("json") + ": cannot open for writing");
  }
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv crashtest: %s\n", s.ToString().c_str());
    return 2;
  }
  CrashTestResult result;
  s = RunCrashTest(o, stdout, &result);
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv crashtest: %s\n", s.ToString().c_str());
    return 1;
  }
  if (!flags.Str("json").empty()) {
    Status w = WriteJson(flags.Str("json"), result.json);
    if (!w.ok()) {
      std::fprintf(stderr, "zonekv crashtest: %s\n", w.ToString().c_str());
      return 1;
    }
  }
  return result.failures.empty() ? 0 : 1;
}

int CrashTestWriterCommand(int argc, char** argv) { return CrashTestWriterMain(argc, argv); }

}  // namespace zonekv
