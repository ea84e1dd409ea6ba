#include "victim_policy.h"

#include <limits>

#include "zonekv/ftl.h"

namespace zonekv {

const std::vector<std::string>& FtlPolicyNames() {
  static const std::vector<std::string> kNames = {"greedy", "cost-benefit", "fast-cb",
                                                  "approx-cb", "fegc", "ccb"};
  return kNames;
}

double CostBenefit(const ZoneTable& zones, uint32_t z) {
  uint32_t valid = zones.valid(z);
  if (valid == 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(zones.age(z)) * zones.invalid(z) / (2.0 * valid);
}

Status NewVictimPolicy(const std::string& name, const ZoneTable* zones,
                       std::unique_ptr<VictimPolicy>* policy) {
  if (name == "greedy") *policy = NewGreedyPolicy(zones);
  else if (name == "cost-benefit") *policy = NewCostBenefitPolicy(zones);
  else if (name == "fast-cb") *policy = NewFastCbPolicy(zones);
  else if (name == "approx-cb") *policy = NewApproxCbPolicy(zones);
  else if (name == "fegc") *policy = NewFegcPolicy(zones);
  else if (name == "ccb") *policy = NewCcbPolicy(zones);
  else {
    std::string all;
    for (const auto& n : FtlPolicyNames()) all += (all.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown FTL policy '" + name + "' (choose one of " + all + ")");
  }
  return Status::OK();
}

}  // namespace zonekv
