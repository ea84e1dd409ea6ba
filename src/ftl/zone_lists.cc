#include "zone_lists.h"

namespace zonekv {

ZoneLists::ZoneLists(uint32_t nr_zones, uint32_t nr_lists)
    : prev_(nr_zones, kNil), next_(nr_zones, kNil), head_(nr_lists, kNil), tail_(nr_lists, kNil) {}

void ZoneLists::Append(uint32_t i, uint32_t z) {
  prev_[z] = tail_[i];
  next_[z] = kNil;
  if (tail_[i] == kNil) {
    head_[i] = z;
  } else {
    next_[tail_[i]] = z;
  }
  tail_[i] = z;
}

void ZoneLists::Remove(uint32_t i, uint32_t z) {
  if (prev_[z] == kNil) {
    head_[i] = next_[z];
  } else {
    next_[prev_[z]] = next_[z];
  }
  if (next_[z] == kNil) {
    tail_[i] = prev_[z];
  } else {
    prev_[next_[z]] = prev_[z];
  }
  prev_[z] = next_[z] = kNil;
}

uint64_t ZoneLists::MemoryBytes() const {
  return (prev_.capacity() + next_.capacity() + head_.capacity() + tail_.capacity()) * sizeof(uint32_t);
}

}  // namespace zonekv
