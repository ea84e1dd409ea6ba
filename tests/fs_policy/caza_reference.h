// CAZA's decision as it was made before the engine kept an SST index
// (921cf16, src/fs/policy/alloc_caza.cc): a pass over every file of the view.
// The tests compare the indexed policy against it, decision by decision.
#pragma once

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "policies.h"

namespace zonekv {
namespace test {

class ReferenceCaza {
 public:
  ReferenceCaza() : fallback_(NewLizaAllocation()) {}

  AllocDecision Allocate(const FsView& view, const AllocRequest& req) {
    const FileView* f = req.file;
    if (f == nullptr || f->hints.kind != FileKind::kSst || f->hints.level < 0 || f->hints.smallest_key.empty()) {
      return Relabel(fallback_->Allocate(view, req), "caza.unhinted");
    }
    const int level = f->hints.level;
    auto score = [&](int l) { return l >= 0 && l < static_cast<int>(view.level_scores.size()) ? view.level_scores[l] : 0.0; };
    std::vector<const FileView*> partners;
    bool upper = level > 0 && score(level - 1) > score(level);
    int partner_level = upper ? level - 1 : level + 1;
    for (const auto& o : view.files) {
      if (o.id != f->id && o.hints.kind == FileKind::kSst && o.hints.level == partner_level &&
          !o.hints.smallest_key.empty() && Overlaps(o.hints, f->hints)) {
        partners.push_back(&o);
      }
    }
    std::stable_sort(partners.begin(), partners.end(), [&](const FileView* a, const FileView* b) {
      return upper ? a->size_bytes > b->size_bytes : a->size_bytes < b->size_bytes;
    });
    if (auto d = FirstUsable(view, partners, "caza.partner")) return *d;
    std::vector<const FileView*> same;
    for (const auto& o : view.files) {
      if (o.id != f->id && o.hints.kind == FileKind::kSst && o.hints.level == level && !o.hints.smallest_key.empty()) {
        same.push_back(&o);
      }
    }
    std::stable_sort(same.begin(), same.end(), [](const FileView* a, const FileView* b) {
      return a->hints.smallest_key < b->hints.smallest_key;
    });
    size_t pos = static_cast<size_t>(
        std::lower_bound(same.begin(), same.end(), f->hints.smallest_key,
                         [](const FileView* a, const std::string& k) { return a->hints.smallest_key < k; }) -
        same.begin());
    std::vector<const FileView*> nearest;
    for (size_t lo = pos, hi = pos; lo > 0 || hi < same.size();) {
      bool take_lo = hi == same.size() ||
                     (lo > 0 && KeyGap(same[lo - 1]->hints.largest_key, f->hints.smallest_key) <=
                                    KeyGap(f->hints.largest_key, same[hi]->hints.smallest_key));
      nearest.push_back(take_lo ? same[--lo] : same[hi++]);
    }
    if (auto d = FirstUsable(view, nearest, "caza.neighbour")) return *d;
    return Relabel(fallback_->Allocate(view, req), "caza.fallback");
  }

 private:
  static bool Overlaps(const FileHints& a, const FileHints& b) {
    return !(a.largest_key < b.smallest_key || b.largest_key < a.smallest_key);
  }
  static std::pair<size_t, uint64_t> KeyGap(const std::string& a, const std::string& b) {
    if (b <= a) return {0, 0};
    size_t p = 0;
    while (p < a.size() && p < b.size() && a[p] == b[p]) p++;
    auto word = [p](const std::string& k) {
      uint64_t w = 0;
      for (size_t i = 0; i < 8; i++) w = (w << 8) | (p + i < k.size() ? static_cast<unsigned char>(k[p + i]) : 0u);
      return w;
    };
    return {std::numeric_limits<size_t>::max() - p, word(b) - word(a)};
  }
  static int64_t HomeZone(const FileView& f) {
    int64_t zone = -1;
    uint64_t best = 0;
    for (const auto& [z, bytes] : f.bytes_per_zone) {
      if (bytes > best) {
        best = bytes;
        zone = z;
      }
    }
    return zone;
  }
  static AllocDecision Relabel(AllocDecision d, const char* reason) {
    if (d.action == AllocDecision::Action::kUseZone) d.reason = reason;
    return d;
  }
  static std::optional<AllocDecision> FirstUsable(const FsView& view, const std::vector<const FileView*>& files,
                                                  const char* reason) {
    for (const FileView* o : files) {
      int64_t z = HomeZone(*o);
      const ZoneView* zone = z < 0 ? nullptr : view.FindZone(static_cast<uint32_t>(z));
      if (zone != nullptr && !zone->full() && !zone->busy && !zone->empty() &&
          zone->state != ZoneState::kOffline && zone->state != ZoneState::kReadOnly) {
        return UseZone(zone->id, reason);
      }
    }
    return std::nullopt;
  }

  std::unique_ptr<AllocationPolicy> fallback_;
};

// Whether two decisions are the same: action, zone and reason.
inline bool SameDecision(const AllocDecision& a, const AllocDecision& b) {
  return a.action == b.action && a.zone == b.zone && std::string(a.reason) == b.reason;
}

inline std::string DecisionText(const AllocDecision& d) {
  return std::to_string(static_cast<int>(d.action)) + "/" + std::to_string(d.zone) + "/" + d.reason;
}

}  // namespace test
}  // namespace zonekv
