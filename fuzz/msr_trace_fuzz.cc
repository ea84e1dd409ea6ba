// The MSR Cambridge CSV trace parser (ForEachMsrRecord, ParseMsrLine) on an
// arbitrary trace. Every parsed record formats (FormatMsrLine) to a line
// that parses back to the same record.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.h"
#include "zonekv/ftl.h"

using namespace zonekv;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  uint64_t last_line = 0;
  Status s = ForEachMsrRecord(in, "fuzz.csv", [&](uint64_t line, const TraceRecord& r) {
    FUZZ_CHECK(line > last_line);
    last_line = line;
    FUZZ_CHECK(r.size_bytes > 0 && r.offset_bytes + r.size_bytes > r.offset_bytes);
    TraceRecord again;
    FUZZ_CHECK(ParseMsrLine(FormatMsrLine(r), &again).ok());
    FUZZ_CHECK(again.timestamp == r.timestamp && again.is_write == r.is_write &&
               again.offset_bytes == r.offset_bytes && again.size_bytes == r.size_bytes);
    return Status::OK();
  });
  FUZZ_CHECK(s.ok() || s.Is(Status::Code::kInvalidArgument));
  return 0;
}
