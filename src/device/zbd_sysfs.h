// Reading and checking a block device's sysfs queue attributes
// (/sys/dev/block/MAJ:MIN/queue/) before zonekv uses it as a zoned device.
// Separate from the device so tests can point it at a fake sysfs directory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "zonekv/status.h"

namespace zonekv {

// What the queue directory says about a host-managed zoned block device.
struct ZbdQueueInfo {
  std::string scheduler;        // the selected I/O scheduler ("mq-deadline")
  uint32_t logical_block_size = 0;  // bytes
  uint64_t zone_size_bytes = 0;     // from chunk_sectors (512-byte sectors)
  uint32_t nr_zones = 0;
  uint32_t max_open_zones = 0;      // 0 = no limit
  uint32_t max_active_zones = 0;    // 0 = no limit
};

// Reads `queue_dir`/{zoned,scheduler,logical_block_size,chunk_sectors,
// nr_zones,max_open_zones,max_active_zones} into *info. `dev` names the device
// in messages. Errors, checked in this order:
//   IOError          a file is missing, unreadable or not what the kernel writes
//   InvalidArgument  zoned is "none": not a zoned block device
//   NotSupported     zoned is "host-aware", or the selected scheduler is not
//                    mq-deadline (the message says how to select it)
Status ReadZbdQueueInfo(const std::string& queue_dir, const std::string& dev, ZbdQueueInfo* info);

// Reads attribute file `name` of a queue directory into *text (its whole
// text); IOError if it cannot be read.
using ZbdAttributeReader = std::function<Status(const char* name, std::string* text)>;

// ReadZbdQueueInfo without file I/O: the attributes come from `read`;
// `queue_dir` names the directory in messages. Same checks and errors.
Status ParseZbdQueueInfo(const ZbdAttributeReader& read, const std::string& queue_dir, const std::string& dev,
                         ZbdQueueInfo* info);

// An attribute's value: the first line of its file's text without
// surrounding whitespace.
std::string SysfsAttributeValue(const std::string& file_text);

// The selected entry of a queue/scheduler file ("[mq-deadline] none" ->
// "mq-deadline"; "none" -> "none"); empty if the text has no entry.
std::string SelectedScheduler(const std::string& scheduler_file);

}  // namespace zonekv
