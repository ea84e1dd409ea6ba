// fast-cb (Nagel et al., "Time-efficient garbage collection in SSDs", as
// dm-zap implements it): cost-benefit restricted to a small class of
// promising candidates.
//
// Class 0 is an unsorted array of candidates whose cost-benefit has reached
// a threshold; class 1 is a heap of the others ordered by the logical time
// at which their cost-benefit will reach it:
//   shift = last_modified + threshold * 2 * valid / invalid.
// An invalidation resets a zone's age, so it re-keys a class-1 zone and
// demotes a class-0 zone to class 1 (O(log zones) per I/O). Selection first
// promotes the class-1 zones whose shift time has come, then, if class 0 is
// empty or larger than its cap, recomputes the threshold as the
// cost-benefit of the kOptimal-th best candidate and reclassifies every
// candidate (O(zones log zones), rare); the victim is the best of class 0.
//
// Our choice where dm-zap takes constructor arguments: the optimal class-0
// size is max(16, zones / 64) and the cap four times that.
#include <algorithm>
#include <limits>
#include <vector>

#include "victim_policy.h"
#include "zone_heap.h"

namespace zonekv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct EarlierShift {
  const std::vector<double>* shift;
  bool operator()(uint32_t a, uint32_t b) const { return (*shift)[a] < (*shift)[b]; }
};

class FastCbPolicy final : public VictimPolicy {
 public:
  explicit FastCbPolicy(const ZoneTable* zones)
      : VictimPolicy(zones),
        optimal_(std::max<uint32_t>(16, zones->nr_zones() / 64)),
        cap_(4 * optimal_),
        class_(zones->nr_zones(), kNone),
        pos_(zones->nr_zones(), 0),
        shift_(zones->nr_zones(), kInf),
        class1_(VectorSlots{&pos_}, EarlierShift{&shift_}) {}

  const char* name() const override { return "fast-cb"; }

  void OnZoneFull(uint32_t z) override { Classify(z); }

  void OnInvalidate(uint32_t z, uint32_t old_valid) override {
    if (class_[z] == kClass0) {
      RemoveClass0(z);
      Classify(z);
    } else {
      shift_[z] = ShiftTime(z);
      class1_.Update(z);
    }
  }

  uint32_t SelectVictim() override {
    while (!class1_.empty() && shift_[class1_.Top()] <= static_cast<double>(zones_->now())) {
      uint32_t z = class1_.Top();
      class1_.Erase(z);
      AddClass0(z);
    }
    if (class0_.empty() || class0_.size() > cap_) Recompute();
    uint32_t best = kNoZone;
    double best_score = -1;
    for (uint32_t z : class0_) {
      if (zones_->invalid(z) == 0) continue;
      double s = CostBenefit(*zones_, z);
      if (s > best_score) {
        best = z;
        best_score = s;
      }
    }
    if (best != kNoZone) {
      RemoveClass0(best);
      class_[best] = kNone;
    }
    return best;
  }

  double Score(uint32_t z) const override { return CostBenefit(*zones_, z); }

  uint64_t MemoryBytes() const override {
    return class_.capacity() + pos_.capacity() * sizeof(uint32_t) + shift_.capacity() * sizeof(double) +
           class0_.capacity() * sizeof(uint32_t) + class1_.MemoryBytes();
  }

 private:
  enum : uint8_t { kNone, kClass0, kClass1 };

  double ShiftTime(uint32_t z) const {
    uint32_t invalid = zones_->invalid(z);
    if (invalid == 0 || threshold_ == kInf) return kInf;
    return static_cast<double>(zones_->last_modified(z)) +
           threshold_ * 2.0 * zones_->valid(z) / invalid;
  }

  // Puts candidate z (in no class) into the class its cost-benefit says.
  void Classify(uint32_t z) {
    if (zones_->invalid(z) > 0 && CostBenefit(*zones_, z) >= threshold_) {
      AddClass0(z);
    } else {
      class_[z] = kClass1;
      shift_[z] = ShiftTime(z);
      class1_.Push(z);
    }
  }

  void AddClass0(uint32_t z) {
    class_[z] = kClass0;
    pos_[z] = static_cast<uint32_t>(class0_.size());
    class0_.push_back(z);
  }

  void RemoveClass0(uint32_t z) {
    uint32_t i = pos_[z];
    uint32_t last = class0_.back();
    class0_[i] = last;
    pos_[last] = i;
    class0_.pop_back();
  }

  // Sets the threshold to the cost-benefit of the optimal_-th best candidate
  // and reclassifies every candidate.
  void Recompute() {
    std::vector<uint32_t> all(class0_);
    while (!class1_.empty()) {
      all.push_back(class1_.Top());
      class1_.Erase(class1_.Top());
    }
    class0_.clear();
    if (all.empty()) return;
    std::vector<double> scores;
    scores.reserve(all.size());
    for (uint32_t z : all) scores.push_back(CostBenefit(*zones_, z));
    size_t k = std::min<size_t>(optimal_, scores.size());
    std::nth_element(scores.begin(), scores.begin() + (k - 1), scores.end(), std::greater<double>());
    threshold_ = scores[k - 1];
    for (uint32_t z : all) Classify(z);
  }

  const uint32_t optimal_;
  const uint32_t cap_;
  double threshold_ = kInf;  // unset until the first selection
  std::vector<uint8_t> class_;
  std::vector<uint32_t> pos_;  // slot in class0_ or in class1_
  std::vector<double> shift_;
  std::vector<uint32_t> class0_;
  ZoneHeap<EarlierShift> class1_;
};

}  // namespace

std::unique_ptr<VictimPolicy> NewFastCbPolicy(const ZoneTable* zones) {
  return std::make_unique<FastCbPolicy>(zones);
}

VictimPolicyEntry FastCbPolicyEntry() {
  return {"fast-cb", "cost-benefit restricted to a small class of promising candidates (Nagel et al.)", {}, NewFastCbPolicy};
}

}  // namespace zonekv
