// ZoneTable: the FTL's per-zone metadata, which victim policies read.
//
// For every zone: its FTL state, its number of valid 4 KiB blocks, the
// logical time of its last modification (a block written into it or one of
// its blocks invalidated) and the sum of the invalidation times of its
// invalid blocks (for FeGC's per-block ages). Time is the FTL's logical
// clock: the number of user block writes so far.
//
// Not thread-safe: the FTL mutates it under its policy lock, policies read it from
// their hooks, which run under the same lock.
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

class ZoneTable {
 public:
  ZoneTable(uint32_t nr_zones, uint32_t blocks_per_zone);

  uint32_t nr_zones() const { return static_cast<uint32_t>(valid_.size()); }
  uint32_t blocks_per_zone() const { return blocks_per_zone_; }
  uint64_t now() const { return now_; }

  FtlZoneState state(uint32_t z) const { return state_[z]; }
  uint32_t valid(uint32_t z) const { return valid_[z]; }
  // Blocks written and since invalidated. Meaningful for full zones.
  uint32_t invalid(uint32_t z) const { return blocks_per_zone_ - valid_[z]; }
  uint64_t last_modified(uint32_t z) const { return last_modified_[z]; }
  // now - last_modified(z), the cost-benefit age.
  uint64_t age(uint32_t z) const { return now_ - last_modified_[z]; }
  // Sum over the zone's invalid blocks of their invalidation times.
  uint64_t invalidation_time_sum(uint32_t z) const { return invalidation_time_sum_[z]; }

  // Advances the logical clock by one tick.
  void Tick() { now_++; }
  // Sets the clock (tests build states at chosen times).
  void SetNow(uint64_t now) { now_ = now; }
  void SetState(uint32_t z, FtlZoneState s) { state_[z] = s; }
  // A block was written into zone z.
  void AddValid(uint32_t z) {
    valid_[z]++;
    last_modified_[z] = now_;
  }
  // A block of zone z became invalid. REQUIRES: valid(z) > 0.
  void RemoveValid(uint32_t z) {
    valid_[z]--;
    last_modified_[z] = now_;
    invalidation_time_sum_[z] += now_;
  }
  // Zone z was reset: empty, free, modified now.
  void Reset(uint32_t z);

  // Bytes of memory held per zone.
  static constexpr uint64_t kBytesPerZone =
      sizeof(FtlZoneState) + sizeof(uint32_t) + 2 * sizeof(uint64_t);

 private:
  uint32_t blocks_per_zone_;
  uint64_t now_ = 0;
  std::vector<FtlZoneState> state_;
  std::vector<uint32_t> valid_;
  std::vector<uint64_t> last_modified_;
  std::vector<uint64_t> invalidation_time_sum_;
};

}  // namespace zonekv
