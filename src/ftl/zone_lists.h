// ZoneLists: one intrusive doubly linked list of zones per valid-block count
// (0..blocks_per_zone), the data structure of greedy and CCB, and
// ValidCountListsPolicy, the hooks the two share.
//
// A zone's two links sit side by side (8 bytes per zone, one cache line
// touched per zone), as do a list's head and tail (8 bytes per list), so
// append, remove and "move to the tail of another list" are O(1) and touch
// the zone, its two neighbours and the new list's tail, as in the paper. A
// zone is in at most one list.
#pragma once

#include <cstdint>
#include <vector>

#include "victim_policy.h"

namespace zonekv {

class ZoneLists {
 public:
  static constexpr uint32_t kNil = 0xffffffffu;

  ZoneLists(uint32_t nr_zones, uint32_t nr_lists);

  // Appends z at the tail of list i. REQUIRES: z is in no list.
  void Append(uint32_t i, uint32_t z);
  // Removes z from list i. REQUIRES: z is in list i.
  void Remove(uint32_t i, uint32_t z);
  uint32_t Head(uint32_t i) const { return ends_[i].head; }
  uint32_t Next(uint32_t z) const { return links_[z].next; }
  uint64_t MemoryBytes() const;

 private:
  struct Links {
    uint32_t prev = kNil, next = kNil;
  };
  struct Ends {
    uint32_t head = kNil, tail = kNil;
  };
  std::vector<Links> links_;  // per zone
  std::vector<Ends> ends_;    // per list
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
      : VictimPolicy(zones), lists_(zones->nr_zones(), zones->blocks_per_zone() + 1) {}

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
