// DecodeRecord over a metadata zone's bytes, record after record, as
// recovery walks the log. Input: byte 0 picks the block size (512 << (b % 4)),
// the rest is the zone. A decoded record re-encodes (EncodeRecord) to the
// same header and payload bytes, and the walk always moves forward.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint32_t bs = 512u << (data[0] % 4);
  const std::string zone(reinterpret_cast<const char*>(data) + 1, size - 1);
  uint64_t pos = 0;
  while (pos < zone.size()) {
    zonekv::RecordType type;
    std::string payload;
    uint64_t next = 0;
    bool torn = false;
    if (!zonekv::DecodeRecord(zone, pos, 7, bs, &type, &payload, &next, &torn).ok() || torn) break;
    FUZZ_CHECK(next > pos && next % bs == 0);
    const std::string rec = zonekv::EncodeRecord(type, payload, bs);
    FUZZ_CHECK(rec.size() == next - pos);
    const size_t framed = 13 + payload.size();
    FUZZ_CHECK(zone.compare(pos, framed, rec, 0, framed) == 0);
    pos = next;
  }
  return 0;
}
