// A stand-in for the zoned file system's layout: every live SST file of a
// DB, placed whole into zones in creation order, `files_per_zone` files per
// zone. Deleted files stay written but invalid, so zones accumulate garbage
// as they would on a ZNS SSD. A filler zone sets the free-space ratio: a
// full, valid one makes free space scarce; an empty one makes it plentiful.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>

#include "zonekv/compactor.h"

namespace zonekv {

class FakeZones {
 public:
  FakeZones(int files_per_zone, bool scarce_free_space)
      : files_per_zone_(files_per_zone), scarce_(scarce_free_space) {}

  void set_db(rocksdb::DB* db) {
    std::lock_guard<std::mutex> l(mu_);
    db_ = db;
  }

  Status Snapshot(FsView* out) {
    std::lock_guard<std::mutex> l(mu_);
    if (db_ == nullptr) return Status::NotFound("no DB yet");
    std::vector<rocksdb::LiveFileMetaData> live;
    db_->GetLiveFilesMetaData(&live);
    std::set<uint64_t> live_numbers;
    for (const auto& f : live) {
      live_numbers.insert(f.file_number);
      if (placed_.count(f.file_number) > 0) continue;
      uint32_t zone = static_cast<uint32_t>(next_file_++ / files_per_zone_);
      placed_[f.file_number] = {zone, f.size};
      if (zones_.size() <= zone) zones_.resize(zone + 1);
      zones_[zone].written_bytes += f.size;
    }
    FsView v;
    for (size_t i = 0; i < zones_.size(); ++i) {
      ZoneView z = zones_[i];
      z.id = static_cast<uint32_t>(i);
      z.valid_bytes = 0;
      v.zones.push_back(z);
    }
    for (const auto& [number, where] : placed_) {
      if (live_numbers.count(number) == 0) continue;
      v.zones[where.first].valid_bytes += where.second;
      FileView f;
      f.hints.kind = FileKind::kSst;
      f.hints.number = number;
      f.size_bytes = where.second;
      f.bytes_per_zone[where.first] = where.second;
      v.files.push_back(f);
    }
    uint64_t cap = 0;
    for (const ZoneView& z : v.zones) cap = std::max(cap, z.written_bytes);
    for (ZoneView& z : v.zones) {
      z.capacity_bytes = cap;
      z.state = z.written_bytes == cap ? ZoneState::kFull : ZoneState::kClosed;
    }
    ZoneView filler;
    filler.id = static_cast<uint32_t>(v.zones.size());
    filler.capacity_bytes = 1ull << 30;
    filler.written_bytes = filler.valid_bytes = scarce_ ? filler.capacity_bytes : 0;
    filler.state = scarce_ ? ZoneState::kFull : ZoneState::kEmpty;
    v.zones.push_back(filler);
    *out = std::move(v);
    return Status::OK();
  }

 private:
  const int files_per_zone_;
  const bool scarce_;
  std::mutex mu_;
  rocksdb::DB* db_ = nullptr;
  uint64_t next_file_ = 0;
  std::map<uint64_t, std::pair<uint32_t, uint64_t>> placed_;  // number -> (zone, bytes)
  std::vector<ZoneView> zones_;                              // written_bytes only
};

}  // namespace zonekv
