// Mutex and MutexLock: the locks of every layer, in the form clang's
// thread-safety analysis can check (zonekv/thread_annotations.h).
// libstdc++'s std::mutex, std::lock_guard and std::unique_lock carry no
// annotations, so the analysis would see no acquisition through them.
//
//   Mutex mu_;
//   int n_ ZONEKV_GUARDED_BY(mu_);
//   std::condition_variable_any cv_;
//
//   void Foo::Wait() {
//     MutexLock l(&mu_);
//     while (n_ == 0) cv_.wait(l);   // the wait unlocks and relocks through l
//     l.unlock();                    // the analysis follows unlock() and lock():
//     DoSlowWork();                  //   reading n_ here is a compile error
//     l.lock();
//   }
//
// A function that releases its caller's lock around slow work (a device
// command) says ZONEKV_REQUIRES(mu_) and calls mu_.unlock() and mu_.lock()
// itself: the analysis follows a lock by name, not through a pointer to a
// scoped lock, and so checks both the caller (it holds mu_) and the
// function's window without the lock.
#pragma once

#include <mutex>

#include "zonekv/thread_annotations.h"

namespace zonekv {

// std::mutex, annotated. BasicLockable (std::condition_variable_any,
// MutexLock).
class ZONEKV_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() ZONEKV_ACQUIRE() { mu_.lock(); }
  void unlock() ZONEKV_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds *mu (a Mutex, FsMutex, SpinLock: any annotated lock type) from
// construction to destruction. unlock() and lock() release and retake it
// within the scope, and std::condition_variable_any waits on it (a wait
// unlocks and relocks through them). Not for use by two threads.
template <typename M>
class ZONEKV_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(M* mu) ZONEKV_ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  ~MutexLock() ZONEKV_RELEASE() {
    if (held_) mu_->unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void lock() ZONEKV_ACQUIRE() {
    mu_->lock();
    held_ = true;
  }
  void unlock() ZONEKV_RELEASE() {
    held_ = false;
    mu_->unlock();
  }

 private:
  M* const mu_;
  bool held_ = true;
};

}  // namespace zonekv
