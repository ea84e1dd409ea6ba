// The metadata payload decoders: MetaState::DecodeSnapshot and
// MetaState::ApplyEdits. Input: byte 0 even -> the rest is a snapshot
// payload; odd -> the rest is an edits payload applied to a small state of
// three files (ids 1..3). Every accepted state survives a snapshot round
// trip and keeps the file table's invariants (ids below next_file_id, sizes
// equal to the extents' bytes).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "meta_equal.h"
#include "metadata.h"

namespace {

zonekv::MetaState BaseState() {
  zonekv::MetaState st;
  st.next_file_id = 4;
  st.dirs = {"/db"};
  for (uint64_t id = 1; id <= 3; id++) {
    zonekv::FileMeta f;
    f.id = id;
    f.name = "/db/00000" + std::to_string(id) + ".sst";
    f.extents = {{static_cast<uint32_t>(id + 2), 0, 4096 * id}};
    f.size_bytes = 4096 * id;
    st.files[id] = f;
  }
  return st;
}

void CheckInvariants(const zonekv::MetaState& st) {
  for (const auto& [id, f] : st.files) {
    FUZZ_CHECK(f.id == id);
    FUZZ_CHECK(id < st.next_file_id);
    uint64_t bytes = 0;
    for (const auto& e : f.extents) bytes += e.length_bytes;
    FUZZ_CHECK(bytes == f.size_bytes);
  }
  zonekv::MetaState again;
  zonekv::Status rs = again.DecodeSnapshot(st.EncodeSnapshot());
  if (!rs.ok()) std::fprintf(stderr, "snapshot round trip: %s\n", rs.ToString().c_str());
  FUZZ_CHECK(rs.ok());
  FUZZ_CHECK(zonekv::fuzz::SameState(st, again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    zonekv::MetaState st;
    if (st.DecodeSnapshot(payload).ok()) CheckInvariants(st);
  } else {
    zonekv::MetaState st = BaseState();
    if (st.ApplyEdits(payload).ok()) CheckInvariants(st);
  }
  return 0;
}
