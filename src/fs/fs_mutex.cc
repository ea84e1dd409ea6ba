#include "fs_mutex.h"

#include <algorithm>
#include <bit>

namespace zonekv {
namespace {

// FsMutex instances the calling thread holds.
thread_local int t_held = 0;

uint64_t NsBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

}  // namespace

// Bucket of v >= 4: 4 * floor(log2 v) + the next two bits; values 0..3 are
// buckets 0..3 (exact).
int LatencyHistogram::Bucket(uint64_t ns) {
  if (ns < 4) return static_cast<int>(ns);
  int msb = 63 - std::countl_zero(ns);
  return msb * 4 + static_cast<int>((ns >> (msb - 2)) & 3);
}

uint64_t LatencyHistogram::BucketUpperNs(int b) {
  if (b < 8) return static_cast<uint64_t>(std::min(b, 3));  // 4..7 are never used
  int msb = b / 4;
  uint64_t lower = (uint64_t{1} << msb) | (static_cast<uint64_t>(b % 4) << (msb - 2));
  return lower + (uint64_t{1} << (msb - 2)) - 1;
}

void LatencyHistogram::Add(uint64_t ns) {
  buckets_[Bucket(ns)]++;
  count_++;
  max_ns_ = std::max(max_ns_, ns);
}

uint64_t LatencyHistogram::QuantileNs(double q) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_) + 0.5);
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; b++) {
    seen += buckets_[b];
    if (seen >= rank) return std::min(BucketUpperNs(b), max_ns_);
  }
  return max_ns_;
}

Json LatencyHistogram::ToJsonUs() const {
  Json j = Json::Object();
  j.Set("p50", static_cast<double>(QuantileNs(0.5)) / 1e3)
      .Set("p99", static_cast<double>(QuantileNs(0.99)) / 1e3)
      .Set("max", static_cast<double>(max_ns_) / 1e3);
  return j;
}

void FsMutex::lock() {
  auto t0 = std::chrono::steady_clock::now();
  mu_.lock();
  acquired_ = std::chrono::steady_clock::now();
  wait_.Add(NsBetween(t0, acquired_));
  t_held++;
}

bool FsMutex::try_lock() {
  if (!mu_.try_lock()) return false;
  acquired_ = std::chrono::steady_clock::now();
  wait_.Add(0);
  t_held++;
  return true;
}

void FsMutex::unlock() {
  hold_.Add(NsBetween(acquired_, std::chrono::steady_clock::now()));
  t_held--;
  mu_.unlock();
}

bool FsMutex::HeldByThisThread() { return t_held > 0; }

Json FsMutex::StatsLocked() const {
  Json j = Json::Object();
  j.Set("hold_us", hold_.ToJsonUs()).Set("wait_us", wait_.ToJsonUs()).Set("acquisitions", wait_.count());
  return j;
}

}  // namespace zonekv
