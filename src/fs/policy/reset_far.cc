// FAR: free-space adaptive runtime reset. T_WP is 1 (reset only full zones)
// while the free ratio is at or above the turning point T, then falls toward
// 0 as free space runs out, following func (see FarThreshold).
#include <cmath>

#include "policies.h"
#include "reset_common.h"

namespace zonekv {

double FarThreshold(double free_ratio, double turning_point, FarFunc func) {
  if (free_ratio >= turning_point) return 1.0;
  double x = free_ratio <= 0 ? 0.0 : free_ratio / turning_point;
  switch (func) {
    case FarFunc::kLinear: return x;
    case FarFunc::kLog: return std::log(1.0 + (std::exp(1.0) - 1.0) * x);
    case FarFunc::kExp: return (std::exp(x) - 1.0) / (std::exp(1.0) - 1.0);
  }
  return x;
}

const std::vector<std::string>& FarFuncNames() {
  static const std::vector<std::string> kNames = {"linear", "log", "exp"};
  return kNames;
}

FarFunc ParseFarFunc(const std::string& name) {
  if (name == "log") return FarFunc::kLog;
  if (name == "exp") return FarFunc::kExp;
  return FarFunc::kLinear;
}

namespace {

class FarReset : public ResetPolicy {
 public:
  FarReset(double t, FarFunc func) : t_(t), func_(func) {}
  const char* name() const override { return "far"; }
  bool NeedsFiles() const override { return false; }
  std::vector<uint32_t> PickZonesToReset(const FsView& view) override {
    return ResettableAtOrPast(view, FarThreshold(view.free_ratio(), t_, func_));
  }

 private:
  const double t_;
  const FarFunc func_;
};

}  // namespace

std::unique_ptr<ResetPolicy> NewFarReset(double turning_point, FarFunc func) {
  return std::make_unique<FarReset>(turning_point, func);
}

ResetEntry FarResetEntry() {
  return {"far", "free-space adaptive: lazy above free ratio reset_far_t, ever more eager below it",
          {"reset_far_t", "reset_far_func"}, [](const FsPolicyOptions& o) {
            return NewFarReset(o.reset_far_t, ParseFarFunc(o.reset_far_func));
          }};
}

}  // namespace zonekv
