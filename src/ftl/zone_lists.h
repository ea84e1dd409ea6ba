// ZoneLists: one intrusive doubly linked list of zones per valid-block count
// (0..blocks_per_zone), the data structure of greedy and CCB, and
// ValidCountListsPolicy, the hooks the two share.
//
// Links live in two per-zone arrays (4 bytes each), heads and tails in two
// per-list arrays, so append, remove and "move to the tail of another list"
// are O(1) and the memory is 8 bytes per zone plus 8 bytes per list, as in
// the paper. A zone is in at most one list.
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
  uint32_t Head(uint32_t i) const { return head_[i]; }
  uint32_t Next(uint32_t z) const { return next_[z]; }
  uint64_t MemoryBytes() const;

 private:
  std::vector<uint32_t> prev_, next_;
  std::vector<uint32_t> head_, tail_;
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
