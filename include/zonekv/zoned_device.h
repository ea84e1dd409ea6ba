// ZonedDevice: the seam between zonekv and a zoned namespace SSD.
//
// Everything above the device (the zoned file system, the host FTL, the
// benchmark runner) sees only this interface. Implementations: the emulated
// ZNS SSD (RAM, image file or metadata-only backing; see emulated_device.h),
// a fault-injection wrapper (fault_device.h) and, on Linux, a host-managed
// zoned block device.
//
// Semantics follow the NVMe ZNS command set:
//  - Zones are numbered 0..nr_zones-1; zone z starts at byte z * zone_size.
//  - Writable bytes are [start, start + capacity); capacity <= zone_size.
//    Reads at or past start + capacity fail with ZoneBoundary.
//  - Write() must start exactly at the zone's write pointer (else
//    ZoneInvalidWrite) and may not cross the capacity (ZoneBoundary).
//    Append() writes at the write pointer and returns where the data landed.
//  - Reads beyond the write pointer but within capacity return zeros
//    (data past a write pointer is never visible).
//  - Offsets and lengths are multiples of block_size (else InvalidArgument).
//  - Open/active limits: a write to an empty zone needs one active and one
//    open resource, a write to a closed zone one open resource. Exceeding a
//    limit fails with TooManyActive / TooManyOpen unless auto-close is on, in
//    which case the oldest implicitly opened zone is closed first.
//  - Close moves an open zone to Closed, even if nothing was written to it
//    (NVMe ZNS; ZBC would make it Empty): it stays active until finished
//    or reset.
//  - A zone whose write pointer reaches capacity becomes Full and releases
//    its resources. Finish moves the write pointer to capacity; Reset moves
//    it to the zone start and increments the zone's reset (wear) count.
//  - A rejected operation changes nothing.
//
// Thread safety: every method may be called concurrently. Writes to different
// zones proceed in parallel; the caller orders writes within one zone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

// Zone states with their NVMe ZNS "ZS" values (also Linux BLK_ZONE_COND_*).
// On disk as these values in emulated-device images (image_backing.cc).
enum class ZoneState : uint8_t {
  kEmpty = 0x1,
  kImplicitOpen = 0x2,
  kExplicitOpen = 0x3,
  kClosed = 0x4,
  kReadOnly = 0xD,
  kFull = 0xE,
  kOffline = 0xF,
};
const char* ZoneStateName(ZoneState s);  // "empty", "imp_open", ... as blkzone prints
inline bool IsOpen(ZoneState s) { return s == ZoneState::kImplicitOpen || s == ZoneState::kExplicitOpen; }
inline bool IsActive(ZoneState s) { return IsOpen(s) || s == ZoneState::kClosed; }

struct ZoneInfo {
  uint32_t id = 0;
  uint64_t start_bytes = 0;     // byte offset of the zone on the device
  uint64_t size_bytes = 0;      // zone size (address space)
  uint64_t capacity_bytes = 0;  // writable bytes, <= size_bytes
  uint64_t wp_bytes = 0;        // absolute byte offset of the write pointer
  ZoneState state = ZoneState::kEmpty;
  uint64_t reset_count = 0;     // wear: resets of this zone since format

  uint64_t written_bytes() const { return wp_bytes - start_bytes; }
  uint64_t remaining_bytes() const { return start_bytes + capacity_bytes - wp_bytes; }
};

struct DeviceGeometry {
  uint32_t block_size = 4096;        // bytes; unit of every I/O
  uint64_t zone_size_bytes = 0;
  uint64_t zone_capacity_bytes = 0;  // same for every zone
  uint32_t nr_zones = 0;
  uint32_t max_open_zones = 0;       // 0 = unlimited
  uint32_t max_active_zones = 0;     // 0 = unlimited

  uint64_t device_bytes() const { return zone_size_bytes * nr_zones; }
  uint64_t capacity_bytes() const { return zone_capacity_bytes * nr_zones; }
  // InvalidArgument naming the problem if the geometry is not usable.
  Status Validate() const;
  // InvalidArgument naming `op` unless zone is a zone of this geometry.
  Status CheckZoneId(uint32_t zone, const char* op) const;
  // InvalidArgument naming `op` unless offset and length are block multiples
  // and offset is inside the device (a device may check the end as well).
  Status CheckAligned(uint64_t offset_bytes, uint64_t n_bytes, const char* op) const;
  Json ToJson() const;
};

// Cumulative counters since the device object was created (image-backed
// devices also persist per-zone reset counts).
struct DeviceCounters {
  uint64_t host_read_bytes = 0;
  uint64_t host_write_bytes = 0;    // bytes written by Write/Append
  uint64_t finish_pad_bytes = 0;    // dummy bytes written by FINISH (model `pad`)
  uint64_t finishes = 0;            // explicit Finish commands that changed a zone
  uint64_t resets = 0;              // Reset commands that changed a zone
  uint64_t reads = 0, writes = 0;   // command counts
  uint64_t opens = 0, closes = 0, auto_closes = 0;
  uint64_t transitions = 0;         // zone state changes of any kind
  uint64_t busy_wait_us = 0;        // time callers spent blocked by the timing model
  // Timing model (all 0 when timing is off):
  uint32_t dies = 0;                // dies of the modelled flash
  uint64_t die_busy_us = 0;         // summed over dies: sense, program, erase (the four below)
  uint64_t die_program_us = 0;      // of it, programs of written data
  uint64_t die_pad_us = 0;          // programs of a FINISH's padding
  uint64_t die_read_us = 0;         // senses
  uint64_t die_erase_us = 0;        // erases (RESETs), on each of the zone's dies
  uint64_t elapsed_us = 0;          // wall time since the device was opened
  uint64_t buffer_waits = 0;        // writes that waited for a free write-buffer unit
  uint64_t buffer_wait_us = 0;      // modelled time those writes waited
  uint64_t buffer_reads = 0;        // reads served at least partly from the write buffer

  // (host + padding) / host; 1.0 when nothing was written.
  double dlwa() const;
  // Mean over dies of busy time / elapsed wall time; 0 without timing.
  double busy_ratio() const;
  Json ToJson() const;
};

class ZonedDevice {
 public:
  virtual ~ZonedDevice() = default;

  virtual const DeviceGeometry& geometry() const = 0;
  // A short description, e.g. "emulated:ram" or "zbd:/dev/nvme0n1".
  virtual std::string name() const = 0;

  // Appends the state of zones [first, first + count) to *zones (clamped to
  // the device). REQUIRES: zones != nullptr.
  virtual Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) = 0;

  virtual Status Read(uint64_t offset_bytes, size_t n_bytes, char* buf) = 0;
  virtual Status Write(uint64_t offset_bytes, const char* data, size_t n_bytes) = 0;
  virtual Status Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) = 0;

  virtual Status OpenZone(uint32_t zone) = 0;
  virtual Status CloseZone(uint32_t zone) = 0;
  virtual Status FinishZone(uint32_t zone) = 0;
  virtual Status ResetZone(uint32_t zone) = 0;

  // Makes every completed write durable (volatile write cache flush).
  virtual Status Flush() = 0;

  virtual DeviceCounters counters() const = 0;

  // Convenience: the state of one zone.
  Status ReportZone(uint32_t zone, ZoneInfo* info);
  uint32_t ZoneOf(uint64_t offset_bytes) const {
    return static_cast<uint32_t>(offset_bytes / geometry().zone_size_bytes);
  }
};

// Opens a device from a spec string (see `zonekv device --help`):
//   ram:zones=64,zone_size=64M[,zone_cap=..,block_size=..,max_open=..,max_active=..,
//       auto_close=0|1,timing=none|zn540|confzns|confznspp|cosmos,time_scale=..,
//       finish=free|pad, timing overrides; docs/device-timing.md]
//   meta:<same keys>                metadata-only backing (reads return zeros)
//   file:PATH                       an existing image created by `zonekv device create`
//   zbd:/dev/nvme0n1                a Linux host-managed zoned block device
// Unknown keys and bad values are InvalidArgument naming the key.
Status OpenDevice(const std::string& spec, std::unique_ptr<ZonedDevice>* device);

}  // namespace zonekv
