// fegc (Kwon et al. 2011, without its per-page hot/cold metadata, as the
// paper evaluates it): clean the candidate maximising the sum, over its
// invalid blocks, of the time since each was invalidated:
//   score = invalid * now - sum of invalidation times.
// The ZoneTable keeps that sum per zone, so no per-block state is needed.
//
// Data structure: one heap per valid-block count. Within a heap all zones
// have the same number of invalid blocks, so their scores grow at the same
// pace and their order never changes with time: each heap is keyed by the
// sum of invalidation times, smallest (oldest) on top. An invalidation moves
// the zone from heap[v] to heap[v - 1], O(log zones); selection compares the
// heap tops, O(blocks per zone).
#include <vector>

#include "victim_policy.h"
#include "zone_heap.h"

namespace zonekv {
namespace {

// A zone's heap slot lives in its ZoneTable record, on the line of the
// invalidation-time sum the heap compares, so each heap level touches one
// line per zone.
struct RecordSlots {
  const ZoneTable* zones;
  uint32_t& operator()(uint32_t z) const { return zones->heap_slot(z); }
};

struct OlderInvalidations {
  const ZoneTable* zones;
  bool operator()(uint32_t a, uint32_t b) const {
    return zones->invalidation_time_sum(a) < zones->invalidation_time_sum(b);
  }
};

double FegcScore(const ZoneTable& zones, uint32_t z) {
  return static_cast<double>(zones.invalid(z)) * static_cast<double>(zones.now()) -
         static_cast<double>(zones.invalidation_time_sum(z));
}

class FegcPolicy final : public VictimPolicy {
 public:
  explicit FegcPolicy(const ZoneTable* zones) : VictimPolicy(zones) {
    heaps_.reserve(zones->blocks_per_zone() + 1);
    for (uint32_t v = 0; v <= zones->blocks_per_zone(); v++) {
      heaps_.emplace_back(RecordSlots{zones}, OlderInvalidations{zones});
    }
  }

  const char* name() const override { return "fegc"; }

  void OnZoneFull(uint32_t z) override { heaps_[zones_->valid(z)].Push(z); }

  void OnInvalidate(uint32_t z, uint32_t old_valid) override {
    heaps_[old_valid].Erase(z);
    heaps_[old_valid - 1].Push(z);
  }

  uint32_t SelectVictim() override {
    uint32_t best = kNoZone, best_heap = 0;
    double best_score = -1;
    for (uint32_t v = 0; v < zones_->blocks_per_zone(); v++) {
      if (heaps_[v].empty()) continue;
      uint32_t z = heaps_[v].Top();
      double s = FegcScore(*zones_, z);
      if (s > best_score) {
        best = z;
        best_heap = v;
        best_score = s;
      }
    }
    if (best != kNoZone) heaps_[best_heap].Erase(best);
    return best;
  }

  double Score(uint32_t z) const override { return FegcScore(*zones_, z); }

  uint64_t MemoryBytes() const override {
    // The slot words in the zone records count as the policy's.
    uint64_t bytes = uint64_t{zones_->nr_zones()} * sizeof(uint32_t) + heaps_.capacity() * sizeof(Heap);
    for (const auto& h : heaps_) bytes += h.MemoryBytes();
    return bytes;
  }

 private:
  using Heap = ZoneHeap<OlderInvalidations, RecordSlots>;
  std::vector<Heap> heaps_;
};

}  // namespace

std::unique_ptr<VictimPolicy> NewFegcPolicy(const ZoneTable* zones) {
  return std::make_unique<FegcPolicy>(zones);
}

VictimPolicyEntry FegcPolicyEntry() {
  return {"fegc", "the candidate with the largest sum of time since each invalid block died (Kwon et al.)", {}, NewFegcPolicy};
}

}  // namespace zonekv
