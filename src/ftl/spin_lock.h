// SpinLock: a test-and-test-and-set lock that yields the CPU after a short
// spin, so that 64 writer threads on 2 cores still make progress. The FTL's
// critical sections are short; dm-zap uses spin locks for the same reason.
// A lock for clang's thread-safety analysis (hold it with MutexLock,
// zonekv/mutex.h).
#pragma once

#include <atomic>
#include <thread>

#include "zonekv/thread_annotations.h"

namespace zonekv {

class ZONEKV_CAPABILITY("mutex") SpinLock {
 public:
  void lock() ZONEKV_ACQUIRE() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
      for (int spins = 0; flag_.test(std::memory_order_relaxed); spins++) {
        if (spins >= kSpinsBeforeYield) std::this_thread::yield();
      }
    }
  }
  // Takes the lock if it is free; never waits.
  bool try_lock() ZONEKV_TRY_ACQUIRE(true) {
    return !flag_.test(std::memory_order_relaxed) && !flag_.test_and_set(std::memory_order_acquire);
  }
  void unlock() ZONEKV_RELEASE() { flag_.clear(std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 64;
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

}  // namespace zonekv
