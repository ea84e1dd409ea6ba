// BusyCalendar: the booked busy intervals of one resource of the timing
// model (a die or a channel), so that a command can use a gap left before
// a later booking instead of queueing behind it. A single busy-until time
// cannot do that: booking a program 1 ms ahead would block the resource
// for everything in between. Not thread-safe (TimingModel locks it).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace zonekv {

class BusyCalendar {
 public:
  // The earliest start >= `ready` of a free interval of `dur_ns`.
  int64_t FirstFit(int64_t ready, int64_t dur_ns) const;
  // Books [start, start + dur_ns). REQUIRES: that interval is free.
  void Insert(int64_t start, int64_t dur_ns);
  // FirstFit, then Insert; returns the start.
  int64_t Book(int64_t ready, int64_t dur_ns);
  // Forgets the intervals that end at or before `t_ns`.
  void Forget(int64_t t_ns);
  // The end of the last booked interval (0 if none).
  int64_t busy_until() const { return busy_.empty() ? 0 : busy_.back().second; }

 private:
  std::vector<std::pair<int64_t, int64_t>> busy_;  // [start, end), sorted, disjoint
};

}  // namespace zonekv
