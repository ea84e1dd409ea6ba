// The finish threshold (ZenFS semantics): an active zone with less than
// `pct`% of its capacity left is finished, giving its active resource back at
// the price of the unwritten rest (padding on devices that pad).
#include "zonekv/fs_policy.h"

namespace zonekv {

std::vector<uint32_t> ZonesToFinish(const FsView& view, double finish_threshold_pct) {
  std::vector<uint32_t> ids;
  if (finish_threshold_pct <= 0) return ids;
  for (const auto& z : view.zones) {
    if (z.busy || !IsActive(z.state) || z.written_bytes == 0 || z.remaining_bytes() == 0) continue;
    if (static_cast<double>(z.remaining_bytes()) * 100.0 <
        static_cast<double>(z.capacity_bytes) * finish_threshold_pct) {
      ids.push_back(z.id);
    }
  }
  return ids;
}

}  // namespace zonekv
