// The device calibration bench behind `zonekv device bench`: an fio-like set
// of workloads (sequential and QD1 writes over 1-8 zones, zone append,
// sequential and random reads at QD1/QD4, reset and finish latencies), each
// figure reported beside the published anchor of a timing profile.
//
// The same workload runs on any ZonedDevice with real threads, timed by the
// wall clock (RunDeviceBench), or through the TimingModel of a profile in
// modelled time (ModelDeviceBench): deterministic, and what the tests check.
#pragma once

#include <string>
#include <vector>

#include "zonekv/emulated_device.h"
#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

struct BenchMeasure {
  std::string name;         // stable key, e.g. "write_4k_qd1_2zones"
  std::string what;         // one line for people
  std::string unit;         // "MB/s", "KIOPS", "us" or "ms"
  double value = 0;
  bool has_anchor = false;  // false: no source publishes this figure
  double anchor = 0;
  std::string source;       // where the anchor comes from, or why there is none

  double ratio() const { return has_anchor && anchor != 0 ? value / anchor : 0; }
  // {value, unit, anchor, source, ratio}; anchor and ratio null without an anchor.
  Json ToJson() const;
};

struct BenchOptions {
  bool quick = false;  // a quarter of the commands per figure
  uint64_t seed = 1;   // of the random read offsets
};

// Runs the workload on `dev` (which it resets and writes: use a scratch
// device) and fills *out with figures in device time (wall time divided by
// `time_scale`), compared with the anchors of `profile` ("" or "none": no
// anchors). InvalidArgument if the device is too small (it needs 14 zones,
// 12 of them active at once).
Status RunDeviceBench(ZonedDevice* dev, const std::string& profile, double time_scale, const BenchOptions& options,
                      std::vector<BenchMeasure>* out);

// The same workload through a TimingModel built from `timing` on a device of
// geometry `g` whose finish model is `finish`, in modelled time.
Status ModelDeviceBench(const TimingOptions& timing, FinishModel finish, const DeviceGeometry& g,
                        const BenchOptions& options, std::vector<BenchMeasure>* out);

}  // namespace zonekv
