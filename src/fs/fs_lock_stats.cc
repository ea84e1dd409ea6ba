// FsLockStats and its parts as JSON (fs.lock.* in docs/metrics.md).
#include "zonekv/fs_lock_stats.h"

#include <execinfo.h>

#include <cstdlib>
#include <string>

namespace zonekv {

namespace {

double Us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

Json HoldsToJson(const std::vector<LockHoldStats>& holds) {
  Json out = Json::Array();
  for (const LockHoldStats& h : holds) out.Push(h.ToJson());
  return out;
}

}  // namespace

Json DurationSummary::ToJson() const {
  Json j = Json::Object();
  j.Set("p50", Us(p50_ns)).Set("p99", Us(p99_ns)).Set("p999", Us(p999_ns)).Set("max", Us(max_ns)).Set("over_1ms", over_1ms);
  return j;
}

Json LockHoldStats::ToJson() const {
  Json names = Json::Array();
  int frames = static_cast<int>(stack.size());
  char** symbols = backtrace_symbols(stack.data(), frames);
  for (int i = 0; symbols != nullptr && i < frames; i++) names.Push(Json(std::string(symbols[i])));
  std::free(symbols);
  Json j = Json::Object();
  j.Set("hold_us", Us(hold_ns))
      .Set("cpu_us", Us(cpu_ns))
      .Set("involuntary_switches", involuntary_switches)
      .Set("voluntary_switches", voluntary_switches)
      .Set("minor_faults", minor_faults)
      .Set("stack", names);
  return j;
}

Json FsLockStats::ToJson() const {
  Json j = Json::Object();
  j.Set("hold_us", hold.ToJson()).Set("wait_us", wait.ToJson()).Set("acquisitions", acquisitions);
  if (profile) {
    j.Set("hold_cpu_us", hold_cpu.ToJson()).Set("longest", HoldsToJson(longest)).Set("longest_cpu", HoldsToJson(longest_cpu));
  }
  j.Set("device_calls_held", device_calls_held).Set("reset_reader_waits", reset_reader_waits);
  return j;
}

}  // namespace zonekv
