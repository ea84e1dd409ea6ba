// approx-cb (Nagel et al., "Time-efficient garbage collection in SSDs", as
// dm-zap implements it): cost-benefit amortised over meta-iterations.
//
// When its queue is empty, selection computes the cost-benefit of every
// candidate (O(zones)) and queues the kQueue best that have an invalid
// block; each selection then takes the best queued zone at the current time
// (O(queue)). Hooks do nothing: the price is staleness, since zones outside
// the queue are not considered until it drains.
//
// Our choice where dm-zap takes a constructor argument: the queue holds
// max(16, zones / 64) zones.
#include <algorithm>
#include <utility>
#include <vector>

#include "victim_policy.h"

namespace zonekv {
namespace {

class ApproxCbPolicy final : public VictimPolicy {
 public:
  explicit ApproxCbPolicy(const ZoneTable* zones)
      : VictimPolicy(zones), queue_cap_(std::max<uint32_t>(16, zones->nr_zones() / 64)) {}

  const char* name() const override { return "approx-cb"; }
  void OnZoneFull(uint32_t z) override {}
  void OnInvalidate(uint32_t z, uint32_t old_valid) override {}

  uint32_t SelectVictim() override {
    if (queue_.empty()) Refill();
    uint32_t best_i = 0;
    double best_score = -1;
    for (uint32_t i = 0; i < queue_.size(); i++) {
      double s = CostBenefit(*zones_, queue_[i]);
      if (s > best_score) {
        best_i = i;
        best_score = s;
      }
    }
    if (queue_.empty()) return kNoZone;
    uint32_t victim = queue_[best_i];
    queue_[best_i] = queue_.back();
    queue_.pop_back();
    return victim;
  }

  double Score(uint32_t z) const override { return CostBenefit(*zones_, z); }
  uint64_t MemoryBytes() const override { return queue_.capacity() * sizeof(uint32_t); }

 private:
  void Refill() {
    std::vector<std::pair<double, uint32_t>> scored;
    for (uint32_t z = 0; z < zones_->nr_zones(); z++) {
      if (zones_->state(z) != FtlZoneState::kFull || zones_->invalid(z) == 0) continue;
      scored.emplace_back(CostBenefit(*zones_, z), z);
    }
    size_t k = std::min<size_t>(queue_cap_, scored.size());
    std::nth_element(scored.begin(), scored.begin() + k, scored.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < k; i++) queue_.push_back(scored[i].second);
  }

  const uint32_t queue_cap_;
  std::vector<uint32_t> queue_;
};

}  // namespace

std::unique_ptr<VictimPolicy> NewApproxCbPolicy(const ZoneTable* zones) {
  return std::make_unique<ApproxCbPolicy>(zones);
}

VictimPolicyEntry ApproxCbPolicyEntry() {
  return {"approx-cb", "cost-benefit amortised over meta-iterations (Nagel et al.)", {}, NewApproxCbPolicy};
}

}  // namespace zonekv
