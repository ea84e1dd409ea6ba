// ParsePluginUri: zonekv://DEVICE[?KEY:VALUE,...] (zonekv/plugin.h).
#include <set>

#include "zonekv/bench.h"
#include "zonekv/plugin.h"

namespace zonekv {

namespace {

constexpr char kPrefix[] = "zonekv://";

// The emulated device's keys that a URI may set on an image.
const std::set<std::string> kDeviceKeys = {"timing", "time_scale", "finish", "auto_close"};

bool StartsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

Status ParsePluginUri(const std::string& uri, PluginUri* out) {
  auto bad = [&](const std::string& what) { return Status::InvalidArgument("--fs_uri=" + uri + ": " + what); };
  if (!StartsWith(uri, kPrefix)) return bad("does not start with zonekv://");
  std::string rest = uri.substr(sizeof(kPrefix) - 1);
  std::string query;
  if (size_t q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (rest.empty()) return bad("names no device (zonekv://PATH of an image, or zonekv://zbd:/dev/nvme0n1)");
  if (StartsWith(rest, "ram:") || StartsWith(rest, "meta:")) {
    return bad("a ram: or meta: device does not outlive the process; create an image with "
               "'zonekv device create' and format it with 'zonekv fs mkfs'");
  }
  PluginUri p;
  std::string device = StartsWith(rest, "zbd:") || StartsWith(rest, "file:") ? rest : "file:" + rest;
  std::vector<std::pair<std::string, std::string>> knobs;
  size_t start = 0;
  while (start < query.size()) {
    size_t comma = query.find(',', start);
    std::string item = query.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? query.size() : comma + 1;
    if (item.empty()) continue;
    size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0) return bad("'" + item + "' is not KEY:VALUE");
    std::string key = item.substr(0, colon), value = item.substr(colon + 1);
    if (key == "scheme") {
      p.scheme = value;
    } else if (kDeviceKeys.count(key)) {
      if (StartsWith(device, "zbd:")) return bad("'" + key + "' applies to emulated devices only");
      device += "," + key + "=" + value;
    } else {
      knobs.emplace_back(key, value);
    }
  }
  Scheme scheme;
  Status s = LookupScheme(p.scheme, &scheme);
  if (!s.ok()) return bad(s.message());
  for (const auto& [k, v] : scheme.fs_knobs) {
    s = SetFsKnob(k, v, &p.fs);
    if (!s.ok()) return bad("scheme " + p.scheme + ": " + s.message());
  }
  for (const auto& [k, v] : knobs) {
    s = SetFsKnob(k, v, &p.fs);
    if (!s.ok()) return bad(s.message());
  }
  s = p.fs.Validate();
  if (!s.ok()) return bad(s.message());
  p.device_spec = device;
  *out = std::move(p);
  return Status::OK();
}

}  // namespace zonekv
