// FsMutex: the file system's lock, instrumented the way RocksDB's perf
// context instruments its DB mutex (db_mutex_lock_nanos): how long callers
// wait for it and how long they hold it, as log-bucket histograms, and a
// per-thread "held" marker that LockCheckedDevice uses to catch device
// commands issued under the lock.
//
// The lock profile (a debug facility, for finding what holds the lock long):
// with ZONEKV_LOCK_PROFILE=1 in the environment, every acquisition also
// records the acquiring call stack (before waiting, so it is not hold time)
// and, at both ends of the hold, the thread's CPU time and its context
// switch and page fault counts; Stats then reports the CPU time of holds
// and the longest holds with their stacks. Each hold is longer by the two
// readings (a few microseconds). Off, it costs one predictable branch per
// lock and unlock.
//
// Usable with MutexLock (zonekv/mutex.h) and std::condition_variable_any (a
// wait unlocks and relocks through lock()/unlock(), so the time spent
// waiting on a condition variable is neither hold nor wait time; reacquiring
// after the wakeup is wait time). Annotated for clang's thread-safety
// analysis (zonekv/thread_annotations.h): a ZONEKV_CAPABILITY whose
// statistics are guarded by the lock itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "zonekv/fs_lock_stats.h"
#include "zonekv/thread_annotations.h"

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
  // Durations of at least 1 ms (exact, not from the buckets).
  uint64_t over_1ms() const { return over_1ms_; }
  // Its quantiles p50, p99, p999, the maximum and over_1ms.
  DurationSummary Summary() const;

 private:
  static constexpr int kBuckets = 256;
  static int Bucket(uint64_t ns);
  static uint64_t BucketUpperNs(int b);
  uint64_t buckets_[kBuckets] = {};
  uint64_t count_ = 0;
  uint64_t max_ns_ = 0;
  uint64_t over_1ms_ = 0;
};

class ZONEKV_CAPABILITY("mutex") FsMutex {
 public:
  void lock() ZONEKV_ACQUIRE();
  void unlock() ZONEKV_RELEASE();

  // Whether the calling thread holds any FsMutex.
  static bool HeldByThisThread();

  // Whether the environment asks for the lock profile: ZONEKV_LOCK_PROFILE=1.
  static bool ProfileFromEnv();

  // Frames recorded per acquisition and holds kept by the profile.
  static constexpr int kStackFrames = 12;
  static constexpr size_t kLongest = 16;

  // What the thread spent over one hold (the profile).
  struct Usage {
    uint64_t cpu_ns = 0;  // CLOCK_THREAD_CPUTIME_ID
    uint64_t involuntary = 0, voluntary = 0, minor_faults = 0;  // getrusage(RUSAGE_THREAD)
  };
  struct Hold {
    uint64_t wall_ns = 0;
    Usage used;
    void* stack[kStackFrames] = {};  // the acquiring call stack, innermost first
    int frames = 0;
  };

  // A copy of the statistics, taken under the lock and summarized without
  // it.
  struct Stats {
    LatencyHistogram hold, wait;
    bool profile = false;
    LatencyHistogram hold_cpu;  // the holder's CPU time over each hold (profile)
    std::vector<Hold> longest;      // the longest holds, longest first (profile)
    std::vector<Hold> longest_cpu;  // the holds with the most CPU time, most first (profile)

    // The lock's part of FsLockStats: hold, wait, acquisitions and, with
    // the profile, hold_cpu (wall hold minus the time the holder was
    // descheduled or blocked), longest and longest_cpu. The profile's CPU
    // time and counters are taken from just before the acquisition, so they
    // include the wait for the lock (a contended wait is a voluntary
    // switch). device_calls_held and reset_reader_waits are the file
    // system's to set.
    FsLockStats Summary() const;
  };
  // Copies the statistics into *out (reusing its memory). REQUIRES: this
  // mutex held (the statistics are guarded by it).
  void StatsLocked(Stats* out) const ZONEKV_REQUIRES(this);

 private:
  // The calling thread's CPU time and counters now.
  static Usage ThreadUsage();
  // Records a profiled hold of `wall_ns` that ends now. REQUIRES: this held.
  void ProfileRelease(uint64_t wall_ns) ZONEKV_REQUIRES(this);

  const bool profile_ = ProfileFromEnv();
  std::mutex mu_;  // the lock itself; the analysis sees `this`, taken by lock()
  std::chrono::steady_clock::time_point acquired_ ZONEKV_GUARDED_BY(this);
  LatencyHistogram hold_ ZONEKV_GUARDED_BY(this);
  LatencyHistogram wait_ ZONEKV_GUARDED_BY(this);
  // The profile: the current hold and the longest ones, sorted by wall_ns
  // (longest_) and by CPU time (longest_cpu_), largest first.
  Hold current_ ZONEKV_GUARDED_BY(this);
  Usage acquired_usage_ ZONEKV_GUARDED_BY(this);
  LatencyHistogram hold_cpu_ ZONEKV_GUARDED_BY(this);
  std::vector<Hold> longest_ ZONEKV_GUARDED_BY(this);
  std::vector<Hold> longest_cpu_ ZONEKV_GUARDED_BY(this);
};

}  // namespace zonekv
