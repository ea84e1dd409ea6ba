// VictimPolicy: how the FTL chooses the zone to clean.
//
// The FTL keeps a policy informed of the GC candidates (full zones) through
// hooks and asks it for a victim when it needs free zones. Each policy keeps
// whatever data structure makes its selection cheap; the paper's point is
// that the per-I/O hook cost, not the selection, dominates at scale.
//
// Hook contract (all called with the FTL's policy lock held, after the ZoneTable has
// been updated):
//  - OnZoneFull(z): zone z just became full; it is a candidate from now on.
//  - OnInvalidate(z, old_valid): a block of candidate z became invalid; its
//    valid count went from old_valid to old_valid - 1.
//  - SelectVictim(): returns a candidate with at least one invalid block and
//    forgets it (it is no longer a candidate), or kNoZone if none qualifies.
//  - OnReset(z): zone z (a former victim) was reset and is free.
// Writes into open zones and invalidations of non-candidates are not hooks:
// they only touch the ZoneTable.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "zone_table.h"
#include "zonekv/ftl.h"
#include "zonekv/status.h"

namespace zonekv {

constexpr uint32_t kNoZone = std::numeric_limits<uint32_t>::max();

class VictimPolicy {
 public:
  explicit VictimPolicy(const ZoneTable* zones) : zones_(zones) {}
  virtual ~VictimPolicy() = default;

  virtual const char* name() const = 0;
  virtual void OnZoneFull(uint32_t z) = 0;
  virtual void OnInvalidate(uint32_t z, uint32_t old_valid) = 0;
  virtual uint32_t SelectVictim() = 0;
  virtual void OnReset(uint32_t z) {}

  // The score this policy maximises for candidate z at the current time
  // (higher = better victim). Approximate policies return the score they
  // approximate. Used by tests to check selections against brute force.
  virtual double Score(uint32_t z) const = 0;
  // Bytes held by the policy's own data structures (beyond the ZoneTable).
  virtual uint64_t MemoryBytes() const = 0;

 protected:
  const ZoneTable* zones_;
};

// Cost-benefit of a zone of `valid` and `invalid` blocks last modified `age`
// ticks ago: age * invalid / (2 * valid); +infinity when it holds no valid
// block (cleaning it is free).
inline double CostBenefitScore(uint64_t age, uint32_t valid, uint32_t invalid) {
  if (valid == 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(age) * invalid / (2.0 * valid);
}

// CostBenefitScore of zone z.
double CostBenefit(const ZoneTable& zones, uint32_t z);

// Creates the policy called `name` (a FtlVictimPolicies() entry).
Status NewVictimPolicy(const std::string& name, const ZoneTable* zones,
                       std::unique_ptr<VictimPolicy>* policy);

using VictimPolicyEntry = PolicyEntry<VictimPolicyFactory>;

// One factory per policy file; each file also defines its registry entry
// (XxxPolicyEntry(), listed in victim_policy.cc).
std::unique_ptr<VictimPolicy> NewGreedyPolicy(const ZoneTable* zones);
std::unique_ptr<VictimPolicy> NewCostBenefitPolicy(const ZoneTable* zones);
std::unique_ptr<VictimPolicy> NewFastCbPolicy(const ZoneTable* zones);
std::unique_ptr<VictimPolicy> NewApproxCbPolicy(const ZoneTable* zones);
std::unique_ptr<VictimPolicy> NewFegcPolicy(const ZoneTable* zones);
std::unique_ptr<VictimPolicy> NewCcbPolicy(const ZoneTable* zones);

}  // namespace zonekv
