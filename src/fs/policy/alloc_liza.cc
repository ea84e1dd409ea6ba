// LIZA: ZenFS's lifetime-hint zone allocation.
//
// A file goes to the open or closed zone whose data lives longest relative to
// the file (smallest LifetimeDiff). A strictly longer-lived zone (diff < 50)
// is used at once. Otherwise a fresh empty zone is opened if an active
// resource is free; without one, a same-lifetime zone (diff 50) is reused,
// and failing that the active zone with the least remaining capacity is
// finished to free a resource (a blob zone only if no other is active). Departures from ZenFS, each to avoid a hang
// or a needless failure: when no empty zone is left, any partially written
// zone is reused rather than failing; when nothing can be finished the
// decision is NoSpace instead of ZenFS's busy loop. When blob files have an
// allocator of their own (BAZA), LIZA keeps other files out of blob zones
// unless no empty zone is left.
#include "policies.h"

namespace zonekv {

int LifetimeDiff(Lifetime zone, Lifetime file) {
  if (file == Lifetime::kNotSet || file == Lifetime::kNone) return zone == file ? 0 : 100;
  if (zone > file) return static_cast<int>(zone) - static_cast<int>(file);
  if (zone == file) return 50;
  return 100;
}

namespace {

class LizaAllocation : public AllocationPolicy {
 public:
  explicit LizaAllocation(bool avoid_blob_zones) : avoid_blob_zones_(avoid_blob_zones) {}
  const char* name() const override { return "liza"; }
  bool NeedsFiles() const override { return false; }

  AllocDecision Allocate(const FsView& view, const AllocRequest& req) override {
    Lifetime lt = req.file ? req.file->hints.lifetime : Lifetime::kNotSet;
    const ZoneView* best = nullptr;
    int best_diff = 101;
    const ZoneView* any_partial = nullptr;
    const ZoneView* empty = nullptr;
    const ZoneView* cheapest = nullptr;  // active, non-busy, least remaining
    const ZoneView* cheapest_blob = nullptr;  // the same among the blob zones kept out of
    for (const auto& z : view.zones) {
      if (z.busy || z.state == ZoneState::kOffline || z.state == ZoneState::kReadOnly) continue;
      if (z.empty()) {
        if (empty == nullptr) empty = &z;
        continue;
      }
      if (z.full()) continue;
      if (avoid_blob_zones_ && z.ybiz > 0) {
        // Blob zones are a last resort only (below): no empty zone left.
        if (any_partial == nullptr || z.remaining_bytes() > any_partial->remaining_bytes()) any_partial = &z;
        if (IsActive(z.state) && (cheapest_blob == nullptr || z.remaining_bytes() < cheapest_blob->remaining_bytes())) {
          cheapest_blob = &z;
        }
        continue;
      }
      int d = LifetimeDiff(z.lifetime, lt);
      if (d <= best_diff) {  // ties go to the later zone, as in ZenFS
        best_diff = d;
        best = &z;
      }
      if (any_partial == nullptr || z.remaining_bytes() > any_partial->remaining_bytes()) any_partial = &z;
      if (IsActive(z.state) && (cheapest == nullptr || z.remaining_bytes() < cheapest->remaining_bytes())) {
        cheapest = &z;
      }
    }
    if (best != nullptr && best_diff < 50) return UseZone(best->id, "liza.longer_lifetime");
    if (empty != nullptr && ActiveZoneFree(view)) return UseZone(empty->id, "liza.empty");
    if (best != nullptr && best_diff == 50) return UseZone(best->id, "liza.same_lifetime");
    // When blob zones hold every active resource, finish one of them: with
    // only other zones as finish candidates, an empty zone could never be
    // opened (NoSpace with the device mostly free; found by zonekv crashtest).
    return LastResortAllocation(empty, cheapest != nullptr ? cheapest : cheapest_blob, any_partial);
  }

 private:
  const bool avoid_blob_zones_;
};

}  // namespace

std::unique_ptr<AllocationPolicy> NewLizaAllocation(bool avoid_blob_zones) {
  return std::make_unique<LizaAllocation>(avoid_blob_zones);
}

AllocationEntry LizaAllocationEntry() {
  return {"liza", "ZenFS's: the open zone whose lifetime hint fits best, else a new zone", {},
          [](const FsPolicyOptions&, const AllocationContext& c) { return NewLizaAllocation(c.blob_zones_reserved); }};
}

}  // namespace zonekv
