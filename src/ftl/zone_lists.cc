#include "zone_lists.h"

namespace zonekv {

ZoneLists::ZoneLists(uint32_t nr_zones, uint32_t nr_lists) : links_(nr_zones), ends_(nr_lists) {}

void ZoneLists::Append(uint32_t i, uint32_t z) {
  Ends& e = ends_[i];
  links_[z].prev = e.tail;
  links_[z].next = kNil;
  if (e.tail == kNil) {
    e.head = z;
  } else {
    links_[e.tail].next = z;
  }
  e.tail = z;
}

void ZoneLists::Remove(uint32_t i, uint32_t z) {
  Ends& e = ends_[i];
  const Links l = links_[z];
  if (l.prev == kNil) {
    e.head = l.next;
  } else {
    links_[l.prev].next = l.next;
  }
  if (l.next == kNil) {
    e.tail = l.prev;
  } else {
    links_[l.next].prev = l.prev;
  }
  links_[z] = Links{};
}

uint64_t ZoneLists::MemoryBytes() const {
  return links_.capacity() * sizeof(Links) + ends_.capacity() * sizeof(Ends);
}

}  // namespace zonekv
