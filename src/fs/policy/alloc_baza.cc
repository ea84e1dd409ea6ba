// BAZA: BlobDB-aware zone allocation (Same-Victim GC paper, section IV-A).
//
// Blob files fill zones in creation order, so that BlobDB's oldest-first
// blob GC empties whole zones. A blob file goes to the non-full blob zone
// opened earliest (smallest YBIZ): zones fill one after another. When that
// zone is held by another blob writer (the write-pointer-locking case), the
// next earliest free blob zone is used, else a fresh zone is opened, which
// keeps creation order as well as concurrency allows. Blob zones hold only
// blob files; LIZA keeps other files out of them when BAZA is in use.
#include "policies.h"

namespace zonekv {

bool IsBlobZone(const ZoneView& z) {
  uint64_t blob = z.valid_bytes_by_kind[static_cast<int>(FileKind::kBlob)];
  return z.ybiz > 0 && blob == z.valid_bytes;
}

namespace {

class BazaAllocation : public AllocationPolicy {
 public:
  const char* name() const override { return "baza"; }
  bool NeedsFiles() const override { return false; }  // zones and their ybiz only
  bool DedicatesZones() const override { return true; }

  AllocDecision Allocate(const FsView& view, const AllocRequest& req) override {
    const ZoneView* earliest = nullptr;  // non-full, non-busy blob zone with the smallest YBIZ
    const ZoneView* empty = nullptr;
    const ZoneView* cheapest = nullptr;  // active, non-busy, least remaining (finish candidate)
    const ZoneView* any_partial = nullptr;
    for (const auto& z : view.zones) {
      if (z.busy || z.state == ZoneState::kOffline || z.state == ZoneState::kReadOnly || z.full()) continue;
      if (z.empty()) {
        if (empty == nullptr) empty = &z;
        continue;
      }
      if (IsBlobZone(z) && (earliest == nullptr || z.ybiz < earliest->ybiz)) earliest = &z;
      if (IsActive(z.state) && (cheapest == nullptr || z.remaining_bytes() < cheapest->remaining_bytes())) {
        cheapest = &z;
      }
      if (any_partial == nullptr || z.remaining_bytes() > any_partial->remaining_bytes()) any_partial = &z;
    }
    if (earliest != nullptr) return UseZone(earliest->id);
    if (empty != nullptr && ActiveZoneFree(view)) return UseZone(empty->id);
    return LastResortAllocation(empty, cheapest, any_partial);
  }
};

}  // namespace

std::unique_ptr<AllocationPolicy> NewBazaAllocation() { return std::make_unique<BazaAllocation>(); }

AllocationEntry BazaAllocationEntry() {
  return {"baza", "Same-Victim GC's: blob files fill zones of their own in creation order", {},
          [](const FsPolicyOptions&, const AllocationContext&) { return NewBazaAllocation(); }};
}

}  // namespace zonekv
