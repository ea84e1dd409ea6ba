// ZoneTable: the FTL's per-zone metadata, which victim policies read.
//
// For every zone: its FTL state, its number of valid 4 KiB blocks, the
// logical time of its last modification (a block written into it or one of
// its blocks invalidated) and the sum of the invalidation times of its
// invalid blocks (for FeGC's per-block ages). Time is the FTL's logical
// clock: the number of user block writes so far.
//
// Layout: one 32-byte record per zone (an array of structs, aligned so that
// no record straddles a cache line), holding the fields above and two link
// words that belong to the victim policy (ZoneLists keeps a zone's prev/next
// there, FeGC's heaps a zone's heap slot). So an invalidation, which reads
// and writes the zone's count, time and state and then moves the zone
// between the policy's lists (or heaps), touches one cache line for the zone
// instead of one per field.
//
// Not thread-safe: the FTL mutates it under its policy lock, policies read it
// (and write their link words) from their hooks, which run under the same
// lock.
#pragma once

#include <cstdint>
#include <vector>

namespace zonekv {

enum class FtlZoneState : uint8_t {
  kFree,    // empty, in the free pool
  kOpen,    // a write frontier (user or GC)
  kFull,    // every block written; a GC candidate known to the policy
  kVictim,  // chosen by the policy, being cleaned
};

// A zone's two link words, owned by the victim policy (kNil when unused).
struct ZoneLinks {
  static constexpr uint32_t kNil = 0xffffffffu;
  uint32_t prev = kNil, next = kNil;
};

class ZoneTable {
 public:
  ZoneTable(uint32_t nr_zones, uint32_t blocks_per_zone);

  uint32_t nr_zones() const { return static_cast<uint32_t>(zones_.size()); }
  uint32_t blocks_per_zone() const { return blocks_per_zone_; }
  uint64_t now() const { return now_; }

  FtlZoneState state(uint32_t z) const { return zones_[z].state; }
  uint32_t valid(uint32_t z) const { return zones_[z].valid; }
  // Blocks written and since invalidated. Meaningful for full zones.
  uint32_t invalid(uint32_t z) const { return blocks_per_zone_ - zones_[z].valid; }
  uint64_t last_modified(uint32_t z) const { return zones_[z].last_modified; }
  // now - last_modified(z), the cost-benefit age.
  uint64_t age(uint32_t z) const { return now_ - zones_[z].last_modified; }
  // Sum over the zone's invalid blocks of their invalidation times.
  uint64_t invalidation_time_sum(uint32_t z) const { return zones_[z].invalidation_time_sum; }

  // The policy's link words of zone z. The table never reads or writes them
  // (Reset leaves them alone); the policy mutates them through the const
  // table it is given, from its hooks. They sit in the zone's record so that
  // a hook touches the line the FTL's update has just brought in.
  ZoneLinks& links(uint32_t z) const { return zones_[z].links; }
  // The same words seen by a heap policy: z's slot in its heap (the first
  // word), beside the key the heap compares. A policy uses one of the views.
  uint32_t& heap_slot(uint32_t z) const { return zones_[z].links.prev; }

  // Hints the CPU to fetch zone z's record (state, counts, times, links)
  // into the cache for writing. Reads nothing, so a caller may issue it
  // without the policy lock, as soon as it knows which zone it will update.
  void Prefetch(uint32_t z) const { __builtin_prefetch(&zones_[z], 1, 3); }

  // Advances the logical clock by one tick.
  void Tick() { now_++; }
  // Sets the clock (tests build states at chosen times).
  void SetNow(uint64_t now) { now_ = now; }
  void SetState(uint32_t z, FtlZoneState s) { zones_[z].state = s; }
  // A block was written into zone z.
  void AddValid(uint32_t z) {
    Record& r = zones_[z];
    r.valid++;
    r.last_modified = now_;
  }
  // A block of zone z became invalid. REQUIRES: valid(z) > 0.
  void RemoveValid(uint32_t z) {
    Record& r = zones_[z];
    r.valid--;
    r.last_modified = now_;
    r.invalidation_time_sum += now_;
  }
  // Zone z was reset: empty, free, modified now.
  void Reset(uint32_t z);

  // Bytes of memory held per zone by the table itself (its record less the
  // policy's link words, which the policy counts as its own).
  static constexpr uint64_t kBytesPerZone = 32 - sizeof(ZoneLinks);

 private:
  struct alignas(32) Record {
    uint64_t last_modified = 0;
    uint64_t invalidation_time_sum = 0;
    uint32_t valid = 0;
    FtlZoneState state = FtlZoneState::kFree;
    mutable ZoneLinks links;
  };
  static_assert(sizeof(Record) == 32, "two zone records per 64-byte cache line");
  static_assert(kBytesPerZone + sizeof(ZoneLinks) == sizeof(Record));

  const uint32_t blocks_per_zone_;
  uint64_t now_ = 0;
  std::vector<Record> zones_;
};

}  // namespace zonekv
