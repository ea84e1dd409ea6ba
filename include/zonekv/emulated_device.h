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
//   - timing (TimingOptions): a ZNS SSD model with a controller stage, a
//     per-zone write buffer and dies x channels; callers block, outside any
//     lock, until the modelled completion time of their command.
//   - FINISH (FinishModel): free, or pad the rest of the zone with dummy
//     bytes that count as device writes (device-level write amplification).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zonekv/mutex.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

class DeviceBacking;  // src/device/backing.h
class TimingModel;    // src/device/timing_model.h
struct PersistedZone;  // src/device/backing.h

enum class FinishModel : uint8_t {
  kFree,  // Finish only moves the write pointer (QEMU, FEMU, ConfZNS)
  kPad,   // Finish programs dummy data up to capacity (ConfZNS++, the ZN540);
          // counted in DeviceCounters::finish_pad_bytes and charged program
          // time. A zone finished while empty is not padded.
};

// How a zone reset is charged (see TimingOptions).
enum class ResetModel : uint8_t {
  kBlocks,  // erase_us per erase block; a die erases its blocks of the zone
            // one after another, the zone's dies work in parallel
  kCurve,   // a piecewise-linear function of the written bytes (measured)
};

// The timing model of a ZNS SSD (docs/device-timing.md describes it and
// gives the sources of every profile). Three stages:
//  1. Controller and host interface, shared by the whole device: every
//     command occupies the controller for write_cmd_us / read_cmd_us
//     (exponentially distributed around that mean with `jitter`); then a
//     write's payload crosses the host link (link_mb_s) and a fixed latency
//     follows (write_lat_us). Independently, all writes share a sustained
//     bandwidth write_mb_s, and all reads read_mb_s.
//  2. A per-zone write buffer of wb_units one-shot program units of
//     unit_bytes. With early_completion a write completes once its bytes are
//     in the buffer, else once the units it filled are programmed. A full
//     unit is transferred over its channel (xfer_us per page) and programmed
//     on its die (program_us); its buffer slot frees when the program ends,
//     and a write that needs a slot while all are taken waits. Reads of data
//     still in the buffer cost the interface only.
//  3. Flash: channels x dies with busy-until times. Zone z is striped over
//     zone_channels channels (channel group z % (channels / zone_channels))
//     and all their dies, unit by unit, channel first. A read senses every
//     touched page on its die (read_us), then transfers it over the channel.
// A reset erases on the zone's dies (ResetModel); a finish drains the
// buffer and, with FinishModel::kPad, programs padding through it. Flush
// drains every zone's buffer. Every duration is multiplied by time_scale.
struct TimingOptions {
  std::string profile = "none";  // the preset the values started from
  bool enabled = false;

  // Controller and host interface.
  double write_cmd_us = 0;  // controller time per write (limits write IOPS)
  double read_cmd_us = 0;   // controller time per read (limits read IOPS)
  bool jitter = false;      // controller times exponential around those means
  uint64_t seed = 1;        // of the jitter; the model is deterministic given it
  double link_mb_s = 0;     // host link rate in the latency of one write, MB/s (0 = instant)
  double write_lat_us = 0;  // fixed latency of a write after the controller stage
  double read_lat_us = 0;   // fixed latency of a read after its data is ready
  double append_us = 0;     // extra latency of a zone append over a write
  double mgmt_us = 0;       // open, close, and finish of an empty zone
  double write_mb_s = 0;    // sustained write bandwidth of the device, MB/s (0 = unlimited)
  double read_mb_s = 0;     // sustained read bandwidth of the device, MB/s (0 = unlimited)

  // Flash organisation and latencies.
  static constexpr uint64_t kMaxDies = 1 << 16;  // channels x dies, at most (Validate)
  uint32_t channels = 8;
  uint32_t dies = 2;                 // dies (LUNs, ways) per channel
  uint32_t zone_channels = 8;        // channels a zone is striped over; divides `channels`
  uint64_t page_size_bytes = 16384;  // read unit
  uint64_t unit_bytes = 16384;       // one-shot program unit, a multiple of the page
  double read_us = 65;               // page sense
  double program_us = 450;           // one unit
  double xfer_us = 25;               // one page over a channel
  uint32_t wb_units = 16;            // write buffer of each zone, in units
  bool early_completion = false;     // writes complete when buffered (else when programmed)

  // Reset.
  ResetModel reset = ResetModel::kBlocks;
  double erase_us = 2000;          // kBlocks: one erase block
  uint64_t erase_block_bytes = 0;  // kBlocks: 0 = a zone's share of a die is one block
  bool partial_reset = false;      // kBlocks: erase only the blocks that were written
  // kCurve: (written bytes, reset latency us) points with increasing bytes;
  // linear between them, extended beyond the last two.
  std::vector<std::pair<uint64_t, double>> reset_curve;

  double time_scale = 1.0;  // every modelled latency is multiplied by this (0.1 = 10x faster)

  // Sets *timing to the named profile (see ProfileNames) and *finish to the
  // finish model its device uses. InvalidArgument for an unknown name.
  static Status Profile(const std::string& name, TimingOptions* timing, FinishModel* finish);
  static const char* ProfileNames();  // "none, zn540, confzns, confznspp, cosmos"
  // InvalidArgument naming the key if the model is unusable with `g`.
  Status Validate(const DeviceGeometry& g) const;
  // Sustained sequential write bandwidth of the whole device, in bytes per
  // second of wall time (time_scale applied), with enough zones written at
  // once: the least of the controller, channel and die limits. 0 when the
  // model is off or time_scale is 0 (no limit).
  double SustainedWriteBandwidth() const;
  // The profile and every effective parameter.
  Json ToJson() const;
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

  // Each returns a zone error naming the zone; none changes state.
  // (Zone ids and alignment: DeviceGeometry::CheckZoneId, CheckAligned.)
  // A zone command that changes the write pointer (finish, reset) is refused
  // on offline and read-only media; `verb` completes "cannot be ...".
  // REQUIRES: mu_ held.
  Status CheckWritableMediaLocked(uint32_t zone, const char* verb) const ZONEKV_REQUIRES(mu_);
  // Makes `zone` writable (implicit open), applying limits and auto-close.
  // REQUIRES: mu_ held.
  Status OpenForWriteLocked(uint32_t zone, bool explicit_open) ZONEKV_REQUIRES(mu_);
  // Moves zone z to `to`, keeping the open/active counts and the implicit
  // open list in step. REQUIRES: mu_ held.
  void TransitionLocked(uint32_t zone, ZoneState to) ZONEKV_REQUIRES(mu_);
  // Writes at the zone's write pointer; *done is the modelled completion
  // time (0 without timing), to wait for once the locks are released.
  // REQUIRES: zone_mu_[zone] held.
  Status WriteAtWp(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes, bool append,
                   int64_t* done) ZONEKV_REQUIRES(zone_mu_[zone]) ZONEKV_EXCLUDES(mu_);
  // The state change of CloseZone (takes mu_).
  Status ApplyClose(uint32_t zone) ZONEKV_EXCLUDES(mu_);
  // Persists the zone table entry of `zone` as it would be after a power
  // cycle. REQUIRES: zone_mu_[zone] held.
  Status PersistZone(uint32_t zone, ZoneState state, uint64_t wp_bytes, uint64_t reset_count)
      ZONEKV_REQUIRES(zone_mu_[zone]);
  // Blocks until `done_ns` (steady clock) and records the wait.
  void WaitUntil(int64_t done_ns) ZONEKV_EXCLUDES(mu_);

  // Set by the constructor, then only read. The backing and the timing
  // model serialize themselves (zone_mu_ for a zone's data and table entry).
  EmulatedDeviceOptions options_;
  std::unique_ptr<DeviceBacking> backing_;
  std::unique_ptr<TimingModel> timing_;  // null when timing is off
  int64_t opened_ns_ = 0;                // steady clock when the device was opened
  // zone_mu_[z] serializes commands that move zone z's write pointer or
  // persisted state. Lock order: zone_mu_[z], then mu_ (the analysis cannot
  // name an array's elements in a lock order; no code takes a zone_mu_
  // while holding mu_).
  std::unique_ptr<Mutex[]> zone_mu_;
  mutable Mutex mu_;
  std::vector<Zone> zones_ ZONEKV_GUARDED_BY(mu_);
  std::list<uint32_t> implicit_open_ ZONEKV_GUARDED_BY(mu_);  // oldest first
  uint32_t nr_open_ ZONEKV_GUARDED_BY(mu_) = 0;
  uint32_t nr_active_ ZONEKV_GUARDED_BY(mu_) = 0;
  DeviceCounters counters_ ZONEKV_GUARDED_BY(mu_);
};

// Parses the key=value list of a `ram:` / `meta:` spec (see OpenDevice) into
// *options. Unknown keys and bad values are InvalidArgument naming the key.
// With `runtime_only` (specs of image files), geometry keys are rejected.
Status ParseEmulatedOptions(const std::string& keys, bool runtime_only, EmulatedDeviceOptions* options);

}  // namespace zonekv
