// FsLockStats: the statistics of the file system's lock mu_ as typed
// fields (ZoneFsStats::lock; fs.lock.* in docs/metrics.md and
// docs/fs-locking.md).
#pragma once

#include <cstdint>
#include <vector>

#include "zonekv/json.h"

namespace zonekv {

// Durations summarized from a log-bucket histogram: a quantile is the upper
// bound of its bucket (within 19%), the maximum is exact.
struct DurationSummary {
  uint64_t p50_ns = 0;
  uint64_t p99_ns = 0;
  uint64_t p999_ns = 0;
  uint64_t max_ns = 0;
  uint64_t over_1ms = 0;  // durations of at least 1 ms (exact count)

  // {p50, p99, p999, max} in microseconds (fractional), over_1ms.
  Json ToJson() const;
};

// One hold of the file system's lock kept by the lock profile
// (ZONEKV_LOCK_PROFILE=1, docs/fs-locking.md).
struct LockHoldStats {
  uint64_t hold_ns = 0;  // wall time held
  // What the holding thread spent, counted from just before the acquisition
  // (so including its wait for the lock).
  uint64_t cpu_ns = 0;
  uint64_t involuntary_switches = 0;
  uint64_t voluntary_switches = 0;
  uint64_t minor_faults = 0;
  std::vector<void*> stack;  // the acquiring call stack (return addresses), innermost first

  // {hold_us, cpu_us, involuntary_switches, voluntary_switches,
  // minor_faults, stack: ["module(+0xoffset) [address]", ...]} (resolve
  // with addr2line -Cfie module offset). Naming the frames takes
  // milliseconds, so only ToJson does it.
  Json ToJson() const;
};

// The engine lock mu_ (fs.lock.*).
struct FsLockStats {
  DurationSummary hold;  // how long each acquisition held it, wall time
  DurationSummary wait;  // how long each acquisition waited for it
  uint64_t acquisitions = 0;
  // The lock profile is on: the three fields below are set.
  bool profile = false;
  DurationSummary hold_cpu;                // the holder's CPU time over each hold
  std::vector<LockHoldStats> longest;      // the longest holds, longest first
  std::vector<LockHoldStats> longest_cpu;  // the holds with the most CPU time, most first
  uint64_t device_calls_held = 0;          // device commands issued while holding mu_; must be 0
  uint64_t reset_reader_waits = 0;         // resets that waited for readers of their zone

  // {hold_us, wait_us, acquisitions, [hold_cpu_us, longest, longest_cpu,]
  // device_calls_held, reset_reader_waits}.
  Json ToJson() const;
};

}  // namespace zonekv
