// The zone layout as the compaction layer sees it, and the paper's two
// same-zone scores over it.
#include <set>

#include "same_zone.h"
#include "zonekv/compactor.h"

namespace zonekv {

ZoneLayout ZoneLayout::FromFsView(const FsView& view) {
  ZoneLayout layout;
  for (const FileView& f : view.files) {
    if (f.hints.kind != FileKind::kSst || f.hints.number == 0) continue;
    layout.sst_zones[f.hints.number] = f.bytes_per_zone;
  }
  layout.free_ratio = view.free_ratio();
  for (const ZoneView& z : view.zones) {
    if (z.id >= layout.zone_valid_bytes.size()) layout.zone_valid_bytes.resize(z.id + 1, 0);
    layout.zone_valid_bytes[z.id] = z.valid_bytes;
  }
  return layout;
}

const std::map<uint32_t, uint64_t>* ZoneLayout::Find(uint64_t number) const {
  auto it = sst_zones.find(number);
  return it == sst_zones.end() ? nullptr : &it->second;
}

double SameZoneScore(const std::vector<const SstFileView*>& files, const ZoneLayout& layout) {
  SameZoneAccumulator acc;
  for (const SstFileView* f : files) acc.Add(layout.Find(f->number), f->size_bytes);
  return acc.Score();
}

double InvalidScore(const std::vector<uint64_t>& victims, const ZoneLayout& before,
                    const FsView& before_view, const FsView& after_view) {
  std::set<uint32_t> zones;
  for (uint64_t number : victims) {
    const std::map<uint32_t, uint64_t>* z = before.Find(number);
    if (z == nullptr) continue;
    for (const auto& [zone, bytes] : *z) {
      if (bytes > 0) zones.insert(zone);
    }
  }
  if (zones.empty()) return 0;
  auto find = [](const FsView& v, uint32_t id) -> const ZoneView* {
    for (const ZoneView& z : v.zones) {
      if (z.id == id) return &z;
    }
    return nullptr;
  };
  double sum = 0;
  for (uint32_t id : zones) {
    const ZoneView* after = find(after_view, id);
    const ZoneView* prior = find(before_view, id);
    bool reset = after == nullptr || after->written_bytes == 0 ||
                 (prior != nullptr && after->reset_count > prior->reset_count);
    if (reset || after->capacity_bytes == 0) {
      sum += 1.0;
    } else {
      sum += static_cast<double>(after->invalid_bytes()) / static_cast<double>(after->capacity_bytes);
    }
  }
  return sum / static_cast<double>(zones.size());
}

}  // namespace zonekv
