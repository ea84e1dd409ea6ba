// Greedy zone cleaning: below the free-space trigger, clean the full zone
// with the least valid data (the cheapest to copy). One victim per call; the
// engine calls again after cleaning it.
#include "policies.h"

namespace zonekv {

namespace {

class GreedyCleaning : public CleaningPolicy {
 public:
  explicit GreedyCleaning(double trigger_pct) : trigger_(trigger_pct) {}
  const char* name() const override { return "greedy"; }
  bool NeedsFiles() const override { return false; }

  std::vector<uint32_t> PickVictims(const FsView& view) override {
    if (!BelowFreeTrigger(view, trigger_)) return {};
    const ZoneView* best = nullptr;
    for (const auto& z : view.zones) {
      if (CleanableZone(z) && (best == nullptr || z.valid_bytes < best->valid_bytes)) best = &z;
    }
    if (best == nullptr) return {};
    return {best->id};
  }

 private:
  const double trigger_;
};

}  // namespace

std::unique_ptr<CleaningPolicy> NewGreedyCleaning(double trigger_free_pct) {
  return std::make_unique<GreedyCleaning>(trigger_free_pct);
}

CleaningEntry GreedyCleaningEntry() {
  return {"greedy", "below zc_trigger_free_pct free, the full zone with the least valid data",
          {"zc_trigger_free_pct"},
          [](const FsPolicyOptions& o) { return NewGreedyCleaning(o.zc_trigger_free_pct); }};
}

}  // namespace zonekv
