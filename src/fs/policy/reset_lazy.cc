// Lazy runtime reset (LZReset): reset a zone holding no valid data only once
// its write pointer has reached a fixed fraction T_WP of its capacity; other
// such zones wait for zone cleaning or for their writers to fill them.
#include "policies.h"
#include "reset_common.h"

namespace zonekv {

namespace {

class LazyReset : public ResetPolicy {
 public:
  explicit LazyReset(double t_wp) : t_wp_(t_wp) {}
  const char* name() const override { return "lazy"; }
  bool NeedsFiles() const override { return false; }
  std::vector<uint32_t> PickZonesToReset(const FsView& view) override { return ResettableAtOrPast(view, t_wp_); }

 private:
  const double t_wp_;
};

}  // namespace

std::unique_ptr<ResetPolicy> NewLazyReset(double t_wp) { return std::make_unique<LazyReset>(t_wp); }

ResetEntry LazyResetEntry() {
  return {"lazy", "reset a zone with no valid data once its write pointer reaches reset_lazy_twp of capacity",
          {"reset_lazy_twp"}, [](const FsPolicyOptions& o) { return NewLazyReset(o.reset_lazy_twp); }};
}

}  // namespace zonekv
