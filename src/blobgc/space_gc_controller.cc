// The space-pressure blob GC controller: the engine that carries out a
// SpaceGcPolicy's picks (blob_gc.h, docs/space.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <unordered_map>

#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "zonekv/blob_gc.h"
#include "zonekv/clock.h"

namespace zonekv {

namespace {

// A look even without events: free space moves with every write.
constexpr std::chrono::milliseconds kInterval(200);
// Plan (and keep room for) the next collection from this many points above
// the trigger.
constexpr double kPlanAheadPct = 10;
// A gap between collections longer than one decision interval is idle time,
// not part of the duty cycle their reclaim rate is measured over.
constexpr std::chrono::milliseconds kMaxRoundGap = kInterval;
// CompactFiles refuses inputs another compaction holds; once compactions
// are paused those end, so a collection waits this long for them at most.
constexpr std::chrono::milliseconds kRetryEvery(50);
constexpr std::chrono::seconds kRetryFor(30);

// ZONEKV_SPACE_GC_LOG=1: one line per collection on stderr.
bool LogRounds() {
  static const bool on = [] {
    const char* v = std::getenv("ZONEKV_SPACE_GC_LOG");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}

// RocksDB's target SST size at `level` (target_file_size_base *
// multiplier^(level-1)).
uint64_t TargetFileBytes(const rocksdb::Options& o, int level) {
  double bytes = static_cast<double>(o.target_file_size_base);
  for (int l = 1; l < level; ++l) bytes *= std::max(1, o.target_file_size_multiplier);
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

// The SSTs that may reference blob files numbered <= max_number (an SST
// records the oldest blob file it references, so exactly those whose
// oldest is <= max_number), widened to every SST at any level overlapping
// their key range, so that newer versions of their keys meet the old ones
// and stale records are dropped instead of relocated. Output: the deepest
// level holding files (at least 1).
struct CompactionInputs {
  std::vector<std::string> files;
  int output_level = 1;
};

CompactionInputs InputsFor(const rocksdb::ColumnFamilyMetaData& meta, uint64_t max_number) {
  CompactionInputs in;
  std::string lo, hi;
  bool any = false;
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      if (f.oldest_blob_file_number == 0 || f.oldest_blob_file_number > max_number) continue;
      if (!any || f.smallestkey < lo) lo = f.smallestkey;
      if (!any || f.largestkey > hi) hi = f.largestkey;
      any = true;
    }
  }
  if (!any) return in;
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      if (f.largestkey < lo || f.smallestkey > hi) continue;
      in.files.push_back(f.db_path + f.name);
      in.output_level = std::max(in.output_level, level.level);
    }
  }
  return in;
}

}  // namespace

SpaceGcController::SpaceGcController(std::unique_ptr<SpaceGcPolicy> policy, SpaceGcOptions opts, SpaceGcFsHooks fs,
                                     CompactionPauser pauser, std::shared_ptr<ZCutoffController> zcutoff)
    : policy_(std::move(policy)),
      opts_(std::move(opts)),
      fs_(std::move(fs)),
      pauser_(std::move(pauser)),
      zcutoff_(std::move(zcutoff)) {}

SpaceGcController::~SpaceGcController() { Detach(); }

void SpaceGcController::Attach(rocksdb::DB* db) {
  MutexLock l(&mu_);
  if (db_ != nullptr) return;
  db_ = db;
  stop_ = false;
  thread_ = std::thread(&SpaceGcController::Loop, this);
  if (fs_.set_new_data_rate) pacer_ = std::thread(&SpaceGcController::PaceLoop, this);
}

void SpaceGcController::Detach() {
  {
    MutexLock l(&mu_);
    if (db_ == nullptr) return;
    stop_ = true;
  }
  cv_.notify_all();
  pace_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (pacer_.joinable()) pacer_.join();
  {
    MutexLock serial(&run_mu_);  // a caller's RunOnce, too, has finished its Apply()s
    options_.Drain();            // SetOptions calls still waiting for RocksDB's write thread
  }
  {
    MutexLock pace(&pace_mu_);
    if (new_data_rate_ != 0 && fs_.set_new_data_rate) fs_.set_new_data_rate(0);  // no pacing without the GC
    new_data_rate_ = 0;
  }
  MutexLock l(&mu_);
  db_ = nullptr;
  pending_ = false;
}

void SpaceGcController::Wake(bool writer) {
  {
    MutexLock l(&mu_);
    if (db_ == nullptr) return;
    kicked_ = true;
    if (writer) {
      writer_waiting_ = true;
      pending_ = true;  // Reclaimable() reports work until the decision is made
      stats_.space_requests++;
    }
  }
  cv_.notify_one();
}

void SpaceGcController::RequestSpace() { Wake(true); }

SpaceReclaimer::Estimate SpaceGcController::Reclaimable() const {
  Estimate e;
  e.garbage_bytes = known_garbage_.load();
  MutexLock l(&mu_);
  e.collecting = running_;
  e.deciding = pending_;
  e.stuck = stuck_;
  e.awaits_compactions = awaiting_;
  return e;
}

void SpaceGcController::Loop() {
  MutexLock l(&mu_);
  while (!stop_) {
    cv_.wait_for(l, kInterval, [this]() ZONEKV_REQUIRES(mu_) { return stop_ || kicked_; });
    if (stop_) return;
    const bool writer = writer_waiting_;
    writer_waiting_ = false;
    kicked_ = false;
    l.unlock();
    SpaceGcPick pick;
    static_cast<void>(RunOnce(writer, &pick));  // errors are in the stats (last_error)
    l.lock();
    // After a collection, look again at once: plan the next one before
    // writers take the space this one freed.
    if (pick.collect && pick.files > 0) kicked_ = true;
    // A writer that asked while this decision ran keeps pending_ for the next.
    if (!writer_waiting_) pending_ = false;
  }
}

void SpaceGcController::PaceLoop() {
  MutexLock l(&mu_);
  while (!stop_) {
    pace_cv_.wait_for(l, kInterval, [this]() ZONEKV_REQUIRES(mu_) { return stop_; });
    if (stop_) return;
    l.unlock();
    PaceFlushes(fs_.view(ViewFiles::kNone));
    l.lock();
  }
}

void SpaceGcController::ClearPlan() {
  if (reserved_bytes_ == 0 && planned_max_ == 0) return;
  reserved_bytes_ = 0;
  planned_max_ = 0;
  fs_.set_target(0, 0);
}

Status SpaceGcController::RunOnce(bool writer_waiting, SpaceGcPick* pick) {
  MutexLock serial(&run_mu_);
  *pick = SpaceGcPick();
  rocksdb::DB* db;
  {
    MutexLock l(&mu_);
    db = db_;
  }
  if (db == nullptr) return Status::OK();

  // Cheap first (zones only): nothing to plan while free space is plentiful.
  SpaceGcView sv;
  sv.fs = fs_.view(ViewFiles::kNone);
  PaceFlushes(sv.fs);
  if (!writer_waiting && 100.0 * sv.fs.free_ratio() >= opts_.space_gc_free_pct + kPlanAheadPct) {
    {
      MutexLock l(&mu_);
      stuck_ = false;
    }
    ClearPlan();
    return Status::OK();
  }
  // Without a blob file there is nothing to collect: skip RocksDB's file
  // metadata and every file's view (under space pressure a database
  // without BlobDB paid both hundreds of times a second, for writers'
  // requests). The answer is the one the policy would give.
  uint64_t blob_files = 0;
  if (db->GetIntProperty(rocksdb::DB::Properties::kNumBlobFiles, &blob_files) && blob_files == 0) {
    known_garbage_ = 0;
    known_blob_files_ = 0;
    ClearPlan();
    pick->reason = "no blob files";
    MutexLock l(&mu_);
    stats_.checks++;
    if (writer_waiting) stuck_ = true;
    return Status::OK();
  }
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  sv.fs = fs_.view(ViewFiles::kAll);
  sv.writer_waiting = writer_waiting;
  std::unordered_map<uint64_t, const FileView*> blob_by_number;
  for (const auto& f : sv.fs.files) {
    if (f.hints.kind == FileKind::kBlob) blob_by_number[f.hints.number] = &f;
  }
  for (const auto& b : meta.blob_files) {
    BlobFileSpaceView bv;
    bv.number = b.blob_file_number;
    bv.total_blob_bytes = b.total_blob_bytes;
    bv.garbage_blob_bytes = b.garbage_blob_bytes;
    auto it = blob_by_number.find(b.blob_file_number);
    if (it != blob_by_number.end()) bv.bytes_per_zone = it->second->bytes_per_zone;
    sv.blob_files.push_back(std::move(bv));
  }
  sv.sst_bytes = meta.size;  // the sum of the levels' file sizes (blob files apart)
  std::sort(sv.blob_files.begin(), sv.blob_files.end(),
            [](const BlobFileSpaceView& a, const BlobFileSpaceView& b) { return a.number < b.number; });
  sv.fs.files.clear();  // the zones are what the policy reads
  *pick = policy_->Pick(sv);
  {
    MutexLock l(&mu_);
    stats_.checks++;
  }
  // A discovery that learned nothing is not repeated until new data was
  // flushed (the same LSM would teach the same).
  if (pick->files > 0 && pick->discover && flushes_.load() == discovered_at_flushes_) {
    pick->files = 0;
    pick->reason = "a discovery round on this data found nothing";
  }
  uint64_t garbage_before = 0;
  for (const auto& b : sv.blob_files) garbage_before += b.garbage_blob_bytes;
  known_garbage_ = garbage_before;
  known_blob_files_ = sv.blob_files.size();
  // Room for the next collection: other writers leave it empty zones, and
  // the cleaner leaves it the zones of the files it will collect.
  const uint64_t want = pick->plan_bytes;
  const uint64_t planned = pick->files > 0 ? pick->max_number : 0;
  if (want != reserved_bytes_ || planned != planned_max_) {
    reserved_bytes_ = want;
    planned_max_ = planned;
    fs_.set_target(planned, want);
  }
  if (pick->files == 0 || !pick->collect) {
    if (writer_waiting || pick->files > 0) {
      MutexLock l(&mu_);
      stuck_ = pick->files == 0;
    }
    if (LogRounds() && writer_waiting && pick->files == 0) {
      std::fprintf(stderr,
                   "space gc: a writer waits, nothing to collect: %s (%zu blob files, %llu MiB known garbage, oldest's "
                   "live bytes %llu MiB, free %llu MiB, %u empty zones, room %llu MiB)\n",
                   pick->reason, sv.blob_files.size(), static_cast<unsigned long long>(garbage_before >> 20),
                   static_cast<unsigned long long>(sv.blob_files.empty() ? 0 : sv.blob_files[0].live_bytes() >> 20),
                   static_cast<unsigned long long>(sv.fs.free_bytes() >> 20), sv.fs.empty_zones(),
                   static_cast<unsigned long long>(pick->plan_bytes >> 20));
    }
    return Status::OK();
  }

  const uint64_t free_before = sv.fs.free_bytes() + sv.fs.reclaimable_bytes();
  auto t0 = std::chrono::steady_clock::now();
  Status s = Collect(db, *pick);
  uint64_t us = ElapsedUs(t0);
  MeasureReclaim(s.ok() ? *pick : SpaceGcPick(), t0);
  {
    MutexLock l(&mu_);
    stuck_ = false;
    stats_.rounds++;
    if (pick->discover) stats_.discover_rounds++;
    stats_.files_collected += pick->files;
    stats_.relocate_bytes_est += pick->relocate_bytes;
    stats_.garbage_bytes_est += pick->garbage_bytes;
    stats_.zones_freed_est += pick->zones_freed;
    stats_.round_us_total += us;
    stats_.round_us_max = std::max(stats_.round_us_max, us);
    if (!s.ok()) {
      stats_.failed_rounds++;
      stats_.last_error = s.ToString();
    }
  }
  if (LogRounds()) {
    FsView after = fs_.view(ViewFiles::kNone);
    std::fprintf(stderr,
                 "space gc: %s%zu of %zu blob files (<= %llu): relocate <= %llu MiB, garbage %llu MiB, %u zones, "
                 "SSTs %llu MiB; free %llu -> %llu MiB, empty zones %u -> %u, in %.2f s (%s)%s%s\n",
                 pick->discover ? "discover, " : "", pick->files, sv.blob_files.size(),
                 static_cast<unsigned long long>(pick->max_number),
                 static_cast<unsigned long long>(pick->relocate_bytes >> 20),
                 static_cast<unsigned long long>(pick->garbage_bytes >> 20), pick->zones_freed,
                 static_cast<unsigned long long>(sv.sst_bytes >> 20),
                 static_cast<unsigned long long>(sv.fs.free_bytes() >> 20),
                 static_cast<unsigned long long>(after.free_bytes() >> 20), sv.fs.empty_zones(), after.empty_zones(),
                 us / 1e6, pick->reason,
                 s.ok() ? "" : ": ", s.ok() ? "" : s.ToString().c_str());
  }
  if (pick->discover) {
    // Learned something if space came back or RocksDB now knows of more garbage.
    FsView after = fs_.view(ViewFiles::kNone);
    rocksdb::ColumnFamilyMetaData m2;
    db->GetColumnFamilyMetaData(&m2);
    uint64_t garbage_after = 0;
    for (const auto& b : m2.blob_files) garbage_after += b.garbage_blob_bytes;
    if (after.free_bytes() + after.reclaimable_bytes() <= free_before && garbage_after <= garbage_before) {
      discovered_at_flushes_ = flushes_.load();
    }
  }
  return s;
}

Status SpaceGcController::Collect(rocksdb::DB* db, const SpaceGcPick& pick) {
  fs_.set_target(pick.max_number, pick.relocate_bytes);
  if (fs_.mark_thread) fs_.mark_thread(true);
  if (zcutoff_) zcutoff_->Hold();
  const bool native = !pauser_.pause;
  if (!native) {
    // A running job that needs a zone meanwhile may take the reserve: the
    // room this collection frees comes only after the job ends.
    SetAwaiting(true);
    const auto t0 = std::chrono::steady_clock::now();
    pauser_.pause();
    const uint64_t us = ElapsedUs(t0);
    SetAwaiting(false);
    MutexLock l(&mu_);
    stats_.pause_us_total += us;
    stats_.pause_us_max = std::max(stats_.pause_us_max, us);
  }

  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  const rocksdb::Options cur = db->GetOptions();
  // (The cutoff is computed on this metadata; the inputs, below, on
  // metadata read after compactions were paused.)
  // A cutoff that covers exactly the picked files.
  size_t picked = 0;
  for (const auto& b : meta.blob_files) picked += b.blob_file_number <= pick.max_number ? 1 : 0;
  const double cutoff = CutoffCovering(picked, meta.blob_files.size());
  std::unordered_map<std::string, std::string> set = {
      {"enable_blob_garbage_collection", "true"}, {"blob_garbage_collection_age_cutoff", CutoffOptionText(cutoff)}};
  std::unordered_map<std::string, std::string> restore = {
      {"enable_blob_garbage_collection", cur.enable_blob_garbage_collection ? "true" : "false"},
      {"blob_garbage_collection_age_cutoff", CutoffOptionText(cur.blob_garbage_collection_age_cutoff)}};
  if (native) {
    // No new compaction of RocksDB's own takes the inputs meanwhile.
    set["disable_auto_compactions"] = "true";
    restore["disable_auto_compactions"] = cur.disable_auto_compactions ? "true" : "false";
  }
  // In effect before CompactFiles reads them; RocksDB may write the
  // OPTIONS file later (OptionsApplier).
  rocksdb::Status rs = options_.Apply(db, set);
  Status s;
  if (!rs.ok()) {
    s = Status::IOError("space GC: SetOptions: " + rs.ToString());
  } else {
    const auto deadline = std::chrono::steady_clock::now() + kRetryFor;
    for (;;) {
      db->GetColumnFamilyMetaData(&meta);
      CompactionInputs in = InputsFor(meta, pick.max_number);
      if (in.files.empty()) break;  // nothing references them any more: RocksDB drops the files itself
      rocksdb::CompactionOptions co;
      co.compression = rocksdb::kDisableCompressionOption;  // the column family's own choice
      co.output_file_size_limit = TargetFileBytes(cur, in.output_level);
      co.max_subcompactions = 1;  // outputs written on this thread (SetThreadReclaiming)
      // Writers that wait for space wait for the compaction (not for the
      // retries below: the compaction that holds the inputs may itself
      // wait for space, and must then fail in its own time).
      SetRunning(true);
      rs = db->CompactFiles(co, in.files, in.output_level);
      SetRunning(false);
      if (rs.ok()) break;
      // Inputs held (Aborted) or just deleted (InvalidArgument: "does not
      // exist") by a compaction that started before the pause: retry.
      const bool retry = rs.IsAborted() || (rs.IsInvalidArgument() && rs.ToString().find("does not exist") != std::string::npos);
      if (!retry || std::chrono::steady_clock::now() >= deadline) {
        s = Status::IOError("space GC: CompactFiles of " + std::to_string(in.files.size()) + " files into L" +
                            std::to_string(in.output_level) + ": " + rs.ToString());
        break;
      }
      {
        MutexLock l(&mu_);
        stats_.compaction_retries++;
      }
      SetAwaiting(true);  // the compaction that holds the inputs may need a zone
      std::this_thread::sleep_for(kRetryEvery);
      SetAwaiting(false);
    }
    rs = options_.Apply(db, restore);
    if (!rs.ok() && s.ok()) s = Status::IOError("space GC: restoring the options: " + rs.ToString());
  }
  if (!native) pauser_.resume();
  if (zcutoff_) zcutoff_->Release();
  if (fs_.mark_thread) fs_.mark_thread(false);
  // Keep the room until the next decision (right after this one) sizes it
  // for the next collection: writers would otherwise take it meanwhile.
  fs_.set_target(0, pick.relocate_bytes);
  reserved_bytes_ = pick.relocate_bytes;
  planned_max_ = 0;
  return s;
}

void SpaceGcController::MeasureReclaim(const SpaceGcPick& pick, std::chrono::steady_clock::time_point start) {
  const auto end = std::chrono::steady_clock::now();
  // The duty cycle: the round, and the gap since the previous one ended if
  // the collections ran back to back.
  auto cycle = end - start;
  {
    MutexLock pace(&pace_mu_);
    if (last_round_end_ != std::chrono::steady_clock::time_point{}) {
      cycle += std::min<std::chrono::steady_clock::duration>(start - last_round_end_, kMaxRoundGap);
    }
  }
  const double seconds = std::max(1e-3, std::chrono::duration<double>(cycle).count());
  const double net = static_cast<double>(pick.zones_freed_bytes) - static_cast<double>(pick.relocate_bytes);
  const double sample = std::max(0.0, net) / seconds;
  double rate;
  {
    MutexLock pace(&pace_mu_);
    last_round_end_ = end;
    reclaim_rate_ = reclaim_rate_ == 0 ? sample : (reclaim_rate_ + sample) / 2;
    rate = reclaim_rate_;
  }
  MutexLock l(&mu_);
  stats_.reclaim_bytes_per_sec = rate;
}

void SpaceGcController::PaceFlushes(const FsView& fs) {
  if (!fs_.set_new_data_rate) return;
  PaceInput in;
  const uint64_t free = fs.free_bytes();
  in.capacity_bytes = free + fs.used_bytes() + fs.reclaimable_bytes();
  in.free_pct = in.capacity_bytes == 0 ? 100.0
                                       : 100.0 * static_cast<double>(free) / static_cast<double>(in.capacity_bytes);
  in.trigger_pct = opts_.space_gc_free_pct;
  in.blob_files = known_blob_files_.load();
  MutexLock pace(&pace_mu_);
  in.reclaim_bytes_per_sec = reclaim_rate_;
  if (last_round_end_ != std::chrono::steady_clock::time_point{}) {
    in.since_round_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_round_end_).count();
  }
  const uint64_t rate = PaceRate(in);
  if (rate != new_data_rate_) {
    new_data_rate_ = rate;
    fs_.set_new_data_rate(rate);
  }
}

void SpaceGcController::SetRunning(bool on) {
  MutexLock l(&mu_);
  running_ = on;
}

void SpaceGcController::SetAwaiting(bool on) {
  MutexLock l(&mu_);
  awaiting_ = on;
}

SpaceGcStats SpaceGcController::Stats() const {
  const OptionsApplierStats o = options_.Stats();
  MutexLock l(&mu_);
  SpaceGcStats s = stats_;
  s.set_options_us_total = o.call_us_total;
  s.set_options_us_max = o.call_us_max;
  s.options_wait_us_total = o.wait_us_total;
  s.options_wait_us_max = o.wait_us_max;
  s.options_in_flight_max = o.in_flight_max;
  if (s.last_error.empty() && o.late_errors > 0) {
    s.last_error = "space GC: SetOptions, after its values took effect: " + o.last_late_error;
  }
  return s;
}

Json SpaceGcStats::ToJson() const {
  Json j = Json::Object();
  j.Set("checks", checks)
      .Set("rounds", rounds)
      .Set("discover_rounds", discover_rounds)
      .Set("failed_rounds", failed_rounds)
      .Set("files_collected", files_collected)
      .Set("relocate_bytes_est", relocate_bytes_est)
      .Set("garbage_bytes_est", garbage_bytes_est)
      .Set("zones_freed_est", zones_freed_est)
      .Set("compaction_retries", compaction_retries)
      .Set("round_us_total", round_us_total)
      .Set("round_us_max", round_us_max)
      .Set("pause_us_total", pause_us_total)
      .Set("pause_us_max", pause_us_max)
      .Set("space_requests", space_requests)
      .Set("reclaim_bytes_per_sec", reclaim_bytes_per_sec)
      .Set("set_options_us_total", set_options_us_total)
      .Set("set_options_us_max", set_options_us_max)
      .Set("options_wait_us_total", options_wait_us_total)
      .Set("options_wait_us_max", options_wait_us_max)
      .Set("options_in_flight_max", options_in_flight_max)
      .Set("last_error", last_error);
  return j;
}

}  // namespace zonekv
