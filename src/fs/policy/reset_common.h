// Shared by the runtime reset policies.
#pragma once

#include "zonekv/fs_policy.h"

namespace zonekv {

// True when a zone may be reset at runtime: it holds no valid data, something
// was written to it, and no writer or cleaner holds it.
inline bool ResettableZone(const ZoneView& z) {
  return z.valid_bytes == 0 && z.written_bytes > 0 && !z.busy && z.state != ZoneState::kOffline &&
         z.state != ZoneState::kReadOnly;
}

// Resettable zones whose write pointer is at or past t_wp * capacity.
inline std::vector<uint32_t> ResettableAtOrPast(const FsView& view, double t_wp) {
  std::vector<uint32_t> ids;
  for (const auto& z : view.zones) {
    if (!ResettableZone(z)) continue;
    // Compare in bytes; a full zone always qualifies (t_wp <= 1).
    if (z.full() || static_cast<double>(z.written_bytes) >= t_wp * static_cast<double>(z.capacity_bytes)) {
      ids.push_back(z.id);
    }
  }
  return ids;
}

}  // namespace zonekv
