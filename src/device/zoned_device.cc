#include "zonekv/zoned_device.h"

namespace zonekv {

const char* ZoneStateName(ZoneState s) {
  switch (s) {
    case ZoneState::kEmpty: return "empty";
    case ZoneState::kImplicitOpen: return "imp_open";
    case ZoneState::kExplicitOpen: return "exp_open";
    case ZoneState::kClosed: return "closed";
    case ZoneState::kReadOnly: return "read_only";
    case ZoneState::kFull: return "full";
    case ZoneState::kOffline: return "offline";
  }
  return "unknown";
}

Status DeviceGeometry::Validate() const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("invalid geometry: " + m); };
  if (block_size == 0 || (block_size & (block_size - 1)) != 0 || block_size < 512) {
    return bad("block_size " + std::to_string(block_size) + " is not a power of two >= 512");
  }
  if (nr_zones == 0) return bad("zero zones");
  if (zone_size_bytes == 0) return bad("zone_size is zero");
  if (zone_size_bytes % block_size != 0) {
    return bad("zone_size " + std::to_string(zone_size_bytes) + " is not a multiple of block_size " +
               std::to_string(block_size));
  }
  if (zone_capacity_bytes == 0) return bad("zone_cap is zero");
  if (zone_capacity_bytes % block_size != 0) {
    return bad("zone_cap " + std::to_string(zone_capacity_bytes) + " is not a multiple of block_size " +
               std::to_string(block_size));
  }
  if (zone_capacity_bytes > zone_size_bytes) {
    return bad("zone_cap " + std::to_string(zone_capacity_bytes) + " exceeds zone_size " +
               std::to_string(zone_size_bytes));
  }
  // Byte addresses (zone * zone_size) and sizes are 64-bit: an image header
  // or spec claiming more would wrap around and pass the size checks.
  if (zone_size_bytes > (UINT64_MAX - (uint64_t{1} << 40)) / nr_zones) {
    return bad(std::to_string(nr_zones) + " zones of " + std::to_string(zone_size_bytes) +
               " bytes exceed the 64-bit byte address space");
  }
  if (max_active_zones != 0 && max_open_zones > max_active_zones) {
    return bad("max_open " + std::to_string(max_open_zones) + " exceeds max_active " +
               std::to_string(max_active_zones));
  }
  if (max_open_zones == 0 && max_active_zones != 0) {
    return bad("max_open is unlimited but max_active is " + std::to_string(max_active_zones));
  }
  return Status::OK();
}

Json DeviceGeometry::ToJson() const {
  Json j = Json::Object();
  j.Set("block_size", block_size)
      .Set("zone_size_bytes", zone_size_bytes)
      .Set("zone_capacity_bytes", zone_capacity_bytes)
      .Set("nr_zones", nr_zones)
      .Set("max_open_zones", max_open_zones)
      .Set("max_active_zones", max_active_zones)
      .Set("capacity_bytes", capacity_bytes());
  return j;
}

double DeviceCounters::dlwa() const {
  if (host_write_bytes == 0) return 1.0;
  return static_cast<double>(host_write_bytes + finish_pad_bytes) / static_cast<double>(host_write_bytes);
}

double DeviceCounters::busy_ratio() const {
  if (dies == 0 || elapsed_us == 0) return 0.0;
  return static_cast<double>(die_busy_us) / (static_cast<double>(dies) * static_cast<double>(elapsed_us));
}

Json DeviceCounters::ToJson() const {
  Json j = Json::Object();
  j.Set("host_read_bytes", host_read_bytes)
      .Set("host_write_bytes", host_write_bytes)
      .Set("finish_pad_bytes", finish_pad_bytes)
      .Set("dlwa", dlwa())
      .Set("finishes", finishes)
      .Set("resets", resets)
      .Set("reads", reads)
      .Set("writes", writes)
      .Set("opens", opens)
      .Set("closes", closes)
      .Set("auto_closes", auto_closes)
      .Set("transitions", transitions)
      .Set("busy_wait_us", busy_wait_us)
      .Set("busy_ratio", busy_ratio())
      .Set("dies", dies)
      .Set("die_busy_us", die_busy_us)
      .Set("die_program_us", die_program_us)
      .Set("die_pad_us", die_pad_us)
      .Set("die_read_us", die_read_us)
      .Set("die_erase_us", die_erase_us)
      .Set("elapsed_us", elapsed_us)
      .Set("buffer_waits", buffer_waits)
      .Set("buffer_wait_us", buffer_wait_us)
      .Set("buffer_reads", buffer_reads);
  return j;
}

Status DeviceGeometry::CheckZoneId(uint32_t zone, const char* op) const {
  if (zone >= nr_zones) {
    return Status::InvalidArgument(std::string(op) + ": zone " + std::to_string(zone) + " does not exist (device has " +
                                   std::to_string(nr_zones) + " zones)");
  }
  return Status::OK();
}

Status DeviceGeometry::CheckAligned(uint64_t offset_bytes, uint64_t n_bytes, const char* op) const {
  if (offset_bytes % block_size != 0 || n_bytes % block_size != 0) {
    return Status::InvalidArgument(std::string(op) + " of " + std::to_string(n_bytes) + " bytes at offset " +
                                   std::to_string(offset_bytes) + " is not aligned to the block size " +
                                   std::to_string(block_size));
  }
  if (offset_bytes >= device_bytes()) {
    return Status::InvalidArgument(std::string(op) + " at offset " + std::to_string(offset_bytes) +
                                   " is past the end of the device (" + std::to_string(device_bytes()) + " bytes)");
  }
  return Status::OK();
}

Status ZonedDevice::ReportZone(uint32_t zone, ZoneInfo* info) {
  if (zone >= geometry().nr_zones) {
    return Status::InvalidArgument("zone " + std::to_string(zone) + " does not exist (device has " +
                                   std::to_string(geometry().nr_zones) + " zones)");
  }
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(ReportZones(zone, 1, &zones));
  if (zones.empty()) return Status::IOError("zone report for zone " + std::to_string(zone) + " was empty");
  *info = zones[0];
  return Status::OK();
}

}  // namespace zonekv
