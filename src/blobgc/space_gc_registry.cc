// The space-pressure blob GC registry: one line per policy; each entry is
// defined in the policy's own file.
#include "zonekv/blob_gc.h"

namespace zonekv {

#define ZONEKV_SPACE_GC_POLICIES(X) \
  X(OffSpaceGc)                     \
  X(ZonesSpaceGc)

#define ZONEKV_DECLARE_SPACE_GC(p) PolicyEntry<SpaceGcFactory> p##Entry();
ZONEKV_SPACE_GC_POLICIES(ZONEKV_DECLARE_SPACE_GC)
#define ZONEKV_SPACE_GC_ENTRY(p) p##Entry(),

const PolicyRegistry<SpaceGcFactory>& SpaceGcPolicies() {
  static const PolicyRegistry<SpaceGcFactory> r("space-pressure blob GC policy",
                                                {ZONEKV_SPACE_GC_POLICIES(ZONEKV_SPACE_GC_ENTRY)});
  return r;
}

}  // namespace zonekv
