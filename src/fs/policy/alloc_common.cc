// The decisions the allocation policies share once their own preference
// found no zone.
#include "policies.h"

namespace zonekv {

AllocDecision UseZone(uint32_t zone, const char* reason) {
  return AllocDecision{AllocDecision::Action::kUseZone, zone, reason};
}

bool ActiveZoneFree(const FsView& view) {
  return view.max_active_zones == 0 || view.active_zones < view.max_active_zones;
}

AllocDecision LastResortAllocation(const ZoneView* empty, const ZoneView* cheapest, const ZoneView* any_partial) {
  if (empty != nullptr && cheapest != nullptr) return AllocDecision{AllocDecision::Action::kFinishZone, cheapest->id};
  if (empty == nullptr && any_partial != nullptr) return UseZone(any_partial->id, "last_resort.partial");
  return AllocDecision{AllocDecision::Action::kNoSpace, 0};
}

}  // namespace zonekv
