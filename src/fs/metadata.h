// On-device metadata of ZoneFs: the superblock, file entries and the edits
// journaled to the metadata zones.
//
// Record payloads (see journal.h for the framing):
//   superblock: magic, version, sequence, geometry, meta_zones
//   snapshot:   next_file_id, directories, every live file in full
//   edits:      a batch of edits applied in order (EditBatch)
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zonekv/fs_policy.h"
#include "zonekv/status.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

// A run of one file's bytes in one zone. `offset_bytes` (block aligned) is
// relative to the zone start; `length_bytes` is exact. The extent occupies
// RoundUp(length_bytes, block_size) bytes of the zone.
struct Extent {
  uint32_t zone = 0;
  uint64_t offset_bytes = 0;
  uint64_t length_bytes = 0;

  bool operator==(const Extent& o) const {
    return zone == o.zone && offset_bytes == o.offset_bytes && length_bytes == o.length_bytes;
  }
};

inline uint64_t RoundUp(uint64_t n, uint64_t block) { return (n + block - 1) / block * block; }

struct FileMeta {
  uint64_t id = 0;
  std::string name;          // normalized absolute path
  uint64_t size_bytes = 0;   // exact; equals the sum of extent lengths
  uint64_t mtime_s = 0;      // wall-clock seconds of the last durable change
  FileHints hints;
  std::vector<Extent> extents;
};

struct Superblock {
  static constexpr uint64_t kMagic = 0x31305346564b5a5aull;  // "ZZKVFS01"
  static constexpr uint32_t kVersion = 1;
  uint64_t sequence = 0;     // bumped at every metadata-zone rollover
  uint32_t block_size = 0;
  uint64_t zone_size_bytes = 0;
  uint64_t zone_capacity_bytes = 0;
  uint32_t nr_zones = 0;
  uint32_t meta_zones = 0;

  std::string Encode() const;
  // Corruption if the payload is not a zonekv superblock.
  static Status Decode(std::string_view in, Superblock* sb);
  // InvalidArgument naming the first mismatch with the device.
  Status CheckGeometry(const DeviceGeometry& g) const;
};

// A batch of metadata edits, applied atomically by replay.
class EditBatch {
 public:
  void CreateFile(const FileMeta& f);                // a new, empty-or-not file
  // Sets the file's size and mtime, keeps its first `keep` extents and appends `extents`.
  void SetTail(uint64_t id, uint64_t size_bytes, uint64_t mtime_s, uint64_t keep,
               const std::vector<Extent>& extents, size_t first);
  void ReplaceExtents(uint64_t id, const std::vector<Extent>& extents);  // after cleaning
  void SetHints(uint64_t id, const FileHints& h);
  void Rename(uint64_t id, const std::string& name);
  void DeleteFile(uint64_t id);
  void CreateDir(const std::string& name);
  void DeleteDir(const std::string& name);

  bool empty() const { return data_.empty(); }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

// The file table as replay rebuilds it.
struct MetaState {
  uint64_t next_file_id = 1;
  std::map<uint64_t, FileMeta> files;  // by id
  std::set<std::string> dirs;

  std::string EncodeSnapshot() const;
  // Replaces *this with the snapshot.
  Status DecodeSnapshot(std::string_view in);
  // Applies an EditBatch payload. Corruption on a malformed edit or one
  // that names a file that does not exist.
  Status ApplyEdits(std::string_view in);
};

void EncodeFileMeta(const FileMeta& f, std::string* dst);

}  // namespace zonekv
