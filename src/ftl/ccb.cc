// ccb (constant cost-benefit): cost-benefit's choice at greedy's cost.
//
// One list per valid-block count; a zone enters the tail of list[valid] when
// it becomes full and moves to the tail of list[valid - 1] on every
// invalidation. Because cost-benefit resets a zone's age on every
// invalidation, each list stays ordered by age (oldest at the head), and
// among zones with equal valid counts the oldest has the highest
// cost-benefit. So the victim is the best of the list heads: O(1) per I/O,
// O(blocks per zone) per selection, and exactly cost-benefit's victim.
// Unlike dm-zap's const-cb, all lists are scanned (not only the first
// quarter), so the choice equals cost-benefit's.
#include "victim_policy.h"
#include "zone_lists.h"

namespace zonekv {
namespace {

class CcbPolicy final : public ValidCountListsPolicy {
 public:
  explicit CcbPolicy(const ZoneTable* zones) : ValidCountListsPolicy(zones) {}

  const char* name() const override { return "ccb"; }

  uint32_t SelectVictim() override {
    uint32_t best = kNoZone, best_list = 0;
    double best_score = -1;
    for (uint32_t v = 0; v < zones_->blocks_per_zone(); v++) {
      uint32_t z = lists_.Head(v);
      if (z == ZoneLists::kNil) continue;
      double s = CostBenefit(*zones_, z);
      if (s > best_score) {
        best = z;
        best_list = v;
        best_score = s;
        if (v == 0) break;  // no valid blocks: nothing can beat it
      }
    }
    if (best != kNoZone) lists_.Remove(best_list, best);
    return best;
  }

  double Score(uint32_t z) const override { return CostBenefit(*zones_, z); }
};

}  // namespace

std::unique_ptr<VictimPolicy> NewCcbPolicy(const ZoneTable* zones) {
  return std::make_unique<CcbPolicy>(zones);
}

VictimPolicyEntry CcbPolicyEntry() {
  return {"ccb", "constant cost-benefit: cost-benefit's choice at greedy's cost (one list per valid count)", {}, NewCcbPolicy};
}

}  // namespace zonekv
