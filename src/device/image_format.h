// On-disk layout of an emulated ZNS SSD image (format version 1).
//
// All integers are little-endian.
//
//   [0, 4096)            header
//     0   char[8]  magic "ZKVIMAGE"
//     8   u32      format version (1)
//     12  u32      block_size
//     16  u64      zone_size_bytes
//     24  u64      zone_capacity_bytes
//     32  u32      nr_zones
//     36  u32      max_open_zones (0 = unlimited)
//     40  u32      max_active_zones (0 = unlimited)
//     44  u32      reserved (0)
//     48  u64      zone table offset (4096)
//     56  u64      data offset
//     64  u32      CRC-32C of bytes [0, 64)
//     68  reserved (0) up to 4096; the decoder rejects a non-zero byte
//   [4096, +32 * nr_zones)  zone table, one 32-byte entry per zone
//     0   u64      write pointer, zone-relative bytes
//     8   u64      reset count
//     16  u8       state (ZoneState value; never an open state)
//     17  u8[3]    reserved (0)
//     20  u32      zone number (guards against misplaced entries)
//     24  u32      CRC-32C of bytes [0, 24)
//     28  u32      reserved (0)
//   (the decoder rejects non-zero reserved bytes: every byte of the header
//   and of an entry is checked, so no damage to them goes unnoticed)
//   [data offset, + nr_zones * zone_capacity_bytes)  zone payload, zone z at
//     data offset + z * zone_capacity_bytes; sparse (never-written and reset
//     ranges are holes).
//
// Crash consistency: a write stores the payload, then rewrites the zone's
// 32-byte entry (one pwrite within one page). An entry therefore never
// points past data that was not written.
//
// The encoders and decoders below touch memory only (no file I/O), so that
// tests and fuzz targets can call them directly.
#pragma once

#include <cstdint>
#include <string>

#include "backing.h"
#include "zonekv/status.h"
#include "zonekv/zoned_device.h"

namespace zonekv {
namespace image {

constexpr char kMagic[8] = {'Z', 'K', 'V', 'I', 'M', 'A', 'G', 'E'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint64_t kHeaderBytes = 4096;
constexpr uint64_t kHeaderChecksummedBytes = 64;
constexpr uint64_t kEntryBytes = 32;
constexpr uint64_t kEntryChecksummedBytes = 24;
constexpr uint64_t kDataAlignment = 1 << 20;

// Byte offset of the zone payload for `nr_zones` zones (the end of the zone
// table rounded up to kDataAlignment).
uint64_t DataOffset(uint32_t nr_zones);
// Size in bytes of an image of geometry `g`. REQUIRES: g validated.
uint64_t ImageBytes(const DeviceGeometry& g);

// Writes the header of an image of geometry `g` to out[0, kHeaderBytes).
void EncodeHeader(const DeviceGeometry& g, char* out);
// Decodes the header at h[0, kHeaderBytes) into *g. Corruption naming `path`
// and what is wrong: bad magic, version, checksum, geometry, offsets or a
// non-zero reserved byte.
Status DecodeHeader(const char* h, const std::string& path, DeviceGeometry* g);

// Writes zone `zone`'s table entry to out[0, kEntryBytes).
void EncodeEntry(uint32_t zone, const PersistedZone& e, char* out);
// Decodes zone `zone`'s table entry at e[0, kEntryBytes). Corruption naming
// `path`, the zone and what is wrong (checksum, zone number, non-zero
// reserved bytes, write pointer outside the capacity or unaligned, state
// inconsistent with it).
Status DecodeEntry(const char* e, uint32_t zone, const DeviceGeometry& g, const std::string& path,
                   PersistedZone* out);

}  // namespace image
}  // namespace zonekv
