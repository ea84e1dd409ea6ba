// zonekv ftl: the host-side FTL over zones.
//
//   zonekv ftl synth      run a synthetic block workload and report WAF and
//                         the GC policy's CPU and memory costs
//   zonekv ftl replay     replay an MSR Cambridge CSV trace
//   zonekv ftl gen-trace  write a synthetic trace in MSR format
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "zonekv/flags.h"
#include "zonekv/ftl.h"
#include "zonekv/zoned_device.h"

namespace zonekv {
namespace {

constexpr const char* kUsage =
    "Usage: zonekv ftl <subcommand> [flags]\n"
    "\n"
    "Subcommands:\n"
    "  synth       run a synthetic workload (uniform, hotcold, zipfian, ycsb-a) on the FTL\n"
    "  replay      replay an MSR Cambridge block trace (CSV) on the FTL\n"
    "  gen-trace   write a synthetic block trace in MSR Cambridge format\n"
    "\n"
    "Run 'zonekv ftl <subcommand> --help' for its flags.\n";

// Exit codes: 0 ok, 1 the run failed, 2 bad usage.
int Fail(const std::string& cmd, const Status& s, int code) {
  // Flags already prefix their messages with the command; say it once.
  std::string text = s.ToString();
  std::string dup = "zonekv " + cmd + ": ";
  size_t at = text.find(dup);
  if (at != std::string::npos) text.erase(at, dup.size());
  std::fprintf(stderr, "zonekv %s: %s\n", cmd.c_str(), text.c_str());
  return code;
}

// Parses a subcommand's flags (no positional arguments). Returns -1 to go
// on, else the exit code: 0 after printing the usage for --help, 2 for a
// bad flag or a stray argument.
int ParseOrExit(const std::string& cmd, Flags* f, int argc, char** argv, const std::string& usage) {
  bool help = false;
  Status s = f->Parse(argc, argv, 3, &help);
  if (help) {
    std::printf("%s", f->Usage(usage).c_str());
    return 0;
  }
  if (!s.ok()) return Fail(cmd, s, 2);
  if (!f->positionals().empty()) {
    return Fail(cmd, Status::InvalidArgument("unexpected argument '" + f->positionals()[0] + "'"), 2);
  }
  return -1;
}

std::string PolicyList() { return FtlVictimPolicies().NameList("|"); }

void DefineWorkloadFlags(Flags* f) {
  f->Define("workload", "uniform", "uniform | hotcold | zipfian | ycsb-a");
  f->Define("seed", "1", "seed of the workload streams");
  f->Define("hot_fraction", "0.2", "hotcold: share of the blocks that are hot");
  f->Define("hot_access", "0.8", "hotcold: share of the writes that go to hot blocks");
  f->Define("zipf_theta", "0.99", "zipfian, ycsb-a: skew constant");
  f->Define("read_ratio", "0.5", "ycsb-a: share of operations that are reads");
}

Status ParseWorkloadFlags(const Flags& f, SynthOptions* o) {
  o->workload = f.Str("workload");
  ZONEKV_RETURN_IF_ERROR(f.Uint("seed", &o->seed));
  ZONEKV_RETURN_IF_ERROR(f.Double("hot_fraction", &o->hot_fraction));
  ZONEKV_RETURN_IF_ERROR(f.Double("hot_access", &o->hot_access));
  ZONEKV_RETURN_IF_ERROR(f.Double("zipf_theta", &o->zipf_theta));
  ZONEKV_RETURN_IF_ERROR(f.Double("read_ratio", &o->read_ratio));
  return ValidateSynthOptions(*o);
}

void DefineFtlFlags(Flags* f) {
  f->Define("device", "", "device spec (e.g. meta:zones=1024,zone_size=1M); overrides the three flags below");
  f->Define("backing", "meta", "ram | meta (metadata only: no payload, GC moves modelled) when --device is not set");
  f->Define("device_bytes", "1G", "device size when --device is not set");
  f->Define("zone_size", "1M", "zone size when --device is not set");
  f->Define("op", "0.1", "over-provisioning: fraction of the zones withheld from the logical space");
  f->Define("policy", "greedy", "GC victim policy: " + PolicyList());
  f->Define("gc_low", "0", "GC starts when free zones <= this (0 = max(2, zones/200))");
  f->Define("gc_high", "0", "GC stops when free zones >= this (0 = low + max(1, zones/400))");
  f->Define("prefill", "true", "write every logical block once before measuring", true);
  f->Define("check", "false", "verify the L2P/P2L maps and valid counts after the run", true);
  f->Define("json", "", "write the results as JSON to this path");
}

struct FtlSetup {
  std::string spec;
  std::unique_ptr<ZonedDevice> device;
  std::unique_ptr<Ftl> ftl;
  bool prefill = true;
  bool check = false;
};

// Usage errors (bad flag values) come back as InvalidArgument before
// anything is opened.
Status ParseDeviceSpec(const Flags& f, std::string* spec) {
  if (f.WasSet("device")) {
    *spec = f.Str("device");
    return Status::OK();
  }
  std::string backing = f.Str("backing");
  if (backing != "ram" && backing != "meta") {
    return Status::InvalidArgument("--backing '" + backing + "' is neither ram nor meta");
  }
  uint64_t device_bytes = 0, zone_size = 0;
  ZONEKV_RETURN_IF_ERROR(f.Bytes("device_bytes", &device_bytes));
  ZONEKV_RETURN_IF_ERROR(f.Bytes("zone_size", &zone_size));
  if (zone_size == 0 || zone_size % kFtlBlockBytes != 0) {
    return Status::InvalidArgument("--zone_size " + f.Str("zone_size") + " is not a positive multiple of 4 KiB");
  }
  if (device_bytes < zone_size || device_bytes % zone_size != 0) {
    return Status::InvalidArgument("--device_bytes " + f.Str("device_bytes") +
                                   " is not a positive multiple of --zone_size " + f.Str("zone_size"));
  }
  uint64_t zones = device_bytes / zone_size;
  if (zones > 0xffffffffull) return Status::InvalidArgument("--device_bytes / --zone_size gives too many zones");
  *spec = backing + ":zones=" + std::to_string(zones) + ",zone_size=" + std::to_string(zone_size);
  return Status::OK();
}

Status ParseFtlOptions(const Flags& f, FtlOptions* o, FtlSetup* setup) {
  ZONEKV_RETURN_IF_ERROR(ParseDeviceSpec(f, &setup->spec));
  ZONEKV_RETURN_IF_ERROR(f.Double("op", &o->op_ratio));
  o->policy = f.Str("policy");
  ZONEKV_RETURN_IF_ERROR(FtlVictimPolicies().Check("--policy", o->policy));
  uint64_t low = 0, high = 0;
  ZONEKV_RETURN_IF_ERROR(f.Uint("gc_low", &low));
  ZONEKV_RETURN_IF_ERROR(f.Uint("gc_high", &high));
  if (low > 0xffffffffull || high > 0xffffffffull) return Status::InvalidArgument("--gc_low/--gc_high is too large");
  o->gc_low_zones = static_cast<uint32_t>(low);
  o->gc_high_zones = static_cast<uint32_t>(high);
  o->move_payload = setup->spec.rfind("meta:", 0) != 0;
  ZONEKV_RETURN_IF_ERROR(f.Bool("prefill", &setup->prefill));
  ZONEKV_RETURN_IF_ERROR(f.Bool("check", &setup->check));
  return Status::OK();
}

Status OpenFtl(const FtlOptions& o, FtlSetup* setup) {
  ZONEKV_RETURN_IF_ERROR(OpenDevice(setup->spec, &setup->device));
  return Ftl::Open(setup->device.get(), o, &setup->ftl);
}

Json FlagsJson(const Flags& f) {
  Json j = Json::Object();
  for (const auto& [k, v] : f.Effective()) j.Set(k, v);
  return j;
}

// Prints a one-line summary, writes the JSON (with "error" if the run
// failed) and returns the exit code.
int Report(const std::string& cmd, const Flags& f, FtlSetup* setup, Json config, const RunResult& r,
           Status run_status) {
  if (run_status.ok() && setup->check) run_status = setup->ftl->CheckConsistency();
  Json j = Json::Object();
  j.Set("command", cmd);
  j.Set("config", std::move(config));
  j.Set("memory", setup->ftl->MemoryJson());
  j.Set("results", r.ToJson());
  if (!run_status.ok()) j.Set("error", run_status.ToString());
  if (run_status.ok()) std::printf("%s: policy=%s waf=%.3f steady_waf=%.3f user_writes=%llu gc_writes=%llu "
              "maintenance=%.1fns/io selection=%.1fns/io lock_wait=%.1fns/io elapsed=%.2fs\n",
              cmd.c_str(), f.Str("policy").c_str(), r.total.waf(), r.steady.waf(),
              static_cast<unsigned long long>(r.total.user_writes),
              static_cast<unsigned long long>(r.total.gc_writes),
              r.total.user_writes ? static_cast<double>(r.total.maintenance_ns()) / r.total.user_writes : 0.0,
              r.total.user_writes ? static_cast<double>(r.total.victim_selection_ns()) / r.total.user_writes : 0.0,
              r.total.user_writes ? static_cast<double>(r.total.lock_wait_ns) / r.total.user_writes : 0.0,
              r.elapsed_s);
  if (!f.Str("json").empty()) {
    Status s = WriteJson(f.Str("json"), j);
    if (!s.ok()) return Fail(cmd, s, 1);
  }
  if (!run_status.ok()) return Fail(cmd, run_status, 1);
  return 0;
}

Json WorkloadJson(const SynthOptions& o) {
  Json j = Json::Object();
  j.Set("name", o.workload)
      .Set("threads", o.threads)
      .Set("seed", o.seed)
      .Set("hot_fraction", o.hot_fraction)
      .Set("hot_access", o.hot_access)
      .Set("zipf_theta", o.zipf_theta)
      .Set("read_ratio", o.read_ratio);
  return j;
}

int Synth(int argc, char** argv) {
  const std::string cmd = "ftl synth";
  Flags f(cmd);
  DefineFtlFlags(&f);
  DefineWorkloadFlags(&f);
  f.Define("threads", "1", "concurrent writer threads (1..64)");
  f.Define("writes", "0", "measured user block writes (0 = twice the logical blocks)");
  const int code = ParseOrExit(cmd, &f, argc, argv,
                               "[flags]\n\nRuns a synthetic block workload on the host FTL and reports WAF,\n"
                               "GC policy CPU time per I/O and memory.");
  if (code >= 0) return code;
  Status s;
  FtlOptions fo;
  FtlSetup setup;
  SynthOptions so;
  uint64_t threads = 0;
  s = ParseFtlOptions(f, &fo, &setup);
  if (s.ok()) s = f.Uint("threads", &threads);
  if (s.ok() && (threads == 0 || threads > 64)) {
    s = Status::InvalidArgument("--threads " + f.Str("threads") + " is outside 1..64");
  }
  if (s.ok()) {
    so.threads = static_cast<uint32_t>(threads);
    s = f.Uint("writes", &so.writes);
  }
  if (s.ok()) s = ParseWorkloadFlags(f, &so);
  if (!s.ok()) return Fail(cmd, s, 2);
  so.prefill = setup.prefill;
  s = OpenFtl(fo, &setup);
  if (!s.ok()) return Fail(cmd, s, s.Is(Status::Code::kInvalidArgument) ? 2 : 1);

  Json config = Json::Object();
  config.Set("device_spec", setup.spec)
      .Set("ftl", setup.ftl->ConfigJson())
      .Set("workload", WorkloadJson(so))
      .Set("threads", so.threads)
      .Set("seed", so.seed)
      .Set("writes", so.writes ? so.writes : 2 * setup.ftl->logical_blocks())
      .Set("prefill", so.prefill)
      .Set("flags", FlagsJson(f));
  RunResult r;
  Status run = RunSynthetic(setup.ftl.get(), so, &r);
  return Report(cmd, f, &setup, std::move(config), r, run);
}

int Replay(int argc, char** argv) {
  const std::string cmd = "ftl replay";
  Flags f(cmd);
  f.Define("trace", "", "MSR Cambridge CSV trace (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)");
  f.Define("repeat", "1", "replay the trace this many times");
  DefineFtlFlags(&f);
  const int code = ParseOrExit(cmd, &f, argc, argv,
                               "--trace=FILE [flags]\n\nReplays an MSR Cambridge block trace on the host FTL with one\n"
                               "thread. Offsets beyond the logical space wrap around. Every line\n"
                               "is checked before replay; a malformed line fails with its number.");
  if (code >= 0) return code;
  Status s;
  FtlOptions fo;
  FtlSetup setup;
  ReplayOptions ro;
  ro.trace_path = f.Str("trace");
  uint64_t repeat = 0;
  s = ParseFtlOptions(f, &fo, &setup);
  if (s.ok()) s = f.Uint("repeat", &repeat);
  if (s.ok() && ro.trace_path.empty()) s = Status::InvalidArgument("--trace is required");
  if (s.ok() && (repeat == 0 || repeat > 1000000)) {
    s = Status::InvalidArgument("--repeat " + f.Str("repeat") + " is outside 1..1000000");
  }
  if (!s.ok()) return Fail(cmd, s, 2);
  ro.repeat = static_cast<uint32_t>(repeat);
  ro.prefill = setup.prefill;
  s = OpenFtl(fo, &setup);
  if (!s.ok()) return Fail(cmd, s, s.Is(Status::Code::kInvalidArgument) ? 2 : 1);

  RunResult r;
  uint64_t wrapped = 0;
  Status run = ReplayMsrTrace(setup.ftl.get(), ro, &r, &wrapped);
  Json trace = Json::Object();
  trace.Set("path", ro.trace_path).Set("repeat", ro.repeat).Set("wrapped_ios", wrapped);
  Json config = Json::Object();
  config.Set("device_spec", setup.spec)
      .Set("ftl", setup.ftl->ConfigJson())
      .Set("trace", std::move(trace))
      .Set("prefill", ro.prefill)
      .Set("flags", FlagsJson(f));
  return Report(cmd, f, &setup, std::move(config), r, run);
}

int GenTrace(int argc, char** argv) {
  const std::string cmd = "ftl gen-trace";
  Flags f(cmd);
  f.Define("out", "", "path of the trace to write");
  f.Define("ops", "1000", "number of trace records");
  f.Define("disk_bytes", "64M", "size of the traced disk");
  DefineWorkloadFlags(&f);
  const int code = ParseOrExit(cmd, &f, argc, argv,
                               "--out=FILE [flags]\n\nWrites a synthetic MSR Cambridge trace: offsets from the workload,\n"
                               "sizes of 4 KiB (60%) or 8..64 KiB, one record per millisecond.");
  if (code >= 0) return code;
  Status s;
  SynthOptions so;
  uint64_t ops = 0, disk_bytes = 0;
  s = ParseWorkloadFlags(f, &so);
  if (s.ok()) s = f.Uint("ops", &ops);
  if (s.ok()) s = f.Bytes("disk_bytes", &disk_bytes);
  if (s.ok() && f.Str("out").empty()) s = Status::InvalidArgument("--out is required");
  if (!s.ok()) return Fail(cmd, s, 2);
  s = GenerateMsrTrace(f.Str("out"), so, ops, disk_bytes);
  if (!s.ok()) return Fail(cmd, s, s.Is(Status::Code::kInvalidArgument) ? 2 : 1);
  std::printf("%s: wrote %llu records to %s\n", cmd.c_str(), static_cast<unsigned long long>(ops),
              f.Str("out").c_str());
  return 0;
}

}  // namespace

int FtlCommand(int argc, char** argv) {
  return RunSubcommand("ftl", kUsage, {{"synth", Synth}, {"replay", Replay}, {"gen-trace", GenTrace}}, argc, argv);
}

}  // namespace zonekv
