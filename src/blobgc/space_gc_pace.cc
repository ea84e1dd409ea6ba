// Back-pressure on new data for the space-pressure blob GC: the rate at
// which flushes may write, from free space and the collections' measured
// net reclaim rate (docs/formulas.md, "Space-pressure blob GC").
//
// With T the trigger, hi = T + 10 and lo = T / 2 (free space, %):
//   no live blob file (nothing the GC could collect) or free >= hi: no
//   limit (0).
//   f = clamp((free - lo) / (hi - lo), 0.02, 1).
//   R = the measured reclaim rate, halved for every second past two
//       since the last collection ended while free < T (a collection that no
//       longer completes no longer vouches for its rate).
//   R > 0: rate = max(2 f R, 0.002 x capacity per second): new data at R
//       keeps free space where it is; at f = 1/2 (just above T) the pace
//       matches the GC, above that it spends the margin, below it regains it.
//   R = 0 (nothing measured yet): rate = 0.1 x capacity x f per second.
#include <algorithm>
#include <cmath>

#include "zonekv/blob_gc.h"

namespace zonekv {

namespace {

constexpr double kPlanAheadPct = 10;     // pacing starts at trigger + this (as the plan's room)
constexpr double kMaxFillPerSec = 0.1;   // without a measured rate: this fraction of the capacity per second
constexpr double kMinPaceFraction = 0.02;
constexpr double kRateAgesAfterS = 2;    // a rate this old (below the trigger) starts to halve each second

}  // namespace

uint64_t PaceRate(const PaceInput& in) {
  const double hi = in.trigger_pct + kPlanAheadPct;
  const double lo = in.trigger_pct / 2;
  if (in.blob_files == 0 || in.free_pct >= hi || in.capacity_bytes == 0) return 0;
  const double f = std::clamp((in.free_pct - lo) / (hi - lo), kMinPaceFraction, 1.0);
  const double capacity = static_cast<double>(in.capacity_bytes);
  double rate;
  if (in.reclaim_bytes_per_sec > 0) {
    double r = in.reclaim_bytes_per_sec;
    if (in.free_pct < in.trigger_pct && in.since_round_s > kRateAgesAfterS) {
      r *= std::exp2(-(in.since_round_s - kRateAgesAfterS));
    }
    rate = std::max(2 * f * r, kMinPaceFraction * kMaxFillPerSec * capacity);
  } else {
    rate = f * kMaxFillPerSec * capacity;
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::min(rate, 1e18)));
}

}  // namespace zonekv
