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
#include <iterator>
#include <limits>
#include <utility>
#include <optional>

#include "policies.h"

namespace zonekv {

namespace {

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

  // Reads the SSTs through an SstIndex: the engine's (FsView::ssts), or one
  // built here from FsView::files. The decision is the same either way; with
  // the engine's index it costs O(log n + candidates) instead of O(files).
  bool NeedsFiles() const override { return fallback_->NeedsFiles(); }

  AllocDecision Allocate(const FsView& view, const AllocRequest& req) override {
    const FileView* f = req.file;
    if (f == nullptr || f->hints.kind != FileKind::kSst || f->hints.level < 0 || f->hints.smallest_key.empty()) {
      return Relabel(fallback_->Allocate(view, req), "caza.unhinted");
    }
    SstIndex own;
    const SstIndex* index = view.ssts;
    if (index == nullptr) {
      own = SstIndex::FromFiles(view.files);
      index = &own;
    }
    const FileHints& h = f->hints;
    const int level = h.level;
    auto score = [&](int l) { return l >= 0 && l < static_cast<int>(view.level_scores.size()) ? view.level_scores[l] : 0.0; };

    bool upper = level > 0 && score(level - 1) > score(level);
    int partner_level = upper ? level - 1 : level + 1;
    std::vector<const FileView*> partners;
    index->Overlapping(partner_level, h.smallest_key, h.largest_key, f->id, &partners);
    // Upper partners: largest first; lower partners: smallest first; equal
    // sizes by name (the order of FsView::files).
    std::sort(partners.begin(), partners.end(), [&](const FileView* a, const FileView* b) {
      if (a->size_bytes != b->size_bytes) return upper ? a->size_bytes > b->size_bytes : a->size_bytes < b->size_bytes;
      return SstIndex::Key{std::string(), a->name, a->id} < SstIndex::Key{std::string(), b->name, b->id};
    });
    if (auto d = FirstUsable(view, partners, "caza.partner")) return *d;

    // Same level, nearest in key order first: from where f's smallest key
    // would go, merge outward, the nearer neighbour first (f itself skipped).
    if (const SstIndex::LevelMap* same = index->Level(level)) {
      auto pos = same->lower_bound(SstIndex::Key{h.smallest_key, std::string(), 0});
      auto lo = pos, hi = pos;
      for (;;) {
        while (hi != same->end() && hi->second.id == f->id) ++hi;
        while (lo != same->begin() && std::prev(lo)->second.id == f->id) --lo;
        const bool has_lo = lo != same->begin();
        if (!has_lo && hi == same->end()) break;
        bool take_lo = hi == same->end() ||
                       (has_lo && KeyGap(std::prev(lo)->second.hints.largest_key, h.smallest_key) <=
                                      KeyGap(h.largest_key, hi->second.hints.smallest_key));
        const FileView* o = take_lo ? &(--lo)->second : &(hi++)->second;
        if (const ZoneView* zone = UsableHome(view, *o)) return UseZone(zone->id, "caza.neighbour");
      }
    }
    return Relabel(fallback_->Allocate(view, req), "caza.fallback");
  }

 private:
  // The fallback's zone, counted as CAZA's `reason` (an SST without a
  // compaction hint, or with no usable partner or neighbour zone).
  static AllocDecision Relabel(AllocDecision d, const char* reason) {
    if (d.action == AllocDecision::Action::kUseZone) d.reason = reason;
    return d;
  }

  // The file's home zone if a new extent may go there: neither full nor
  // busy nor empty, nor offline or read-only; else nullptr.
  static const ZoneView* UsableHome(const FsView& view, const FileView& o) {
    int64_t z = HomeZone(o);
    const ZoneView* zone = z < 0 ? nullptr : view.FindZone(static_cast<uint32_t>(z));
    if (zone != nullptr && !zone->full() && !zone->busy && !zone->empty() && zone->state != ZoneState::kOffline &&
        zone->state != ZoneState::kReadOnly) {
      return zone;
    }
    return nullptr;
  }

  static std::optional<AllocDecision> FirstUsable(const FsView& view, const std::vector<const FileView*>& files,
                                                  const char* reason) {
    for (const FileView* o : files) {
      if (const ZoneView* zone = UsableHome(view, *o)) return UseZone(zone->id, reason);
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
