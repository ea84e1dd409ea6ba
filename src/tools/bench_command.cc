// zonekv bench: run a db_bench or YCSB workload on RocksDB over zonekv.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <utility>

#include "commands.h"
#include "zonekv/bench.h"
#include "zonekv/blob_gc.h"
#include "zonekv/compactor.h"
#include "zonekv/fs_policy.h"
#include "zonekv/ftl.h"
#include "zonekv/flags.h"

namespace zonekv {

namespace {

// Timed by default: a result measured on a device that costs no time is not
// a result (timing=none is for unit tests).
const char kDefaultDevice[] = "ram:zones=64,zone_size=64M,max_open=14,max_active=14,timing=zn540";

const char kSynopsis[] =
    "[flags]\n\n"
    "Runs db_bench-style benchmarks (--workload=fillrandom,overwrite,...; each thread does --num\n"
    "operations) or one YCSB workload with its load and run phases (--workload=ycsb-a ... ycsb-f,\n"
    "sv-wla, sv-wlb, sv-wlc) on RocksDB over a freshly formatted zonekv file system, then prints a\n"
    "summary and, with --json, every metric and the full configuration. overwrite, readrandom and\n"
    "readrandomwriterandom first load --num keys with fillseq when they come first.\n"
    "Scheme knobs are applied first, then the individual flags below override them.\n"
    "RocksDB options take RocksDB's names and value syntax; unset ones keep RocksDB's defaults\n"
    "(compression defaults to none: values are random bytes).";

void DefineFlags(Flags* f) {
  f->Define("workload", "fillrandom", "db_bench list (fillseq,overwrite) or one YCSB workload (ycsb-a, sv-wla, ...)");
  f->Define("benchmarks", "", "db_bench's name for --workload");
  f->Define("writes", "", "db_bench: operations per thread of each write benchmark (default --num)");
  f->Define("reads", "", "db_bench: operations per thread of each read benchmark (default --num)");
  f->Define("duration", "0", "db_bench: seconds each benchmark runs before the next starts (0 = by operations)");
  f->Define("stats_interval_seconds", "0", "db_bench: print ops and ops/s on stderr this often (0 = never)");
  f->Define("statistics", "false", "db_bench: print RocksDB's statistics after the run", true);
  f->Define("num", "100000", "db_bench: key space and operations per thread; YCSB: default record/operation count");
  f->Define("key_size", "16", "key size in bytes");
  f->Define("value_size", "", "value size in bytes (default 100 for db_bench, 1000 for YCSB)");
  f->Define("threads", "1", "client threads");
  f->Define("readwritepercent", "90", "readrandomwriterandom: percent of reads (1-99)");
  f->Define("recordcount", "", "YCSB: records loaded (default --num)");
  f->Define("requestdistribution", "", "YCSB: zipfian | latest | uniform (default: the workload's own)");
  f->Define("operationcount", "", "YCSB: operations in the run phase, all threads (default --num)");
  f->Define("seed", "1", "seed of every random choice");
  f->Define("max_seconds", "0", "time limit per phase; a phase that reaches it ends the run (0 = none)");
  f->Define("scale", "1", "the experiment scale this run stands for (recorded in config.scale; sizes come from the flags)");
  f->Define("fs", "zonekv", "zonekv (on --device) or posix (RocksDB's default file system in --db)");
  f->Define("device", kDefaultDevice, "device spec (see 'zonekv device --help')");
  f->Define("db", "", "--fs=posix: database directory (its RocksDB files are destroyed first)");
  f->Define("scheme", "",
            "named preset of policies and RocksDB knobs (--list_schemes; default coop, baseline with --fs=posix)");
  f->Define("list_schemes", "false", "print the schemes and their knobs, then exit", true);
  f->Define("list_policies", "false", "print every policy family's policies, their help and knobs, then exit", true);
  f->Define("json", "", "write the result document here (also when the run fails)");
  f->Define("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), on, off");
  for (const auto& o : FsKnobOptions()) f->Define(o.name, "", std::string("fs: ") + o.help + " (default: scheme's)");
  for (const auto& o : ControllerKnobOptions()) f->Define(o.name, "", std::string("db: ") + o.help + " (default: scheme's)");
  for (const auto& o : RocksDbBenchOptions()) f->Define(o.name, "", std::string("rocksdb: ") + o.help);
  for (const auto& [old_name, new_name] : FsPolicyKnobs().renamed()) f->Renamed(old_name, new_name);
  for (const auto& [old_name, new_name] : PickerKnobs().renamed()) f->Renamed(old_name, new_name);
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Status OptionalUint(const Flags& f, const std::string& name, uint64_t* v) {
  if (f.Str(name).empty()) return Status::OK();
  return f.Uint(name, v);
}

Status BuildConfig(const Flags& f, BenchConfig* c) {
  std::string workload = f.Str("workload");
  if (f.WasSet("benchmarks")) {
    if (f.WasSet("workload") && f.Str("workload") != f.Str("benchmarks")) {
      return Status::InvalidArgument("--benchmarks and --workload name the same thing; give one");
    }
    workload = f.Str("benchmarks");
  }
  c->workloads = Split(workload);
  ZONEKV_RETURN_IF_ERROR(OptionalUint(f, "writes", &c->writes));
  ZONEKV_RETURN_IF_ERROR(OptionalUint(f, "reads", &c->reads));
  ZONEKV_RETURN_IF_ERROR(f.Uint("duration", &c->duration_s));
  ZONEKV_RETURN_IF_ERROR(f.Uint("stats_interval_seconds", &c->stats_interval_s));
  ZONEKV_RETURN_IF_ERROR(f.Bool("statistics", &c->statistics));
  ZONEKV_RETURN_IF_ERROR(f.Uint("num", &c->num));
  ZONEKV_RETURN_IF_ERROR(f.Uint("key_size", &c->key_size));
  if (!f.Str("value_size").empty()) ZONEKV_RETURN_IF_ERROR(f.Bytes("value_size", &c->value_size));
  if (f.WasSet("value_size") && c->value_size == 0) {
    return Status::InvalidArgument("--value_size must be at least 1");
  }
  ZONEKV_RETURN_IF_ERROR(f.Uint("threads", &c->threads));
  ZONEKV_RETURN_IF_ERROR(f.Uint("readwritepercent", &c->read_write_percent));
  ZONEKV_RETURN_IF_ERROR(OptionalUint(f, "recordcount", &c->record_count));
  ZONEKV_RETURN_IF_ERROR(OptionalUint(f, "operationcount", &c->operation_count));
  c->request_distribution = f.Str("requestdistribution");
  ZONEKV_RETURN_IF_ERROR(f.Uint("seed", &c->seed));
  ZONEKV_RETURN_IF_ERROR(f.Uint("max_seconds", &c->max_seconds));
  ZONEKV_RETURN_IF_ERROR(f.Double("scale", &c->scale));
  if (!(c->scale > 0 && c->scale <= 1)) return Status::InvalidArgument("--scale=" + f.Str("scale") + ": must be in (0, 1]");
  c->fs = f.Str("fs");
  c->device_spec = f.Str("device");
  c->db_dir = f.Str("db");
  c->scheme = f.Str("scheme");
  for (const auto& o : FsKnobOptions()) {
    if (f.WasSet(o.name)) c->fs_knobs.emplace_back(o.name, f.Str(o.name));
  }
  for (const auto& o : ControllerKnobOptions()) {
    if (f.WasSet(o.name)) c->controller_knobs.emplace_back(o.name, f.Str(o.name));
  }
  for (const auto& o : RocksDbBenchOptions()) {
    if (f.WasSet(o.name)) c->rocksdb_knobs.emplace_back(o.name, f.Str(o.name));
  }
  std::string progress = f.Str("progress");
  if (progress == "auto") c->progress = isatty(STDERR_FILENO) == 1;
  else if (progress == "on") c->progress = true;
  else if (progress == "off") c->progress = false;
  else return Status::InvalidArgument("--progress=" + progress + ": use auto, on or off");
  for (const auto& [k, v] : f.Effective()) c->flags.Set(k, v);
  return Status::OK();
}

void PrintSchemes() {
  for (const auto& s : AllSchemes()) {
    std::printf("%s\n  %s\n ", s.name.c_str(), s.description.c_str());
    for (const auto& [k, v] : s.fs_knobs) std::printf(" --%s=%s", k.c_str(), v.c_str());
    for (const auto& [k, v] : s.controller_knobs) std::printf(" --%s=%s", k.c_str(), v.c_str());
    for (const auto& [k, v] : s.rocksdb_knobs) std::printf(" --%s=%s", k.c_str(), v.c_str());
    std::printf("\n");
  }
}

template <typename Factory>
void PrintFamily(const char* flag, const PolicyRegistry<Factory>& r) {
  std::printf("--%s: %s\n", flag, r.family().c_str());
  for (const auto& e : r.entries()) {
    std::printf("  %-13s %s", e.name.c_str(), e.help.c_str());
    for (size_t i = 0; i < e.knobs.size(); i++) std::printf("%s--%s", i ? ", " : "  [", e.knobs[i].c_str());
    std::printf("%s\n", e.knobs.empty() ? "" : "]");
  }
}

void PrintPolicies() {
  PrintFamily("alloc", FileAllocationPolicies());
  PrintFamily("blob_alloc", BlobAllocationPolicies());
  PrintFamily("zc", CleaningPolicies());
  PrintFamily("reset", ResetPolicies());
  PrintFamily("finish", FinishPolicies());
  PrintFamily("compaction", CompactionPickers());
  std::printf("  %-13s %s\n", "native", "RocksDB's own compaction (no external compactor)");
  PrintFamily("blob_gc_cutoff", BlobGcCutoffs());
  PrintFamily("space_gc", SpaceGcPolicies());
  PrintFamily("policy (zonekv ftl)", FtlVictimPolicies());
}

}  // namespace

int BenchCommand(int argc, char** argv) {
  Flags flags("bench");
  DefineFlags(&flags);
  bool help = false;
  Status s = flags.Parse(argc, argv, 2, &help);
  if (help) {
    std::printf("%s", flags.Usage(kSynopsis).c_str());
    return 0;
  }
  if (s.ok() && !flags.positionals().empty()) {
    s = Status::InvalidArgument("unexpected argument '" + flags.positionals()[0] + "' (flags start with --)");
  }
  BenchConfig config;
  if (s.ok()) s = BuildConfig(flags, &config);
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv bench: %s\n", s.ToString().c_str());
    return 2;
  }
  // --list_schemes and --list_policies print their list instead of running.
  const std::pair<const char*, void (*)()> lists[] = {{"list_schemes", PrintSchemes}, {"list_policies", PrintPolicies}};
  for (const auto& [flag, print] : lists) {
    bool list = false;
    s = flags.Bool(flag, &list);
    if (!s.ok()) {
      std::fprintf(stderr, "zonekv bench: %s\n", s.ToString().c_str());
      return 2;
    }
    if (list) {
      print();
      return 0;
    }
  }

  // Refuse an unwritable --json before spending minutes on the run.
  if (!flags.Str("json").empty() && !std::ofstream(flags.Str("json"), std::ios::app)) {
    std::fprintf(stderr, "zonekv bench: %s\n",
                 Status::InvalidArgument("--json=" + flags.Str("json") + ": cannot open for writing").ToString().c_str());
    return 2;
  }
  BenchOutput out;
  s = RunBench(config, &out);
  bool started = out.json.Find("workload") != nullptr;
  if (!started) {
    std::fprintf(stderr, "zonekv bench: %s\n", s.ToString().c_str());
    return s.Is(Status::Code::kInvalidArgument) || s.Is(Status::Code::kNotFound) ? 2 : 1;
  }
  std::printf("%s", out.summary.c_str());
  std::fflush(stdout);
  if (!flags.Str("json").empty()) {
    Status w = WriteJson(flags.Str("json"), out.json);
    if (!w.ok()) {
      std::fprintf(stderr, "zonekv bench: %s\n", w.ToString().c_str());
      return 1;
    }
  }
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace zonekv
