// greedy: clean the candidate with the fewest valid blocks.
//
// Implementation: bucketed lists (ZoneLists) indexed by valid count, as
// dm-zap's const-greedy. Every hook is O(1); selection scans the lists from
// 0 valid blocks upward and takes the first head, O(blocks per zone).
#include "victim_policy.h"
#include "zone_lists.h"

namespace zonekv {
namespace {

class GreedyPolicy final : public VictimPolicy {
 public:
  explicit GreedyPolicy(const ZoneTable* zones)
      : VictimPolicy(zones), lists_(zones->nr_zones(), zones->blocks_per_zone() + 1) {}

  const char* name() const override { return "greedy"; }

  void OnZoneFull(uint32_t z) override { lists_.Append(zones_->valid(z), z); }

  void OnInvalidate(uint32_t z, uint32_t old_valid) override {
    lists_.Remove(old_valid, z);
    lists_.Append(old_valid - 1, z);
  }

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
  uint64_t MemoryBytes() const override { return lists_.MemoryBytes(); }

 private:
  ZoneLists lists_;
};

}  // namespace

std::unique_ptr<VictimPolicy> NewGreedyPolicy(const ZoneTable* zones) {
  return std::make_unique<GreedyPolicy>(zones);
}

VictimPolicyEntry GreedyPolicyEntry() {
  return {"greedy", "the candidate with the fewest valid blocks", {}, NewGreedyPolicy};
}

}  // namespace zonekv
