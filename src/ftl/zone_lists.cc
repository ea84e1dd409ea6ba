#include "zone_lists.h"

namespace zonekv {

ZoneLists::ZoneLists(const ZoneTable* zones, uint32_t nr_lists) : zones_(zones), ends_(nr_lists) {
  for (uint32_t z = 0; z < zones->nr_zones(); z++) zones->links(z) = ZoneLinks{};
}

void ZoneLists::Append(uint32_t i, uint32_t z) {
  Ends& e = ends_[i];
  ZoneLinks& l = zones_->links(z);
  l.prev = e.tail;
  l.next = kNil;
  if (e.tail == kNil) {
    e.head = z;
    e.head_time = zones_->last_modified(z);
  } else {
    zones_->links(e.tail).next = z;
  }
  e.tail = z;
}

void ZoneLists::Remove(uint32_t i, uint32_t z) {
  Ends& e = ends_[i];
  ZoneLinks& links = zones_->links(z);
  const ZoneLinks l = links;
  if (l.prev == kNil) {
    e.head = l.next;
    if (l.next != kNil) e.head_time = zones_->last_modified(l.next);
  } else {
    zones_->links(l.prev).next = l.next;
  }
  if (l.next == kNil) {
    e.tail = l.prev;
  } else {
    zones_->links(l.next).prev = l.prev;
  }
  links = ZoneLinks{};
}

uint64_t ZoneLists::MemoryBytes() const {
  return uint64_t{zones_->nr_zones()} * sizeof(ZoneLinks) + ends_.capacity() * sizeof(Ends);
}

}  // namespace zonekv
