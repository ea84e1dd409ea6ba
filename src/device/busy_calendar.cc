#include "busy_calendar.h"

#include <algorithm>

namespace zonekv {

int64_t BusyCalendar::FirstFit(int64_t ready, int64_t dur_ns) const {
  int64_t t = ready;
  for (const auto& [start, end] : busy_) {
    if (end <= t) continue;
    if (start >= t + dur_ns) break;
    t = end;
  }
  return t;
}

void BusyCalendar::Insert(int64_t start, int64_t dur_ns) {
  if (dur_ns <= 0) return;
  auto at = std::lower_bound(busy_.begin(), busy_.end(), std::make_pair(start, start));
  busy_.insert(at, {start, start + dur_ns});
}

int64_t BusyCalendar::Book(int64_t ready, int64_t dur_ns) {
  const int64_t start = FirstFit(ready, dur_ns);
  Insert(start, dur_ns);
  return start;
}

void BusyCalendar::Forget(int64_t t_ns) {
  auto first_live = std::find_if(busy_.begin(), busy_.end(), [&](const auto& iv) { return iv.second > t_ns; });
  busy_.erase(busy_.begin(), first_live);
}

}  // namespace zonekv
