// MSR Cambridge block traces: parsing, replay and synthetic generation.
// Format (SNIA IOTTA, no header): Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
// with Timestamp and ResponseTime in Windows FILETIME ticks (100 ns), Type
// Read or Write, Offset and Size in bytes.
#include <fstream>
#include <vector>

#include "block_workload.h"
#include "measured_phase.h"
#include "zonekv/flags.h"
#include "zonekv/ftl.h"

namespace zonekv {
namespace {

// Windows FILETIME of the first record in MSR's hm_0 trace, used as the
// start of generated traces so that they look like the real ones.
constexpr uint64_t kTraceEpoch = 128166372003061629ull;

Status FieldError(const char* field, const std::string& value, const std::string& why) {
  return Status::InvalidArgument(std::string(field) + " '" + value + "' " + why);
}

Status ParseUintField(const char* field, const std::string& value, uint64_t* out) {
  if (!ParseUint(value, out).ok()) return FieldError(field, value, "is not a non-negative integer");
  return Status::OK();
}

// Calls fn(line_number, record) for every non-blank line of the trace file.
Status ForEachRecord(const std::string& path, const MsrRecordFn& fn) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot open trace '" + path + "'");
  return ForEachMsrRecord(in, path, fn);
}

}  // namespace

Status ForEachMsrRecord(std::istream& in, const std::string& name, const MsrRecordFn& fn) {
  std::string line;
  uint64_t number = 0;
  while (std::getline(in, line)) {
    number++;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    TraceRecord r;
    Status s = ParseMsrLine(line, &r);
    if (!s.ok()) {
      return Status::InvalidArgument(name + ":" + std::to_string(number) + ": " + s.message());
    }
    ZONEKV_RETURN_IF_ERROR(fn(number, r));
  }
  if (in.bad()) return Status::IOError("reading trace '" + name + "' failed");
  return Status::OK();
}

Status ParseMsrLine(const std::string& line, TraceRecord* r) {
  std::vector<std::string> f;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    f.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (f.size() != 7) {
    return Status::InvalidArgument("expected 7 comma-separated fields "
                                   "(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found " +
                                   std::to_string(f.size()));
  }
  uint64_t disk = 0, response = 0;
  ZONEKV_RETURN_IF_ERROR(ParseUintField("Timestamp", f[0], &r->timestamp));
  if (f[1].empty()) return FieldError("Hostname", f[1], "is empty");
  ZONEKV_RETURN_IF_ERROR(ParseUintField("DiskNumber", f[2], &disk));
  if (f[3] == "Write" || f[3] == "write") {
    r->is_write = true;
  } else if (f[3] == "Read" || f[3] == "read") {
    r->is_write = false;
  } else {
    return FieldError("Type", f[3], "is neither Read nor Write");
  }
  ZONEKV_RETURN_IF_ERROR(ParseUintField("Offset", f[4], &r->offset_bytes));
  ZONEKV_RETURN_IF_ERROR(ParseUintField("Size", f[5], &r->size_bytes));
  if (r->size_bytes == 0) return FieldError("Size", f[5], "is zero");
  if (r->offset_bytes + r->size_bytes < r->offset_bytes) return FieldError("Size", f[5], "overflows the offset");
  ZONEKV_RETURN_IF_ERROR(ParseUintField("ResponseTime", f[6], &response));
  return Status::OK();
}

std::string FormatMsrLine(const TraceRecord& r) {
  return std::to_string(r.timestamp) + ",zonekv,0," + (r.is_write ? "Write" : "Read") + "," +
         std::to_string(r.offset_bytes) + "," + std::to_string(r.size_bytes) + ",0";
}

Status ReplayMsrTrace(Ftl* ftl, const ReplayOptions& o, RunResult* result, uint64_t* wrapped_ios) {
  if (o.repeat == 0) return Status::InvalidArgument("--repeat must be at least 1");
  // Pass 1: validate every line and count the block writes.
  uint64_t writes_per_pass = 0;
  ZONEKV_RETURN_IF_ERROR(ForEachRecord(o.trace_path, [&](uint64_t, const TraceRecord& r) {
    if (r.is_write) {
      writes_per_pass += (r.offset_bytes + r.size_bytes - 1) / kFtlBlockBytes - r.offset_bytes / kFtlBlockBytes + 1;
    }
    return Status::OK();
  }));
  const uint64_t blocks = ftl->logical_blocks();
  if (o.prefill) ZONEKV_RETURN_IF_ERROR(ftl->FillSequential());
  // Pass 2..: replay.
  MeasuredPhase phase(ftl, writes_per_pass * o.repeat);
  std::vector<char> buf(kFtlBlockBytes);
  uint64_t ops = 0, completed = 0;
  *wrapped_ios = 0;
  Status s;
  for (uint32_t pass = 0; pass < o.repeat && s.ok(); pass++) {
    s = ForEachRecord(o.trace_path, [&](uint64_t, const TraceRecord& r) {
      uint64_t first = r.offset_bytes / kFtlBlockBytes;
      uint64_t last = (r.offset_bytes + r.size_bytes - 1) / kFtlBlockBytes;
      if (last >= blocks) ++*wrapped_ios;
      ops++;
      for (uint64_t b = first; b <= last; b++) {
        uint64_t lba = b % blocks;
        if (r.is_write) {
          ZONEKV_RETURN_IF_ERROR(ftl->Write(lba, nullptr));
          phase.WriteDone(++completed);
        } else {
          ZONEKV_RETURN_IF_ERROR(ftl->Read(lba, buf.data()));
        }
      }
      return Status::OK();
    });
  }
  phase.Finish(ops, result);
  return s;
}

Status GenerateMsrTrace(const std::string& path, const SynthOptions& workload, uint64_t ops,
                        uint64_t disk_bytes) {
  uint64_t blocks = disk_bytes / kFtlBlockBytes;
  if (blocks == 0) {
    return Status::InvalidArgument("--disk_bytes " + std::to_string(disk_bytes) + " is smaller than one 4 KiB block");
  }
  std::vector<std::unique_ptr<BlockWorkload>> streams;
  ZONEKV_RETURN_IF_ERROR(BlockWorkload::NewStreams(workload, blocks, 1, &streams));
  BlockRandom sizes(StreamSeed(workload.seed, 1000));
  std::ofstream out(path, std::ios::trunc);
  if (!out) return Status::IOError("cannot create trace '" + path + "'");
  for (uint64_t i = 0; i < ops; i++) {
    BlockOp op = streams[0]->Next();
    // Mostly single blocks, sometimes runs of up to 16 (4..64 KiB).
    uint64_t n = sizes.NextDouble() < 0.6 ? 1 : 2 + sizes.Uniform(15);
    if (op.lba + n > blocks) n = blocks - op.lba;
    TraceRecord r;
    r.timestamp = kTraceEpoch + i * 10000;  // one I/O per millisecond
    r.is_write = op.is_write;
    r.offset_bytes = op.lba * kFtlBlockBytes;
    r.size_bytes = n * kFtlBlockBytes;
    out << FormatMsrLine(r) << '\n';
  }
  out.close();
  if (!out) return Status::IOError("writing trace '" + path + "' failed");
  return Status::OK();
}

}  // namespace zonekv
