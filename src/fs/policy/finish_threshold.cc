// The finish threshold (ZenFS semantics): an active zone with less than
// finish_threshold_pct of its capacity left is finished, giving its active
// resource back at the price of the unwritten rest (padding on devices that
// pad). 0 never finishes early.
#include "policies.h"

namespace zonekv {

namespace {

class ThresholdFinish : public FinishPolicy {
 public:
  explicit ThresholdFinish(double pct) : pct_(pct) {}
  const char* name() const override { return "threshold"; }
  bool Finishes() const override { return pct_ > 0; }

  std::vector<uint32_t> PickZonesToFinish(const FsView& view) override {
    std::vector<uint32_t> ids;
    if (pct_ <= 0) return ids;
    for (const auto& z : view.zones) {
      if (z.busy || !IsActive(z.state) || z.written_bytes == 0 || z.remaining_bytes() == 0) continue;
      if (static_cast<double>(z.remaining_bytes()) * 100.0 < static_cast<double>(z.capacity_bytes) * pct_) {
        ids.push_back(z.id);
      }
    }
    return ids;
  }

 private:
  const double pct_;
};

}  // namespace

std::unique_ptr<FinishPolicy> NewThresholdFinish(double finish_threshold_pct) {
  return std::make_unique<ThresholdFinish>(finish_threshold_pct);
}

FinishEntry ThresholdFinishEntry() {
  return {"threshold", "ZenFS's: finish an active zone with less than finish_threshold_pct of it left",
          {"finish_threshold_pct"},
          [](const FsPolicyOptions& o) { return NewThresholdFinish(o.finish_threshold_pct); }};
}

}  // namespace zonekv
