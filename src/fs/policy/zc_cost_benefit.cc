// Cost-benefit zone cleaning (LFS/FTL style): below the free-space trigger,
// clean the full zone maximising age * (1 - u) / (2u), where u is the valid
// fraction and age the time since the zone's last write or invalidation.
// One victim per call.
#include "policies.h"

namespace zonekv {

namespace {

class CostBenefitCleaning : public CleaningPolicy {
 public:
  explicit CostBenefitCleaning(double trigger_pct) : trigger_(trigger_pct) {}
  const char* name() const override { return "cost-benefit"; }
  bool NeedsFiles() const override { return false; }

  std::vector<uint32_t> PickVictims(const FsView& view) override {
    if (!BelowFreeTrigger(view, trigger_)) return {};
    const ZoneView* best = nullptr;
    double best_score = -1;
    for (const auto& z : view.zones) {
      if (!CleanableZone(z)) continue;
      double s = CostBenefitScore(z, view.now_us);
      if (s > best_score) {
        best_score = s;
        best = &z;
      }
    }
    if (best == nullptr) return {};
    return {best->id};
  }

 private:
  const double trigger_;
};

}  // namespace

std::unique_ptr<CleaningPolicy> NewCostBenefitCleaning(double trigger_free_pct) {
  return std::make_unique<CostBenefitCleaning>(trigger_free_pct);
}

CleaningEntry CostBenefitCleaningEntry() {
  return {"cost-benefit", "below zc_trigger_free_pct free, the full zone with the best age * (1 - u) / 2u",
          {"zc_trigger_free_pct"},
          [](const FsPolicyOptions& o) { return NewCostBenefitCleaning(o.zc_trigger_free_pct); }};
}

}  // namespace zonekv
