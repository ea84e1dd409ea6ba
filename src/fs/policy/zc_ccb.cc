// Constant cost-benefit (CCB) zone cleaning: zones are grouped by valid
// amount (kBuckets buckets of equal width over the zone capacity); within a
// bucket the zone idle longest is its head. The victim is the head with the
// highest cost-benefit score. In the host FTL this structure is kept
// incrementally for O(1) per I/O; the file system has few zones, so the
// policy derives the heads from the view, with the same decisions.
#include <array>

#include "policies.h"

namespace zonekv {

namespace {

constexpr size_t kBuckets = 64;

class CcbCleaning : public CleaningPolicy {
 public:
  explicit CcbCleaning(double trigger_pct) : trigger_(trigger_pct) {}
  const char* name() const override { return "ccb"; }
  bool NeedsFiles() const override { return false; }

  std::vector<uint32_t> PickVictims(const FsView& view) override {
    if (!BelowFreeTrigger(view, trigger_)) return {};
    std::array<const ZoneView*, kBuckets> heads{};
    for (const auto& z : view.zones) {
      if (!CleanableZone(z)) continue;
      size_t b = static_cast<size_t>(z.valid_bytes * kBuckets / (z.capacity_bytes + 1));
      if (heads[b] == nullptr || z.last_write_us < heads[b]->last_write_us) heads[b] = &z;
    }
    const ZoneView* best = nullptr;
    double best_score = -1;
    for (const ZoneView* h : heads) {
      if (h == nullptr) continue;
      double s = CostBenefitScore(*h, view.now_us);
      if (s > best_score) {
        best_score = s;
        best = h;
      }
    }
    if (best == nullptr) return {};
    return {best->id};
  }

 private:
  const double trigger_;
};

}  // namespace

std::unique_ptr<CleaningPolicy> NewCcbCleaning(double trigger_free_pct) {
  return std::make_unique<CcbCleaning>(trigger_free_pct);
}

CleaningEntry CcbCleaningEntry() {
  return {"ccb", "below zc_trigger_free_pct free, constant-time cost-benefit (the CCB paper's buckets)",
          {"zc_trigger_free_pct"},
          [](const FsPolicyOptions& o) { return NewCcbCleaning(o.zc_trigger_free_pct); }};
}

}  // namespace zonekv
