#include "zone_table.h"

namespace zonekv {

ZoneTable::ZoneTable(uint32_t nr_zones, uint32_t blocks_per_zone)
    : blocks_per_zone_(blocks_per_zone), zones_(nr_zones) {}

void ZoneTable::Reset(uint32_t z) {
  Record& r = zones_[z];
  r.state = FtlZoneState::kFree;
  r.valid = 0;
  r.last_modified = now_;
  r.invalidation_time_sum = 0;
}

}  // namespace zonekv
