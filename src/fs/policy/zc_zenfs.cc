// ZenFS zone cleaning: runs when free space is at or below the start level
// (default 20%); every full zone whose garbage percentage exceeds
// 100 - slope * (start_level - free%) is a victim. Victims come back most
// garbage first (ZenFS migrates them in zone order; the order only matters
// when the engine stops early).
#include <algorithm>

#include "policies.h"

namespace zonekv {

namespace {

class ZenFsCleaning : public CleaningPolicy {
 public:
  ZenFsCleaning(double start_level_pct, double slope) : start_(start_level_pct), slope_(slope) {}
  const char* name() const override { return "zenfs"; }
  bool NeedsFiles() const override { return false; }

  std::vector<uint32_t> PickVictims(const FsView& view) override {
    double free_pct = view.free_ratio() * 100.0;
    if (free_pct > start_) return {};
    double threshold = 100.0 - slope_ * (start_ - free_pct);
    std::vector<const ZoneView*> victims;
    for (const auto& z : view.zones) {
      if (!CleanableZone(z)) continue;
      double garbage_pct = 100.0 * static_cast<double>(z.invalid_bytes()) / static_cast<double>(z.capacity_bytes);
      if (garbage_pct > threshold) victims.push_back(&z);
    }
    std::stable_sort(victims.begin(), victims.end(),
                     [](const ZoneView* a, const ZoneView* b) { return a->valid_bytes < b->valid_bytes; });
    std::vector<uint32_t> ids;
    for (const auto* z : victims) ids.push_back(z->id);
    return ids;
  }

 private:
  const double start_;
  const double slope_;
};

}  // namespace

std::unique_ptr<CleaningPolicy> NewZenFsCleaning(double start_level_pct, double slope) {
  return std::make_unique<ZenFsCleaning>(start_level_pct, slope);
}

CleaningEntry ZenFsCleaningEntry() {
  return {"zenfs", "ZenFS's: below zc_start_level_pct free, full zones with garbage% > 100 - zc_slope * (start - free%)",
          {"zc_start_level_pct", "zc_slope"},
          [](const FsPolicyOptions& o) { return NewZenFsCleaning(o.zc_start_level_pct, o.zc_slope); }};
}

}  // namespace zonekv
