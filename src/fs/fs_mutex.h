// FsMutex: the file system's lock, instrumented the way RocksDB's perf
// context instruments its DB mutex (db_mutex_lock_nanos): how long callers
// wait for it and how long they hold it, as log-bucket histograms, and a
// per-thread "held" marker that LockCheckedDevice uses to catch device
// commands issued under the lock.
//
// Usable with std::unique_lock / std::lock_guard and std::condition_variable_any
// (a wait unlocks and relocks through lock()/unlock(), so the time spent
// waiting on a condition variable is neither hold nor wait time; reacquiring
// after the wakeup is wait time).
//
// Thread-safety annotations: the macros below expand to clang's attributes
// under clang and to nothing otherwise (gcc builds this project); they state
// the lock contracts where the compiler cannot check them.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

#include "zonekv/json.h"

#if defined(__clang__)
#define ZONEKV_TSA(x) __attribute__((x))
#else
#define ZONEKV_TSA(x)
#endif
#define ZONEKV_CAPABILITY(x) ZONEKV_TSA(capability(x))
#define ZONEKV_GUARDED_BY(x) ZONEKV_TSA(guarded_by(x))
#define ZONEKV_REQUIRES(...) ZONEKV_TSA(requires_capability(__VA_ARGS__))
#define ZONEKV_EXCLUDES(...) ZONEKV_TSA(locks_excluded(__VA_ARGS__))
#define ZONEKV_ACQUIRE(...) ZONEKV_TSA(acquire_capability(__VA_ARGS__))
#define ZONEKV_RELEASE(...) ZONEKV_TSA(release_capability(__VA_ARGS__))
#define ZONEKV_TRY_ACQUIRE(...) ZONEKV_TSA(try_acquire_capability(__VA_ARGS__))

namespace zonekv {

// Durations in log-spaced buckets (4 per power of two, so a percentile is
// within 19% of the true value); the maximum is exact. Not thread-safe: the
// owner serializes (FsMutex records while it holds itself).
class LatencyHistogram {
 public:
  void Add(uint64_t ns);
  uint64_t count() const { return count_; }
  // The q-quantile (0 < q <= 1) in nanoseconds: the upper bound of its bucket,
  // capped at the maximum. 0 when empty.
  uint64_t QuantileNs(double q) const;
  uint64_t max_ns() const { return max_ns_; }
  // {"p50", "p99", "max"} in microseconds (fractional).
  Json ToJsonUs() const;

 private:
  static constexpr int kBuckets = 256;
  static int Bucket(uint64_t ns);
  static uint64_t BucketUpperNs(int b);
  uint64_t buckets_[kBuckets] = {};
  uint64_t count_ = 0;
  uint64_t max_ns_ = 0;
};

class ZONEKV_CAPABILITY("mutex") FsMutex {
 public:
  void lock() ZONEKV_ACQUIRE();
  void unlock() ZONEKV_RELEASE();
  bool try_lock() ZONEKV_TRY_ACQUIRE(true);

  // Whether the calling thread holds any FsMutex.
  static bool HeldByThisThread();

  // {"hold_us": {p50, p99, max}, "wait_us": {...}, "acquisitions": n}.
  // REQUIRES: this mutex held (the histograms are guarded by it).
  Json StatsLocked() const ZONEKV_REQUIRES(this);

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point acquired_;  // GUARDED_BY(this)
  LatencyHistogram hold_;                           // GUARDED_BY(this)
  LatencyHistogram wait_;                           // GUARDED_BY(this)
};

}  // namespace zonekv
