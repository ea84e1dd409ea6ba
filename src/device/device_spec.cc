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
const std::set<std::string> kRuntimeKeys = {"auto_close", "finish", "timing", "time_scale"};
// Keys that override a value of the timing profile.
const std::set<std::string> kTimingKeys = {
    "write_cmd_us", "read_cmd_us", "jitter",    "seed",          "link_mb_s",  "write_lat_us",
    "read_lat_us",  "append_us",   "mgmt_us",   "write_mb_s",    "read_mb_s",  "channels",
    "dies",         "zone_channels", "page_size", "unit_size",   "read_us",    "program_us",
    "xfer_us",      "wb_units",    "early_completion", "erase_us", "erase_block", "partial_reset"};
// Keys of the blocks reset model only.
const std::set<std::string> kEraseKeys = {"erase_us", "erase_block", "partial_reset"};

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

Status GetBool(const std::string& key, const std::string& value, bool* out) {
  if (value != "0" && value != "1") {
    return Status::InvalidArgument("device spec key '" + key + "': '" + value + "' is not 0 or 1");
  }
  *out = value == "1";
  return Status::OK();
}

std::string KnownKeys() {
  std::string all;
  for (const auto* set : {&kGeometryKeys, &kRuntimeKeys, &kTimingKeys}) {
    for (const std::string& k : *set) all += (all.empty() ? "" : ", ") + k;
  }
  return all;
}

Status SetTimingKey(const std::string& key, const std::string& value, TimingOptions* t) {
  if (key == "channels") return GetU32(key, value, &t->channels);
  if (key == "dies") return GetU32(key, value, &t->dies);
  if (key == "zone_channels") return GetU32(key, value, &t->zone_channels);
  if (key == "wb_units") return GetU32(key, value, &t->wb_units);
  if (key == "page_size") return GetBytes(key, value, &t->page_size_bytes);
  if (key == "unit_size") return GetBytes(key, value, &t->unit_bytes);
  if (key == "erase_block") return GetBytes(key, value, &t->erase_block_bytes);
  if (key == "jitter") return GetBool(key, value, &t->jitter);
  if (key == "early_completion") return GetBool(key, value, &t->early_completion);
  if (key == "partial_reset") return GetBool(key, value, &t->partial_reset);
  if (key == "seed") {
    Status s = ParseUint(value, &t->seed);
    return s.ok() ? s : KeyError(key, s);
  }
  double* d = key == "write_cmd_us"   ? &t->write_cmd_us
              : key == "read_cmd_us"  ? &t->read_cmd_us
              : key == "link_mb_s"    ? &t->link_mb_s
              : key == "write_lat_us" ? &t->write_lat_us
              : key == "read_lat_us"  ? &t->read_lat_us
              : key == "append_us"    ? &t->append_us
              : key == "mgmt_us"      ? &t->mgmt_us
              : key == "write_mb_s"   ? &t->write_mb_s
              : key == "read_mb_s"    ? &t->read_mb_s
              : key == "read_us"      ? &t->read_us
              : key == "program_us"   ? &t->program_us
              : key == "xfer_us"      ? &t->xfer_us
              : &t->erase_us;
  return GetDouble(key, value, d);
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
    if (key == "planes") {
      return Status::InvalidArgument("device spec key 'planes' is gone: the timing model programs one-shot units "
                                     "of unit_size bytes (see docs/device-timing.md)");
    }
    if (!kGeometryKeys.count(key) && !kRuntimeKeys.count(key) && !kTimingKeys.count(key)) {
      return Status::InvalidArgument("unknown device spec key '" + key + "' (known: " + KnownKeys() + ")");
    }
    if (kv.count(key)) return Status::InvalidArgument("device spec key '" + key + "' is given twice");
    kv[key] = value;
  }

  EmulatedDeviceOptions& o = *options;
  if (kv.count("timing")) {
    Status s = TimingOptions::Profile(kv["timing"], &o.timing, &o.finish);
    if (!s.ok()) return KeyError("timing", s);
  }
  if (kv.count("finish")) {
    const std::string& f = kv["finish"];
    if (f == "free") o.finish = FinishModel::kFree;
    else if (f == "pad") o.finish = FinishModel::kPad;
    else return Status::InvalidArgument("device spec key 'finish': '" + f + "' is not free or pad");
  }
  for (auto& [key, value] : kv) {
    Status s;
    DeviceGeometry& g = o.geometry;
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
      s = GetBool(key, value, &o.auto_close);
    } else {
      if (!o.timing.enabled) {
        return Status::InvalidArgument("device spec key '" + key + "' needs a timing profile (timing=" +
                                       "zn540|confzns|confznspp|cosmos)");
      }
      if (kEraseKeys.count(key) && o.timing.reset != ResetModel::kBlocks) {
        return Status::InvalidArgument("device spec key '" + key + "': profile " + o.timing.profile +
                                       " resets along its measured latency curve; erase keys apply to "
                                       "block-erase profiles (confzns, confznspp, cosmos)");
      }
      s = key == "time_scale" ? GetDouble(key, value, &o.timing.time_scale) : SetTimingKey(key, value, &o.timing);
    }
    ZONEKV_RETURN_IF_ERROR(s);
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
