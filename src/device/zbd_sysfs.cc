#include "zbd_sysfs.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace zonekv {

namespace {

// The whole text of `dir`/`name`.
Status ReadFile(const std::string& dir, const char* name, std::string* text) {
  const std::string path = dir + "/" + name;
  std::ifstream in(path);
  if (!in) {
    return Status::IOError("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream all;
  all << in.rdbuf();
  *text = all.str();
  return Status::OK();
}

// Reads attribute `name` through `read`: the first line of its text, without
// surrounding whitespace.
Status ReadAttribute(const ZbdAttributeReader& read, const char* name, std::string* value) {
  std::string text;
  ZONEKV_RETURN_IF_ERROR(read(name, &text));
  *value = SysfsAttributeValue(text);
  return Status::OK();
}

Status ReadNumber(const ZbdAttributeReader& read, const std::string& dir, const char* name, uint64_t max,
                  uint64_t* value) {
  std::string text;
  ZONEKV_RETURN_IF_ERROR(ReadAttribute(read, name, &text));
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max) {
    return Status::IOError(dir + "/" + name + " holds \"" + text + "\", not a number up to " +
                           std::to_string(max));
  }
  *value = v;
  return Status::OK();
}

}  // namespace

std::string SysfsAttributeValue(const std::string& file_text) {
  const std::string line = file_text.substr(0, file_text.find('\n'));
  const size_t b = line.find_first_not_of(" \t\r\n");
  const size_t e = line.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : line.substr(b, e - b + 1);
}

std::string SelectedScheduler(const std::string& scheduler_file) {
  const size_t open = scheduler_file.find('[');
  if (open != std::string::npos) {
    const size_t close = scheduler_file.find(']', open);
    if (close == std::string::npos) return "";
    return scheduler_file.substr(open + 1, close - open - 1);
  }
  // A queue with a single choice prints it without brackets ("none").
  std::istringstream words(scheduler_file);
  std::string first, second;
  words >> first >> second;
  return second.empty() ? first : "";
}

Status ReadZbdQueueInfo(const std::string& queue_dir, const std::string& dev, ZbdQueueInfo* info) {
  auto read = [&](const char* name, std::string* text) { return ReadFile(queue_dir, name, text); };
  return ParseZbdQueueInfo(read, queue_dir, dev, info);
}

Status ParseZbdQueueInfo(const ZbdAttributeReader& read, const std::string& queue_dir, const std::string& dev,
                         ZbdQueueInfo* info) {
  std::string zoned;
  ZONEKV_RETURN_IF_ERROR(ReadAttribute(read, "zoned", &zoned));
  if (zoned == "none") {
    return Status::InvalidArgument(dev + " is not a zoned block device (" + queue_dir +
                                   "/zoned is \"none\")");
  }
  if (zoned == "host-aware") {
    return Status::NotSupported(dev + " is a host-aware zoned device; zonekv supports host-managed "
                                "devices only");
  }
  if (zoned != "host-managed") {
    return Status::IOError(queue_dir + "/zoned holds \"" + zoned +
                           "\", expected none, host-aware or host-managed");
  }

  std::string scheduler_file;
  ZONEKV_RETURN_IF_ERROR(ReadAttribute(read, "scheduler", &scheduler_file));
  info->scheduler = SelectedScheduler(scheduler_file);
  if (info->scheduler != "mq-deadline") {
    return Status::NotSupported(
        dev + ": I/O scheduler is \"" + (info->scheduler.empty() ? scheduler_file : info->scheduler) +
        "\", which may reorder writes to a zone; select mq-deadline as root with: echo mq-deadline > " +
        queue_dir + "/scheduler");
  }

  uint64_t block_size = 0, chunk_sectors = 0, nr_zones = 0, max_open = 0, max_active = 0;
  ZONEKV_RETURN_IF_ERROR(ReadNumber(read, queue_dir, "logical_block_size", UINT32_MAX, &block_size));
  ZONEKV_RETURN_IF_ERROR(ReadNumber(read, queue_dir, "chunk_sectors", UINT64_MAX / 512, &chunk_sectors));
  ZONEKV_RETURN_IF_ERROR(ReadNumber(read, queue_dir, "nr_zones", UINT32_MAX, &nr_zones));
  ZONEKV_RETURN_IF_ERROR(ReadNumber(read, queue_dir, "max_open_zones", UINT32_MAX, &max_open));
  ZONEKV_RETURN_IF_ERROR(ReadNumber(read, queue_dir, "max_active_zones", UINT32_MAX, &max_active));
  info->logical_block_size = static_cast<uint32_t>(block_size);
  info->zone_size_bytes = chunk_sectors * 512;
  info->nr_zones = static_cast<uint32_t>(nr_zones);
  info->max_open_zones = static_cast<uint32_t>(max_open);
  info->max_active_zones = static_cast<uint32_t>(max_active);
  return Status::OK();
}

}  // namespace zonekv
