// Superblock::Decode on arbitrary bytes. A decoded superblock re-encodes to
// exactly the input (the record is fixed-width).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "metadata.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  zonekv::Superblock sb;
  if (zonekv::Superblock::Decode(in, &sb).ok()) FUZZ_CHECK(sb.Encode() == in);
  return 0;
}
