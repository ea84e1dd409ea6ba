// ZoneLists: one intrusive doubly linked list of zones per valid-block count
// (0..blocks_per_zone), the data structure of greedy and CCB.
//
// Links live in two per-zone arrays (4 bytes each), heads and tails in two
// per-list arrays, so append, remove and "move to the tail of another list"
// are O(1) and the memory is 8 bytes per zone plus 8 bytes per list, as in
// the paper. A zone is in at most one list.
#pragma once

#include <cstdint>
#include <vector>

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

}  // namespace zonekv
