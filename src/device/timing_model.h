// TimingModel: busy-until bookkeeping for the ConfZNS-style flash model
// described at TimingOptions (include/zonekv/emulated_device.h).
//
// Times are steady-clock nanoseconds, already multiplied by time_scale.
// Each command charges the channels and planes it uses, starting no earlier
// than `now_ns`, and returns its completion time; the caller then sleeps
// until then (SleepUntil). The model itself never reads the clock, so tests
// can drive it with made-up times. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "zonekv/emulated_device.h"

namespace zonekv {

class TimingModel {
 public:
  // REQUIRES: options.Validate(geometry) is OK.
  TimingModel(const TimingOptions& options, const DeviceGeometry& geometry);

  // Host write of [offset, offset + n) of `zone` (zone-relative bytes):
  // every touched page is transferred (time proportional to its bytes) and
  // programmed once the write fills it or reaches the zone capacity.
  int64_t Write(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, int64_t now_ns);
  // Host read: every touched page is sensed, then transferred.
  int64_t Read(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, int64_t now_ns);
  // Zone reset: one block erase on every plane the zone is striped over.
  int64_t Erase(uint32_t zone, int64_t now_ns);

  static int64_t NowNs();
  // Sleeps until `t_ns`; returns the nanoseconds actually spent blocked (0
  // if `t_ns` is already past).
  static int64_t SleepUntil(int64_t t_ns);

 private:
  int64_t Ns(double us) const;
  uint32_t ChannelOf(uint32_t zone, uint64_t page) const;
  uint32_t PlaneOf(uint32_t zone, uint64_t page) const;  // global plane index

  const TimingOptions options_;
  const uint64_t zone_cap_bytes_;
  std::mutex mu_;
  std::vector<int64_t> channel_busy_ns_;  // GUARDED_BY(mu_)
  std::vector<int64_t> plane_busy_ns_;    // GUARDED_BY(mu_)
};

}  // namespace zonekv
