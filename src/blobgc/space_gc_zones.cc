// zones: collect the shortest prefix of the oldest blob files whose
// collection frees enough whole zones, net of the live bytes it copies;
// collect now below space_gc_free_pct free (or when a writer waits), and
// plan it, so that the file system keeps room for it, before that
// (docs/formulas.md, "Space-pressure blob GC").
//
// For a prefix of k files: R(k) = their live bytes (an upper bound: total
// minus RocksDB's known garbage), G(k) = their known garbage, Z(k) = the
// capacity of the zones all of whose valid bytes are theirs (reset as soon
// as the files are deleted). The plan is the smallest k with
// Z(k) - R(k) >= need (the space back to the trigger plus 5 points), else
// the k with the largest Z(k) - R(k) > 0, else the k with the most known
// garbage (cleaning then recovers the partly invalid zones), else the
// oldest file alone to discover garbage (compacting into the last level
// drops stale records, which RocksDB then counts as garbage); no plan
// copies more than a quarter of the device. The collection writes R(k)
// before it frees anything, into zones no writer holds (the file system
// lets it use the recovery reserve and keeps other writers out of the room
// the plan needs), and with it the SSTs it rewrites: when the plan's R(k)
// does not fit in the budget (the capacity of the empty zones no writer
// holds: the file system keeps empty zones, not the tails of partly written
// ones, for the collection; less the empty zones it keeps from the
// collection, FsView::reclaimer_kept_zones, and the live SST bytes in whole
// zones, at least one; of that, three quarters: the writers that go on
// meanwhile take the rest), the same choice is made among the prefixes that
// fit.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "zonekv/blob_gc.h"

namespace zonekv {

namespace {

constexpr double kHysteresisPct = 5;
// Writers go on while a collection runs: flushes fill the tails of partly
// written zones, the WAL grows, the cleaner copies. A collection leaves
// them this share (1 / kWritersShare) of its room (measured on 256 zones of
// 4 MiB: up to 21 MiB beside a 145 MiB collection).
constexpr uint64_t kWritersShare = 4;

class ZonesSpaceGc : public SpaceGcPolicy {
 public:
  explicit ZonesSpaceGc(double trigger_pct) : trigger_pct_(trigger_pct) {}
  const char* name() const override { return "zones"; }

  SpaceGcPick Pick(const SpaceGcView& v) override {
    SpaceGcPick none;
    const FsView& fs = v.fs;
    const uint64_t free = fs.free_bytes();
    const uint64_t total = free + fs.used_bytes() + fs.reclaimable_bytes();
    if (total == 0 || v.blob_files.empty()) {
      none.reason = "no blob files";
      return none;
    }
    const double free_pct = 100.0 * static_cast<double>(free) / static_cast<double>(total);
    uint64_t zone_cap = 0;
    uint64_t writable = 0;  // capacity of the empty zones no writer holds
    std::unordered_map<uint32_t, uint64_t> remaining;  // zone -> valid bytes not in the prefix
    for (const auto& z : fs.zones) {
      zone_cap = std::max(zone_cap, z.capacity_bytes);
      if (z.valid_bytes > 0) remaining[z.id] = z.valid_bytes;
      if (z.free_empty()) writable += z.remaining_bytes();
    }
    const uint64_t sst_zones = zone_cap == 0 ? 1 : std::max<uint64_t>(1, (v.sst_bytes + zone_cap - 1) / zone_cap);
    const uint64_t margin = (fs.reclaimer_kept_zones + sst_zones) * zone_cap;
    const uint64_t room = writable > margin ? writable - margin : 0;
    const uint64_t budget = room - room / kWritersShare;
    const uint64_t cap = total / 4;
    const double target_pct = trigger_pct_ + kHysteresisPct;
    const uint64_t target = static_cast<uint64_t>(target_pct / 100.0 * static_cast<double>(total));
    const uint64_t need = std::max(zone_cap, target > free ? target - free : 0);

    // Every prefix up to the cap, in order.
    std::vector<SpaceGcPick> prefixes;
    SpaceGcPick p;
    for (size_t k = 0; k < v.blob_files.size(); k++) {
      const BlobFileSpaceView& f = v.blob_files[k];
      p.files = k + 1;
      p.max_number = f.number;
      p.relocate_bytes += f.live_bytes();
      p.garbage_bytes += std::min(f.garbage_blob_bytes, f.total_blob_bytes);
      for (const auto& [zone, bytes] : f.bytes_per_zone) {
        auto it = remaining.find(zone);
        if (it == remaining.end()) continue;
        it->second -= std::min(it->second, bytes);
        if (it->second > 0) continue;
        remaining.erase(it);
        const ZoneView* z = fs.FindZone(zone);
        if (z != nullptr && !z->busy) {
          p.zones_freed++;
          p.zones_freed_bytes += z->capacity_bytes;
        }
      }
      if (k > 0 && p.relocate_bytes > cap) break;
      prefixes.push_back(p);
    }
    SpaceGcPick plan = Choose(prefixes, need, UINT64_MAX);
    SpaceGcPick pick = plan.relocate_bytes <= budget ? plan : Choose(prefixes, need, budget);
    if (pick.files == 0) {
      none.reason = "the oldest blob file's live bytes do not fit in the writable space";
      // Still the plan: the file system keeps its room from now on.
      none.plan_bytes = plan.relocate_bytes;
      return none;
    }
    pick.collect = v.writer_waiting || free_pct < trigger_pct_;
    pick.plan_bytes = plan.relocate_bytes;
    return pick;
  }

 private:
  // The choice among prefixes[i] with relocate_bytes <= budget (see the top).
  static SpaceGcPick Choose(const std::vector<SpaceGcPick>& prefixes, uint64_t need, uint64_t budget) {
    const SpaceGcPick* best_net = nullptr;
    const SpaceGcPick* best_garbage = nullptr;
    int64_t best_net_value = 0;
    for (const SpaceGcPick& p : prefixes) {
      if (p.relocate_bytes > budget) break;
      const int64_t net = static_cast<int64_t>(p.zones_freed_bytes) - static_cast<int64_t>(p.relocate_bytes);
      if (net >= static_cast<int64_t>(need)) {
        SpaceGcPick out = p;
        out.reason = "frees enough zones";
        return out;
      }
      if (net > best_net_value) {
        best_net_value = net;
        best_net = &p;
      }
      if (p.garbage_bytes > 0 && (best_garbage == nullptr || p.garbage_bytes > best_garbage->garbage_bytes)) {
        best_garbage = &p;
      }
    }
    SpaceGcPick out;
    if (best_net != nullptr) {
      out = *best_net;
      out.reason = "frees the most zones that fit";
    } else if (best_garbage != nullptr) {
      out = *best_garbage;
      out.reason = "the most known garbage that fits; cleaning recovers the rest";
    } else if (!prefixes.empty() && prefixes[0].relocate_bytes <= budget) {
      out = prefixes[0];
      out.discover = true;
      out.reason = "no known garbage: compact to discover it";
    }
    return out;
  }

 private:
  const double trigger_pct_;
};

}  // namespace

PolicyEntry<SpaceGcFactory> ZonesSpaceGcEntry() {
  return {"zones",
          "below space_gc_free_pct free, collect the oldest blob files whose relocation frees the most zones",
          {"space_gc_free_pct"},
          [](const SpaceGcOptions& o) { return std::make_unique<ZonesSpaceGc>(o.space_gc_free_pct); }};
}

}  // namespace zonekv
