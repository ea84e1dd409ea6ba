// The blob GC cutoff registry: one line per cutoff control; each entry is
// defined in the control's own file.
#include "zonekv/blob_gc.h"

namespace zonekv {

#define ZONEKV_BLOB_GC_CUTOFFS(X) \
  X(FixedCutoff)                  \
  X(ZCutoff)

#define ZONEKV_DECLARE_CUTOFF(p) PolicyEntry<BlobGcCutoffFactory> p##Entry();
ZONEKV_BLOB_GC_CUTOFFS(ZONEKV_DECLARE_CUTOFF)
#define ZONEKV_CUTOFF_ENTRY(p) p##Entry(),

const PolicyRegistry<BlobGcCutoffFactory>& BlobGcCutoffs() {
  static const PolicyRegistry<BlobGcCutoffFactory> r("blob GC cutoff control", {ZONEKV_BLOB_GC_CUTOFFS(ZONEKV_CUTOFF_ENTRY)});
  return r;
}

}  // namespace zonekv
