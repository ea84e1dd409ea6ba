// The image file's header and zone table entry decoders. Input: the header
// (zero-padded to 4096 bytes), then 32-byte zone table entries. A decoded
// header gives a geometry whose image size is representable and re-encodes
// to the same 4096 bytes; a decoded entry re-encodes to the same 32 bytes
// (the decoders reject non-zero reserved bytes, so every byte is checked).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_check.h"
#include "image_format.h"

using namespace zonekv;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string h(reinterpret_cast<const char*>(data), std::min<size_t>(size, image::kHeaderBytes));
  h.resize(image::kHeaderBytes, '\0');
  DeviceGeometry g;
  if (!image::DecodeHeader(h.data(), "fuzz.img", &g).ok()) return 0;
  FUZZ_CHECK(g.Validate().ok());
  // The device's byte addresses (zone * zone_size) and the image size fit in 64 bits.
  uint64_t bytes = 0;
  FUZZ_CHECK(!__builtin_mul_overflow(static_cast<uint64_t>(g.nr_zones), g.zone_size_bytes, &bytes));
  FUZZ_CHECK(!__builtin_add_overflow(image::DataOffset(g.nr_zones), g.capacity_bytes(), &bytes));
  char again[image::kHeaderBytes];
  image::EncodeHeader(g, again);
  FUZZ_CHECK(std::memcmp(again, h.data(), image::kHeaderBytes) == 0);

  size_t off = image::kHeaderBytes;
  for (uint32_t zone = 0; off + image::kEntryBytes <= size && zone < g.nr_zones; zone++, off += image::kEntryBytes) {
    const char* e = reinterpret_cast<const char*>(data) + off;
    PersistedZone pz;
    if (!image::DecodeEntry(e, zone, g, "fuzz.img", &pz).ok()) continue;
    FUZZ_CHECK(pz.wp_offset_bytes <= g.zone_capacity_bytes && pz.wp_offset_bytes % g.block_size == 0);
    char enc[image::kEntryBytes];
    image::EncodeEntry(zone, pz, enc);
    FUZZ_CHECK(std::memcmp(enc, e, image::kEntryBytes) == 0);
  }
  return 0;
}
