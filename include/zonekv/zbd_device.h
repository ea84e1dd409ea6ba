// ZbdDevice: a ZonedDevice over a Linux host-managed zoned block device
// (an NVMe ZNS namespace, null_blk in zoned mode, QEMU's emulated ZNS SSD).
//
// Zone management goes through the kernel's zoned ioctls (BLKREPORTZONE,
// BLKOPENZONE, BLKCLOSEZONE, BLKFINISHZONE, BLKRESETZONE); data moves with
// O_DIRECT pread/pwrite. Geometry comes from sysfs
// (/sys/dev/block/MAJ:MIN/queue/{logical_block_size,chunk_sectors,nr_zones,
// max_open_zones,max_active_zones}) and the zone report (zone capacity).
//
// How it meets the ZonedDevice contract (zoned_device.h) on real hardware:
//  - The device is opened O_EXCL: nobody else (no mounted file system, no
//    other zonekv) writes it, so the write pointers this object tracks are
//    the device's. Every zone must be sequential-write-required and of the
//    same size and capacity; anything else is NotSupported.
//  - Checks the kernel cannot make precisely are made here first: alignment
//    and range (InvalidArgument), I/O past zone capacity (ZoneBoundary; the
//    kernel would split such a write at the zone boundary and let half of it
//    land), reads past capacity. Everything that depends on the device's state
//    (write pointer, open/active limits, state transitions) is decided by the
//    device; a rejected command's kernel error (EIO, EOVERFLOW, ETOOMANYREFS)
//    is mapped to the zone Status code by re-reading the zone's state, which
//    a rejected command leaves unchanged.
//  - A full zone's write pointer is reported as start + capacity (the kernel
//    reports start + zone size).
//  - Reads return zeros past the write pointer: only bytes below the tracked
//    write pointer are read from the device.
//  - Append() is a write at the tracked write pointer under the zone's mutex,
//    not the NVMe Zone Append command; concurrent Append()s to one zone are
//    serialized and each returns where its data landed.
//  - Open-zone limits and auto-close are the device's (NVMe devices close
//    an implicitly open zone when needed if they support it; QEMU does).
//    One exception keeps the contract where QEMU 7.2 departs from it: a
//    write or Open that would make an empty zone active beyond max_active
//    is refused here (TooManyActive) before the device sees it, because
//    QEMU would first auto-close another zone and then fail, so a rejected
//    command would have changed state.
//  - reset_count is counted by this object (resets since it was opened);
//    DeviceCounters::auto_closes and transitions are not observable from the
//    host and stay 0. finish_pad_bytes is 0 (FINISH padding is invisible).
//  - Flush() is fdatasync(), which sends a cache flush to the device.
//
// The I/O scheduler must keep writes to a zone in order: the kernel's
// mq-deadline does (zone write locking); `none` does not and is refused.
#pragma once

#include <memory>
#include <string>

#include "zonekv/zoned_device.h"

namespace zonekv {

// Opens the host-managed zoned block device at `path` (e.g. /dev/nvme0n1)
// for exclusive read/write use. Errors, each naming the device and what to do:
//   NotFound          no such file
//   InvalidArgument   not a block device, or not a zoned block device
//   NotSupported      host-aware device, conventional zones, zones of
//                     different size or capacity, scheduler not mq-deadline
//   Busy              opened exclusively elsewhere (mounted, another process)
//   IOError           permission denied, or the kernel failed a request
Status OpenZbdDevice(const std::string& path, std::unique_ptr<ZonedDevice>* device);

}  // namespace zonekv
