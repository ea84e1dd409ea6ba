// The zoned block device's sysfs queue parser (ParseZbdQueueInfo,
// SysfsAttributeValue, SelectedScheduler). Input: the texts of the seven
// attribute files in order, separated by NUL bytes; a missing text is a file
// that cannot be read. Parsed values, written back as the kernel writes
// them, parse to the same info.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "zbd_sysfs.h"

using namespace zonekv;

namespace {

const char* const kNames[] = {"zoned", "scheduler", "logical_block_size", "chunk_sectors",
                              "nr_zones", "max_open_zones", "max_active_zones"};

ZbdAttributeReader Reader(const std::vector<std::string>& files) {
  return [files](const char* name, std::string* text) {
    for (size_t i = 0; i < 7; i++) {
      if (std::strcmp(name, kNames[i]) != 0) continue;
      if (i >= files.size()) break;
      *text = files[i];
      return Status::OK();
    }
    return Status::IOError(std::string("cannot read /sys/fuzz/queue/") + name);
  };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> files;
  for (size_t start = 0; start <= in.size() && files.size() < 7;) {
    size_t nul = in.find('\0', start);
    files.push_back(in.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  for (const std::string& f : files) {
    const std::string v = SysfsAttributeValue(f);
    FUZZ_CHECK(v.find('\n') == std::string::npos);
    FUZZ_CHECK(v.empty() || (v.front() != ' ' && v.back() != ' '));
    const std::string sched = SelectedScheduler(f);
    FUZZ_CHECK(sched.size() <= f.size());
  }
  ZbdQueueInfo info;
  Status s = ParseZbdQueueInfo(Reader(files), "/sys/fuzz/queue", "/dev/fuzz", &info);
  if (!s.ok()) return 0;
  FUZZ_CHECK(info.scheduler == "mq-deadline");
  FUZZ_CHECK(info.zone_size_bytes % 512 == 0);
  const std::vector<std::string> canonical = {
      "host-managed\n", "kyber [mq-deadline] none\n",
      std::to_string(info.logical_block_size) + "\n", std::to_string(info.zone_size_bytes / 512) + "\n",
      std::to_string(info.nr_zones) + "\n", std::to_string(info.max_open_zones) + "\n",
      std::to_string(info.max_active_zones) + "\n"};
  ZbdQueueInfo again;
  FUZZ_CHECK(ParseZbdQueueInfo(Reader(canonical), "/sys/fuzz/queue", "/dev/fuzz", &again).ok());
  FUZZ_CHECK(again.scheduler == info.scheduler && again.logical_block_size == info.logical_block_size &&
             again.zone_size_bytes == info.zone_size_bytes && again.nr_zones == info.nr_zones &&
             again.max_open_zones == info.max_open_zones && again.max_active_zones == info.max_active_zones);
  return 0;
}
