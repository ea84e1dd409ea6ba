// ZoneFs views for policies and tools, statistics (defined in docs/metrics.md) and fsck.
#include <algorithm>

#include "zone_fs_impl.h"

namespace zonekv {

FileView ZoneFs::Impl::FileViewLocked(const FileRecord& f) const {
  FileView fv;
  fv.id = f.meta.id;
  fv.name = f.meta.name;
  fv.hints = f.meta.hints;
  fv.size_bytes = f.meta.size_bytes;
  fv.open_for_write = f.writing;
  for (const auto& e : f.meta.extents) fv.bytes_per_zone[e.zone] += RoundUp(e.length_bytes, bs_);
  return fv;
}

void ZoneFs::Impl::BuildViewLocked(uint32_t keep_empty, ViewFiles files, FsView* out) const {
  FsView& v = *out;
  v.ssts = nullptr;  // the caller sets it when the view is used under mu_
  v.now_us = NowUsLocked();
  v.zones.clear();
  v.files.clear();
  v.zones.reserve(geo_.nr_zones - meta_zones_);
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    const ZoneEntry& e = zones_[z];
    ZoneView zv;
    zv.id = z;
    zv.state = e.state;
    zv.capacity_bytes = e.capacity_bytes;
    zv.written_bytes = e.wp_bytes;
    zv.valid_bytes = std::min(e.valid_bytes, e.wp_bytes);
    std::copy(std::begin(e.valid_by_kind), std::end(e.valid_by_kind), zv.valid_bytes_by_kind);
    zv.busy = e.busy();
    zv.lifetime = e.lifetime;
    zv.last_write_us = e.last_write_us;
    zv.reset_count = e.reset_count;
    zv.ybiz = e.ybiz();
    v.zones.push_back(zv);
  }
  // Empty zones kept back (the cleaner's, the recovery reserve): the
  // highest-numbered ones, shown busy.
  for (auto it = v.zones.rbegin(); it != v.zones.rend() && keep_empty > 0; ++it) {
    if (it->free_empty()) {
      it->busy = true;
      keep_empty--;
    }
  }
  if (files != ViewFiles::kNone) {
    v.files.reserve(names_.size());
    for (const auto& [name, f] : names_) {
      if (files == ViewFiles::kAll || f->meta.hints.kind == FileKind::kSst) v.files.push_back(FileViewLocked(*f));
    }
  }
  v.level_scores = level_scores_;
  v.reclaimer_kept_zones = ReclaimerKeptZonesLocked();
  CountZonesLocked(&v.open_zones, &v.active_zones);
  v.max_open_zones = geo_.max_open_zones == 0 ? 0 : DataLimitLocked(geo_.max_open_zones);
  v.max_active_zones = geo_.max_active_zones == 0 ? 0 : DataLimitLocked(geo_.max_active_zones);
}

void ZoneFs::Impl::SetLevelScores(std::vector<double> scores) {
  MutexLock l(&mu_);
  level_scores_ = std::move(scores);
}

namespace {

// The files of a view as flat records (FlatFileCopy): copied under mu_ with
// no allocation per file, made into FileViews after it.
struct FlatFile {
  uint64_t id, size_bytes, number;
  int level, job;
  FileKind kind;
  Lifetime lifetime;
  bool open_for_write;
  size_t name, smallest, largest, end;  // offsets into the arena: name, smallest key, largest key, end
  size_t extents_end;                   // past this file's (zone, bytes) pairs
};

}  // namespace

struct ZoneFs::Impl::FlatFileCopy {
  std::vector<FlatFile> files;
  std::string arena;                                  // names and keys, back to back
  std::vector<std::pair<uint32_t, uint64_t>> extents;  // (zone, rounded length), file after file
};

void ZoneFs::Impl::CopyFilesLocked(ViewFiles which, FlatFileCopy* out) const {
  for (const auto& [name, f] : names_) {
    const FileHints& h = f->meta.hints;
    if (which == ViewFiles::kNone || (which == ViewFiles::kSst && h.kind != FileKind::kSst)) continue;
    FlatFile r;
    r.id = f->meta.id;
    r.size_bytes = f->meta.size_bytes;
    r.number = h.number;
    r.level = h.level;
    r.job = h.job;
    r.kind = h.kind;
    r.lifetime = h.lifetime;
    r.open_for_write = f->writing;
    r.name = out->arena.size();
    out->arena += name;
    r.smallest = out->arena.size();
    out->arena += h.smallest_key;
    r.largest = out->arena.size();
    out->arena += h.largest_key;
    r.end = out->arena.size();
    for (const Extent& e : f->meta.extents) out->extents.emplace_back(e.zone, RoundUp(e.length_bytes, bs_));
    r.extents_end = out->extents.size();
    out->files.push_back(r);
  }
}

FsView ZoneFs::Impl::View(ViewFiles files) const {
  FsView v;
  v.zones.reserve(geo_.nr_zones);  // allocated before taking mu_
  if (files == ViewFiles::kNone) {
    MutexLock l(&mu_);
    BuildViewLocked(0, files, &v);
    return v;
  }
  // The files are copied flat under mu_ (O(files + extents) of memcpy into
  // memory reserved before, sized by the last copy) and made into FileViews
  // (strings, per-zone maps: an allocation or more per file) without it.
  FlatFileCopy flat;
  const auto [files_hint, arena_hint, extents_hint] = flat_copy_hint_[files == ViewFiles::kSst ? 0 : 1].Get();
  flat.files.reserve(files_hint + files_hint / 4 + 16);
  flat.arena.reserve(arena_hint + arena_hint / 4 + 1024);
  flat.extents.reserve(extents_hint + extents_hint / 4 + 16);
  {
    MutexLock l(&mu_);
    BuildViewLocked(0, ViewFiles::kNone, &v);
    CopyFilesLocked(files, &flat);
  }
  flat_copy_hint_[files == ViewFiles::kSst ? 0 : 1].Set(flat.files.size(), flat.arena.size(), flat.extents.size());
  v.files.reserve(flat.files.size());
  size_t e = 0;
  for (const FlatFile& r : flat.files) {
    FileView fv;
    fv.id = r.id;
    fv.name.assign(flat.arena, r.name, r.smallest - r.name);
    fv.hints.kind = r.kind;
    fv.hints.number = r.number;
    fv.hints.level = r.level;
    fv.hints.job = r.job;
    fv.hints.smallest_key.assign(flat.arena, r.smallest, r.largest - r.smallest);
    fv.hints.largest_key.assign(flat.arena, r.largest, r.end - r.largest);
    fv.hints.lifetime = r.lifetime;
    fv.size_bytes = r.size_bytes;
    fv.open_for_write = r.open_for_write;
    for (; e < r.extents_end; e++) fv.bytes_per_zone[flat.extents[e].first] += flat.extents[e].second;
    v.files.push_back(std::move(fv));
  }
  return v;
}

FsView ZoneFs::Impl::SstView(const std::vector<uint64_t>& numbers) const {
  FsView v;
  v.zones.reserve(geo_.nr_zones);  // allocated before taking mu_
  v.files.reserve(numbers.size());
  {
    MutexLock l(&mu_);
    BuildViewLocked(0, ViewFiles::kNone, &v);
    for (uint64_t n : numbers) {
      for (auto [it, end] = sst_numbers_.equal_range(n); it != end; ++it) v.files.push_back(FileViewLocked(*it->second));
    }
  }
  // By name, as View() lists files; each once (numbers may repeat).
  std::sort(v.files.begin(), v.files.end(), [](const FileView& a, const FileView& b) { return a.name < b.name; });
  v.files.erase(std::unique(v.files.begin(), v.files.end(),
                            [](const FileView& a, const FileView& b) { return a.id == b.id; }),
                v.files.end());
  return v;
}

void ZoneFs::Impl::InspectSstIndex(const std::function<void(const FsView&, const SstIndex&)>& fn) const {
  FsView v;
  MutexLock l(&mu_);
  BuildViewLocked(0, ViewFiles::kAll, &v);
  fn(v, sst_index_);
}

ZoneFsStats ZoneFs::Impl::Stats() const {
  // Copied under mu_ (O(zones), into memory allocated before), summarized
  // without it.
  FsView v;
  v.zones.reserve(geo_.nr_zones);
  FsCounters c;
  FsMutex::Stats lock_stats;
  lock_stats.longest.reserve(FsMutex::kLongest);
  lock_stats.longest_cpu.reserve(FsMutex::kLongest);
  ZoneFsStats st;
  {
    MutexLock l(&mu_);
    BuildViewLocked(0, ViewFiles::kNone, &v);
    c = counters_;
    mu_.StatsLocked(&lock_stats);
    st.zc_passes = clean_passes_;
    st.files = names_.size();
    st.sst_index_files = sst_index_.size();
    st.sst_index_overlapping = sst_index_.overlapping();
    st.sst_index_overlapping_peak = sst_index_.overlapping_peak();
    st.journal_rolls = journal_pos_.rolls;
    st.space.reserve_zones = reserve_zones_;
    st.space.recovery_mode = recovery_mode_;
  }
  st.host_write_bytes = host_write_bytes_.load();
  std::copy(std::begin(c.zc_copy_bytes), std::end(c.zc_copy_bytes), st.zc_copy_bytes_by_kind);
  std::copy(std::begin(c.zc_copy_sst_by_level), std::end(c.zc_copy_sst_by_level), st.zc_copy_sst_by_level);
  st.resets_runtime = c.resets_runtime;
  st.resets_zc = c.resets_zc;
  st.r_wp_sum = c.r_wp_sum;
  st.r_wp_min = c.r_wp_min;
  st.finishes = c.finishes;
  st.finishes_avoided = c.finishes_avoided;
  for (const auto& z : v.zones) {
    st.data_capacity_bytes += z.capacity_bytes;
    if (!z.empty()) st.written_capacity_bytes += z.capacity_bytes;
    if (z.empty()) st.zones_empty++;
    if (z.full()) st.zones_full++;
  }
  st.free_bytes = v.free_bytes();
  st.used_bytes = v.used_bytes();
  st.reclaimable_bytes = v.reclaimable_bytes();
  st.io_block_us = c.io_block_us;
  st.alloc_time = c.alloc_time;
  st.zc_time = c.zc_time;
  st.reset_time = c.reset_time;
  st.nospace_errors = c.nospace_errors;
  st.zone_preemptions = c.preemptions;
  st.alloc_reasons = c.alloc_reasons;
  st.zc_emergency_passes = c.emergency_passes;
  st.lock = lock_stats.Summary();
  st.lock.device_calls_held = dev_->calls_held();
  {
    MutexLock rl(&readers_mu_);
    st.lock.reset_reader_waits = reset_reader_waits_;
  }
  st.journal.syncs = c.journal_syncs;
  st.journal.flushes = c.journal_flushes;
  st.journal.writes = c.journal_writes;
  st.journal.batches_written = c.journal_batches_written;
  st.space.recovery_entries = c.recovery_entries;
  st.space.reserve_loans = c.reserve_loans;
  st.space.compaction_loans = c.compaction_loans;
  st.space.reclaim_requests = c.reclaim_requests;
  st.space.reclaim_waits = c.reclaim_waits;
  st.space.zc_passes_blob_gc = c.zc_passes_blob_gc;
  st.space.new_data_rate = new_data_rate_.load();
  {
    MutexLock l(&pace_mu_);
    st.space.paced_writes = paced_writes_;
    st.space.pace_wait_us = pace_wait_us_;
  }
  return st;
}

std::vector<FileExtents> ZoneFs::Impl::Files() const {
  MutexLock l(&mu_);
  FsView v;
  BuildViewLocked(0, ViewFiles::kAll, &v);
  std::vector<FileExtents> out;
  for (auto& fv : v.files) {
    FileExtents fe;
    const FileRecord* f = names_.at(fv.name);
    for (const auto& e : f->meta.extents) fe.extents.push_back({e.zone, e.offset_bytes, e.length_bytes});
    fe.file = std::move(fv);
    out.push_back(std::move(fe));
  }
  return out;
}

Json ZoneFs::Impl::Dump() const {
  Json files = Json::Array();
  for (const auto& fe : Files()) {
    const FileHints& h = fe.file.hints;
    Json j = Json::Object();
    j.Set("id", fe.file.id).Set("name", fe.file.name).Set("size_bytes", fe.file.size_bytes);
    j.Set("kind", FileKindName(h.kind)).Set("number", h.number).Set("level", h.level).Set("job", h.job);
    j.Set("lifetime", static_cast<int>(h.lifetime)).Set("smallest_key", h.smallest_key).Set("largest_key", h.largest_key);
    Json ext = Json::Array();
    for (const auto& e : fe.extents) {
      Json x = Json::Object();
      x.Set("zone", e.zone).Set("offset", e.offset_bytes).Set("length", e.length_bytes);
      ext.Push(x);
    }
    j.Set("extents", ext);
    files.Push(j);
  }
  Json j = Json::Object();
  MutexLock l(&mu_);
  Json meta = Json::Object();
  meta.Set("meta_zones", meta_zones_)
      .Set("journal_zone", journal_pos_.zone)
      .Set("journal_bytes", journal_pos_.bytes)
      .Set("sequence", journal_pos_.sequence);
  j.Set("metadata", meta).Set("files", files);
  return j;
}

void ZoneFs::Impl::IndexProblemsLocked(std::vector<std::string>* out) const {
  size_t ssts = 0, indexed = 0;
  for (const auto& [name, f] : names_) {
    if (f->meta.hints.kind == FileKind::kSst) {
      ssts++;
      bool found = false;
      for (auto [it, end] = sst_numbers_.equal_range(f->meta.hints.number); it != end && !found; ++it) found = it->second == f;
      if (!found) out->push_back("file " + name + " is missing from the SST number map");
    }
    const FileView* in = sst_index_.Find(f->meta.id);
    if (!SstIndex::Indexed(f->meta.hints)) {
      if (in != nullptr) out->push_back("file " + name + " is in the SST index, without a level or key range");
      continue;
    }
    indexed++;
    if (in == nullptr) {
      out->push_back("SST " + name + " (level " + std::to_string(f->meta.hints.level) + ") is missing from the SST index");
    } else if (!(*in == FileViewLocked(*f))) {
      out->push_back("SST " + name + ": its SST index entry (level " + std::to_string(in->hints.level) + ", " +
                     std::to_string(in->size_bytes) + " bytes in " + std::to_string(in->bytes_per_zone.size()) +
                     " zones) differs from the file table");
    }
  }
  if (sst_numbers_.size() != ssts) {
    out->push_back("the SST number map lists " + std::to_string(sst_numbers_.size()) + " files, the file table " +
                   std::to_string(ssts) + " SSTs");
  }
  if (sst_index_.size() != indexed) {
    out->push_back("the SST index holds " + std::to_string(sst_index_.size()) + " files, the file table " +
                   std::to_string(indexed) + " SSTs with a level and key range");
  }
  if (std::string p = sst_index_.Check(); !p.empty()) out->push_back("SST index: " + p);
  // zone_files_ against every record's extents (deleted but open files too).
  std::vector<std::map<uint64_t, uint32_t>> want(zone_files_.size());
  for (const auto& [id, f] : files_) {
    for (const Extent& e : f->meta.extents) {
      if (e.zone < want.size()) want[e.zone][id]++;
    }
  }
  for (size_t z = 0; z < want.size(); z++) {
    if (want[z] != zone_files_[z]) {
      out->push_back("zone " + std::to_string(z) + ": its file list (" + std::to_string(zone_files_[z].size()) +
                     " files) differs from the extents in it (" + std::to_string(want[z].size()) + " files)");
    }
  }
}

std::vector<FsckProblem> ZoneFs::Impl::Fsck() const {
  std::vector<FsckProblem> out;
  for (const auto& m : mount_problems_) out.push_back({m});  // written by Mount only
  // The table first (under mu_), then the device's zone report (without it):
  // every extent in the table was written before the report, and write
  // pointers only move forward, except by a reset, which happens only to a
  // zone no extent names. So a zone reset since the table was copied (or
  // being reset then) is not checked against the report.
  struct FileCopy {
    std::string name;
    uint64_t size_bytes;
    std::vector<Extent> extents;
    ValidOwner owner;
  };
  std::vector<FileCopy> files;
  std::vector<ZoneEntry> zones;
  std::vector<std::string> index_problems;  // the SST number map and index against the file table
  {
    MutexLock l(&mu_);
    IndexProblemsLocked(&index_problems);
    files.reserve(files_.size());
    for (const auto& [id, f] : files_) files.push_back({f->meta.name, f->meta.size_bytes, f->meta.extents, ValidOwner::Of(f->meta.hints)});
    zones = zones_;
  }
  for (auto& p : index_problems) out.push_back({std::move(p)});
  std::vector<ZoneInfo> infos;
  Status s = dev_->ReportZones(0, geo_.nr_zones, &infos);
  if (!s.ok() || infos.size() != geo_.nr_zones) {
    out.push_back({"zone report failed: " + s.ToString()});
    return out;
  }
  auto reset_since = [&](uint32_t z) {
    return !zones.empty() && (zones[z].resetting || infos[z].reset_count != zones[z].reset_count);
  };
  struct Use {
    uint64_t start, end;
    std::string file;
  };
  std::vector<std::vector<Use>> uses(geo_.nr_zones);
  std::vector<uint64_t> valid(geo_.nr_zones, 0);
  std::vector<std::map<uint64_t, uint64_t>> blob_bytes(geo_.nr_zones);  // zone -> blob file number -> bytes
  for (const auto& f : files) {
    uint64_t sum = 0;
    for (size_t i = 0; i < f.extents.size(); i++) {
      const Extent& e = f.extents[i];
      sum += e.length_bytes;
      std::string where = "file " + f.name + " extent " + std::to_string(i) + " [zone " + std::to_string(e.zone) +
                          ", " + std::to_string(e.offset_bytes) + "+" + std::to_string(e.length_bytes) + ")";
      if (e.zone < meta_zones_ || e.zone >= geo_.nr_zones) {
        out.push_back({where + " is not in a data zone"});
        continue;
      }
      uint64_t end = e.offset_bytes + RoundUp(e.length_bytes, bs_);
      const ZoneInfo& zi = infos[e.zone];
      uint64_t wp = zi.state == ZoneState::kFull ? zi.capacity_bytes : zi.written_bytes();
      if (e.offset_bytes % bs_ != 0) out.push_back({where + " is not block aligned"});
      if (end > zi.capacity_bytes) {
        out.push_back({where + " crosses the zone capacity " + std::to_string(zi.capacity_bytes)});
      } else if (end > wp && !reset_since(e.zone)) {
        out.push_back({where + " is beyond the zone's write pointer " + std::to_string(wp)});
      }
      uses[e.zone].push_back({e.offset_bytes, end, f.name});
      valid[e.zone] += RoundUp(e.length_bytes, bs_);
      if (f.owner.kind == FileKind::kBlob) blob_bytes[e.zone][f.owner.number] += RoundUp(e.length_bytes, bs_);
    }
    if (sum != f.size_bytes) {
      out.push_back({"file " + f.name + " has size " + std::to_string(f.size_bytes) + " but its extents hold " +
                     std::to_string(sum) + " bytes"});
    }
  }
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    auto& u = uses[z];
    std::sort(u.begin(), u.end(), [](const Use& a, const Use& b) { return a.start < b.start; });
    for (size_t i = 1; i < u.size(); i++) {
      if (u[i].start < u[i - 1].end) {
        out.push_back({"zone " + std::to_string(z) + ": extent of " + u[i].file + " at " + std::to_string(u[i].start) +
                       " overlaps extent of " + u[i - 1].file + " ending at " + std::to_string(u[i - 1].end)});
      }
    }
    // A running cleaner counts its copies valid before they join a file.
    uint64_t pending = zones.empty() ? 0 : zones[z].pending_copy_bytes;
    if (!zones.empty() && zones[z].valid_bytes != valid[z] + pending) {
      out.push_back({"zone " + std::to_string(z) + ": valid byte count " + std::to_string(zones[z].valid_bytes) +
                     " differs from the " + std::to_string(valid[z]) + " bytes its extents hold" +
                     (pending ? " plus " + std::to_string(pending) + " bytes of cleaner copies in flight" : "")});
    }
    if (!zones.empty() && pending == 0 && zones[z].blob_bytes_by_number != blob_bytes[z]) {
      out.push_back({"zone " + std::to_string(z) + ": its blob accounting (youngest blob file " +
                     std::to_string(zones[z].ybiz()) + ") differs from the blob files its extents hold (youngest " +
                     std::to_string(blob_bytes[z].empty() ? 0 : blob_bytes[z].rbegin()->first) + ")"});
    }
    uint64_t wp = infos[z].state == ZoneState::kFull ? infos[z].capacity_bytes : infos[z].written_bytes();
    if (valid[z] > wp && !reset_since(z)) {
      out.push_back({"zone " + std::to_string(z) + ": extents hold " + std::to_string(valid[z]) +
                     " bytes, more than its write pointer " + std::to_string(wp)});
    }
  }
  return out;
}

}  // namespace zonekv
