#include "crash_plan.h"

#include <cstdio>

#include "zonekv/bench.h"
#include "zonekv/random.h"

namespace zonekv {

namespace {

std::string Size(uint64_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + "M";
  return std::to_string(bytes >> 10) + "K";
}

uint64_t Pick(SplitMix64* rng, uint64_t n) { return rng->Next() % n; }

}  // namespace

const char* CrashFaultName(CrashFault f) {
  switch (f) {
    case CrashFault::kKill: return "kill";
    case CrashFault::kPowerLoss: return "powerloss";
    case CrashFault::kIoError: return "ioerror";
  }
  return "?";
}

Status ParseCrashFault(const std::string& name, CrashFault* fault) {
  if (name == "powerloss") *fault = CrashFault::kPowerLoss;
  else if (name == "ioerror") *fault = CrashFault::kIoError;
  else return Status::InvalidArgument("unknown fault '" + name + "' (known: powerloss, ioerror)");
  return Status::OK();
}

std::string CrashRunPlan::Describe() const {
  std::string s = "scheme=" + scheme;
  for (const auto& [k, v] : fs_knobs) s += " " + k + "=" + v;
  const DeviceGeometry& g = geometry;
  s += " zones=" + std::to_string(g.nr_zones) + "x" + Size(g.zone_size_bytes) + " cap=" + Size(g.zone_capacity_bytes) +
       " open=" + std::to_string(g.max_open_zones) + " active=" + std::to_string(g.max_active_zones) +
       " keys=" + std::to_string(keys) + (blob ? " blob" : " noblob");
  char sync[32];
  std::snprintf(sync, sizeof(sync), " sync=%.2f", sync_fraction);
  s += sync;
  s += " fault=" + std::string(CrashFaultName(fault));
  if (fault == CrashFault::kIoError) {
    s += "(" + std::string(FaultDevice::OpName(io_op)) + "#" + std::to_string(io_nth) + (io_persistent ? "+" : "") + ")";
  } else if (fault == CrashFault::kPowerLoss) {
    s += torn ? "(torn)" : "(drop)";
  }
  s += " after=" + std::to_string(run_ms) + "ms";
  return s;
}

Json CrashRunPlan::ToJson() const {
  Json j = Json::Object();
  j.Set("index", index).Set("image", image).Set("new_image", new_image).Set("geometry", geometry.ToJson());
  j.Set("keys", static_cast<uint64_t>(keys)).Set("scheme", scheme);
  Json knobs = Json::Object();
  for (const auto& [k, v] : fs_knobs) knobs.Set(k, v);
  j.Set("fs_knobs", knobs).Set("blob", blob).Set("sync_fraction", sync_fraction).Set("run_ms", run_ms);
  j.Set("writer_seed", writer_seed).Set("fault", CrashFaultName(fault));
  if (fault == CrashFault::kIoError) {
    j.Set("io_op", FaultDevice::OpName(io_op)).Set("io_nth", io_nth).Set("io_persistent", io_persistent);
  }
  if (fault == CrashFault::kPowerLoss) j.Set("torn", torn);
  return j;
}

std::vector<CrashRunPlan> PlanCrashRuns(const CrashTestOptions& options, uint64_t n) {
  std::vector<CrashFault> kinds = {CrashFault::kKill};
  for (const std::string& f : options.faults) {
    CrashFault k;
    if (ParseCrashFault(f, &k).ok()) kinds.push_back(k);
  }
  const std::vector<Scheme> schemes = AllSchemes();
  SplitMix64 rng(options.seed);
  std::vector<CrashRunPlan> plans;
  CrashRunPlan image;  // the current image's draws
  uint64_t left_on_image = 0;
  for (uint64_t i = 0; i < n; i++) {
    CrashRunPlan p;
    if (left_on_image == 0) {
      left_on_image = 1 + Pick(&rng, 4);
      image.image = plans.empty() ? 0 : plans.back().image + 1;
      DeviceGeometry& g = image.geometry;
      g = DeviceGeometry();
      g.block_size = 4096;
      g.zone_size_bytes = uint64_t{1 + Pick(&rng, 2)} << 20;
      const uint64_t eighths[] = {8, 7, 6, 4};  // capacity = size x eighths/8
      g.zone_capacity_bytes = g.zone_size_bytes / 8 * eighths[Pick(&rng, 4)];
      g.nr_zones = static_cast<uint32_t>(31 + 2 * Pick(&rng, 16));  // odd, 31..61
      // ZoneFs keeps one active zone for its journal and one for the
      // cleaner, and refuses a device that leaves fewer than two for data
      // (kMinDataActiveZones): 4..14 active. Open zones may be as few as 2.
      g.max_active_zones = static_cast<uint32_t>(4 + Pick(&rng, 11));  // 4..14
      g.max_open_zones = static_cast<uint32_t>(2 + Pick(&rng, g.max_active_zones - 1));  // 2..active
      image.keys = static_cast<uint32_t>(500 + Pick(&rng, 2501));
      image.scheme = schemes[Pick(&rng, schemes.size())].name;
      image.fs_knobs.clear();
      switch (Pick(&rng, 3)) {
        case 0: {
          const char* pct[] = {"5", "10", "25"};
          image.fs_knobs = {{"finish", "threshold"}, {"finish_threshold_pct", pct[Pick(&rng, 3)]}};
          break;
        }
        default: break;
      }
      p.new_image = true;
    }
    left_on_image--;
    p.index = i;
    p.image = image.image;
    p.geometry = image.geometry;
    p.keys = image.keys;
    p.scheme = image.scheme;
    p.fs_knobs = image.fs_knobs;
    p.blob = Pick(&rng, 3) != 0;
    const double syncs[] = {0.02, 0.2, 0.5, 1.0};
    p.sync_fraction = syncs[Pick(&rng, 4)];
    const uint64_t shortest = std::max<uint64_t>(1, options.duration_ms / 10);
    p.run_ms = shortest + Pick(&rng, options.duration_ms - shortest + 1);
    p.writer_seed = rng.Next();
    p.fault = kinds[Pick(&rng, kinds.size())];
    // Drawn for every run, so that adding a fault kind moves no other draw.
    const FaultDevice::Op ops[] = {FaultDevice::Op::kRead, FaultDevice::Op::kWrite, FaultDevice::Op::kReset,
                                   FaultDevice::Op::kFinish, FaultDevice::Op::kFlush};
    const uint64_t nth_range[] = {1000, 400, 8, 4, 100};  // so that most faults fire within a run
    const uint64_t op = Pick(&rng, 5);
    p.io_op = ops[op];
    p.io_nth = 1 + Pick(&rng, nth_range[op]);
    p.io_persistent = Pick(&rng, 2) == 0;
    p.torn = Pick(&rng, 2) == 0;
    plans.push_back(std::move(p));
  }
  return plans;
}

}  // namespace zonekv
