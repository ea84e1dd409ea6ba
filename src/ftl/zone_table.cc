#include "zone_table.h"

namespace zonekv {

ZoneTable::ZoneTable(uint32_t nr_zones, uint32_t blocks_per_zone)
    : blocks_per_zone_(blocks_per_zone),
      state_(nr_zones, FtlZoneState::kFree),
      valid_(nr_zones, 0),
      last_modified_(nr_zones, 0),
      invalidation_time_sum_(nr_zones, 0) {}

void ZoneTable::Reset(uint32_t z) {
  state_[z] = FtlZoneState::kFree;
  valid_[z] = 0;
  last_modified_[z] = now_;
  invalidation_time_sum_[z] = 0;
}

}  // namespace zonekv
