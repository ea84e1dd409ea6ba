// The predicates and scores the cleaning policies share.
#include <cmath>
#include <limits>

#include "policies.h"

namespace zonekv {

bool CleanableZone(const ZoneView& z) {
  return z.full() && !z.busy && z.valid_bytes > 0 && z.invalid_bytes() > 0;
}

bool BelowFreeTrigger(const FsView& view, double trigger_free_pct) {
  return view.free_ratio() * 100.0 < trigger_free_pct;
}

double CostBenefitScore(const ZoneView& z, uint64_t now_us) {
  if (z.valid_bytes == 0) return std::numeric_limits<double>::infinity();
  double u = static_cast<double>(z.valid_bytes) / static_cast<double>(z.capacity_bytes);
  double age = now_us > z.last_write_us ? static_cast<double>(now_us - z.last_write_us) : 0.0;
  return age * (1.0 - u) / (2.0 * u);
}

}  // namespace zonekv
