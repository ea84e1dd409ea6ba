// RAM and metadata-only backings for EmulatedDevice.
#pragma once

#include <memory>

#include "backing.h"

namespace zonekv {

// Payload in one anonymous, lazily populated mapping of the device's total
// capacity: untouched pages cost no memory; a zone's pages stay allocated
// once written (FINISH padding returns them). IOError if the address space cannot be reserved.
Status NewRamBacking(const DeviceGeometry& geometry, std::unique_ptr<DeviceBacking>* backing);

// No payload: writes are dropped, reads return zeros.
std::unique_ptr<DeviceBacking> NewMetadataOnlyBacking();

}  // namespace zonekv
