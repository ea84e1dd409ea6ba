// CAZA: compaction-aware zone allocation for SST files (Same-Zone
// Compaction paper, section VI).
//
// A new SST in level i is placed with the files it will most likely be
// compacted with next:
//  - if S_level[i-1] > S_level[i], L(i-1)->L(i) compactions are the more
//    frequent: use the zone of the largest overlapping L(i-1) file (then the
//    next largest, ...), since leveled picking takes the largest file first;
//  - otherwise use the zone of the smallest overlapping L(i+1) file (then the
//    next smallest, ...);
//  - failing both, the zone of the same-level file with the closest key
//    range (neighbours in key order, nearest first);
//  - failing that, LIZA decides.
// A file's zone is the zone holding most of its bytes; a zone is usable if it
// is neither full nor busy. Files other than SSTs, and SSTs whose level or key
// range is unknown, go to LIZA.
#include <algorithm>
#include <limits>
#include <utility>
#include <optional>

#include "policies.h"

namespace zonekv {

namespace {

bool Overlaps(const FileHints& a, const FileHints& b) {
  return !(a.largest_key < b.smallest_key || b.largest_key < a.smallest_key);
}

// Distance between keys a <= b in bytewise order: keys sharing a longer
// prefix are closer; beyond the prefix, the next 8 bytes compare as numbers.
// Overlapping ranges (b < a) are at distance zero.
std::pair<size_t, uint64_t> KeyGap(const std::string& a, const std::string& b) {
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

// The zone holding most of the file's bytes (lowest id on ties), or -1.
int64_t HomeZone(const FileView& f) {
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

class CazaAllocation : public AllocationPolicy {
 public:
  explicit CazaAllocation(std::unique_ptr<AllocationPolicy> fallback) : fallback_(std::move(fallback)) {}
  const char* name() const override { return "caza"; }

  AllocDecision Allocate(const FsView& view, const AllocRequest& req) override {
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
    // Upper partners: largest first; lower partners: smallest first.
    std::stable_sort(partners.begin(), partners.end(), [&](const FileView* a, const FileView* b) {
      return upper ? a->size_bytes > b->size_bytes : a->size_bytes < b->size_bytes;
    });
    if (auto d = FirstUsable(view, partners, "caza.partner")) return *d;

    // Same level, nearest in key order first.
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
    // Merge outward from the insertion point, the nearer neighbour first.
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
  // The fallback's zone, counted as CAZA's `reason` (an SST without a
  // compaction hint, or with no usable partner or neighbour zone).
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

}  // namespace

std::unique_ptr<AllocationPolicy> NewCazaAllocation(std::unique_ptr<AllocationPolicy> fallback) {
  return std::make_unique<CazaAllocation>(std::move(fallback));
}

AllocationEntry CazaAllocationEntry() {
  return {"caza", "Same-Zone Compaction's: an SST joins the zones of its compaction partners; others as liza", {},
          [](const FsPolicyOptions&, const AllocationContext& c) {
            return NewCazaAllocation(NewLizaAllocation(c.blob_zones_reserved));
          }};
}

}  // namespace zonekv
