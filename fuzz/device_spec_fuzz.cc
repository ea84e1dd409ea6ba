// The device spec parser (ParseEmulatedOptions, the key=value list of
// ram:/meta:/file: specs) and OpenDevice on meta: specs. Input: byte 0 bit 0
// picks runtime-only parsing (the keys of an image file's spec); the rest is
// the spec. Specs of other kinds than meta: are only parsed (file: and zbd:
// would open host files). A meta: device of a small geometry is opened.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "zonekv/emulated_device.h"

using namespace zonekv;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool runtime_only = data[0] & 1;
  const std::string spec(reinterpret_cast<const char*>(data) + 1, size - 1);
  EmulatedDeviceOptions o;
  Status s = ParseEmulatedOptions(spec, runtime_only, &o);
  if (!s.ok()) {
    FUZZ_CHECK(s.Is(Status::Code::kInvalidArgument));
    return 0;
  }
  if (runtime_only) return 0;
  const DeviceGeometry& g = o.geometry;
  // Small devices only: zone state is kept per zone.
  if (g.nr_zones > 4096 || !g.Validate().ok()) return 0;
  std::unique_ptr<ZonedDevice> dev;
  if (OpenDevice("meta:" + spec, &dev).ok()) {
    FUZZ_CHECK(dev != nullptr);
    FUZZ_CHECK(dev->geometry().nr_zones == g.nr_zones);
    FUZZ_CHECK(dev->geometry().zone_size_bytes == g.zone_size_bytes);
  }
  return 0;
}
