// The file system's policy registries: one line per policy. Each entry (its
// name, help, knobs and factory) is defined in the policy's own file as
// XxxEntry(); to add a policy, write that file and add its line here.
#include "policies.h"

namespace zonekv {

#define ZONEKV_FILE_ALLOCATION_POLICIES(X) \
  X(LizaAllocation)                        \
  X(CazaAllocation)

#define ZONEKV_BLOB_ALLOCATION_POLICIES(X) \
  X(LizaAllocation)                        \
  X(BazaAllocation)

#define ZONEKV_CLEANING_POLICIES(X) \
  X(ZenFsCleaning)                  \
  X(GreedyCleaning)                 \
  X(CostBenefitCleaning)            \
  X(CcbCleaning)                    \
  X(NoCleaning)

#define ZONEKV_RESET_POLICIES(X) \
  X(EagerReset)                  \
  X(LazyReset)                   \
  X(FarReset)

#define ZONEKV_FINISH_POLICIES(X) \
  X(ThresholdFinish)

// Declarations of the entries, from the lists above.
#define ZONEKV_DECLARE(type) type##Entry();
#define ZONEKV_DECLARE_ALLOCATION(p) AllocationEntry ZONEKV_DECLARE(p)
#define ZONEKV_DECLARE_CLEANING(p) CleaningEntry ZONEKV_DECLARE(p)
#define ZONEKV_DECLARE_RESET(p) ResetEntry ZONEKV_DECLARE(p)
#define ZONEKV_DECLARE_FINISH(p) FinishEntry ZONEKV_DECLARE(p)
ZONEKV_FILE_ALLOCATION_POLICIES(ZONEKV_DECLARE_ALLOCATION)
ZONEKV_BLOB_ALLOCATION_POLICIES(ZONEKV_DECLARE_ALLOCATION)
ZONEKV_CLEANING_POLICIES(ZONEKV_DECLARE_CLEANING)
ZONEKV_RESET_POLICIES(ZONEKV_DECLARE_RESET)
ZONEKV_FINISH_POLICIES(ZONEKV_DECLARE_FINISH)

#define ZONEKV_ENTRY(p) p##Entry(),

const PolicyRegistry<AllocationFactory>& FileAllocationPolicies() {
  static const PolicyRegistry<AllocationFactory> r("zone allocation policy for SST and other files",
                                                   {ZONEKV_FILE_ALLOCATION_POLICIES(ZONEKV_ENTRY)});
  return r;
}

const PolicyRegistry<AllocationFactory>& BlobAllocationPolicies() {
  static const PolicyRegistry<AllocationFactory> r("zone allocation policy for blob files",
                                                   {ZONEKV_BLOB_ALLOCATION_POLICIES(ZONEKV_ENTRY)});
  return r;
}

const PolicyRegistry<CleaningFactory>& CleaningPolicies() {
  static const PolicyRegistry<CleaningFactory> r("zone cleaning policy", {ZONEKV_CLEANING_POLICIES(ZONEKV_ENTRY)});
  return r;
}

const PolicyRegistry<ResetFactory>& ResetPolicies() {
  static const PolicyRegistry<ResetFactory> r("reset policy", {ZONEKV_RESET_POLICIES(ZONEKV_ENTRY)});
  return r;
}

const PolicyRegistry<FinishFactory>& FinishPolicies() {
  static const PolicyRegistry<FinishFactory> r("finish policy", {ZONEKV_FINISH_POLICIES(ZONEKV_ENTRY)});
  return r;
}

}  // namespace zonekv
