// ReplayMetaZone (journal recovery of one metadata zone: superblock,
// snapshot, edits) on arbitrary zone bytes. Input: byte 0 picks the block
// size (512 << (b % 4)) and whether the zone is full (bit 2); the rest is the
// zone. A replayed state survives a snapshot round trip: what recovery
// accepts, the next journal roll can write and read back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "journal.h"
#include "meta_equal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint32_t bs = 512u << (data[0] % 4);
  const bool full = (data[0] & 4) != 0;
  std::string zone(reinterpret_cast<const char*>(data) + 1, size - 1);
  zonekv::Superblock sb;
  zonekv::MetaState state;
  bool complete = false, torn_tail = false;
  zonekv::Status s = zonekv::ReplayMetaZone(zone, 3, bs, full, &sb, &state, &complete, &torn_tail);
  if (s.ok() && complete) {
    zonekv::MetaState again;
    zonekv::Status rs = again.DecodeSnapshot(state.EncodeSnapshot());
    if (!rs.ok()) std::fprintf(stderr, "snapshot round trip: %s\n", rs.ToString().c_str());
    FUZZ_CHECK(rs.ok());
    FUZZ_CHECK(zonekv::fuzz::SameState(state, again));
  }
  return 0;
}
