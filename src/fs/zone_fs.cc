// ZoneFs: format, mount, the file namespace and the public wrappers.
#include <optional>
#include <algorithm>
#include <chrono>
#include <ctime>

#include "policy/policies.h"
#include "zone_fs_impl.h"

namespace zonekv {

// ---- ZoneFsOptions ----------------------------------------------------------------

Status ZoneFsOptions::Validate() const {
  ZONEKV_RETURN_IF_ERROR(policy.Validate());
  if (meta_zones < 2) {
    return Status::InvalidArgument("meta_zones is " + std::to_string(meta_zones) +
                                   "; at least 2 are needed to roll the journal");
  }
  if (write_buffer_bytes == 0) return Status::InvalidArgument("write_buffer_bytes must be > 0");
  if (zc_interval_ms == 0) return Status::InvalidArgument("zc_interval_ms must be > 0");
  if (reserve_zones < -1) {
    return Status::InvalidArgument("reserve_zones is " + std::to_string(reserve_zones) +
                                   "; it must be a number of zones >= 0, or -1 (automatic)");
  }
  return Status::OK();
}

Json ZoneFsOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("policy", policy.ToJson())
      .Set("meta_zones", meta_zones)
      .Set("write_buffer_bytes", write_buffer_bytes)
      .Set("zc_interval_ms", zc_interval_ms)
      .Set("alloc_timeout_ms", alloc_timeout_ms)
      .Set("read_only", read_only)
      .Set("emergency_zc", emergency_zc)
      .Set("reserve_zones", static_cast<int64_t>(reserve_zones));
  return j;
}

std::string NormalizePath(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string p = path.substr(i, j - i);
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!p.empty() && p != ".") {
      parts.push_back(p);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

namespace {
std::string Parent(const std::string& name) {
  size_t k = name.rfind('/');
  return k == 0 || k == std::string::npos ? "/" : name.substr(0, k);
}
uint64_t WallSeconds() { return static_cast<uint64_t>(std::time(nullptr)); }
}  // namespace

// ---- Impl: construction, format, mount --------------------------------------------

ZoneFs::Impl::Impl(std::shared_ptr<ZonedDevice> dev, const ZoneFsOptions& opts)
    : base_dev_(std::move(dev)),
      dev_(std::make_shared<LockCheckedDevice>(base_dev_, LockCheckFromEnv())),
      opts_(opts),
      geo_(base_dev_->geometry()),
      bs_(geo_.block_size),
      start_(std::chrono::steady_clock::now()) {}

ZoneFs::Impl::~Impl() { Shutdown(); }

Status ZoneFs::Impl::Format(ZonedDevice* dev, const ZoneFsOptions& opts) {
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  const DeviceGeometry& g = dev->geometry();
  if (g.nr_zones < opts.meta_zones + 2) {
    return Status::InvalidArgument("device has " + std::to_string(g.nr_zones) + " zones; zonekv needs meta_zones (" +
                                   std::to_string(opts.meta_zones) + ") + at least 2 data zones");
  }
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(dev->ReportZones(0, g.nr_zones, &zones));
  for (const auto& z : zones) {
    if (z.id >= opts.meta_zones && z.written_bytes() > 0) ZONEKV_RETURN_IF_ERROR(dev->ResetZone(z.id));
  }
  Superblock sb;
  sb.sequence = 1;
  sb.block_size = g.block_size;
  sb.zone_size_bytes = g.zone_size_bytes;
  sb.zone_capacity_bytes = g.zone_capacity_bytes;
  sb.nr_zones = g.nr_zones;
  sb.meta_zones = opts.meta_zones;
  Journal j(dev, opts.meta_zones);
  return j.Format(sb);
}

Status ZoneFs::Impl::Mount() {
  ZONEKV_RETURN_IF_ERROR(opts_.Validate());
  FsPolicies policies;
  ZONEKV_RETURN_IF_ERROR(MakeFsPolicies(opts_.policy, &policies));
  alloc_ = std::move(policies.alloc);
  blob_alloc_ = std::move(policies.blob_alloc);
  const bool cleans = policies.zc->Cleans();  // (zc_ is read under mu_)
  zc_ = std::move(policies.zc);
  reset_ = std::move(policies.reset);
  finish_ = std::move(policies.finish);
  // Greedy with no free-space trigger: the full zone with the least valid data.
  if (opts_.emergency_zc) emergency_zc_ = NewGreedyCleaning(101);

  journal_ = std::make_unique<Journal>(dev_.get(), opts_.meta_zones);
  Superblock sb;
  MetaState st;
  ZONEKV_RETURN_IF_ERROR(journal_->Recover(&sb, &st));
  ZONEKV_RETURN_IF_ERROR(sb.CheckGeometry(geo_));
  if (sb.meta_zones != opts_.meta_zones) {
    return Status::InvalidArgument("file system was formatted with meta_zones " + std::to_string(sb.meta_zones) +
                                   " but mounted with " + std::to_string(opts_.meta_zones));
  }
  meta_zones_ = sb.meta_zones;
  const uint32_t data_zones = geo_.nr_zones - meta_zones_;
  reserve_zones_ = opts_.reserve_zones >= 0 ? static_cast<uint32_t>(opts_.reserve_zones) : std::min(2u, data_zones / 8);
  // Data needs a zone besides the reserve and the cleaner's empty zone.
  if (reserve_zones_ + 2 > data_zones) {
    return Status::InvalidArgument("reserve_zones " + std::to_string(reserve_zones_) + " leaves no zone for data: the device has " +
                                   std::to_string(data_zones) + " data zones, one is kept for the cleaner");
  }

  // RocksDB keeps its WAL, MANIFEST and info LOG open and writes flush
  // and compaction outputs beside them; with one active zone for data
  // (the rest kept for the journal and the cleaner) the second file finds
  // none and every write fails with NoSpace (found by `zonekv crashtest`).
  const uint32_t reserved_active = cleans ? 2 : 1;
  if (!opts_.read_only && geo_.max_active_zones != 0 &&
      geo_.max_active_zones < reserved_active + kMinDataActiveZones) {
    return Status::InvalidArgument(
        "the device allows " + std::to_string(geo_.max_active_zones) + " active zones; zonekv keeps " +
        std::to_string(reserved_active) + " for its journal" + (cleans ? " and cleaner" : "") +
        " and needs at least " + std::to_string(kMinDataActiveZones) + " for RocksDB's files, so at least " +
        std::to_string(reserved_active + kMinDataActiveZones) + " (zc=" + opts_.policy.zc +
        "); a read-only mount (zonekv fs) still works");
  }

  std::vector<ZoneInfo> infos;
  ZONEKV_RETURN_IF_ERROR(dev_->ReportZones(0, geo_.nr_zones, &infos));
  if (infos.size() != geo_.nr_zones) return Status::IOError("zone report returned " + std::to_string(infos.size()) + " zones");
  readers_ = std::make_unique<std::atomic<uint32_t>[]>(geo_.nr_zones);

  MutexLock l(&mu_);
  zones_.resize(geo_.nr_zones);
  zone_files_.resize(geo_.nr_zones);
  for (const auto& zi : infos) {
    ZoneEntry& z = zones_[zi.id];
    z.capacity_bytes = zi.capacity_bytes;
    z.wp_bytes = zi.state == ZoneState::kFull ? zi.capacity_bytes : zi.written_bytes();
    z.state = zi.state;
    z.reset_count = zi.reset_count;
  }

  next_file_id_ = st.next_file_id;
  dirs_ = st.dirs;
  // Where each zone's last extent ends (DropUnwrittenTailLocked).
  std::vector<uint64_t> zone_end(geo_.nr_zones, 0);
  for (const auto& [id, fm] : st.files) {
    for (const Extent& e : fm.extents) {
      if (e.zone < geo_.nr_zones) zone_end[e.zone] = std::max(zone_end[e.zone], e.offset_bytes + RoundUp(e.length_bytes, bs_));
    }
  }
  for (auto& [id, fm] : st.files) {
    auto rec = std::make_unique<FileRecord>();
    rec->meta = std::move(fm);
    FileRecord* f = rec.get();
    if (names_.count(f->meta.name)) {
      mount_problems_.push_back("file name " + f->meta.name + " is used by two files (ids " +
                                std::to_string(names_[f->meta.name]->meta.id) + " and " + std::to_string(id) + ")");
      continue;
    }
    DropUnwrittenTailLocked(f, zone_end);
    for (size_t i = 0; i < f->meta.extents.size(); i++) {
      const Extent& e = f->meta.extents[i];
      std::string where = "file " + f->meta.name + " extent " + std::to_string(i) + " [zone " + std::to_string(e.zone) +
                          ", " + std::to_string(e.offset_bytes) + "+" + std::to_string(e.length_bytes) + ")";
      if (e.zone < meta_zones_ || e.zone >= geo_.nr_zones) {
        mount_problems_.push_back(where + " is not in a data zone");
        continue;
      }
      ZoneEntry& z = zones_[e.zone];
      if (e.offset_bytes % bs_ != 0) mount_problems_.push_back(where + " is not block aligned");
      if (e.offset_bytes + RoundUp(e.length_bytes, bs_) > z.wp_bytes) {
        mount_problems_.push_back(where + " is beyond the zone's write pointer " + std::to_string(z.wp_bytes));
      }
      z.AddValid(ValidOwner::Of(f->meta.hints), RoundUp(e.length_bytes, bs_));
      if (f->meta.hints.lifetime > z.lifetime) z.lifetime = f->meta.hints.lifetime;
    }
    RebuildEndsLocked(f);
    f->synced_extents = f->meta.extents.size();
    f->synced_size = f->meta.size_bytes;
    files_[id] = std::move(rec);
    CountExtentsLocked(*f, 1);
    NameAddedLocked(f);
  }
  if (opts_.read_only) return Status::OK();
  if (!mount_problems_.empty()) {
    return Status::Corruption(mount_problems_[0] + (mount_problems_.size() > 1
                                                        ? " (and " + std::to_string(mount_problems_.size() - 1) +
                                                              " more problems; run 'zonekv fs fsck')"
                                                        : ""));
  }
  // Zones left open by the previous mount hold no writer now. (No other
  // thread runs yet; mu_ is released only for the device's sake.)
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    if (IsOpen(zones_[z].state)) {
      l.unlock();
      ZONEKV_RETURN_IF_ERROR(dev_->CloseZone(z));
      l.lock();
      zones_[z].state = ZoneState::kClosed;
    }
  }
  // A fresh snapshot drops any torn tail of the journal we replayed.
  MetaState snapshot = SnapshotLocked();
  l.unlock();
  ZONEKV_RETURN_IF_ERROR(journal_->Roll(snapshot.EncodeSnapshot()));
  l.lock();
  NoteJournalPosLocked();
  // A device filled up to its reserve (the last mount ended in NoSpace, or
  // nearly): let RocksDB recover, delete and compact into the reserve.
  UpdateRecoveryModeLocked(/*nospace=*/false, /*at_mount=*/true);
  l.unlock();
  RuntimeReset();
  if (cleans) cleaner_ = std::thread([this] { CleanerLoop(); });
  return Status::OK();
}

void ZoneFs::Impl::DropUnwrittenTailLocked(FileRecord* f, const std::vector<uint64_t>& zone_end) {
  std::vector<Extent>& ext = f->meta.extents;
  auto sound = [&](const Extent& e) {
    return e.zone >= meta_zones_ && e.zone < geo_.nr_zones && e.offset_bytes % bs_ == 0;
  };
  for (size_t i = 0; i < ext.size(); i++) {
    const Extent& e = ext[i];
    // Extents outside the data zones or misaligned are the mount's problems
    // to report, not a tail to drop.
    if (!sound(e)) return;
    const uint64_t wp = zones_[e.zone].wp_bytes;
    if (e.offset_bytes + RoundUp(e.length_bytes, bs_) <= wp) continue;
    // Only the newest writes can be lost that way: this extent and every
    // later one of the file must each be the last data of its zone (a power
    // loss drops a suffix of each zone's writes). Data missing anywhere else
    // (a zone reset behind the file system's back, a device that lost
    // acknowledged writes) is damage: left for the mount to refuse.
    for (size_t j = i; j < ext.size(); j++) {
      if (!sound(ext[j]) || ext[j].offset_bytes + RoundUp(ext[j].length_bytes, bs_) != zone_end[ext[j].zone]) return;
    }
    // The file's durable content ends here: keep what lies below the write
    // pointer (wp is block aligned, so this is less than the extent) and
    // nothing written after it.
    const uint64_t kept = wp > e.offset_bytes ? wp - e.offset_bytes : 0;
    uint64_t dropped = e.length_bytes - kept;
    for (size_t j = i + 1; j < ext.size(); j++) dropped += ext[j].length_bytes;
    const std::string note = "file " + f->meta.name + ": the last " + std::to_string(dropped) +
                             " bytes, past the write pointer " + std::to_string(wp) + " of zone " +
                             std::to_string(e.zone) + ", were never durable (a sync cut by a power loss, "
                             "never acknowledged) and are dropped";
    ext[i].length_bytes = kept;
    ext.resize(kept > 0 ? i + 1 : i);
    f->meta.size_bytes = f->meta.size_bytes > dropped ? f->meta.size_bytes - dropped : 0;
    mount_repairs_.push_back(note);
    return;
  }
}

void ZoneFs::Impl::Shutdown() {
  {
    MutexLock l(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stop_ = true;
  }
  clean_cv_.notify_all();
  zone_cv_.notify_all();
  if (cleaner_.joinable()) cleaner_.join();
  // Best effort: a failure is sticky and was reported to the syncs that saw it.
  if (journal_ != nullptr && !opts_.read_only) static_cast<void>(Sync());
}

// ---- Journal helpers -------------------------------------------------------------

MetaState ZoneFs::Impl::SnapshotLocked() const {
  MetaState st;
  st.next_file_id = next_file_id_;
  st.dirs = dirs_;
  for (const auto& [name, f] : names_) {
    FileMeta m = f->meta;
    // Only what was journaled survives a crash; a snapshot must not promise
    // more. Writers never modify synced extents (AddExtentLocked); the
    // cleaner replaces them only together with a journaled replace record
    // and an updated synced_extents.
    m.extents.resize(f->synced_extents);
    m.size_bytes = f->synced_size;
    st.files[m.id] = std::move(m);
  }
  return st;
}

// Convention: callers change the in-memory state first and enqueue after,
// in the same critical section, so that a commit that cuts the queue and
// snapshots the state together (a roll) snapshots exactly what it cut.
Status ZoneFs::Impl::JournalLocked(const EditBatch& b) {
  if (b.empty()) return Status::OK();
  if (opts_.read_only) return Status::NotSupported("file system is mounted read-only");
  if (!journal_error_.ok()) return journal_error_;
  journal_queue_ += b.data();
  queued_records_++;
  enqueued_seq_++;
  return Status::OK();
}

void ZoneFs::Impl::NoteJournalPosLocked() {
  journal_pos_.zone = journal_->current_zone();
  journal_pos_.bytes = journal_->used_bytes();
  journal_pos_.sequence = journal_->sequence();
  journal_pos_.rolls = journal_->rolls();
}

Status ZoneFs::Impl::CommitJournalLocked(uint64_t seq) {
  counters_.journal_syncs++;
  for (;;) {
    if (durable_seq_ >= seq) return Status::OK();
    if (!journal_error_.ok()) return journal_error_;
    if (journal_writing_ || (flushes_in_flight_ > 0 && flush_target_ >= seq)) {
      // The running commit may cover seq; if not, lead the next one.
      journal_cv_.wait(mu_);
      continue;
    }
    // Lead: cut the queue and, if the journal must roll, take the snapshot
    // of exactly the state the cut records lead to.
    journal_writing_ = true;
    const uint64_t cut = enqueued_seq_;
    const uint64_t batches = queued_records_;
    std::string batch = std::move(journal_queue_);
    journal_queue_.clear();
    queued_records_ = 0;
    // The snapshot is copied here and encoded without mu_.
    MetaState snapshot;
    if (!batch.empty() && !journal_->Fits(batch.size())) snapshot = SnapshotLocked();
    mu_.unlock();
    Status s = batch.empty() ? Status::OK() : journal_->Append(batch, [&] { return snapshot.EncodeSnapshot(); });
    mu_.lock();
    journal_writing_ = false;
    if (s.ok()) {
      if (!batch.empty()) {
        counters_.journal_writes++;
        counters_.journal_batches_written += batches;
      }
      NoteJournalPosLocked();
      // The next leader may write while this flush runs: a flush makes every
      // write that completed before it durable.
      flushes_in_flight_++;
      flush_target_ = std::max(flush_target_, cut);
      journal_cv_.notify_all();
      mu_.unlock();
      s = dev_->Flush();
      mu_.lock();
      flushes_in_flight_--;
      counters_.journal_flushes++;
      if (s.ok()) durable_seq_ = std::max(durable_seq_, cut);
    }
    if (!s.ok() && journal_error_.ok()) {
      // Memory is now ahead of the journal. From here on nothing may be
      // reset (the journal could still name the data) and no metadata change
      // is accepted; a remount recovers the last durable state.
      journal_error_ = Status::IOError("metadata journal write failed (" + s.ToString() +
                                       "); the file system accepts no more changes until it is remounted");
    }
    journal_cv_.notify_all();
  }
}

Status ZoneFs::Impl::Sync() {
  MutexLock l(&mu_);
  if (opts_.read_only) return Status::OK();
  for (auto& [id, f] : files_) {
    if (f->deleted) continue;
    if (f->writing && (f->synced_size != f->meta.size_bytes || f->synced_extents != f->meta.extents.size() ||
                       f->hints_dirty)) {
      EditBatch b;
      if (f->hints_dirty) b.SetHints(f->meta.id, f->meta.hints);
      b.SetTail(f->meta.id, f->meta.size_bytes, WallSeconds(), f->synced_extents, f->meta.extents, f->synced_extents);
      f->synced_extents = f->meta.extents.size();
      f->synced_size = f->meta.size_bytes;
      f->hints_dirty = false;
      ZONEKV_RETURN_IF_ERROR(JournalLocked(b));
    }
  }
  return CommitJournalLocked(enqueued_seq_);
}

Status ZoneFs::Impl::SyncJournal() {
  MutexLock l(&mu_);
  return CommitJournalLocked(enqueued_seq_);
}

// ---- Namespace ---------------------------------------------------------------------

FileRecord* ZoneFs::Impl::FindLocked(const std::string& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : it->second;
}

void ZoneFs::Impl::NameAddedLocked(FileRecord* f) {
  names_[f->meta.name] = f;
  if (f->meta.hints.kind == FileKind::kSst) sst_numbers_.emplace(f->meta.hints.number, f);
  IndexFileLocked(*f);
}

void ZoneFs::Impl::NameRemovedLocked(FileRecord* f) {
  names_.erase(f->meta.name);
  for (auto [it, end] = sst_numbers_.equal_range(f->meta.hints.number); it != end; ++it) {
    if (it->second == f) {
      sst_numbers_.erase(it);
      break;
    }
  }
  sst_index_.Erase(f->meta.id);
}

void ZoneFs::Impl::IndexFileLocked(const FileRecord& f) {
  if (!f.deleted && SstIndex::Indexed(f.meta.hints)) {
    sst_index_.Put(FileViewLocked(f));
  } else {
    sst_index_.Erase(f.meta.id);
  }
}

void ZoneFs::Impl::UnlinkLocked(FileRecord* f, EditBatch* b) {
  b->DeleteFile(f->meta.id);
  NameRemovedLocked(f);
  f->deleted = true;
  if (f->handles == 0) DropFileLocked(f);
}

void ZoneFs::Impl::DropFileLocked(FileRecord* f) {
  FreeExtentsLocked(f);
  auto it = files_.find(f->meta.id);  // every FileRecord lives in files_
  if (it == files_.end()) return;
  dropped_.push_back(std::move(it->second));
  files_.erase(it);
}

Status ZoneFs::Impl::CreateLocked(const std::string& name, FileRecord** out) {
  if (opts_.read_only) return Status::NotSupported("file system is mounted read-only: cannot create " + name);
  if (dirs_.count(name)) return Status::InvalidArgument(name + " is a directory");
  EditBatch b;
  if (FileRecord* old = FindLocked(name)) {
    if (old->writing) return Status::Busy(name + " is open for writing");
    UnlinkLocked(old, &b);
  }
  auto rec = std::make_unique<FileRecord>();
  FileRecord* f = rec.get();
  f->meta.id = next_file_id_++;
  f->meta.name = name;
  f->meta.mtime_s = WallSeconds();
  uint64_t number = 0;
  f->meta.hints.kind = FileKindFromName(name, &number);
  f->meta.hints.number = number;
  // RocksDB's own record of the job (NoteFileJob, from the listener), then
  // the calling thread's job hint, which wins: RocksDB describes no
  // CompactFiles job to a listener, so for the external compactor's outputs
  // the listener knows the job id but not the level (-1), and that unknown
  // must not erase the hint's level (it did: CAZA then saw no compaction
  // output as hinted, notes/issue-19.md).
  auto pj = pending_jobs_.find(name);
  if (pj != pending_jobs_.end()) {
    f->meta.hints.job = pj->second.first;
    f->meta.hints.level = pj->second.second;
    pending_jobs_.erase(pj);
  }
  if (const FileHints* t = ThreadJobHint(); t != nullptr && f->meta.hints.kind == FileKind::kSst) {
    f->meta.hints.job = t->job;
    f->meta.hints.level = t->level;
    f->meta.hints.smallest_key = t->smallest_key;
    f->meta.hints.largest_key = t->largest_key;
  }
  b.CreateFile(f->meta);
  files_[f->meta.id] = std::move(rec);
  NameAddedLocked(f);
  Status s = JournalLocked(b);
  if (!s.ok()) return s;
  *out = f;
  return Status::OK();
}

Status ZoneFs::Impl::CreateFile(const std::string& name, FileRecord** out) {
  Status s;
  std::vector<std::unique_ptr<FileRecord>> dropped;  // freed after mu_ is released
  SstIndex::Garbage index_garbage;                    // likewise
  {
    MutexLock l(&mu_);
    FileRecord* f = nullptr;
    s = CreateLocked(name, &f);
    dropped.swap(dropped_);  // the file `name` replaced, if any
    sst_index_.TakeGarbage(&index_garbage);
    if (s.ok()) {
      f->writing = true;
      sst_index_.SetOpenForWrite(f->meta.id, true);
      f->handles++;
      *out = f;
    }
  }
  RuntimeReset();  // the replaced file's zones may now hold no valid data
  return s;
}

Status ZoneFs::Impl::ReopenFile(const std::string& name, FileRecord** out) {
  MutexLock l(&mu_);
  FileRecord* f = FindLocked(name);
  if (f == nullptr) ZONEKV_RETURN_IF_ERROR(CreateLocked(name, &f));
  if (f->writing) return Status::Busy(name + " is already open for writing");
  if (opts_.read_only) return Status::NotSupported("file system is mounted read-only: cannot write " + name);
  f->writing = true;
  sst_index_.SetOpenForWrite(f->meta.id, true);
  f->handles++;
  *out = f;
  return Status::OK();
}

Status ZoneFs::Impl::OpenForRead(const std::string& name, FileRecord** out) {
  MutexLock l(&mu_);
  FileRecord* f = FindLocked(name);
  if (f == nullptr) return Status::NotFound(name + ": no such file");
  f->handles++;
  *out = f;
  return Status::OK();
}

void ZoneFs::Impl::CloseHandle(FileRecord* f) {
  bool freed = false;
  std::vector<std::unique_ptr<FileRecord>> dropped;  // freed after mu_ is released
  SstIndex::Garbage index_garbage;                    // likewise
  {
    MutexLock l(&mu_);
    if (--f->handles == 0 && f->deleted) {
      DropFileLocked(f);
      freed = true;
    }
    dropped.swap(dropped_);
    sst_index_.TakeGarbage(&index_garbage);
  }
  if (freed) RuntimeReset();
}

Status ZoneFs::Impl::DeleteFile(const std::string& name) {
  std::vector<std::unique_ptr<FileRecord>> dropped;  // freed after mu_ is released
  SstIndex::Garbage index_garbage;                    // likewise
  {
    MutexLock l(&mu_);
    if (opts_.read_only) return Status::NotSupported("file system is mounted read-only: cannot delete " + name);
    FileRecord* f = FindLocked(name);
    if (f == nullptr) return Status::NotFound(name + ": no such file");
    EditBatch b;
    UnlinkLocked(f, &b);
    dropped.swap(dropped_);
    sst_index_.TakeGarbage(&index_garbage);
    ZONEKV_RETURN_IF_ERROR(JournalLocked(b));
  }
  RuntimeReset();
  return Status::OK();
}

Status ZoneFs::Impl::RenameFile(const std::string& src, const std::string& dst) {
  std::vector<std::unique_ptr<FileRecord>> dropped;  // freed after mu_ is released
  SstIndex::Garbage index_garbage;                    // likewise
  {
    MutexLock l(&mu_);
    if (opts_.read_only) return Status::NotSupported("file system is mounted read-only: cannot rename " + src);
    FileRecord* f = FindLocked(src);
    if (f == nullptr) return Status::NotFound(src + ": no such file");
    if (src == dst) return Status::OK();
    if (dirs_.count(dst)) return Status::InvalidArgument("cannot rename " + src + " over directory " + dst);
    EditBatch b;
    if (FileRecord* old = FindLocked(dst)) UnlinkLocked(old, &b);
    dropped.swap(dropped_);
    sst_index_.TakeGarbage(&index_garbage);
    b.Rename(f->meta.id, dst);
    NameRemovedLocked(f);
    f->meta.name = dst;
    uint64_t number = 0;
    FileKind kind = FileKindFromName(dst, &number);
    if (kind != f->meta.hints.kind || number != f->meta.hints.number) {
      // The file's valid bytes change owner with its name.
      const ValidOwner from = ValidOwner::Of(f->meta.hints);
      f->meta.hints.kind = kind;
      f->meta.hints.number = number;
      const ValidOwner to = ValidOwner::Of(f->meta.hints);
      for (const auto& e : f->meta.extents) {
        zones_[e.zone].RemoveValid(from, RoundUp(e.length_bytes, bs_));
        zones_[e.zone].AddValid(to, RoundUp(e.length_bytes, bs_));
      }
      b.SetHints(f->meta.id, f->meta.hints);
    }
    NameAddedLocked(f);
    ZONEKV_RETURN_IF_ERROR(JournalLocked(b));
  }
  RuntimeReset();
  return Status::OK();
}

Status ZoneFs::Impl::FileExists(const std::string& name) {
  MutexLock l(&mu_);
  if (name == "/" || names_.count(name) || dirs_.count(name)) return Status::OK();
  return Status::NotFound(name + ": no such file or directory");
}

Status ZoneFs::Impl::IsDirectory(const std::string& name, bool* is_dir) {
  MutexLock l(&mu_);
  if (name == "/" || dirs_.count(name)) {
    *is_dir = true;
    return Status::OK();
  }
  if (names_.count(name)) {
    *is_dir = false;
    return Status::OK();
  }
  return Status::NotFound(name + ": no such file or directory");
}

Status ZoneFs::Impl::GetFileSize(const std::string& name, uint64_t* size) {
  MutexLock l(&mu_);
  FileRecord* f = FindLocked(name);
  if (f == nullptr) return Status::NotFound(name + ": no such file");
  *size = f->meta.size_bytes;
  return Status::OK();
}

Status ZoneFs::Impl::GetModificationTime(const std::string& name, uint64_t* mtime_s) {
  MutexLock l(&mu_);
  FileRecord* f = FindLocked(name);
  if (f == nullptr) {
    if (dirs_.count(name) || name == "/") {
      *mtime_s = 0;
      return Status::OK();
    }
    return Status::NotFound(name + ": no such file");
  }
  *mtime_s = f->meta.mtime_s;
  return Status::OK();
}

Status ZoneFs::Impl::GetChildren(const std::string& dir, std::vector<std::string>* out) {
  const std::string prefix = dir == "/" ? "/" : dir + "/";
  auto under = [&](const std::string& name) {
    return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0;
  };
  // Under mu_ only copy the names below dir; sorting them into children
  // (allocations, a set) happens without it.
  std::vector<std::string> names;
  {
    MutexLock l(&mu_);
    if (dir != "/" && !dirs_.count(dir)) return Status::NotFound(dir + ": no such directory");
    for (auto it = names_.lower_bound(prefix); it != names_.end() && under(it->first); ++it) {
      names.push_back(it->first);
    }
    for (const auto& d : dirs_) {
      if (under(d)) names.push_back(d);
    }
  }
  std::set<std::string> children;
  for (const auto& name : names) children.insert(name.substr(prefix.size(), name.find('/', prefix.size()) - prefix.size()));
  out->assign(children.begin(), children.end());
  return Status::OK();
}

Status ZoneFs::Impl::CreateDir(const std::string& name, bool ok_if_exists) {
  MutexLock l(&mu_);
  if (name == "/" || dirs_.count(name)) {
    return ok_if_exists ? Status::OK() : Status::InvalidArgument(name + ": directory exists");
  }
  if (names_.count(name)) return Status::InvalidArgument(name + " exists and is a file");
  if (opts_.read_only) return Status::NotSupported("file system is mounted read-only: cannot create " + name);
  EditBatch b;
  // Parents are created implicitly.
  for (std::string d = name; d != "/" && !dirs_.count(d); d = Parent(d)) {
    dirs_.insert(d);
    b.CreateDir(d);
  }
  return JournalLocked(b);
}

Status ZoneFs::Impl::DeleteDir(const std::string& name) {
  MutexLock l(&mu_);
  if (!dirs_.count(name)) return Status::NotFound(name + ": no such directory");
  std::string prefix = name + "/";
  auto it = names_.lower_bound(prefix);
  if (it != names_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    return Status::InvalidArgument(name + ": directory not empty (holds " + it->first + ")");
  }
  auto dit = dirs_.lower_bound(prefix);
  if (dit != dirs_.end() && dit->compare(0, prefix.size(), prefix) == 0) {
    return Status::InvalidArgument(name + ": directory not empty (holds " + *dit + ")");
  }
  dirs_.erase(name);
  EditBatch b;
  b.DeleteDir(name);
  return JournalLocked(b);
}

Status ZoneFs::Impl::LockFile(const std::string& name) {
  {
    MutexLock l(&mu_);
    if (locks_.count(name)) return Status::Busy("lock " + name + " is already held by this process");
    locks_.insert(name);
    if (FindLocked(name) != nullptr || opts_.read_only) return Status::OK();
  }
  FileRecord* f = nullptr;
  Status s = ReopenFile(name, &f);
  if (s.ok()) {
    s = CloseWriter(f);
    CloseHandle(f);
  }
  if (!s.ok()) {
    MutexLock l(&mu_);
    locks_.erase(name);
  }
  return s;
}

Status ZoneFs::Impl::UnlockFile(const std::string& name) {
  MutexLock l(&mu_);
  if (!locks_.erase(name)) return Status::InvalidArgument("lock " + name + " is not held");
  return Status::OK();
}

// ---- Hints -------------------------------------------------------------------------

namespace {

// The write-lifetime hint RocksDB 7.8 gives an SST of `level` under
// kCompactionStyleLevel with base level 1 (ColumnFamilyData::
// CalculateSSTWriteHint): L0 and L1 medium, L2 long, deeper extreme.
Lifetime LeveledLifetime(int level) {
  if (level <= 1) return Lifetime::kMedium;
  if (level == 2) return Lifetime::kLong;
  return Lifetime::kExtreme;
}

}  // namespace

void ZoneFs::Impl::SetLifetime(FileRecord* f, Lifetime lt) {
  MutexLock l(&mu_);
  // RocksDB hints no lifetime for the SSTs of a non-leveled compaction
  // style, so under the external compactor (kCompactionStyleNone) flushes
  // and CompactFiles outputs would all be kNotSet, which lifetime placement
  // (LIZA, CAZA's fallback) can put with nothing else: each WAL then opened
  // a zone of its own, reset at 6% written (notes/issue-19.md, session 10).
  // An SST whose level is known gets the hint leveled style would give it.
  if (lt == Lifetime::kNotSet && f->meta.hints.kind == FileKind::kSst && f->meta.hints.level >= 0) {
    lt = LeveledLifetime(f->meta.hints.level);
  }
  if (f->meta.hints.lifetime != lt) {
    f->meta.hints.lifetime = lt;
    f->hints_dirty = true;
    IndexFileLocked(*f);
  }
}

void ZoneFs::Impl::NoteFileJob(const std::string& name, int job, int level) {
  MutexLock l(&mu_);
  FileRecord* f = FindLocked(name);
  if (f == nullptr) {
    pending_jobs_[name] = {job, level};
    // Bounded: names of files never created (failed jobs) are dropped.
    if (pending_jobs_.size() > 1024) pending_jobs_.erase(pending_jobs_.begin());
    return;
  }
  // A level the listener does not know (-1) keeps the one a job hint gave.
  f->meta.hints.job = job;
  if (level >= 0) f->meta.hints.level = level;
  f->hints_dirty = true;
  IndexFileLocked(*f);
}

void ZoneFs::Impl::NoteFileRange(const std::string& name, int level, const std::string& smallest,
                                 const std::string& largest) {
  MutexLock l(&mu_);
  FileRecord* f = FindLocked(name);
  if (f == nullptr) return;
  FileHints& h = f->meta.hints;
  if (h.level == level && h.smallest_key == smallest && h.largest_key == largest) return;
  h.level = level;
  h.smallest_key = smallest;
  h.largest_key = largest;
  IndexFileLocked(*f);
  if (f->writing) {
    f->hints_dirty = true;
    return;
  }
  EditBatch b;
  b.SetHints(f->meta.id, h);
  static_cast<void>(JournalLocked(b));  // hints are advisory: a failed journal write loses only them
}

// ---- ZoneFs wrappers ------------------------------------------------------------------

ZoneFs::ZoneFs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ZoneFs::~ZoneFs() { impl_->Shutdown(); }

Status ZoneFs::Format(ZonedDevice* dev, const ZoneFsOptions& opts) { return Impl::Format(dev, opts); }

Status ZoneFs::Mount(std::shared_ptr<ZonedDevice> dev, const ZoneFsOptions& opts, std::shared_ptr<ZoneFs>* out) {
  if (dev == nullptr) return Status::InvalidArgument("ZoneFs::Mount: no device");
  auto impl = std::make_unique<Impl>(std::move(dev), opts);
  ZONEKV_RETURN_IF_ERROR(impl->Mount());
  out->reset(new ZoneFs(std::move(impl)));
  return Status::OK();
}

FsView ZoneFs::View(ViewFiles files) const { return impl_->View(files); }
FsView ZoneFs::SstView(const std::vector<uint64_t>& numbers) const { return impl_->SstView(numbers); }
void ZoneFs::SetLevelScores(std::vector<double> scores) { impl_->SetLevelScores(std::move(scores)); }

namespace {
thread_local std::optional<FileHints> t_job_hint;
thread_local bool t_reclaiming = false;
}  // namespace

const FileHints* ThreadJobHint() { return t_job_hint ? &*t_job_hint : nullptr; }
void ZoneFs::SetThreadJobHint(const FileHints& hint) { t_job_hint = hint; }
void ZoneFs::ClearThreadJobHint() { t_job_hint.reset(); }
void ZoneFs::NoteFileRange(const std::string& path, int level, const std::string& smallest_key,
                           const std::string& largest_key) {
  impl_->NoteFileRange(NormalizePath(path), level, smallest_key, largest_key);
}
bool ThreadReclaiming() { return t_reclaiming; }
void ZoneFs::SetThreadReclaiming(bool on) { t_reclaiming = on; }
ZoneFsStats ZoneFs::Stats() const { return impl_->Stats(); }
std::vector<FsckProblem> ZoneFs::Fsck() const { return impl_->Fsck(); }
std::vector<std::string> ZoneFs::MountRepairs() const { return impl_->mount_repairs(); }
std::vector<FileExtents> ZoneFs::Files() const { return impl_->Files(); }
Json ZoneFs::Dump() const { return impl_->Dump(); }

Status ZoneFs::ReadFile(const std::string& name, std::string* data) const {
  FileRecord* f = nullptr;
  ZONEKV_RETURN_IF_ERROR(impl_->OpenForRead(NormalizePath(name), &f));
  data->assign(impl_->FileSize(f), '\0');
  size_t got = 0;
  Status s = impl_->Read(f, 0, data->size(), data->data(), &got);
  data->resize(got);
  impl_->CloseHandle(f);
  return s;
}
Status ZoneFs::Sync() { return impl_->Sync(); }
void ZoneFs::SetSpaceReclaimer(std::shared_ptr<SpaceReclaimer> reclaimer) { impl_->SetSpaceReclaimer(std::move(reclaimer)); }
void ZoneFs::SetBlobGcTarget(uint64_t max_number, uint64_t reserve_bytes) {
  impl_->SetBlobGcTarget(max_number, reserve_bytes);
}
void ZoneFs::SetNewDataRate(uint64_t bytes_per_sec) { impl_->SetNewDataRate(bytes_per_sec); }
std::shared_ptr<ZonedDevice> ZoneFs::device() { return impl_->shared_dev(); }
const ZoneFsOptions& ZoneFs::options() const { return impl_->options(); }

}  // namespace zonekv
