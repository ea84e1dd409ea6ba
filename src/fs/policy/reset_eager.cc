// Eager runtime reset (ZenFS): reset every zone holding no valid data,
// however little was written to it.
#include "policies.h"
#include "reset_common.h"

namespace zonekv {

namespace {

class EagerReset : public ResetPolicy {
 public:
  const char* name() const override { return "eager"; }
  bool NeedsFiles() const override { return false; }
  std::vector<uint32_t> PickZonesToReset(const FsView& view) override { return ResettableAtOrPast(view, 0.0); }
};

}  // namespace

std::unique_ptr<ResetPolicy> NewEagerReset() { return std::make_unique<EagerReset>(); }

ResetEntry EagerResetEntry() {
  return {"eager", "ZenFS's: reset every zone with no valid data", {},
          [](const FsPolicyOptions&) { return NewEagerReset(); }};
}

}  // namespace zonekv
