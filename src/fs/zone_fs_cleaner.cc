// ZoneFs zone cleaning: a background thread asks the cleaning policy for
// victims, copies their valid extents into the cleaner's own zone, swaps
// the files' extent lists (one journaled replace record per file whose
// journaled extents moved) and resets
// the victims that no longer hold valid data.
//
// Extents of files open for writing move too, except a last extent the
// writer may still extend (MovableLocked). With zc_sst_only only SST extents
// move, as in ZenFS. A victim that keeps valid data is not reset.
#include <algorithm>
#include <chrono>

#include "zone_fs_impl.h"

namespace zonekv {

void ZoneFs::Impl::CleanerLoop() {
  MutexLock l(&mu_);
  while (!stop_) {
    clean_cv_.wait_for(l, std::chrono::milliseconds(opts_.zc_interval_ms),
                       [this]() ZONEKV_REQUIRES(mu_) { return stop_ || clean_kick_; });
    if (stop_) break;
    clean_kick_ = false;
    l.unlock();
    RuntimeReset();  // time-dependent reset policies get a regular look
    // Policies may return one victim per call: ask again while cleaning frees zones.
    while (CleanOnce() > 0 && !stop_requested()) {
    }
    l.lock();
    clean_passes_++;
    zone_cv_.notify_all();
  }
}

int ZoneFs::Impl::CleanOnce() {
  std::vector<uint32_t> victims;
  FsView v;
  v.zones.reserve(geo_.nr_zones);  // allocated before taking mu_
  // The reclaimer's state, asked without mu_ (it may read the file system).
  bool leave_blob_zones = false;
  {
    MutexLock l(&mu_);
    if (std::shared_ptr<SpaceReclaimer> reclaimer = BeginReclaimerCallLocked()) {
      l.unlock();
      leave_blob_zones = !reclaimer->Reclaimable().stuck;
      reclaimer.reset();
      l.lock();
      EndReclaimerCallLocked();
    }
  }
  {
    MutexLock l(&mu_);
    auto t0 = std::chrono::steady_clock::now();  // the view's cost is the policy's
    BuildViewLocked(0, zc_->NeedsFiles() ? ViewFiles::kAll : ViewFiles::kNone, &v);
    // Blob data is the space-pressure blob GC's when there is one: a zone
    // holding only blob data may hold garbage the file system cannot see
    // (records RocksDB dropped inside live blob files), which a copy here
    // would move and the blob GC does not; unless the blob GC is stuck
    // (what it would collect does not fit), when cleaning those zones is
    // what makes room for it. The zones of the blob files it collects, or
    // plans to collect next, are always left to it.
    if (leave_blob_zones || blob_gc_target_ > 0) {
      bool hid = false;
      for (auto& zv : v.zones) {
        const ZoneEntry& e = zones_[zv.id];
        if (zv.busy || e.blob_bytes_by_number.empty()) continue;
        const bool all_blob = e.valid_by_kind[static_cast<int>(FileKind::kBlob)] == e.valid_bytes;
        if ((leave_blob_zones && all_blob) ||
            (blob_gc_target_ > 0 && e.blob_bytes_by_number.begin()->first <= blob_gc_target_)) {
          zv.busy = true;
          hid = true;
        }
      }
      if (hid) counters_.zc_passes_blob_gc++;
    }
    // A zone holding an extent that cannot move cannot be emptied
    // (MigrateZone leaves it alone): show it as busy, or the policy would
    // pick it again and again while other zones could be cleaned.
    // Only a writer's last extent can be unmovable (MovableLocked), so this
    // costs O(files), not O(extents).
    for (const auto& [name, f] : names_) {
      if (!f->writing || f->meta.extents.empty()) continue;
      size_t last = f->meta.extents.size() - 1;
      uint32_t z = f->meta.extents[last].zone;
      if (!MovableLocked(*f, last) && z >= meta_zones_ && z < geo_.nr_zones) v.zones[z - meta_zones_].busy = true;
    }
    std::vector<uint32_t> picks = zc_->PickVictims(v);
    counters_.zc_time.Since(t0);
    if (picks.empty() && emergency_ && emergency_zc_) {
      // A writer is out of zones and the policy sees nothing to clean: greedy
      // picks the full zone with the least valid data (ZoneFsOptions::emergency_zc).
      picks = emergency_zc_->PickVictims(v);
      if (!picks.empty()) counters_.emergency_passes++;
    }
    emergency_ = false;
    for (uint32_t z : picks) {
      if (z < meta_zones_ || z >= geo_.nr_zones) continue;
      ZoneEntry& e = zones_[z];
      if (e.busy() || e.wp_bytes == 0) continue;
      e.cleaning = true;
      victims.push_back(z);
    }
  }
  int reset = 0;
  bool out_of_space = false;
  for (uint32_t z : victims) {
    // Reset each victim as soon as it is empty, so that the space cleaning
    // consumes is recycled within the pass.
    bool migrated = !out_of_space && MigrateZone(z);
    out_of_space |= !migrated;
    MutexLock l(&mu_);
    ZoneEntry& e = zones_[z];
    e.cleaning = false;
    if (migrated && e.dead() && !e.busy() && ResetZoneLocked(z).ok()) {
      counters_.resets_zc++;
      reset++;
    }
  }
  MutexLock l(&mu_);
  if (cleaner_zone_ >= 0 && IsOpen(zones_[cleaner_zone_].state) && !zones_[cleaner_zone_].closing) {
    zones_[cleaner_zone_].closing = true;
    closes_.push_back(static_cast<uint32_t>(cleaner_zone_));
  }
  CloseReleasedZonesLocked();
  zone_cv_.notify_all();
  return reset;
}

bool ZoneFs::Impl::CopyToCleanerZone(uint64_t src, uint64_t len, uint64_t exact, ValidOwner owner,
                                     std::vector<Extent>* out) {
  std::string buf;
  uint64_t done = 0;
  while (done < len) {
    uint32_t z = 0;
    uint64_t off = 0, chunk = 0;
    {
      MutexLock l(&mu_);
      if (stop_) return false;
      if (cleaner_zone_ < 0) {
        // The empty zone the allocation view kept back for us.
        for (uint32_t c = meta_zones_; c < geo_.nr_zones; c++) {
          const ZoneEntry& e = zones_[c];
          if (!e.busy() && e.wp_bytes == 0 && e.state == ZoneState::kEmpty) {
            cleaner_zone_ = c;
            zones_[c].cleaner_target = true;
            break;
          }
        }
        if (cleaner_zone_ < 0) return false;
      }
      z = static_cast<uint32_t>(cleaner_zone_);
      const ZoneEntry& e = zones_[z];
      off = e.wp_bytes;
      chunk = std::min(len - done, e.capacity_bytes - e.wp_bytes);
    }
    buf.resize(chunk);
    Status s = dev_->Read(src + done, chunk, buf.data());
    if (s.ok()) s = dev_->Write(static_cast<uint64_t>(z) * geo_.zone_size_bytes + off, buf.data(), chunk);
    ZoneInfo info;
    // After a failure, where the device's write pointer is now.
    bool reported = !s.ok() && dev_->ReportZone(z, &info).ok();
    MutexLock l(&mu_);
    if (!s.ok()) {
      if (reported) {
        zones_[z].state = info.state;
        zones_[z].wp_bytes = info.state == ZoneState::kFull ? info.capacity_bytes : info.written_bytes();
      }
      return false;
    }
    ZoneEntry& e = zones_[z];
    e.wp_bytes += chunk;
    // Counted valid at once: once the zone is full it is no longer the
    // cleaner's, and a zone holding copies must never look empty to the
    // reset policy. MigrateZone takes the bytes back if the swap fails.
    e.AddValid(owner, chunk);
    e.pending_copy_bytes += chunk;
    e.last_write_us = NowUsLocked();
    e.state = e.wp_bytes >= e.capacity_bytes ? ZoneState::kFull : ZoneState::kImplicitOpen;
    if (e.state == ZoneState::kFull) {
      e.cleaner_target = false;
      cleaner_zone_ = -1;
    }
    uint64_t piece_exact = std::min(chunk, exact - std::min(exact, done));
    out->push_back(Extent{z, off, piece_exact});
    done += chunk;
  }
  return true;
}

void ZoneFs::Impl::SettleCopy(const Extent& p) {
  ZoneEntry& z = zones_[p.zone];
  uint64_t pb = RoundUp(p.length_bytes, bs_);
  z.pending_copy_bytes -= std::min(z.pending_copy_bytes, pb);
}

void ZoneFs::Impl::Uncount(const Extent& p, ValidOwner owner) {
  SettleCopy(p);
  zones_[p.zone].RemoveValid(owner, RoundUp(p.length_bytes, bs_));
}

void ZoneFs::Impl::DropCopies(const std::vector<std::vector<Extent>>& moved, ValidOwner owner) {
  MutexLock l(&mu_);
  for (const auto& pieces : moved) {
    for (const auto& p : pieces) Uncount(p, owner);
  }
}

bool ZoneFs::Impl::MovableLocked(const FileRecord& f, size_t i) const {
  if (!f.writing || i + 1 < f.meta.extents.size()) return true;
  return zones_[f.meta.extents[i].zone].state == ZoneState::kFull;
}

bool ZoneFs::Impl::MigrateZone(uint32_t v) {
  struct Item {
    uint64_t file;
    size_t index;
    Extent extent;
    ValidOwner owner;
  };
  std::vector<Item> items;
  {
    MutexLock l(&mu_);
    // The live files with extents in v, in name order (the order of names_,
    // which this pass scanned whole before zone_files_ existed).
    std::vector<FileRecord*> in_zone;
    in_zone.reserve(zone_files_[v].size());
    for (const auto& [id, count] : zone_files_[v]) {
      auto it = files_.find(id);
      if (it != files_.end() && !it->second->deleted) in_zone.push_back(it->second.get());
    }
    std::sort(in_zone.begin(), in_zone.end(),
              [](const FileRecord* a, const FileRecord* b) { return a->meta.name < b->meta.name; });
    for (const FileRecord* f : in_zone) {
      for (size_t i = 0; i < f->meta.extents.size(); i++) {
        // An extent that cannot move keeps the victim from being reset:
        // copying the rest now would only consume space.
        if (f->meta.extents[i].zone == v && !MovableLocked(*f, i)) return true;
      }
      if (opts_.policy.zc_sst_only && f->meta.hints.kind != FileKind::kSst) continue;
      for (size_t i = 0; i < f->meta.extents.size(); i++) {
        if (f->meta.extents[i].zone == v) {
          items.push_back({f->meta.id, i, f->meta.extents[i], ValidOwner::Of(f->meta.hints)});
        }
      }
    }
  }
  size_t k = 0;
  while (k < items.size()) {
    // All extents of one file are swapped together.
    size_t end = k;
    while (end < items.size() && items[end].file == items[k].file) end++;
    std::vector<std::vector<Extent>> moved(end - k);
    for (size_t j = k; j < end; j++) {
      const Extent& e = items[j].extent;
      uint64_t src = static_cast<uint64_t>(v) * geo_.zone_size_bytes + e.offset_bytes;
      if (!CopyToCleanerZone(src, RoundUp(e.length_bytes, bs_), e.length_bytes, items[j].owner, &moved[j - k])) {
        DropCopies(moved, items[k].owner);
        return false;
      }
    }
    MutexLock l(&mu_);
    auto it = files_.find(items[k].file);
    FileRecord* f = it == files_.end() ? nullptr : it->second.get();
    bool same = f != nullptr && !f->deleted;
    for (size_t j = k; same && j < end; j++) {
      same = items[j].index < f->meta.extents.size() && f->meta.extents[items[j].index] == items[j].extent &&
             MovableLocked(*f, items[j].index);
    }
    if (same) {
      // Replace back to front so earlier indexes stay valid. Extents that
      // were journaled (the first synced_extents) stay the journaled prefix.
      std::vector<Extent> ext = f->meta.extents;
      size_t synced = f->synced_extents;
      bool journaled_moved = false;
      for (size_t j = end; j-- > k;) {
        const std::vector<Extent>& pieces = moved[j - k];
        size_t idx = items[j].index;
        ext.erase(ext.begin() + static_cast<long>(idx));
        ext.insert(ext.begin() + static_cast<long>(idx), pieces.begin(), pieces.end());
        if (idx < f->synced_extents) {
          synced += pieces.size() - 1;
          journaled_moved = true;
        }
      }
      EditBatch b;
      if (journaled_moved) {
        // Only the journaled prefix: extents not yet synced are journaled,
        // at their new place, by the writer's next commit.
        b.ReplaceExtents(f->meta.id, std::vector<Extent>(ext.begin(), ext.begin() + static_cast<long>(synced)));
      }
      // A rename while the copies were made gave the file's bytes in v a
      // new owner (RenameFile re-counts the extents the file has, not the
      // copies in flight): the copies change owner with them.
      const ValidOwner now = ValidOwner::Of(f->meta.hints);
      for (size_t j = k; j < end; j++) {
        uint64_t bytes = RoundUp(items[j].extent.length_bytes, bs_);
        zones_[v].RemoveValid(now, bytes);
        if (items[j].owner != now) {
          for (const Extent& p : moved[j - k]) {
            zones_[p.zone].RemoveValid(items[j].owner, RoundUp(p.length_bytes, bs_));
            zones_[p.zone].AddValid(now, RoundUp(p.length_bytes, bs_));
          }
        }
        counters_.zc_copy_bytes[static_cast<int>(now.kind)] += bytes;
        if (now.kind == FileKind::kSst) {
          const int level = f->meta.hints.level;
          const int slot = level >= 0 && level < ZoneFsStats::kZcLevels - 1 ? level : ZoneFsStats::kZcLevels - 1;
          counters_.zc_copy_sst_by_level[slot] += bytes;
        }
      }
      for (const auto& pieces : moved) {
        for (const auto& p : pieces) SettleCopy(p);
      }
      CountExtentsLocked(*f, -1);
      f->meta.extents = std::move(ext);
      CountExtentsLocked(*f, 1);
      RebuildEndsLocked(f);
      f->synced_extents = synced;
      IndexFileLocked(*f);
      // A failed journal write leaves the old extents on the device; the
      // victim keeps its data until the next mount (it is not reset: the
      // swap is in memory only, so stop cleaning).
      if (!JournalLocked(b).ok()) return false;
    } else {
      // The file changed meanwhile: the copies are garbage.
      for (const auto& pieces : moved) {
        for (const auto& p : pieces) Uncount(p, items[k].owner);
      }
    }
    k = end;
  }
  return true;
}

}  // namespace zonekv
