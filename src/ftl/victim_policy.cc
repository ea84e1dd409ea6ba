#include "victim_policy.h"

#include <limits>

#include "zonekv/ftl.h"

namespace zonekv {

// The registry: one line per policy, in the paper's order of presentation;
// each entry is defined in the policy's own file.
#define ZONEKV_FTL_VICTIM_POLICIES(X) \
  X(GreedyPolicy)                     \
  X(CostBenefitPolicy)                \
  X(FastCbPolicy)                     \
  X(ApproxCbPolicy)                   \
  X(FegcPolicy)                       \
  X(CcbPolicy)

#define ZONEKV_DECLARE_VICTIM(p) VictimPolicyEntry p##Entry();
ZONEKV_FTL_VICTIM_POLICIES(ZONEKV_DECLARE_VICTIM)
#define ZONEKV_VICTIM_ENTRY(p) p##Entry(),

const PolicyRegistry<VictimPolicyFactory>& FtlVictimPolicies() {
  static const PolicyRegistry<VictimPolicyFactory> r("GC victim policy", {ZONEKV_FTL_VICTIM_POLICIES(ZONEKV_VICTIM_ENTRY)});
  return r;
}

double CostBenefit(const ZoneTable& zones, uint32_t z) {
  uint32_t valid = zones.valid(z);
  if (valid == 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(zones.age(z)) * zones.invalid(z) / (2.0 * valid);
}

Status NewVictimPolicy(const std::string& name, const ZoneTable* zones,
                       std::unique_ptr<VictimPolicy>* policy) {
  const VictimPolicyEntry* e = nullptr;
  ZONEKV_RETURN_IF_ERROR(FtlVictimPolicies().Lookup("policy", name, &e));
  *policy = e->make(zones);
  return Status::OK();
}

}  // namespace zonekv
