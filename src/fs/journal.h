// Journal: the metadata log of ZoneFs in the reserved metadata zones.
//
// Each metadata zone in use holds: a superblock record, a snapshot record
// (the whole file table), then edit records. When an edit does not fit, the
// journal rolls: it ends the current zone (an end record, then FINISH, which
// releases its active resource), writes superblock(sequence+1) and a fresh
// snapshot into the next metadata zone, flushes, and only then resets the
// old zone, so a crash at any point leaves one complete zone.
//
// A finished zone reads as zeros after its last record. Recovery of a full
// zone without an end record (its log had a torn tail when it was finished)
// treats the trailing all-zero blocks as unwritten, so the torn record is
// again the tail of the log.
//
// Record framing; every record starts at a block boundary:
//   u32 header_crc    CRC-32C of the next 9 bytes
//   u32 length        payload bytes
//   u8  type          1 superblock, 2 snapshot, 3 edits, 4 end (the zone was
//                     rolled away from; nothing follows)
//   u32 payload_crc   CRC-32C of the payload
//   payload, then zero padding to the next block boundary (checked: a
//   non-zero padding byte is Corruption, so no byte of the log below the
//   write pointer can change unnoticed; nor can one after an end record)
//
// Thread safety: none; the caller serializes (in ZoneFs, the group-commit
// leader uses it, one at a time, without the file system's lock).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "metadata.h"
#include "zonekv/status.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

// On disk (each journal record's type byte). Never renumber; add at the end.
enum class RecordType : uint8_t { kSuperblock = 1, kSnapshot = 2, kEdits = 3, kEnd = 4 };

// Frames one record, padded to `block_size`.
std::string EncodeRecord(RecordType type, const std::string& payload, uint32_t block_size);

// Parses the record at `pos` of `zone_data` (the zone's bytes up to its write
// pointer). Sets *torn if the record extends past the end of zone_data: a
// write cut short by a crash, which the caller treats as the end of the log.
// Corruption (naming the zone and offset) if a checksum does not match.
Status DecodeRecord(const std::string& zone_data, uint64_t pos, uint32_t zone, uint32_t block_size,
                    RecordType* type, std::string* payload, uint64_t* next_pos, bool* torn);

// Replays one metadata zone: `data` is the zone's bytes up to its write
// pointer, `full` whether the zone is full (its trailing all-zero blocks are
// then dropped first). Sets *complete and fills *sb and *state if the zone
// holds a superblock and a complete snapshot; *complete stays false if the
// snapshot is torn (the caller falls back to an older zone). *torn_tail if
// the log ends in a torn edits record. Corruption naming the zone and offset
// on a damaged or unexpected record. No device I/O.
Status ReplayMetaZone(std::string data, uint32_t zone, uint32_t block_size, bool full, Superblock* sb,
                      MetaState* state, bool* complete, bool* torn_tail);

class Journal {
 public:
  Journal(ZonedDevice* dev, uint32_t meta_zones) : dev_(dev), meta_zones_(meta_zones) {}

  // mkfs: resets the metadata zones and writes `sb` and an empty snapshot to zone 0.
  Status Format(const Superblock& sb);
  // Finds the newest metadata zone holding a superblock and a complete
  // snapshot and replays its edits into *state. NotFound if no metadata zone
  // holds a superblock; Corruption on a damaged record.
  Status Recover(Superblock* sb, MetaState* state);
  // Whether an edits record of `edit_bytes` fits in the current zone (else
  // Append rolls).
  bool Fits(size_t edit_bytes) const;
  // Appends an edits record, rolling to the next metadata zone (with the
  // snapshot `snapshot()` returns, which must include these edits) if the
  // current zone is full.
  Status Append(const std::string& edits, const std::function<std::string()>& snapshot);
  // Writes a fresh snapshot into the next metadata zone.
  Status Roll(const std::string& snapshot);

  uint32_t current_zone() const { return zone_; }
  uint64_t used_bytes() const { return wp_; }
  uint64_t sequence() const { return sb_.sequence; }
  uint64_t rolls() const { return rolls_; }

 private:
  Status WriteRecord(RecordType type, const std::string& payload);
  Status ReadZone(uint32_t zone, uint64_t wp, std::string* data);

  ZonedDevice* dev_;
  uint32_t meta_zones_;
  Superblock sb_;
  uint32_t zone_ = 0;   // metadata zone being appended to
  uint64_t wp_ = 0;     // its write pointer, relative to the zone start
  uint64_t rolls_ = 0;
  bool torn_tail_ = false;  // the zone replayed by Recover ended in a torn record
  // Set when a roll failed half way: the zone being written then holds no
  // snapshot, so nothing more may be appended to it.
  Status failed_;
};

}  // namespace zonekv
