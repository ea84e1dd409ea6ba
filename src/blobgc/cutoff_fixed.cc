// The fixed blob GC cutoff: RocksDB's own blob_garbage_collection_age_cutoff
// option stays as configured; zonekv runs no controller.
#include "zonekv/blob_gc.h"

namespace zonekv {

PolicyEntry<BlobGcCutoffFactory> FixedCutoffEntry() {
  return {"fixed", "RocksDB's own: the oldest blob_garbage_collection_age_cutoff of blob files",
          {"blob_garbage_collection_age_cutoff"},
          [](std::function<FsView()>, std::shared_ptr<ZCutoffController>* out) {
            out->reset();
            return Status::OK();
          }};
}

}  // namespace zonekv
