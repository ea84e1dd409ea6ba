// cost-benefit (Kawaguchi et al. 1995, as the paper and dm-zap compute it):
// clean the candidate maximising age * invalid / (2 * valid), where age is
// the logical time since the zone's last modification (a write into it or
// an invalidation of one of its blocks).
//
// No data structure: the ZoneTable already holds what the score needs, so
// the hooks do nothing and selection scans every zone, O(zones).
#include "victim_policy.h"

namespace zonekv {
namespace {

class CostBenefitPolicy final : public VictimPolicy {
 public:
  explicit CostBenefitPolicy(const ZoneTable* zones) : VictimPolicy(zones) {}

  const char* name() const override { return "cost-benefit"; }
  void OnZoneFull(uint32_t z) override {}
  void OnInvalidate(uint32_t z, uint32_t old_valid) override {}

  uint32_t SelectVictim() override {
    uint32_t best = kNoZone;
    double best_score = -1;
    for (uint32_t z = 0; z < zones_->nr_zones(); z++) {
      if (zones_->state(z) != FtlZoneState::kFull || zones_->invalid(z) == 0) continue;
      double s = CostBenefit(*zones_, z);
      if (s > best_score) {
        best = z;
        best_score = s;
      }
    }
    return best;
  }

  double Score(uint32_t z) const override { return CostBenefit(*zones_, z); }
  uint64_t MemoryBytes() const override { return 0; }
};

}  // namespace

std::unique_ptr<VictimPolicy> NewCostBenefitPolicy(const ZoneTable* zones) {
  return std::make_unique<CostBenefitPolicy>(zones);
}

VictimPolicyEntry CostBenefitPolicyEntry() {
  return {"cost-benefit", "the candidate maximising age * invalid / (2 * valid) (Kawaguchi et al.)", {}, NewCostBenefitPolicy};
}

}  // namespace zonekv
