// Encoding and decoding of the image header and zone table entries
// (layout in image_format.h).
#include "image_format.h"

#include <cstring>

#include "zonekv/crc32c.h"

namespace zonekv {
namespace image {

namespace {

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void PutU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

uint64_t DataOffset(uint32_t nr_zones) {
  uint64_t end = kHeaderBytes + kEntryBytes * nr_zones;
  return (end + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
}

uint64_t ImageBytes(const DeviceGeometry& g) { return DataOffset(g.nr_zones) + g.capacity_bytes(); }

void EncodeHeader(const DeviceGeometry& g, char* h) {
  std::memset(h, 0, kHeaderBytes);
  std::memcpy(h, kMagic, sizeof(kMagic));
  PutU32(h + 8, kFormatVersion);
  PutU32(h + 12, g.block_size);
  PutU64(h + 16, g.zone_size_bytes);
  PutU64(h + 24, g.zone_capacity_bytes);
  PutU32(h + 32, g.nr_zones);
  PutU32(h + 36, g.max_open_zones);
  PutU32(h + 40, g.max_active_zones);
  PutU64(h + 48, kHeaderBytes);
  PutU64(h + 56, DataOffset(g.nr_zones));
  PutU32(h + 64, Crc32c(h, kHeaderChecksummedBytes));
}

Status DecodeHeader(const char* h, const std::string& path, DeviceGeometry* g) {
  if (std::memcmp(h, kMagic, sizeof(kMagic)) != 0) {
    return Status::Corruption(path + " is not a zonekv device image (bad magic number in its header; create one with zonekv device create)");
  }
  uint32_t version = GetU32(h + 8);
  if (version != kFormatVersion) {
    return Status::Corruption("image " + path + ": header has format version " + std::to_string(version) +
                              "; this build reads version " + std::to_string(kFormatVersion));
  }
  if (GetU32(h + 64) != Crc32c(h, kHeaderChecksummedBytes)) {
    return Status::Corruption("image " + path + ": header checksum mismatch (the header is damaged)");
  }
  g->block_size = GetU32(h + 12);
  g->zone_size_bytes = GetU64(h + 16);
  g->zone_capacity_bytes = GetU64(h + 24);
  g->nr_zones = GetU32(h + 32);
  g->max_open_zones = GetU32(h + 36);
  g->max_active_zones = GetU32(h + 40);
  Status s = g->Validate();
  if (!s.ok()) return Status::Corruption("image " + path + ": header holds an " + s.message());
  if (GetU64(h + 48) != kHeaderBytes || GetU64(h + 56) != DataOffset(g->nr_zones)) {
    return Status::Corruption("image " + path + ": header has unexpected table or data offsets");
  }
  if (GetU32(h + 44) != 0) return Status::Corruption("image " + path + ": header's reserved field (byte 44) is not zero");
  // Outside the checksum: the encoder writes zeros, so a non-zero byte here
  // is damage (reported, so that no header byte can change unnoticed).
  for (uint64_t i = kHeaderChecksummedBytes + 4; i < kHeaderBytes; i++) {
    if (h[i] != 0) {
      return Status::Corruption("image " + path + ": header byte " + std::to_string(i) +
                                " (reserved, always zero) is not zero (the header is damaged)");
    }
  }
  return Status::OK();
}

void EncodeEntry(uint32_t zone, const PersistedZone& e, char* out) {
  std::memset(out, 0, kEntryBytes);
  PutU64(out, e.wp_offset_bytes);
  PutU64(out + 8, e.reset_count);
  out[16] = static_cast<char>(e.state);
  PutU32(out + 20, zone);
  PutU32(out + 24, Crc32c(out, kEntryChecksummedBytes));
}

Status DecodeEntry(const char* e, uint32_t zone, const DeviceGeometry& g, const std::string& path,
                   PersistedZone* out) {
  auto bad = [&](const std::string& m) {
    return Status::Corruption("image " + path + ": zone table entry of zone " + std::to_string(zone) + " " + m);
  };
  if (GetU32(e + 24) != Crc32c(e, kEntryChecksummedBytes)) return bad("has a checksum mismatch");
  if (GetU32(e + 20) != zone) return bad("names zone " + std::to_string(GetU32(e + 20)));
  if (e[17] != 0 || e[18] != 0 || e[19] != 0 || GetU32(e + 28) != 0) return bad("has non-zero reserved bytes");
  out->wp_offset_bytes = GetU64(e);
  out->reset_count = GetU64(e + 8);
  out->state = static_cast<ZoneState>(static_cast<unsigned char>(e[16]));
  const uint64_t wp = out->wp_offset_bytes;
  if (wp > g.zone_capacity_bytes || wp % g.block_size != 0) {
    return bad("has write pointer " + std::to_string(wp) + " outside the zone capacity or unaligned");
  }
  switch (out->state) {
    case ZoneState::kEmpty:
      if (wp != 0) return bad("is empty with write pointer " + std::to_string(wp));
      break;
    case ZoneState::kClosed:
      if (wp == 0 || wp == g.zone_capacity_bytes) return bad("is closed with write pointer " + std::to_string(wp));
      break;
    case ZoneState::kFull:
      if (wp != g.zone_capacity_bytes) return bad("is full with write pointer " + std::to_string(wp));
      break;
    case ZoneState::kReadOnly:
    case ZoneState::kOffline:
      break;
    default:
      return bad("has invalid state " + std::to_string(static_cast<int>(e[16])));
  }
  return Status::OK();
}

}  // namespace image
}  // namespace zonekv
