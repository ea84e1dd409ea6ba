// Timestamps for timing code sections, and the measured cost of reading
// the monotonic clock.
//
// Short sections (a policy hook, tens of ns to a few us) use the monotonic
// clock, which is cheap (vDSO) but keeps running while the thread is
// interrupted, descheduled or stolen by the hypervisor: a section longer
// than kInterruptedSectionNs was interrupted and callers drop it. Long
// sections (victim selection, up to milliseconds) use the thread's CPU
// clock, a system call (0.5-0.9 us) that does not count time spent
// descheduled; their callers pair each with an empty control section
// (FtlStats).
#pragma once

#include <cstdint>

#include "zonekv/clock.h"

namespace zonekv {

// A monotonic-clock section longer than this was interrupted, not slow (a
// heap operation on 2^21 zones takes well under 1 us).
constexpr uint64_t kInterruptedSectionNs = 10000;

// The median of many back-to-back NowNs() pairs: what an empty timed
// section measures. Computed once per process.
uint64_t TimerOverheadNs();

// end - start - overhead, clamped at zero, for NowNs() stamps.
inline uint64_t SectionNs(uint64_t start, uint64_t end) {
  uint64_t d = end - start, o = TimerOverheadNs();
  return d > o ? d - o : 0;
}

}  // namespace zonekv
