// Clocks for measuring how long something took.
//
// The monotonic clock (steady_clock, CLOCK_MONOTONIC) is cheap (vDSO) and
// keeps running while the thread is descheduled; the CPU clocks are system
// calls (~0.3 us) that count only time spent running.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace zonekv {

// Microseconds of the monotonic clock from `from` to `to`.
inline uint64_t ElapsedUs(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(to - from).count());
}

// Microseconds of the monotonic clock since `from`.
inline uint64_t ElapsedUs(std::chrono::steady_clock::time_point from) {
  return ElapsedUs(from, std::chrono::steady_clock::now());
}

// The monotonic clock, nanoseconds.
inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// CPU time consumed by the calling thread, nanoseconds.
inline uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// CPU time (user + system) consumed by the whole process, nanoseconds.
inline uint64_t ProcessCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace zonekv
