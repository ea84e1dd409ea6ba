#include "zonekv/emulated_device.h"

#include <algorithm>
#include <cstring>

#include "backing.h"
#include "ram_backing.h"
#include "timing_model.h"
#include "zonekv/mutex.h"

namespace zonekv {

struct EmulatedDevice::Zone {
  ZoneState state = ZoneState::kEmpty;
  uint64_t wp_bytes = 0;  // zone-relative write pointer
  uint64_t reset_count = 0;
  std::list<uint32_t>::iterator implicit_pos;  // valid while kImplicitOpen
};

namespace {

std::string ZoneName(uint32_t zone) { return "zone " + std::to_string(zone); }

// The state a zone comes back in after a power cycle.
ZoneState PersistedState(ZoneState s, uint64_t wp_bytes) {
  if (IsOpen(s)) return wp_bytes == 0 ? ZoneState::kEmpty : ZoneState::kClosed;
  return s;
}

}  // namespace

EmulatedDevice::EmulatedDevice(const EmulatedDeviceOptions& options, std::unique_ptr<DeviceBacking> backing)
    : options_(options),
      backing_(std::move(backing)),
      zone_mu_(new Mutex[options.geometry.nr_zones]),
      zones_(options.geometry.nr_zones) {
  if (options_.timing.enabled) timing_ = std::make_unique<TimingModel>(options_.timing, options_.geometry);
  opened_ns_ = TimingModel::NowNs();
}

EmulatedDevice::~EmulatedDevice() = default;

Status EmulatedDevice::Make(const EmulatedDeviceOptions& options, std::unique_ptr<DeviceBacking> backing,
                            const std::vector<PersistedZone>& table, std::unique_ptr<EmulatedDevice>* device) {
  std::unique_ptr<EmulatedDevice> d(new EmulatedDevice(options, std::move(backing)));
  const DeviceGeometry& g = options.geometry;
  {
    // Nobody else has the device yet; the lock keeps the contract uniform.
    MutexLock l(&d->mu_);
    for (uint32_t z = 0; z < table.size() && z < g.nr_zones; z++) {
      Zone& zn = d->zones_[z];
      zn.state = table[z].state;
      zn.wp_bytes = table[z].wp_offset_bytes;
      zn.reset_count = table[z].reset_count;
      if (IsActive(zn.state)) d->nr_active_++;
    }
    if (g.max_active_zones != 0 && d->nr_active_ > g.max_active_zones) {
      return Status::Corruption(std::to_string(d->nr_active_) + " zones are closed but max_active is " +
                                std::to_string(g.max_active_zones));
    }
  }
  *device = std::move(d);
  return Status::OK();
}

Status EmulatedDevice::OpenRam(const EmulatedDeviceOptions& options, std::unique_ptr<EmulatedDevice>* device) {
  ZONEKV_RETURN_IF_ERROR(options.geometry.Validate());
  ZONEKV_RETURN_IF_ERROR(options.timing.Validate(options.geometry));
  std::unique_ptr<DeviceBacking> backing;
  ZONEKV_RETURN_IF_ERROR(NewRamBacking(options.geometry, &backing));
  return Make(options, std::move(backing), {}, device);
}

Status EmulatedDevice::OpenMetadataOnly(const EmulatedDeviceOptions& options,
                                        std::unique_ptr<EmulatedDevice>* device) {
  ZONEKV_RETURN_IF_ERROR(options.geometry.Validate());
  ZONEKV_RETURN_IF_ERROR(options.timing.Validate(options.geometry));
  return Make(options, NewMetadataOnlyBacking(), {}, device);
}

std::string EmulatedDevice::name() const { return "emulated:" + backing_->name(); }

void EmulatedDevice::TransitionLocked(uint32_t zone, ZoneState to) {
  Zone& zn = zones_[zone];
  const ZoneState from = zn.state;
  if (from == to) return;
  if (IsOpen(from)) nr_open_--;
  if (IsActive(from)) nr_active_--;
  if (from == ZoneState::kImplicitOpen) implicit_open_.erase(zn.implicit_pos);
  if (IsOpen(to)) nr_open_++;
  if (IsActive(to)) nr_active_++;
  if (to == ZoneState::kImplicitOpen) zn.implicit_pos = implicit_open_.insert(implicit_open_.end(), zone);
  if (IsOpen(to) && !IsOpen(from)) counters_.opens++;
  counters_.transitions++;
  zn.state = to;
}

Status EmulatedDevice::OpenForWriteLocked(uint32_t zone, bool explicit_open) {
  const DeviceGeometry& g = options_.geometry;
  const ZoneState target = explicit_open ? ZoneState::kExplicitOpen : ZoneState::kImplicitOpen;
  switch (zones_[zone].state) {
    case ZoneState::kExplicitOpen:
      return Status::OK();
    case ZoneState::kImplicitOpen:
      TransitionLocked(zone, target);
      return Status::OK();
    case ZoneState::kFull:
      if (explicit_open) {
        return Status::Zone(Status::Code::kInvalidTransition,
                            ZoneName(zone) + " is full and cannot be opened; reset it first");
      }
      return Status::Zone(Status::Code::kZoneFull, ZoneName(zone) + " is full; reset it before writing");
    case ZoneState::kReadOnly:
      if (explicit_open) {
        return Status::Zone(Status::Code::kInvalidTransition, ZoneName(zone) + " is read-only and cannot be opened");
      }
      return Status::Zone(Status::Code::kZoneReadOnly, ZoneName(zone) + " is read-only");
    case ZoneState::kOffline:
      return Status::Zone(Status::Code::kZoneOffline, ZoneName(zone) + " is offline");
    case ZoneState::kEmpty:
    case ZoneState::kClosed:
      break;
  }
  const bool needs_active = zones_[zone].state == ZoneState::kEmpty;
  if (needs_active && g.max_active_zones != 0 && nr_active_ >= g.max_active_zones) {
    return Status::Zone(Status::Code::kTooManyActive,
                        ZoneName(zone) + ": opening it would exceed max_active " +
                            std::to_string(g.max_active_zones) + " (finish or reset an active zone first)");
  }
  if (g.max_open_zones != 0 && nr_open_ >= g.max_open_zones) {
    if (!options_.auto_close || implicit_open_.empty()) {
      return Status::Zone(Status::Code::kTooManyOpen,
                          ZoneName(zone) + ": opening it would exceed max_open " + std::to_string(g.max_open_zones) +
                              (options_.auto_close ? " and no zone is implicitly open to auto-close"
                                                   : " (auto_close is off; close a zone first)"));
    }
    TransitionLocked(implicit_open_.front(), ZoneState::kClosed);
    counters_.auto_closes++;
  }
  TransitionLocked(zone, target);
  return Status::OK();
}

Status EmulatedDevice::PersistZone(uint32_t zone, ZoneState state, uint64_t wp_bytes, uint64_t reset_count) {
  PersistedZone e;
  e.state = PersistedState(state, wp_bytes);
  e.wp_offset_bytes = wp_bytes;
  e.reset_count = reset_count;
  return backing_->PersistZone(zone, e);
}

void EmulatedDevice::WaitUntil(int64_t done_ns) {
  if (done_ns == 0) return;
  int64_t blocked = TimingModel::SleepUntil(done_ns);
  if (blocked <= 0) return;
  MutexLock l(&mu_);
  counters_.busy_wait_us += static_cast<uint64_t>(blocked / 1000);
}

Status EmulatedDevice::ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) {
  const DeviceGeometry& g = options_.geometry;
  MutexLock l(&mu_);
  uint64_t end = std::min<uint64_t>(uint64_t{first} + count, g.nr_zones);
  for (uint64_t z = first; z < end; z++) {
    const Zone& zn = zones_[z];
    ZoneInfo info;
    info.id = static_cast<uint32_t>(z);
    info.start_bytes = z * g.zone_size_bytes;
    info.size_bytes = g.zone_size_bytes;
    info.capacity_bytes = g.zone_capacity_bytes;
    info.wp_bytes = info.start_bytes + zn.wp_bytes;
    info.state = zn.state;
    info.reset_count = zn.reset_count;
    zones->push_back(info);
  }
  return Status::OK();
}

Status EmulatedDevice::Read(uint64_t offset_bytes, size_t n_bytes, char* buf) {
  if (n_bytes == 0) return Status::OK();
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckAligned(offset_bytes, n_bytes, "read"));
  const DeviceGeometry& g = options_.geometry;
  const uint64_t end = offset_bytes + n_bytes;
  if (n_bytes > g.device_bytes() - offset_bytes) {
    return Status::InvalidArgument("read of " + std::to_string(n_bytes) + " bytes at offset " +
                                   std::to_string(offset_bytes) + " extends past the end of the device (" +
                                   std::to_string(g.device_bytes()) + " bytes)");
  }
  // Validate every zone the read touches before copying anything.
  {
    MutexLock l(&mu_);
    for (uint64_t off = offset_bytes; off < end;) {
      uint32_t z = ZoneOf(off);
      uint64_t rel = off - uint64_t{z} * g.zone_size_bytes;
      uint64_t chunk = std::min(end - off, g.zone_size_bytes - rel);
      if (rel + chunk > g.zone_capacity_bytes) {
        return Status::Zone(Status::Code::kZoneBoundary,
                            ZoneName(z) + ": read of " + std::to_string(n_bytes) + " bytes at offset " +
                                std::to_string(offset_bytes) + " reaches past the zone capacity (" +
                                std::to_string(g.zone_capacity_bytes) + " bytes)");
      }
      if (zones_[z].state == ZoneState::kOffline) {
        return Status::Zone(Status::Code::kZoneOffline, ZoneName(z) + " is offline");
      }
      off += chunk;
    }
  }
  int64_t done = 0;
  for (uint64_t off = offset_bytes; off < end;) {
    uint32_t z = ZoneOf(off);
    uint64_t rel = off - uint64_t{z} * g.zone_size_bytes;
    uint64_t chunk = std::min(end - off, g.zone_size_bytes - rel);
    uint64_t wp;
    {
      MutexLock l(&mu_);
      wp = zones_[z].wp_bytes;
    }
    // The modelled flash time runs while the data is copied.
    if (timing_) done = std::max(done, timing_->Read(z, rel, chunk, wp, TimingModel::NowNs()));
    char* out = buf + (off - offset_bytes);
    uint64_t visible = wp > rel ? std::min(chunk, wp - rel) : 0;
    if (visible > 0) ZONEKV_RETURN_IF_ERROR(backing_->Read(z, rel, visible, out));
    std::memset(out + visible, 0, chunk - visible);
    off += chunk;
  }
  {
    MutexLock l(&mu_);
    counters_.reads++;
    counters_.host_read_bytes += n_bytes;
  }
  WaitUntil(done);
  return Status::OK();
}

Status EmulatedDevice::WriteAtWp(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes, bool append,
                                 int64_t* done) {
  const DeviceGeometry& g = options_.geometry;
  const uint64_t rel = offset_bytes - uint64_t{zone} * g.zone_size_bytes;
  uint64_t reset_count;
  {
    MutexLock l(&mu_);
    const Zone& zn = zones_[zone];
    if (zn.state == ZoneState::kOffline) {
      return Status::Zone(Status::Code::kZoneOffline, ZoneName(zone) + " is offline");
    }
    if (zn.state == ZoneState::kReadOnly) {
      return Status::Zone(Status::Code::kZoneReadOnly, ZoneName(zone) + " is read-only");
    }
    if (zn.state == ZoneState::kFull) {
      return Status::Zone(Status::Code::kZoneFull, ZoneName(zone) + " is full; reset it before writing");
    }
    if (rel != zn.wp_bytes) {
      return Status::Zone(Status::Code::kZoneInvalidWrite,
                          ZoneName(zone) + ": write at offset " + std::to_string(offset_bytes) +
                              " is not at the write pointer " +
                              std::to_string(uint64_t{zone} * g.zone_size_bytes + zn.wp_bytes));
    }
    if (rel + n_bytes > g.zone_capacity_bytes) {
      return Status::Zone(Status::Code::kZoneBoundary,
                          ZoneName(zone) + ": write of " + std::to_string(n_bytes) + " bytes at offset " +
                              std::to_string(offset_bytes) + " crosses the zone capacity (" +
                              std::to_string(g.zone_capacity_bytes - rel) + " bytes left)");
    }
    ZONEKV_RETURN_IF_ERROR(OpenForWriteLocked(zone, false));
    reset_count = zn.reset_count;
    if (timing_) *done = timing_->Write(zone, rel, n_bytes, append, TimingModel::NowNs());
  }
  // Data first, then the write pointer: nothing past a WP is ever visible.
  const uint64_t new_wp = rel + n_bytes;
  const ZoneState new_state = new_wp == g.zone_capacity_bytes ? ZoneState::kFull : ZoneState::kClosed;
  ZONEKV_RETURN_IF_ERROR(backing_->Write(zone, rel, data, n_bytes));
  ZONEKV_RETURN_IF_ERROR(PersistZone(zone, new_state, new_wp, reset_count));
  {
    MutexLock l(&mu_);
    zones_[zone].wp_bytes = new_wp;
    if (new_state == ZoneState::kFull) TransitionLocked(zone, ZoneState::kFull);
    counters_.writes++;
    counters_.host_write_bytes += n_bytes;
  }
  return Status::OK();
}

Status EmulatedDevice::Write(uint64_t offset_bytes, const char* data, size_t n_bytes) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckAligned(offset_bytes, n_bytes, "write"));
  if (n_bytes == 0) return Status::InvalidArgument("write at offset " + std::to_string(offset_bytes) + " has length 0");
  uint32_t zone = ZoneOf(offset_bytes);
  int64_t done = 0;
  {
    MutexLock zl(&zone_mu_[zone]);
    ZONEKV_RETURN_IF_ERROR(WriteAtWp(zone, offset_bytes, data, n_bytes, false, &done));
  }
  WaitUntil(done);
  return Status::OK();
}

Status EmulatedDevice::Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckZoneId(zone, "append"));
  const DeviceGeometry& g = options_.geometry;
  if (n_bytes == 0 || n_bytes % g.block_size != 0) {
    return Status::InvalidArgument("append of " + std::to_string(n_bytes) + " bytes to " + ZoneName(zone) +
                                   ": length must be a positive multiple of the block size " +
                                   std::to_string(g.block_size));
  }
  uint64_t at;
  int64_t done = 0;
  {
    MutexLock zl(&zone_mu_[zone]);
    {
      MutexLock l(&mu_);
      at = uint64_t{zone} * g.zone_size_bytes + zones_[zone].wp_bytes;
    }
    ZONEKV_RETURN_IF_ERROR(WriteAtWp(zone, at, data, n_bytes, true, &done));
  }
  *written_at_bytes = at;
  WaitUntil(done);
  return Status::OK();
}

Status EmulatedDevice::OpenZone(uint32_t zone) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckZoneId(zone, "open"));
  {
    MutexLock l(&mu_);
    ZONEKV_RETURN_IF_ERROR(OpenForWriteLocked(zone, true));
  }
  if (timing_) WaitUntil(timing_->Manage(TimingModel::NowNs()));
  return Status::OK();
}

Status EmulatedDevice::CloseZone(uint32_t zone) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckZoneId(zone, "close"));
  Status s = ApplyClose(zone);
  if (s.ok() && timing_) WaitUntil(timing_->Manage(TimingModel::NowNs()));
  return s;
}

Status EmulatedDevice::ApplyClose(uint32_t zone) {
  MutexLock l(&mu_);
  Zone& zn = zones_[zone];
  switch (zn.state) {
    case ZoneState::kImplicitOpen:
    case ZoneState::kExplicitOpen:
      // NVMe ZNS: an open zone closes to Closed even when nothing was written
      // (it keeps its active resource until reset or finished), as QEMU does.
      // ZBC/ZAC (SMR disks, null_blk) would make it Empty instead.
      TransitionLocked(zone, ZoneState::kClosed);
      counters_.closes++;
      return Status::OK();
    case ZoneState::kClosed:
      return Status::OK();
    case ZoneState::kOffline:
      return Status::Zone(Status::Code::kZoneOffline, ZoneName(zone) + " is offline");
    default:
      return Status::Zone(Status::Code::kInvalidTransition,
                          ZoneName(zone) + " is " + ZoneStateName(zn.state) + " and cannot be closed");
  }
}

Status EmulatedDevice::CheckWritableMediaLocked(uint32_t zone, const char* verb) const {
  switch (zones_[zone].state) {
    case ZoneState::kOffline:
      return Status::Zone(Status::Code::kZoneOffline, ZoneName(zone) + " is offline");
    case ZoneState::kReadOnly:
      return Status::Zone(Status::Code::kZoneReadOnly,
                          ZoneName(zone) + " is read-only and cannot be " + std::string(verb));
    default:
      return Status::OK();
  }
}

Status EmulatedDevice::FinishZone(uint32_t zone) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckZoneId(zone, "finish"));
  const DeviceGeometry& g = options_.geometry;
  int64_t done = 0;
  bool more = false;
  {
    MutexLock zl(&zone_mu_[zone]);
    uint64_t wp, reset_count, pad = 0;
    {
      MutexLock l(&mu_);
      const Zone& zn = zones_[zone];
      ZONEKV_RETURN_IF_ERROR(CheckWritableMediaLocked(zone, "finished"));
      if (zn.state == ZoneState::kFull) return Status::OK();
      wp = zn.wp_bytes;
      reset_count = zn.reset_count;
      if (options_.finish == FinishModel::kPad && wp > 0) pad = g.zone_capacity_bytes - wp;
    }
    if (wp < g.zone_capacity_bytes) ZONEKV_RETURN_IF_ERROR(backing_->Zero(zone, wp, g.zone_capacity_bytes - wp));
    ZONEKV_RETURN_IF_ERROR(PersistZone(zone, ZoneState::kFull, g.zone_capacity_bytes, reset_count));
    {
      MutexLock l(&mu_);
      TransitionLocked(zone, ZoneState::kFull);
      zones_[zone].wp_bytes = g.zone_capacity_bytes;
      counters_.finishes++;
      counters_.finish_pad_bytes += pad;
    }
    if (timing_) done = timing_->Finish(zone, wp, pad > 0, TimingModel::NowNs(), &more);
  }
  // The padding is booked step by step while the caller waits, so that it
  // interleaves with the other zones' commands.
  while (more) {
    WaitUntil(done);
    done = timing_->ContinueFinish(zone, TimingModel::NowNs(), &more);
  }
  WaitUntil(done);
  return Status::OK();
}

Status EmulatedDevice::ResetZone(uint32_t zone) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckZoneId(zone, "reset"));
  int64_t done = 0;
  {
    MutexLock zl(&zone_mu_[zone]);
    uint64_t reset_count;
    {
      MutexLock l(&mu_);
      const Zone& zn = zones_[zone];
      ZONEKV_RETURN_IF_ERROR(CheckWritableMediaLocked(zone, "reset"));
      if (zn.state == ZoneState::kEmpty) return Status::OK();
      reset_count = zn.reset_count + 1;
      // Erasing blocks that were never programmed costs nothing.
      if (timing_) done = timing_->Reset(zone, zn.wp_bytes, TimingModel::NowNs());
    }
    ZONEKV_RETURN_IF_ERROR(PersistZone(zone, ZoneState::kEmpty, 0, reset_count));
    ZONEKV_RETURN_IF_ERROR(backing_->Discard(zone));
    MutexLock l(&mu_);
    TransitionLocked(zone, ZoneState::kEmpty);
    zones_[zone].wp_bytes = 0;
    zones_[zone].reset_count = reset_count;
    counters_.resets++;
  }
  WaitUntil(done);
  return Status::OK();
}

Status EmulatedDevice::SetZoneCondition(uint32_t zone, ZoneState state) {
  ZONEKV_RETURN_IF_ERROR(options_.geometry.CheckZoneId(zone, "set condition"));
  if (state != ZoneState::kReadOnly && state != ZoneState::kOffline) {
    return Status::InvalidArgument(std::string("set condition of ") + ZoneName(zone) + ": '" +
                                   ZoneStateName(state) + "' is not read_only or offline");
  }
  MutexLock zl(&zone_mu_[zone]);
  uint64_t wp, reset_count;
  {
    MutexLock l(&mu_);
    wp = zones_[zone].wp_bytes;
    reset_count = zones_[zone].reset_count;
  }
  ZONEKV_RETURN_IF_ERROR(PersistZone(zone, state, wp, reset_count));
  MutexLock l(&mu_);
  TransitionLocked(zone, state);
  return Status::OK();
}

Status EmulatedDevice::Flush() {
  ZONEKV_RETURN_IF_ERROR(backing_->Sync());
  if (timing_) WaitUntil(timing_->Flush(TimingModel::NowNs()));
  return Status::OK();
}

DeviceCounters EmulatedDevice::counters() const {
  DeviceCounters c;
  {
    MutexLock l(&mu_);
    c = counters_;
  }
  if (timing_) {
    TimingModel::Stats st = timing_->stats();
    c.dies = st.dies;
    c.die_busy_us = static_cast<uint64_t>(st.die_busy_ns() / 1000);
    c.die_program_us = static_cast<uint64_t>(st.die_program_ns / 1000);
    c.die_pad_us = static_cast<uint64_t>(st.die_pad_ns / 1000);
    c.die_read_us = static_cast<uint64_t>(st.die_read_ns / 1000);
    c.die_erase_us = static_cast<uint64_t>(st.die_erase_ns / 1000);
    c.elapsed_us = static_cast<uint64_t>((TimingModel::NowNs() - opened_ns_) / 1000);
    c.buffer_waits = st.buffer_waits;
    c.buffer_wait_us = static_cast<uint64_t>(st.buffer_wait_ns / 1000);
    c.buffer_reads = st.buffer_reads;
  }
  return c;
}

}  // namespace zonekv
