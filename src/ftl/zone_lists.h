// ZoneLists: one intrusive doubly linked list of zones per valid-block count
// (0..blocks_per_zone), the data structure of greedy and CCB, and
// ValidCountListsPolicy, the hooks the two share.
//
// A zone's two links are the policy's link words of its ZoneTable record,
// beside its valid count and times (one cache line touched per zone, the one
// the FTL's table update has just touched), and a list's head and tail sit
// side by side, so append, remove and "move to the tail of another list" are
// O(1) and touch the zone, its two neighbours and the new list's tail, as in
// the paper. A zone is in at most one list.
//
// Each list also caches its head's last_modified time (16 bytes per list in
// all), so a selection that scores every list head (CCB) reads one small
// array instead of one zone record per list. The cache is exact as long as a
// zone's last_modified does not change while it is in a list, which holds
// for ValidCountListsPolicy under the FTL: only invalidations change a full
// zone's time, and each one moves the zone (Remove, then Append) after the
// table update.
#pragma once

#include <cstdint>
#include <vector>

#include "victim_policy.h"
#include "zone_table.h"

namespace zonekv {

class ZoneLists {
 public:
  static constexpr uint32_t kNil = ZoneLinks::kNil;

  // Keeps its links in `zones`' link words, which it then owns.
  ZoneLists(const ZoneTable* zones, uint32_t nr_lists);

  // Appends z at the tail of list i. REQUIRES: z is in no list.
  void Append(uint32_t i, uint32_t z);
  // Removes z from list i. REQUIRES: z is in list i.
  void Remove(uint32_t i, uint32_t z);
  uint32_t Head(uint32_t i) const { return ends_[i].head; }
  // last_modified of Head(i) when it entered the list or became its head.
  // REQUIRES: Head(i) != kNil.
  uint64_t HeadTime(uint32_t i) const { return ends_[i].head_time; }
  uint32_t Next(uint32_t z) const { return zones_->links(z).next; }
  // The lists' own bytes plus the zones' link words they use.
  uint64_t MemoryBytes() const;

 private:
  struct Ends {
    uint32_t head = kNil, tail = kNil;
    uint64_t head_time = 0;  // last_modified of head
  };
  const ZoneTable* const zones_;
  std::vector<Ends> ends_;  // per list
};

// A victim policy whose candidates sit in lists_, one list per valid-block
// count: a zone enters the tail of list[valid] when it becomes full and
// moves to the tail of list[valid - 1] on every invalidation, so each list
// is ordered by the time of its zones' last invalidation, oldest at the
// head. Every hook is O(1); a subclass picks among the list heads in
// SelectVictim (and removes its pick from its list).
class ValidCountListsPolicy : public VictimPolicy {
 public:
  explicit ValidCountListsPolicy(const ZoneTable* zones)
      : VictimPolicy(zones), lists_(zones, zones->blocks_per_zone() + 1) {}

  void OnZoneFull(uint32_t z) final { lists_.Append(zones_->valid(z), z); }
  void OnInvalidate(uint32_t z, uint32_t old_valid) final {
    lists_.Remove(old_valid, z);
    lists_.Append(old_valid - 1, z);
  }
  uint64_t MemoryBytes() const final { return lists_.MemoryBytes(); }

 protected:
  ZoneLists lists_;
};

}  // namespace zonekv
