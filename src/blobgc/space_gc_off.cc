// off: no space-pressure blob GC; RocksDB's blob GC runs only in the
// compactions RocksDB (or the external compactor) picks.
#include "zonekv/blob_gc.h"

namespace zonekv {

PolicyEntry<SpaceGcFactory> OffSpaceGcEntry() {
  return {"off", "no blob GC driven by space pressure", {}, [](const SpaceGcOptions&) {
            return std::unique_ptr<SpaceGcPolicy>();
          }};
}

}  // namespace zonekv
