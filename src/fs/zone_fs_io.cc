// ZoneFs data path: zone allocation, writes, reads, finish and runtime reset.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>

#include "zone_fs_impl.h"
#include "zonekv/clock.h"

namespace zonekv {
namespace {

// A writer waits for a collecting reclaimer at most this many allocation
// timeouts after the collection last wrote: a collection stuck on a bug
// must not hang RocksDB, and one that still writes is not stuck however long
// it takes (a sanitizer build runs it several times slower).
constexpr int kReclaimWaitFactor = 6;

// A writer whose allocation saw a zone command (finish, reset) fail in this
// many passes in a row gets that I/O error: a device that keeps failing
// them frees no space however long the writer waits, and one failure that
// a retry overcomes (a transient error) costs no write.
constexpr int kMaxFailedZoneCommandPasses = 3;

}  // namespace

void ZoneEntry::AddValid(ValidOwner o, uint64_t bytes) {
  valid_bytes += bytes;
  valid_by_kind[static_cast<int>(o.kind)] += bytes;
  if (o.kind == FileKind::kBlob) blob_bytes_by_number[o.number] += bytes;
}

void ZoneEntry::RemoveValid(ValidOwner o, uint64_t bytes) {
  valid_bytes -= std::min(valid_bytes, bytes);
  uint64_t& k = valid_by_kind[static_cast<int>(o.kind)];
  k -= std::min(k, bytes);
  if (o.kind != FileKind::kBlob) return;
  auto it = blob_bytes_by_number.find(o.number);
  if (it == blob_bytes_by_number.end()) return;
  it->second -= std::min(it->second, bytes);
  if (it->second == 0) blob_bytes_by_number.erase(it);
}

void ZoneEntry::ClearValid() {
  valid_bytes = 0;
  pending_copy_bytes = 0;
  std::fill(std::begin(valid_by_kind), std::end(valid_by_kind), 0);
  blob_bytes_by_number.clear();
}

uint64_t ZoneFs::Impl::NowUsLocked() const { return ElapsedUs(start_); }

uint32_t ZoneFs::Impl::DataLimitLocked(uint32_t device_limit) const {
  uint32_t data_zones = geo_.nr_zones - meta_zones_;
  if (device_limit == 0) return data_zones;
  // One resource for the metadata journal, one for the cleaner.
  uint32_t reserved = zc_->Cleans() ? 2 : 1;
  return device_limit > reserved ? device_limit - reserved : 1;
}

void ZoneFs::Impl::CountZonesLocked(uint32_t* open, uint32_t* active) const {
  *open = 0;
  *active = 0;
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    const ZoneEntry& e = zones_[z];
    if (e.cleaner_target) continue;
    if (e.owner != 0 || e.in_io || e.closing) (*open)++;
    if (e.owner != 0 || (e.wp_bytes > 0 && e.state != ZoneState::kFull)) (*active)++;
  }
}

void ZoneFs::Impl::RebuildEndsLocked(FileRecord* f) {
  f->ext_end.resize(f->meta.extents.size());
  uint64_t end = 0;
  for (size_t i = 0; i < f->meta.extents.size(); i++) {
    end += f->meta.extents[i].length_bytes;
    f->ext_end[i] = end;
  }
}

void ZoneFs::Impl::AddExtentLocked(FileRecord* f, const Extent& e) {
  auto& ext = f->meta.extents;
  // Extend the last extent when the new one continues it in the same zone,
  // but never an extent already journaled: synced extents stay as journaled.
  if (!ext.empty() && ext.size() > f->synced_extents) {
    Extent& last = ext.back();
    if (last.zone == e.zone && last.length_bytes % bs_ == 0 && last.offset_bytes + last.length_bytes == e.offset_bytes) {
      last.length_bytes += e.length_bytes;
      f->ext_end.back() += e.length_bytes;
      return;
    }
  }
  ext.push_back(e);
  f->ext_end.push_back((f->ext_end.empty() ? 0 : f->ext_end.back()) + e.length_bytes);
  if (e.zone < zone_files_.size()) zone_files_[e.zone][f->meta.id]++;
}

void ZoneFs::Impl::CountExtentsLocked(const FileRecord& f, int delta) {
  for (const Extent& e : f.meta.extents) {
    if (e.zone >= zone_files_.size()) continue;  // a corrupt table (mount reports it)
    auto& in_zone = zone_files_[e.zone];
    if (delta > 0) {
      in_zone[f.meta.id]++;
    } else if (auto it = in_zone.find(f.meta.id); it != in_zone.end() && --it->second == 0) {
      in_zone.erase(it);
    }
  }
}

void ZoneFs::Impl::FreeExtentsLocked(FileRecord* f) {
  const ValidOwner owner = ValidOwner::Of(f->meta.hints);
  uint64_t now = NowUsLocked();
  for (const auto& e : f->meta.extents) {
    ZoneEntry& z = zones_[e.zone];
    z.RemoveValid(owner, RoundUp(e.length_bytes, bs_));
    z.last_write_us = now;
  }
  if (f->zone >= 0) ReleaseZoneLocked(f);
  CountExtentsLocked(*f, -1);
  f->meta.extents.clear();
  f->ext_end.clear();
}

void ZoneFs::Impl::ReleaseZoneLocked(FileRecord* f) {
  if (f->zone < 0) return;
  ZoneEntry& z = zones_[f->zone];
  z.owner = 0;
  if (IsOpen(z.state)) {
    // Closing returns the open resource; until it is done the zone stays
    // busy and counts as open.
    z.closing = true;
    closes_.push_back(static_cast<uint32_t>(f->zone));
  }
  f->zone = -1;
  progress_++;
  zone_cv_.notify_all();
}

void ZoneFs::Impl::CloseReleasedZonesLocked() {
  while (!closes_.empty()) {
    uint32_t z = closes_.back();
    closes_.pop_back();
    mu_.unlock();
    // A failure leaves the zone open, which the device counts but we do
    // not; the allocation path then reports the device's limit errors.
    Status s = dev_->CloseZone(z);
    mu_.lock();
    ZoneEntry& e = zones_[z];
    e.closing = false;
    if (s.ok()) e.state = ZoneState::kClosed;
    progress_++;
    zone_cv_.notify_all();
  }
}

Status ZoneFs::Impl::FinishZoneLocked(uint32_t z) {
  ZoneEntry& e = zones_[z];
  e.finishing = true;
  mu_.unlock();
  Status s = dev_->FinishZone(z);
  mu_.lock();
  e.finishing = false;
  if (s.ok()) {
    e.state = ZoneState::kFull;
    e.wp_bytes = e.capacity_bytes;
    counters_.finishes++;
  }
  progress_++;
  zone_cv_.notify_all();
  return s;
}

void ZoneFs::Impl::BeginReadLocked(uint32_t z) { readers_[z].fetch_add(1); }

void ZoneFs::Impl::EndRead(uint32_t z) {
  // Pairs with WaitForReaders (both sequentially consistent): either the
  // reset sees the count drop or this reader sees the reset waiting.
  if (readers_[z].fetch_sub(1) == 1 && reset_waiters_.load() > 0) {
    MutexLock l(&readers_mu_);
    readers_cv_.notify_all();
  }
}

void ZoneFs::Impl::WaitForReaders(uint32_t z) {
  MutexLock l(&readers_mu_);
  reset_waiters_.fetch_add(1);
  if (readers_[z].load() != 0) {
    reset_reader_waits_++;
    readers_cv_.wait(l, [&] { return readers_[z].load() == 0; });
  }
  reset_waiters_.fetch_sub(1);
}

Status ZoneFs::Impl::ResetZoneLocked(uint32_t z) {
  if (!journal_error_.ok()) return journal_error_;
  ZoneEntry& e = zones_[z];
  e.resetting = true;
  // A reset is durable at once. The journal records that freed the zone
  // (deletes, replaces) must be durable before it, or a power loss would
  // bring back files whose data is gone.
  Status s = CommitJournalLocked(enqueued_seq_);
  ZoneInfo info;
  bool reported = false;
  if (s.ok()) {
    mu_.unlock();
    // Readers that looked up extents here before the zone was emptied (the
    // cleaner moved them) finish first.
    WaitForReaders(z);
    s = dev_->ResetZone(z);
    reported = s.ok() && dev_->ReportZone(z, &info).ok();
    mu_.lock();
  }
  e.resetting = false;
  progress_++;
  zone_cv_.notify_all();
  if (!s.ok()) return s;
  if (reported) {
    e.capacity_bytes = info.capacity_bytes;
    e.state = info.state;
    e.reset_count = info.reset_count;
  } else {
    e.state = ZoneState::kEmpty;
    e.reset_count++;
  }
  e.wp_bytes = 0;
  e.ClearValid();
  e.lifetime = Lifetime::kNotSet;
  return Status::OK();
}

int ZoneFs::Impl::ApplyFinishPolicyLocked(const FsView& v, Status* failed) {
  if (!finish_->Finishes()) return 0;
  int n = 0;
  for (uint32_t z : finish_->PickZonesToFinish(v)) {
    // The view may be stale once a finish released mu_: check again.
    if (z < meta_zones_ || z >= geo_.nr_zones || zones_[z].busy() || zones_[z].state == ZoneState::kFull) continue;
    // Best effort: a zone that cannot be finished stays usable.
    Status s = ReleaseActiveZoneLocked(z);
    if (s.ok()) n++;
    else if (failed != nullptr) *failed = s;
  }
  return n;
}

uint32_t ZoneFs::Impl::DeadActiveZoneLocked() const {
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    const ZoneEntry& e = zones_[z];
    if (!e.busy() && IsActive(e.state) && e.dead()) return z;
  }
  return kNoZone;
}

Status ZoneFs::Impl::ReleaseActiveZoneLocked(uint32_t z) {
  const ZoneEntry& e = zones_[z];
  if (!e.dead() || opts_.read_only) return FinishZoneLocked(z);
  // Not the reset policy's decision: counted apart from resets_runtime
  // and R_WP, and in EZRC.
  ZONEKV_RETURN_IF_ERROR(ResetZoneLocked(z));
  counters_.finishes_avoided++;
  return Status::OK();
}

std::vector<uint32_t> ZoneFs::Impl::PickResetsLocked(const FsView& v, std::chrono::steady_clock::time_point t0) {
  std::vector<uint32_t> picks = reset_->PickZonesToReset(v);
  counters_.reset_time.Since(t0);
  return picks;
}

int ZoneFs::Impl::ResetZonesLocked(const std::vector<uint32_t>& picks, Status* failed) {
  if (opts_.read_only) return 0;
  int n = 0;
  for (uint32_t z : picks) {
    if (z < meta_zones_ || z >= geo_.nr_zones) continue;
    // Checked now, not from the view: earlier resets released mu_.
    ZoneEntry& e = zones_[z];
    if (e.busy() || !e.dead()) continue;
    double frac = static_cast<double>(e.wp_bytes) / static_cast<double>(e.capacity_bytes);
    if (Status rs = ResetZoneLocked(z); !rs.ok()) {
      if (failed != nullptr) *failed = rs;
      continue;
    }
    counters_.r_wp_sum += frac;
    counters_.r_wp_min = counters_.resets_runtime == 0 ? frac : std::min(counters_.r_wp_min, frac);
    counters_.resets_runtime++;
    n++;
  }
  return n;
}

void ZoneFs::Impl::RuntimeReset() {
  FsView v;
  v.zones.reserve(geo_.nr_zones);  // allocated before taking mu_
  MutexLock l(&mu_);
  CloseReleasedZonesLocked();
  if (opts_.read_only) return;
  auto t0 = std::chrono::steady_clock::now();
  BuildViewLocked(0, reset_->NeedsFiles() ? ViewFiles::kAll : ViewFiles::kNone, &v);
  ResetZonesLocked(PickResetsLocked(v, t0));
  UpdateRecoveryModeLocked(/*nospace=*/false, /*at_mount=*/false);
}

bool ZoneFs::Impl::PreemptIdleZoneLocked(uint64_t requester) {
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    ZoneEntry& e = zones_[z];
    if (e.owner == 0 || e.owner == requester || e.in_io) continue;
    auto it = files_.find(e.owner);
    if (it == files_.end()) {
      e.owner = 0;
      return true;
    }
    ReleaseZoneLocked(it->second.get());
    counters_.preemptions++;
    return true;
  }
  return false;
}

Status ZoneFs::Impl::AcquireZoneLocked(FileRecord* f, uint64_t want) {
  const auto t_start = std::chrono::steady_clock::now();
  auto deadline = t_start + std::chrono::milliseconds(opts_.alloc_timeout_ms);
  const bool is_blob = f->meta.hints.kind == FileKind::kBlob;
  AllocationPolicy* policy = is_blob && blob_alloc_ ? blob_alloc_.get() : alloc_.get();
  const ViewFiles files = policy->NeedsFiles() || reset_->NeedsFiles() ? ViewFiles::kAll : ViewFiles::kNone;
  uint64_t waited_us = 0;
  uint64_t seen_passes = clean_passes_;
  uint64_t seen_progress = progress_;
  std::string why;
  bool waited_for_upper = false;
  bool borrowed = false;  // this allocation opened the reserve (below)
  bool awaited = false;   // a compaction's output the reclaimer waits for (below)
  uint64_t kicked_at_progress = UINT64_MAX;  // progress_ when this writer last kicked the cleaner
  uint64_t seen_reclaim_written = reclaim_written_bytes_;
  auto reclaim_wrote_at = t_start;  // when this writer last saw the collection write (or started)
  FsView view;  // rebuilt each pass into the same memory
  // Passes in a row in which a zone command (finish, reset) failed: after
  // kMaxFailedZoneCommandPasses the device's error is the writer's, at once,
  // instead of NoSpace after alloc_timeout_ms.
  int failed_passes = 0;
  for (int finishes = 0;;) {
    if (stop_) return Status::IOError("file system is shutting down");
    Status failed;
    // One view per decision pass: the finish threshold, the reset policy and
    // the allocation policy decide on it. Lazy and FAR resets depend on the
    // free-space ratio, which moves with every allocation. A pass that
    // finished or reset a zone released mu_ meanwhile, so it starts over.
    const auto t0 = std::chrono::steady_clock::now();
    BuildViewLocked(KeepEmptyForLocked(*f, awaited), files, &view);
    view.ssts = &sst_index_;  // valid during this pass only (we hold mu_)
    const auto t_built = std::chrono::steady_clock::now();
    int acted = f->meta.hints.kind != FileKind::kWal ? ApplyFinishPolicyLocked(view, &failed) : 0;
    acted += ResetZonesLocked(PickResetsLocked(view, std::chrono::steady_clock::now()), &failed);
    if (acted > 0) {
      counters_.alloc_time.Charge(t0, t_built);  // the view's cost, without a policy call
      continue;
    }
    // The requester as the full view would show it (a file being deleted
    // is not in it).
    const auto t_request = std::chrono::steady_clock::now();
    FileView self = FileViewLocked(*f);
    AllocRequest req;
    req.file = f->deleted ? nullptr : &self;
    req.min_bytes = want;
    AllocDecision d = policy->Allocate(view, req);
    // The view, the request and the decision; not the finish threshold and
    // the reset policy between them (reset_time has the latter).
    counters_.alloc_time.Add(PolicyTimer::Ns(t0, t_built) + PolicyTimer::Ns(t_request, std::chrono::steady_clock::now()));

    if (d.action == AllocDecision::Action::kUseZone) {
      uint32_t z = d.zone;
      uint32_t open = 0, active = 0;
      CountZonesLocked(&open, &active);
      // A zone the view showed busy may be one kept back (the cleaner's,
      // the reserve) even if nothing else holds it.
      const ZoneView* zv = view.FindZone(z);
      bool ok = zv != nullptr && !zv->busy;
      if (ok) {
        const ZoneEntry& e = zones_[z];
        ok = !e.busy() && e.state != ZoneState::kFull && e.state != ZoneState::kOffline &&
             e.state != ZoneState::kReadOnly && e.wp_bytes < e.capacity_bytes &&
             open < DataLimitLocked(geo_.max_open_zones) &&
             (e.wp_bytes > 0 || active < DataLimitLocked(geo_.max_active_zones));
      }
      if (ok) {
        ZoneEntry& e = zones_[z];
        e.owner = f->meta.id;
        if (f->meta.hints.lifetime > e.lifetime || e.wp_bytes == 0) e.lifetime = f->meta.hints.lifetime;
        f->zone = z;
        counters_.io_block_us += waited_us;
        counters_.alloc_reasons[d.reason[0] != '\0' ? d.reason : policy->name()]++;
        return Status::OK();
      }
      why = "policy " + std::string(policy->name()) + " chose zone " + std::to_string(z) +
            ", which is busy, kept back, full or over the open/active limit";
    } else if (d.action == AllocDecision::Action::kFinishZone) {
      // The policy frees an active resource. An active zone with no valid
      // data left (its reset deferred by the reset policy, e.g. FAR) frees
      // one first: by a reset, with no padding, where the finish of the
      // policy's zone would pad it.
      uint32_t z = DeadActiveZoneLocked();
      if (z == kNoZone) z = d.zone;
      if (z >= meta_zones_ && z < geo_.nr_zones && !zones_[z].busy() && finishes < 64 &&
          zones_[z].state != ZoneState::kFull) {
        Status fs = ReleaseActiveZoneLocked(z);
        if (fs.ok()) {
          finishes++;
          continue;
        }
        failed = fs;
      }
      why = "policy " + std::string(policy->name()) + " asked to finish zone " + std::to_string(z) + ", which failed";
    } else {
      why = "policy " + std::string(policy->name()) + " found no zone";
    }
    if (failed.ok()) {
      failed_passes = 0;
    } else if (++failed_passes >= kMaxFailedZoneCommandPasses) {
      counters_.io_block_us += waited_us;
      return Status::IOError("no zone for " + f->meta.name + ": the device failed a zone command in " +
                             std::to_string(failed_passes) + " allocation passes in a row, the last: " +
                             failed.ToString());
    }

    // No zone now (and this pass's resets freed none). Take back an idle
    // writer's zone, else wait for writes and zone commands in flight, the
    // cleaner, or the upper layer's reclaimer.
    if (PreemptIdleZoneLocked(f->meta.id)) {
      CloseReleasedZonesLocked();
      continue;
    }
    // Kick the cleaner (and ask the reclaimer) when this writer starts
    // waiting and after each change; in between, their own passes go on. A
    // kick on every wakeup would keep the cleaner in a loop of empty passes.
    const bool kick = kicked_at_progress == UINT64_MAX || progress_ != kicked_at_progress;
    if (kick) {
      kicked_at_progress = progress_;
      clean_kick_ = true;
      emergency_ = true;
      clean_cv_.notify_all();
    }
    // Ask the reclaimer without mu_ (it may read the file system).
    SpaceReclaimer::Estimate upper;
    if (std::shared_ptr<SpaceReclaimer> r = BeginReclaimerCallLocked()) {
      if (kick) counters_.reclaim_requests++;
      mu_.unlock();
      if (kick) r->RequestSpace();
      upper = r->Reclaimable();
      r.reset();
      mu_.lock();
      EndReclaimerCallLocked();
    }
    // A compaction whose outputs wait here while the reclaimer waits for it
    // to end would wait until this allocation times out (and fail: a
    // background error in RocksDB): it takes the reserve instead
    // (KeepEmptyForLocked), and the collection frees space after it.
    if (upper.awaits_compactions && !awaited && IsAwaitableCompactionOutput(*f) && !ThreadReclaiming() &&
        reserve_zones_ > 0) {
      awaited = true;
      counters_.compaction_loans++;
      continue;
    }
    // While the reclaimer collects, the timeout counts from when it stops,
    // up to kReclaimWaitFactor timeouts after the collection last wrote; not
    // for the reclaimer's own writes (it would wait for itself) nor for
    // another compaction's (the collection may be waiting for its inputs).
    if (upper.collecting && !ThreadReclaiming() && !IsCompactionOutput(*f)) {
      const auto now = std::chrono::steady_clock::now();
      if (reclaim_written_bytes_ != seen_reclaim_written) {
        seen_reclaim_written = reclaim_written_bytes_;
        reclaim_wrote_at = now;
      }
      deadline = std::min(now + std::chrono::milliseconds(opts_.alloc_timeout_ms),
                          reclaim_wrote_at + kReclaimWaitFactor * std::chrono::milliseconds(opts_.alloc_timeout_ms));
    }
    // (The reclaimer's own writes do not wait for it.)
    bool in_flight = !ThreadReclaiming() && (upper.collecting || upper.deciding);
    for (const auto& e : zones_) in_flight |= e.in_io || e.cleaning || e.resetting || e.finishing || e.closing;
    // (Without a cleaner thread, zc=off, there is no pass to wait for.)
    bool cleaner_idle_since = clean_passes_ >= seen_passes + 2 || !zc_->Cleans();
    bool nothing_moves = !in_flight && cleaner_idle_since && progress_ == seen_progress;
    if (std::chrono::steady_clock::now() >= deadline || nothing_moves) {
      // New data (a WAL, a flush) that would fail while the reclaimer still
      // holds garbage borrows the recovery reserve instead (recovery mode),
      // once per allocation: a failed flush puts RocksDB 7.8 into a
      // background error (every write refused until its SstFileManager
      // finds a memtable's worth of free space and resumes), while the
      // reclaimer can still give zones back. Without garbage it would
      // not, and NoSpace stands.
      if (!recovery_mode_ && !borrowed && reserve_zones_ > 0 && upper.garbage_bytes > 0 && !ThreadReclaiming() &&
          IsNewData(*f)) {
        borrowed = true;
        recovery_mode_ = true;
        counters_.recovery_entries++;
        counters_.reserve_loans++;
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts_.alloc_timeout_ms);
        seen_passes = clean_passes_;
        continue;
      }
      counters_.io_block_us += waited_us;
      counters_.nospace_errors++;
      UpdateRecoveryModeLocked(/*nospace=*/true, /*at_mount=*/false);
      return NoSpaceLocked(*f, why, upper.garbage_bytes);
    }
    if (upper.collecting && !waited_for_upper) {
      waited_for_upper = true;
      counters_.reclaim_waits++;
    }
    if (progress_ != seen_progress) {
      seen_progress = progress_;
      seen_passes = clean_passes_;
    }
    auto t0w = std::chrono::steady_clock::now();
    zone_cv_.wait_for(mu_, std::chrono::milliseconds(20));
    waited_us += ElapsedUs(t0w);
  }
}

Status ZoneFs::Impl::WriteData(FileRecord* f, const char* data, size_t n, bool pad) {
  const uint64_t total = pad ? RoundUp(n, bs_) : n;
  if (total % bs_ != 0) return Status::InvalidArgument("unaligned unpadded write of " + std::to_string(n) + " bytes");
  std::string tail;  // the padded last block, when data does not fill it
  uint64_t done = 0;
  if (new_data_rate_.load(std::memory_order_relaxed) != 0) PaceNewData(f, total);
  MutexLock l(&mu_);
  while (done < total) {
    if (f->zone < 0 || zones_[f->zone].wp_bytes >= zones_[f->zone].capacity_bytes) {
      if (f->zone >= 0) ReleaseZoneLocked(f);
      ZONEKV_RETURN_IF_ERROR(AcquireZoneLocked(f, total - done));
    }
    uint32_t z = static_cast<uint32_t>(f->zone);
    ZoneEntry& e = zones_[z];
    uint64_t chunk = std::min<uint64_t>(total - done, e.capacity_bytes - e.wp_bytes);
    uint64_t off = e.wp_bytes;
    e.in_io = true;
    l.unlock();

    const char* src = data + done;
    if (done + chunk > n) {
      tail.assign(chunk, '\0');
      std::memcpy(tail.data(), data + done, n - done);
      src = tail.data();
    }
    Status s = dev_->Write(static_cast<uint64_t>(z) * geo_.zone_size_bytes + off, src, chunk);
    ZoneInfo info;
    // After a failed write, where the device's write pointer is now.
    bool reported = !s.ok() && dev_->ReportZone(z, &info).ok();

    l.lock();
    e.in_io = false;
    progress_++;
    zone_cv_.notify_all();
    if (!s.ok()) {
      if (reported) {
        e.state = info.state;
        e.wp_bytes = info.state == ZoneState::kFull ? info.capacity_bytes : info.written_bytes();
      }
      ReleaseZoneLocked(f);
      CloseReleasedZonesLocked();
      return Status::IOError("write of " + f->meta.name + " to zone " + std::to_string(z) + " at " +
                             std::to_string(off) + ": " + s.ToString());
    }
    uint64_t exact = std::min<uint64_t>(chunk, n - done);
    e.wp_bytes += chunk;
    if (ThreadReclaiming()) reclaim_written_bytes_ += chunk;
    e.AddValid(ValidOwner::Of(f->meta.hints), chunk);
    e.last_write_us = NowUsLocked();
    if (f->meta.hints.lifetime > e.lifetime) e.lifetime = f->meta.hints.lifetime;
    AddExtentLocked(f, Extent{z, off, exact});
    f->meta.size_bytes += exact;
    // The extent's rounded length, as FileViewLocked counts it (an extent is
    // extended only when its length is a block multiple).
    sst_index_.AddBytes(f->meta.id, z, RoundUp(exact, bs_), f->meta.size_bytes);
    if (e.wp_bytes >= e.capacity_bytes) {
      e.state = ZoneState::kFull;
      e.owner = 0;
      f->zone = -1;
    } else {
      e.state = ZoneState::kImplicitOpen;
    }
    done += chunk;
  }
  return Status::OK();
}

Status ZoneFs::Impl::CommitFile(FileRecord* f, bool flush) {
  MutexLock l(&mu_);
  if (f->deleted) return Status::OK();  // nothing of an unlinked file survives a crash anyway
  EditBatch b;
  if (f->hints_dirty) b.SetHints(f->meta.id, f->meta.hints);
  if (f->synced_size != f->meta.size_bytes || f->synced_extents != f->meta.extents.size()) {
    f->meta.mtime_s = static_cast<uint64_t>(std::time(nullptr));
    b.SetTail(f->meta.id, f->meta.size_bytes, f->meta.mtime_s, f->synced_extents, f->meta.extents, f->synced_extents);
  }
  // Memory first: a journal roll snapshots the state the queue leads to.
  f->hints_dirty = false;
  f->synced_extents = f->meta.extents.size();
  f->synced_size = f->meta.size_bytes;
  ZONEKV_RETURN_IF_ERROR(JournalLocked(b));
  // Durable: this record and everything enqueued before it (the file's
  // data was written before its record was enqueued, so the flush covers it).
  return flush ? CommitJournalLocked(enqueued_seq_) : Status::OK();
}

Status ZoneFs::Impl::CloseWriter(FileRecord* f) {
  Status s = CommitFile(f, false);
  MutexLock l(&mu_);
  ReleaseZoneLocked(f);
  f->writing = false;
  sst_index_.SetOpenForWrite(f->meta.id, false);
  CloseReleasedZonesLocked();
  return s;
}

uint64_t ZoneFs::Impl::FileSize(FileRecord* f) {
  MutexLock l(&mu_);
  return f->meta.size_bytes;
}

Status ZoneFs::Impl::Read(FileRecord* f, uint64_t offset, size_t n, char* scratch, size_t* got) {
  struct Piece {
    uint32_t zone;
    uint64_t dev_off;
    uint64_t len;
    size_t dst;
  };
  std::vector<Piece> pieces;
  {
    MutexLock l(&mu_);
    uint64_t size = f->meta.size_bytes;
    if (offset >= size || n == 0) {
      *got = 0;
      return Status::OK();
    }
    uint64_t end = std::min<uint64_t>(size, offset + n);
    auto it = std::upper_bound(f->ext_end.begin(), f->ext_end.end(), offset);
    size_t i = static_cast<size_t>(it - f->ext_end.begin());
    uint64_t pos = offset;
    while (pos < end && i < f->meta.extents.size()) {
      const Extent& e = f->meta.extents[i];
      uint64_t ext_start = f->ext_end[i] - e.length_bytes;
      uint64_t in = pos - ext_start;
      uint64_t len = std::min(end, f->ext_end[i]) - pos;
      // Counted in with the lookup: the zone is not reset under this read.
      BeginReadLocked(e.zone);
      pieces.push_back({e.zone, static_cast<uint64_t>(e.zone) * geo_.zone_size_bytes + e.offset_bytes + in, len,
                        static_cast<size_t>(pos - offset)});
      pos += len;
      i++;
    }
    *got = static_cast<size_t>(pos - offset);
  }
  std::string tmp;
  auto read_piece = [&](const Piece& p) {
    if (p.dev_off % bs_ == 0 && p.len % bs_ == 0) return dev_->Read(p.dev_off, p.len, scratch + p.dst);
    uint64_t a = p.dev_off / bs_ * bs_;
    uint64_t b = RoundUp(p.dev_off + p.len, bs_);
    tmp.resize(b - a);
    ZONEKV_RETURN_IF_ERROR(dev_->Read(a, b - a, tmp.data()));
    std::memcpy(scratch + p.dst, tmp.data() + (p.dev_off - a), p.len);
    return Status::OK();
  };
  Status s;
  for (const auto& p : pieces) {
    if (s.ok()) s = read_piece(p);
    EndRead(p.zone);  // also after a failure: every piece was counted in
  }
  return s;
}

}  // namespace zonekv
