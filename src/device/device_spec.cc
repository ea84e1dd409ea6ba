// OpenDevice and the key=value spec parser of emulated devices.
#include <map>
#include <set>

#include "zonekv/emulated_device.h"
#include "zonekv/flags.h"
#include "zonekv/zbd_device.h"

namespace zonekv {

namespace {

const std::set<std::string> kGeometryKeys = {"zones", "zone_size", "zone_cap", "block_size", "max_open",
                                             "max_active"};
const std::set<std::string> kRuntimeKeys = {"auto_close", "finish",    "timing",     "channels",
                                            "dies",       "planes",    "page_size",  "read_us",
                                            "program_us", "xfer_us",   "erase_us",   "zone_channels",
                                            "time_scale"};

Status KeyError(const std::string& key, const Status& s) {
  return Status::InvalidArgument("device spec key '" + key + "': " + s.message());
}

Status GetU32(const std::string& key, const std::string& value, uint32_t* out) {
  uint64_t v;
  Status s = ParseUint(value, &v);
  if (!s.ok()) return KeyError(key, s);
  if (v > UINT32_MAX) return KeyError(key, Status::InvalidArgument("'" + value + "' is too large"));
  *out = static_cast<uint32_t>(v);
  return Status::OK();
}

Status GetBytes(const std::string& key, const std::string& value, uint64_t* out) {
  Status s = ParseBytes(value, out);
  return s.ok() ? s : KeyError(key, s);
}

Status GetDouble(const std::string& key, const std::string& value, double* out) {
  Status s = ParseDouble(value, out);
  return s.ok() ? s : KeyError(key, s);
}

}  // namespace

Status ParseEmulatedOptions(const std::string& keys, bool runtime_only, EmulatedDeviceOptions* options) {
  // Collect first, so that `timing=confzns` sets the preset before the
  // individual timing keys override it, whatever their order.
  std::map<std::string, std::string> kv;
  size_t pos = 0;
  while (pos <= keys.size() && !keys.empty()) {
    size_t comma = keys.find(',', pos);
    std::string item = keys.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? keys.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("device spec item '" + item + "' is not key=value");
    }
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (kGeometryKeys.count(key) && runtime_only) {
      return Status::InvalidArgument("device spec key '" + key +
                                     "' is fixed when an image is created (zonekv device create); it cannot be "
                                     "given when opening one");
    }
    if (!kGeometryKeys.count(key) && !kRuntimeKeys.count(key)) {
      return Status::InvalidArgument("unknown device spec key '" + key + "' (known: zones, zone_size, zone_cap, "
                                     "block_size, max_open, max_active, auto_close, finish, timing, channels, dies, "
                                     "planes, page_size, read_us, program_us, xfer_us, erase_us, zone_channels, "
                                     "time_scale)");
    }
    if (kv.count(key)) return Status::InvalidArgument("device spec key '" + key + "' is given twice");
    kv[key] = value;
  }

  EmulatedDeviceOptions& o = *options;
  if (kv.count("timing")) {
    const std::string& t = kv["timing"];
    if (t == "none") o.timing = TimingOptions();
    else if (t == "confzns") o.timing = TimingOptions::ConfZns();
    else return Status::InvalidArgument("device spec key 'timing': '" + t + "' is not none or confzns");
  }
  if (kv.count("finish")) {
    const std::string& f = kv["finish"];
    if (f == "free") o.finish = FinishModel::kFree;
    else if (f == "pad") o.finish = FinishModel::kPad;
    else return Status::InvalidArgument("device spec key 'finish': '" + f + "' is not free or pad");
  }
  bool timing_key_given = false;
  for (auto& [key, value] : kv) {
    Status s;
    DeviceGeometry& g = o.geometry;
    TimingOptions& t = o.timing;
    if (key == "timing" || key == "finish") continue;
    if (key == "zones") s = GetU32(key, value, &g.nr_zones);
    else if (key == "zone_size") s = GetBytes(key, value, &g.zone_size_bytes);
    else if (key == "zone_cap") s = GetBytes(key, value, &g.zone_capacity_bytes);
    else if (key == "max_open") s = GetU32(key, value, &g.max_open_zones);
    else if (key == "max_active") s = GetU32(key, value, &g.max_active_zones);
    else if (key == "block_size") {
      uint64_t b;
      s = GetBytes(key, value, &b);
      if (s.ok() && b > UINT32_MAX) s = Status::InvalidArgument("device spec key 'block_size': too large");
      g.block_size = static_cast<uint32_t>(b);
    } else if (key == "auto_close") {
      if (value != "0" && value != "1") {
        return Status::InvalidArgument("device spec key 'auto_close': '" + value + "' is not 0 or 1");
      }
      o.auto_close = value == "1";
    } else {
      timing_key_given = true;
      if (key == "channels") s = GetU32(key, value, &t.channels);
      else if (key == "dies") s = GetU32(key, value, &t.dies);
      else if (key == "planes") s = GetU32(key, value, &t.planes);
      else if (key == "zone_channels") s = GetU32(key, value, &t.zone_channels);
      else if (key == "page_size") s = GetBytes(key, value, &t.page_size_bytes);
      else if (key == "read_us") s = GetDouble(key, value, &t.read_us);
      else if (key == "program_us") s = GetDouble(key, value, &t.program_us);
      else if (key == "xfer_us") s = GetDouble(key, value, &t.xfer_us);
      else if (key == "erase_us") s = GetDouble(key, value, &t.erase_us);
      else if (key == "time_scale") s = GetDouble(key, value, &t.time_scale);
    }
    ZONEKV_RETURN_IF_ERROR(s);
  }
  if (timing_key_given && !o.timing.enabled) {
    return Status::InvalidArgument("device spec: timing keys (channels, read_us, ...) need timing=confzns");
  }
  if (!runtime_only) {
    if (!kv.count("zones")) return Status::InvalidArgument("device spec: 'zones' is required (e.g. zones=64)");
    if (!kv.count("zone_size")) {
      return Status::InvalidArgument("device spec: 'zone_size' is required (e.g. zone_size=64M)");
    }
    if (!kv.count("zone_cap")) o.geometry.zone_capacity_bytes = o.geometry.zone_size_bytes;
    // As QEMU does: a max_active without a max_open also limits open zones.
    if (kv.count("max_active") && !kv.count("max_open")) o.geometry.max_open_zones = o.geometry.max_active_zones;
  }
  return Status::OK();
}

Status OpenDevice(const std::string& spec, std::unique_ptr<ZonedDevice>* device) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("device spec '" + spec + "' has no kind (use ram:, meta:, file: or zbd:)");
  }
  const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  EmulatedDeviceOptions options;
  std::unique_ptr<EmulatedDevice> d;
  if (kind == "ram" || kind == "meta") {
    ZONEKV_RETURN_IF_ERROR(ParseEmulatedOptions(rest, false, &options));
    ZONEKV_RETURN_IF_ERROR(kind == "ram" ? EmulatedDevice::OpenRam(options, &d)
                                         : EmulatedDevice::OpenMetadataOnly(options, &d));
  } else if (kind == "file") {
    // file:PATH[,key=value...]: runtime keys follow the path.
    size_t comma = rest.find(',');
    std::string path = rest.substr(0, comma);
    if (path.empty()) return Status::InvalidArgument("device spec '" + spec + "' names no image file");
    if (comma != std::string::npos) {
      ZONEKV_RETURN_IF_ERROR(ParseEmulatedOptions(rest.substr(comma + 1), true, &options));
    }
    ZONEKV_RETURN_IF_ERROR(EmulatedDevice::OpenImage(path, options, &d));
  } else if (kind == "zbd") {
    if (rest.empty()) return Status::InvalidArgument("device spec '" + spec + "' names no device (zbd:/dev/nvme0n1)");
    return OpenZbdDevice(rest, device);
  } else {
    return Status::InvalidArgument("device spec '" + spec + "': unknown kind '" + kind +
                                   "' (use ram:, meta:, file: or zbd:)");
  }
  *device = std::move(d);
  return Status::OK();
}

}  // namespace zonekv
