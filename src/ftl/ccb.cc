// ccb (constant cost-benefit): cost-benefit's choice at greedy's cost.
//
// One list per valid-block count; a zone enters the tail of list[valid] when
// it becomes full and moves to the tail of list[valid - 1] on every
// invalidation. Because cost-benefit resets a zone's age on every
// invalidation, each list stays ordered by age (oldest at the head), and
// among zones with equal valid counts the oldest has the highest
// cost-benefit. So the victim is the best of the list heads: O(1) per I/O,
// O(blocks per zone) per selection, and exactly cost-benefit's victim. A
// head's score needs only its list's valid count and its time, which the
// lists cache beside their heads, so selection reads one ~4 KiB array
// whatever the number of zones (no zone record per list).
// Unlike dm-zap's const-cb, all lists are scanned (not only the first
// quarter), so the choice equals cost-benefit's.
#include "victim_policy.h"
#include "zone_lists.h"

namespace zonekv {
namespace {

class CcbPolicy final : public ValidCountListsPolicy {
 public:
  explicit CcbPolicy(const ZoneTable* zones) : ValidCountListsPolicy(zones) {}

  const char* name() const override { return "ccb"; }

  uint32_t SelectVictim() override {
    // No valid blocks: an infinite score, nothing can beat it.
    if (lists_.Head(0) != ZoneLists::kNil) return Take(0);
    uint32_t best_list = kNoList;
    double best_score = -1;
    const uint32_t blocks = zones_->blocks_per_zone();
    const uint64_t now = zones_->now();
    for (uint32_t v = 1; v < blocks; v++) {
      if (lists_.Head(v) == ZoneLists::kNil) continue;
      // CostBenefitScore(age, v, blocks - v) = x / d: the head is in list v,
      // so valid = v, and its time is cached with the list.
      const double x = static_cast<double>(now - lists_.HeadTime(v)) * (blocks - v);
      const double d = 2.0 * v;
      // Most heads cannot beat the best: skip their division when x < best
      // x d with a margin far above double rounding (relative 2^-52), which
      // implies x / d < best, so the rounded quotient is <= best and the
      // test below would fail too. The choice is the one of scoring every
      // head; only the cost changes.
      if (x < best_score * d * kNoBeatMargin) continue;
      const double s = x / d;
      if (s > best_score) {
        best_list = v;
        best_score = s;
        // Take() reads the winner's record (its links): start fetching it
        // now, while the rest of the heads are scanned.
        zones_->Prefetch(lists_.Head(v));
      }
    }
    return best_list == kNoList ? kNoZone : Take(best_list);
  }

  double Score(uint32_t z) const override { return CostBenefit(*zones_, z); }

 private:
  static constexpr uint32_t kNoList = 0xffffffffu;
  static constexpr double kNoBeatMargin = 1 - 1e-9;

  // Removes and returns the head of non-empty list v.
  uint32_t Take(uint32_t v) {
    const uint32_t z = lists_.Head(v);
    lists_.Remove(v, z);
    return z;
  }
};

}  // namespace

std::unique_ptr<VictimPolicy> NewCcbPolicy(const ZoneTable* zones) {
  return std::make_unique<CcbPolicy>(zones);
}

VictimPolicyEntry CcbPolicyEntry() {
  return {"ccb", "constant cost-benefit: cost-benefit's choice at greedy's cost (one list per valid count)", {}, NewCcbPolicy};
}

}  // namespace zonekv
