// Hand-built file-system views for policy tests. Zones have a 1 MiB
// capacity unless stated; `Zone(...)` appends one and returns it for tweaks.
#pragma once

#include "zonekv/fs_policy.h"

namespace zonekv {

constexpr uint64_t kCap = 1 << 20;

class ViewBuilder {
 public:
  ViewBuilder() { view_.now_us = 1000000; }

  // written/valid in bytes; state derived: empty, full at capacity, else closed.
  ZoneView& Zone(uint64_t written, uint64_t valid, Lifetime lt = Lifetime::kNotSet) {
    ZoneView z;
    z.id = static_cast<uint32_t>(view_.zones.size());
    z.capacity_bytes = kCap;
    z.written_bytes = written;
    z.valid_bytes = valid;
    z.lifetime = lt;
    z.state = written == 0 ? ZoneState::kEmpty : written == kCap ? ZoneState::kFull : ZoneState::kClosed;
    view_.zones.push_back(z);
    Recount();
    return view_.zones.back();
  }
  // A zone holding only blob data (`written` bytes, all valid) whose
  // youngest blob file is `ybiz`.
  ZoneView& BlobZone(uint64_t written, uint64_t ybiz) {
    ZoneView& z = Zone(written, written);
    z.valid_bytes_by_kind[static_cast<int>(FileKind::kBlob)] = written;
    z.ybiz = ybiz;
    return z;
  }
  void Recount() {
    view_.active_zones = 0;
    for (const auto& z : view_.zones) view_.active_zones += IsActive(z.state) ? 1 : 0;
  }
  FsView& view() { return view_; }

 private:
  FsView view_;
};

}  // namespace zonekv
