// What each run of a crash campaign does, drawn from the seed
// (zonekv/crashtest.h). The campaign and its writer process draw the same
// plans from the same options.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "zonekv/crashtest.h"
#include "zonekv/fault_device.h"
#include "zonekv/json.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

enum class CrashFault { kKill = 0, kPowerLoss = 1, kIoError = 2 };
const char* CrashFaultName(CrashFault f);
// InvalidArgument naming `name` unless it is powerloss or ioerror.
Status ParseCrashFault(const std::string& name, CrashFault* fault);

struct CrashRunPlan {
  uint64_t index = 0;   // 0-based run number
  uint64_t image = 0;   // 0-based image number; runs on one image continue its database
  bool new_image = false;
  DeviceGeometry geometry;
  uint32_t keys = 0;    // the key space of this image: keys 0..keys-1
  std::string scheme;
  std::vector<std::pair<std::string, std::string>> fs_knobs;  // after the scheme's
  bool blob = false;    // enable_blob_files in this run
  double sync_fraction = 0;  // of writes issued with WriteOptions.sync
  uint64_t run_ms = 0;  // the kill or fault comes this long after the writer started
  uint64_t writer_seed = 0;
  CrashFault fault = CrashFault::kKill;
  FaultDevice::Op io_op = FaultDevice::Op::kWrite;  // kIoError
  uint64_t io_nth = 0;       // kIoError: the n-th command after the DB opened fails
  bool io_persistent = false;  // kIoError: and every later one
  bool torn = false;         // kPowerLoss: lost writes keep a block prefix

  // "scheme=baza+ finish=threshold/10 zones=37x2M cap=1536K open=3 active=5 blob sync=0.20 fault=ioerror(write#120+)"
  std::string Describe() const;
  Json ToJson() const;
};

// The plans of runs 0..n-1.
std::vector<CrashRunPlan> PlanCrashRuns(const CrashTestOptions& options, uint64_t n);

}  // namespace zonekv
