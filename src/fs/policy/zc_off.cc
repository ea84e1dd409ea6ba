// No zone cleaning (zc=off): GC-free operation. The engine then runs no
// cleaner thread and reserves no active zone for one; space comes back only
// through resets of zones whose data all died.
#include "policies.h"

namespace zonekv {

namespace {

class NoCleaning : public CleaningPolicy {
 public:
  const char* name() const override { return "off"; }
  bool NeedsFiles() const override { return false; }
  bool Cleans() const override { return false; }
  std::vector<uint32_t> PickVictims(const FsView&) override { return {}; }
};

}  // namespace

std::unique_ptr<CleaningPolicy> NewNoCleaning() { return std::make_unique<NoCleaning>(); }

CleaningEntry NoCleaningEntry() {
  return {"off", "no zone cleaning (GC-free): space comes back only from zones whose data all died", {},
          [](const FsPolicyOptions&) { return NewNoCleaning(); }};
}

}  // namespace zonekv
