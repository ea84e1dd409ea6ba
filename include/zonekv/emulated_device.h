// EmulatedDevice: a ZNS SSD in user space.
//
// Implements the full ZonedDevice contract (zone state machine, open/active
// limits, auto-close, zone append) over one of three backings:
//   - RAM: payload in anonymous memory; pages are only allocated when
//     first written.
//   - metadata-only: no payload at all (reads return zeros), so a device of
//     terabytes fits in memory for FTL scaling runs.
//   - image file: a header, a zone table and a data region in one sparse
//     file (layout in src/device/image_format.h). Data is written before the
//     persisted write pointer moves, so a crash (kill -9) never exposes bytes
//     past a write pointer and every acknowledged write survives. Flush() is
//     fdatasync. The image is locked (flock) while open.
//
// Optional models:
//   - timing (TimingOptions): a ConfZNS-like flash model; callers block
//     until the modelled completion time of their command.
//   - FINISH (FinishModel): free, or pad the rest of the zone with dummy
//     bytes that count as device writes (device-level write amplification).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "zonekv/zoned_device.h"

namespace zonekv {

class DeviceBacking;  // src/device/backing.h
class TimingModel;    // src/device/timing_model.h
struct PersistedZone;  // src/device/backing.h

// A ConfZNS-style flash timing model. Zone z is striped over
// `zone_channels` channels (channel group z % (channels / zone_channels));
// inside a zone, flash pages are interleaved channel first, then die, then
// plane. A write transfers each page over its channel, then programs it on
// its plane when the page is complete; a read senses the page on its plane,
// then transfers it. Every channel and every plane has a busy-until time.
struct TimingOptions {
  bool enabled = false;           // `timing=none` (false) or `timing=confzns`
  uint32_t channels = 8;
  uint32_t dies = 2;              // dies (ways) per channel
  uint32_t planes = 1;            // planes per die
  uint64_t page_size_bytes = 16384;
  double read_us = 65;            // page sense
  double program_us = 450;        // page program
  double xfer_us = 25;            // one full page over a channel
  double erase_us = 2000;         // block erase (charged on every plane of a zone by Reset)
  uint32_t zone_channels = 8;     // channels one zone is striped over; divides `channels`
  double time_scale = 1.0;        // every modelled latency is multiplied by this (0.1 = 10x faster)

  // The ConfZNS preset (65 us read, 450 us program, 25 us transfer, 2 ms
  // erase, 8 channels x 2 dies, 16 KiB pages), enabled.
  static TimingOptions ConfZns();
  // InvalidArgument naming the key if the model is unusable with `g`.
  Status Validate(const DeviceGeometry& g) const;
  // Sequential write / read bandwidth of one zone in bytes per second of
  // wall time (time_scale applied), when its planes are kept busy.
  double ZoneWriteBandwidth() const;
  double ZoneReadBandwidth() const;
  // Latency of one page-sized read on an idle device, in wall microseconds.
  double IdlePageReadUs() const;
  // Modelled latency in wall microseconds of one write or read of `n_bytes`
  // at the start of a zone of `g` on an idle device.
  double IdleCommandUs(const DeviceGeometry& g, bool write, uint64_t n_bytes) const;
  Json ToJson() const;
};

enum class FinishModel : uint8_t {
  kFree,  // Finish only moves the write pointer (QEMU, FEMU, ConfZNS)
  kPad,   // Finish programs dummy data up to capacity (ConfZNS++); counted in
          // DeviceCounters::finish_pad_bytes and charged program time. A
          // zone finished while empty is not padded.
};

struct EmulatedDeviceOptions {
  DeviceGeometry geometry;
  bool auto_close = true;  // close the oldest implicitly opened zone when the open limit is hit
  FinishModel finish = FinishModel::kFree;
  TimingOptions timing;
};

class EmulatedDevice final : public ZonedDevice {
 public:
  // RAM backing. InvalidArgument if the options are unusable.
  static Status OpenRam(const EmulatedDeviceOptions& options, std::unique_ptr<EmulatedDevice>* device);
  // Metadata-only backing: zones, limits, timing and counters, no payload.
  static Status OpenMetadataOnly(const EmulatedDeviceOptions& options,
                                 std::unique_ptr<EmulatedDevice>* device);
  // Creates a new image file with every zone empty. Fails with
  // InvalidArgument if `path` exists (unless `overwrite`) or the geometry is bad.
  static Status CreateImage(const std::string& path, const DeviceGeometry& geometry, bool overwrite);
  // Opens an image. The geometry comes from the image (options.geometry is
  // ignored); auto_close, finish and timing come from `options`. Zones that
  // were open when the image was last used come back closed (or empty if
  // nothing was written), as after a power cycle. Busy if another process
  // has the image open, Corruption naming the problem if the file is
  // truncated, damaged or not a zonekv image.
  static Status OpenImage(const std::string& path, const EmulatedDeviceOptions& options,
                          std::unique_ptr<EmulatedDevice>* device);

  ~EmulatedDevice() override;
  EmulatedDevice(const EmulatedDevice&) = delete;
  EmulatedDevice& operator=(const EmulatedDevice&) = delete;

  const DeviceGeometry& geometry() const override { return options_.geometry; }
  std::string name() const override;
  const EmulatedDeviceOptions& options() const { return options_; }

  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override;
  Status Read(uint64_t offset_bytes, size_t n_bytes, char* buf) override;
  Status Write(uint64_t offset_bytes, const char* data, size_t n_bytes) override;
  Status Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) override;
  Status OpenZone(uint32_t zone) override;
  Status CloseZone(uint32_t zone) override;
  Status FinishZone(uint32_t zone) override;
  Status ResetZone(uint32_t zone) override;
  Status Flush() override;
  DeviceCounters counters() const override;

  // Media failure injection: moves `zone` to kReadOnly or kOffline (other
  // states are InvalidArgument), releasing its open/active resources. A
  // read-only zone can be read but not written, finished or reset; an
  // offline zone rejects every I/O. Persisted by image backing.
  Status SetZoneCondition(uint32_t zone, ZoneState state);

 private:
  struct Zone;
  EmulatedDevice(const EmulatedDeviceOptions& options, std::unique_ptr<DeviceBacking> backing);
  // Builds a device whose zones start as `table` says (all empty if it is
  // empty). REQUIRES: options validated.
  static Status Make(const EmulatedDeviceOptions& options, std::unique_ptr<DeviceBacking> backing,
                     const std::vector<PersistedZone>& table, std::unique_ptr<EmulatedDevice>* device);

  // Each returns InvalidArgument / a zone error naming the zone; none changes state.
  Status CheckZoneId(uint32_t zone, const char* op) const;
  // Offset and length are block-aligned and the offset lies on the device.
  Status CheckAligned(uint64_t offset_bytes, uint64_t n_bytes, const char* op) const;
  // Makes `zone` writable (implicit open), applying limits and auto-close.
  // REQUIRES: mu_ held.
  Status OpenForWriteLocked(uint32_t zone, bool explicit_open);
  // Moves zone z to `to`, keeping the open/active counts and the implicit
  // open list in step. REQUIRES: mu_ held.
  void TransitionLocked(uint32_t zone, ZoneState to);
  // Writes at the zone's write pointer. REQUIRES: zone_mu_[zone] held.
  Status WriteAtWp(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes);
  // Persists the zone table entry of `zone` as it would be after a power
  // cycle. REQUIRES: zone_mu_[zone] held.
  Status PersistZone(uint32_t zone, ZoneState state, uint64_t wp_bytes, uint64_t reset_count);
  // Blocks until `done_ns` (steady clock) and records the wait.
  void WaitUntil(int64_t done_ns);

  EmulatedDeviceOptions options_;
  std::unique_ptr<DeviceBacking> backing_;
  std::unique_ptr<TimingModel> timing_;  // null when timing is off
  // zone_mu_[z] serializes commands that move zone z's write pointer or
  // persisted state. Lock order: zone_mu_[z], then mu_.
  std::unique_ptr<std::mutex[]> zone_mu_;
  mutable std::mutex mu_;
  std::vector<Zone> zones_;              // GUARDED_BY(mu_)
  std::list<uint32_t> implicit_open_;    // GUARDED_BY(mu_); oldest first
  uint32_t nr_open_ = 0;                 // GUARDED_BY(mu_)
  uint32_t nr_active_ = 0;               // GUARDED_BY(mu_)
  DeviceCounters counters_;              // GUARDED_BY(mu_)
};

// Parses the key=value list of a `ram:` / `meta:` spec (see OpenDevice) into
// *options. Unknown keys and bad values are InvalidArgument naming the key.
// With `runtime_only` (specs of image files), geometry keys are rejected.
Status ParseEmulatedOptions(const std::string& keys, bool runtime_only, EmulatedDeviceOptions* options);

}  // namespace zonekv
