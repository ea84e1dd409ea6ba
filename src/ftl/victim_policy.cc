#include "victim_policy.h"

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
  return CostBenefitScore(zones.age(z), zones.valid(z), zones.invalid(z));
}

Status NewVictimPolicy(const std::string& name, const ZoneTable* zones,
                       std::unique_ptr<VictimPolicy>* policy) {
  const VictimPolicyEntry* e = nullptr;
  ZONEKV_RETURN_IF_ERROR(FtlVictimPolicies().Lookup("policy", name, &e));
  *policy = e->make(zones);
  return Status::OK();
}

}  // namespace zonekv
