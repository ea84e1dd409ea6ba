// The conformance suite against every emulated configuration.
#include "conformance.h"

#include <unistd.h>

#include "zonekv/emulated_device.h"
#include "zonekv/fault_device.h"

namespace zonekv {
namespace {

ConformanceTarget Spec(const std::string& name, const std::string& spec, bool stores_data = true) {
  return {name, [spec](std::unique_ptr<ZonedDevice>* d) { return OpenDevice(spec, d); }, {stores_data, true}};
}

Status OpenImage(std::unique_ptr<ZonedDevice>* d) {
  std::string path = ::testing::TempDir() + "zonekv_conformance_" + std::to_string(getpid()) + ".img";
  DeviceGeometry g;
  g.zone_size_bytes = 128 << 10;
  g.zone_capacity_bytes = 96 << 10;
  g.nr_zones = 6;
  g.max_open_zones = g.max_active_zones = 3;
  ZONEKV_RETURN_IF_ERROR(EmulatedDevice::CreateImage(path, g, true));
  Status s = OpenDevice("file:" + path, d);
  std::remove(path.c_str());  // the open descriptor keeps the image alive
  return s;
}

Status OpenFaultWrapped(std::unique_ptr<ZonedDevice>* d) {
  std::unique_ptr<ZonedDevice> base;
  ZONEKV_RETURN_IF_ERROR(OpenDevice("ram:zones=6,zone_size=64K,zone_cap=40K,max_open=4", &base));
  auto f = std::make_unique<FaultDevice>(std::move(base));
  f->SetVolatileCache(true);
  *d = std::move(f);
  return Status::OK();
}

INSTANTIATE_TEST_SUITE_P(
    Emulated, DeviceConformanceTest,
    ::testing::Values(Spec("ram_unlimited", "ram:zones=4,zone_size=64K"),
                      Spec("ram_limits", "ram:zones=8,zone_size=64K,zone_cap=48K,max_open=3,max_active=4"),
                      Spec("ram_no_autoclose", "ram:zones=8,zone_size=64K,zone_cap=48K,max_open=2,auto_close=0"),
                      Spec("ram_512b_blocks", "ram:zones=5,zone_size=32K,zone_cap=31K,block_size=512"),
                      Spec("ram_timed", "ram:zones=4,zone_size=256K,timing=confzns,time_scale=0.01,finish=pad"),
                      Spec("meta", "meta:zones=4,zone_size=64K,zone_cap=32K", /*stores_data=*/false),
                      ConformanceTarget{"image", OpenImage, {true, true}},
                      ConformanceTarget{"fault_wrapped", OpenFaultWrapped, {true, true}}),
    ConformanceTargetName);

}  // namespace
}  // namespace zonekv
