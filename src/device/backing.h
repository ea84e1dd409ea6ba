// DeviceBacking: where an EmulatedDevice keeps zone payload and, for image
// files, the persisted zone table. Internal to the device layer.
//
// Offsets are zone-relative bytes within [0, zone capacity). The device
// guarantees that callers never touch the same zone concurrently except for
// reads, and never expose bytes at or past a zone's write pointer, so a
// backing may hold stale bytes there.
#pragma once

#include <cstdint>
#include <string>

#include "zonekv/status.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

// One zone table entry as persisted (image backing only).
struct PersistedZone {
  ZoneState state = ZoneState::kEmpty;  // never an open state
  uint64_t wp_offset_bytes = 0;         // zone-relative write pointer
  uint64_t reset_count = 0;
};

class DeviceBacking {
 public:
  virtual ~DeviceBacking() = default;

  // "ram", "meta" or "file:PATH".
  virtual std::string name() const = 0;
  virtual Status Read(uint32_t zone, uint64_t offset_bytes, size_t n_bytes, char* buf) = 0;
  virtual Status Write(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes) = 0;
  // Makes [offset, offset + n) of the zone read as zeros (FINISH padding).
  virtual Status Zero(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes) = 0;
  // The zone was reset: its payload may be dropped.
  virtual Status Discard(uint32_t zone) = 0;
  // Records a zone table entry durably enough to survive kill -9. Called
  // only after the data below the new write pointer has been written.
  virtual Status PersistZone(uint32_t zone, const PersistedZone& entry) = 0;
  // Makes everything written so far survive a power loss.
  virtual Status Sync() = 0;
};

}  // namespace zonekv
