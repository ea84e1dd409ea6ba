// greedy: clean the candidate with the fewest valid blocks.
//
// Implementation: bucketed lists (ZoneLists) indexed by valid count, as
// dm-zap's const-greedy. Every hook is O(1); selection scans the lists from
// 0 valid blocks upward and takes the first head, O(blocks per zone).
#include "victim_policy.h"
#include "zone_lists.h"

namespace zonekv {
namespace {

class GreedyPolicy final : public ValidCountListsPolicy {
 public:
  explicit GreedyPolicy(const ZoneTable* zones) : ValidCountListsPolicy(zones) {}

  const char* name() const override { return "greedy"; }

  uint32_t SelectVictim() override {
    // The list of fully valid zones is never a source of victims.
    for (uint32_t v = 0; v < zones_->blocks_per_zone(); v++) {
      uint32_t z = lists_.Head(v);
      if (z != ZoneLists::kNil) {
        lists_.Remove(v, z);
        return z;
      }
    }
    return kNoZone;
  }

  double Score(uint32_t z) const override { return zones_->invalid(z); }
};

}  // namespace

std::unique_ptr<VictimPolicy> NewGreedyPolicy(const ZoneTable* zones) {
  return std::make_unique<GreedyPolicy>(zones);
}

VictimPolicyEntry GreedyPolicyEntry() {
  return {"greedy", "the candidate with the fewest valid blocks", {}, NewGreedyPolicy};
}

}  // namespace zonekv
