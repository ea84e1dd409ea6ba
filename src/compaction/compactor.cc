#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <time.h>
#include <unordered_map>

#include <rocksdb/comparator.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "compaction_metrics.h"
#include "compactor_listener.h"
#include "grandparent_cutter.h"
#include "inval_scorer.h"
#include "native_jobs.h"
#include "picker_common.h"
#include "subcompaction_relay.h"
#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace zonekv {

namespace {

constexpr int kMaxThreads = 64;

// Hybrid mode, picker in charge: RocksDB's level base, set so that no level
// scores 1 by size (the picker reads the DB's options as of Start).
constexpr uint64_t kOffLevelBaseBytes = 1ull << 56;

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// CPU time of the calling thread: a picker's cost, unaffected by how busy
// the machine is.
uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// RocksDB's compaction slots for these options (its documented derivation of
// max_background_compactions from max_background_jobs when the former is -1).
int DefaultThreads(const rocksdb::Options& o) {
  if (o.max_background_compactions > 0) return o.max_background_compactions;
  int jobs = std::max(1, o.max_background_jobs);
  return std::max(1, jobs - std::max(1, jobs / 4));
}

// target_file_size_base * target_file_size_multiplier^(level-1), bytes.
uint64_t TargetFileBytes(const rocksdb::Options& o, int level) {
  double bytes = static_cast<double>(o.target_file_size_base);
  for (int l = 1; l < level; ++l) bytes *= std::max(1, o.target_file_size_multiplier);
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

struct Job {
  uint64_t id = 0;
  CompactionPick pick;
  bool have_layout = false;
  FsView before;          // the file system when the job was picked
  ZoneLayout layout;      // derived from `before`
  double s_same = -1;
  std::vector<double> level_scores;
  std::vector<GrandparentFile> grandparents;  // the output level's next level, over the job's range
};

class CompactorImpl : public Compactor, public CompactorEvents {
 public:
  CompactorImpl(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const CompactorOptions& opts,
                rocksdb::Options db_options, std::unique_ptr<CompactionPicker> picker,
                std::shared_ptr<ListenerSlot> slot)
      : db_(db), cf_(cf), opts_(opts), db_options_(std::move(db_options)), picker_(std::move(picker)),
        slot_(std::move(slot)) {
    MutexLock l(&mode_mu_);
    hybrid_.native_free_ratio = opts_.native_free_ratio;
  }

  ~CompactorImpl() override { Stop(); }

  void Launch(int threads) {
    slot_->Bind(this);
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
  }

  void Wake() override {
    MutexLock l(&mu_);
    ++generation_;
    cv_.notify_all();
  }

  void SubcompactionBegin(const rocksdb::SubcompactionJobInfo& info) override {
    metrics_.AddSubcompaction();
    if (!native_.SubBegin(info)) relay_.SubBegin(info);
  }
  void SubcompactionCompleted(const rocksdb::SubcompactionJobInfo& info) override {
    native_.SubCompleted(info);
    relay_.SubCompleted(info);
  }
  void FileDeleted(const std::string& path) override { scorer_.FileDeleted(path); }
  void NativeBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override { native_.Begin(db, info); }
  void NativeCompleted(const rocksdb::CompactionJobInfo& info) override { native_.Completed(info); }

  Status WaitUntilIdle(uint64_t timeout_ms) override {
    MutexLock l(&mu_);
    ++generation_;  // look again, whatever happened before this call
    cv_.notify_all();
    bool idle = cv_.wait_for(l, std::chrono::milliseconds(timeout_ms), [&]() ZONEKV_REQUIRES(mu_) {
      return stopped_ || (running_ == 0 && idle_generation_ == generation_ && idle_threads_ == threads_.size());
    });
    if (Status e = FirstError(); !e.ok()) return e;
    if (!idle) {
      return Status::Busy("compactor still busy after " + std::to_string(timeout_ms) + " ms (" +
                          std::to_string(running_) + " jobs running)");
    }
    return Status::OK();
  }

  void Stop() override {
    {
      MutexLock l(&mu_);
      if (stopped_) return;
      stopped_ = true;
      cv_.notify_all();
    }
    for (std::thread& t : threads_) t.join();
    slot_->Bind(nullptr);
    // Leave RocksDB's own compaction as it was configured.
    bool external = false;
    {
      MutexLock l(&mode_mu_);
      external = external_;
    }
    if (hybrid() && external) {
      Status s = ApplyMode(false);
      MutexLock l(&mode_mu_);
      if (s.ok()) RecordSwitchLocked(false, opts_.free_ratio());
      else Fail(s);
    }
  }

  void Pause() override {
    MutexLock l(&mu_);
    ++paused_;
    cv_.wait(l, [&]() ZONEKV_REQUIRES(mu_) { return running_ == 0 || stopped_; });
  }

  void Resume() override {
    MutexLock l(&mu_);
    if (paused_ > 0) --paused_;
    ++generation_;  // look again: the LSM changed meanwhile
    cv_.notify_all();
  }

  CompactorStats Stats() const override {
    scorer_.Flush();
    CompactorStats st;
    st.picker = picker_->name();
    st.external = CompactorStats::External{opts_.picker_options, threads_.size(), opts_.max_subcompactions,
                                           relay_.relayed(), relay_.missed(), slot_->cutter()->cuts()};
    st.external->parallel_jobs = parallel_jobs_.load(std::memory_order_relaxed);
    st.external->lsm_reads = lsm_reads_.load(std::memory_order_relaxed);
    if (hybrid()) {
      MutexLock l(&mode_mu_);
      HybridStats h = hybrid_;
      const int64_t now = static_cast<int64_t>(NowNs());
      if (external_) h.external_s += static_cast<double>(now - external_since_ns_) / 1e9;
      h.total_s = static_cast<double>(now - start_ns_) / 1e9;
      st.hybrid = std::move(h);
    }
    st.metrics = metrics_.Stats();
    return st;
  }

 private:
  void Run() {
    MutexLock l(&mu_);
    uint64_t seen = 0;     // the generation this thread last picked at
    uint64_t counted = 0;  // the generation this thread last reported idle at
    while (!stopped_) {
      if (paused_ > 0) {
        cv_.wait(l);
        continue;
      }
      if (seen == generation_) {
        if (counted != generation_) {
          if (idle_generation_ != generation_) {
            idle_generation_ = generation_;
            idle_threads_ = 0;
          }
          ++idle_threads_;
          counted = generation_;
          cv_.notify_all();
        }
        cv_.wait(l);
        continue;
      }
      seen = generation_;
      if (hybrid()) {
        l.unlock();
        const bool external = UpdateMode();
        l.lock();
        // Native mode: RocksDB compacts; look again at the next change.
        if (!external || stopped_ || paused_ > 0) continue;
      }
      Job job;
      if (!PickLocked(&job)) continue;
      Reserve(job, true);
      if (running_ > 0) parallel_jobs_.fetch_add(1, std::memory_order_relaxed);
      ++running_;
      l.unlock();
      bool changed = RunJob(&job);
      l.lock();
      Reserve(job, false);
      --running_;
      // A thread held back by the one-job rule looks again now.
      if (changed || held_back_) ++generation_;
      held_back_ = false;
      cv_.notify_all();
    }
  }

  bool hybrid() const { return opts_.native_free_ratio > 0; }

  // Hybrid mode: native compaction while free space is plentiful, the picker
  // below native_free_ratio (CompactorOptions). Sets RocksDB's L0 trigger
  // and level base to match; returns true when the picker is in charge.
  // RocksDB's running native jobs finish either way; a pick that meets one
  // of their files is refused (Aborted) and picked again later. One thread
  // switches at a time; SetOptions (which waits for RocksDB's write thread)
  // runs without mode_mu_, so Stats() never waits for it.
  bool UpdateMode() ZONEKV_EXCLUDES(mu_, mode_mu_) {
    const double free = opts_.free_ratio();
    bool want = false;
    {
      MutexLock l(&mode_mu_);
      want = external_ ? free < opts_.native_free_ratio + CompactorOptions::kHybridBand
                       : free < opts_.native_free_ratio;
      if (want == external_ || switching_) return external_;
      switching_ = true;
    }
    Status s = ApplyMode(want);
    MutexLock l(&mode_mu_);
    switching_ = false;
    if (!s.ok()) {
      Fail(s);
      return external_;
    }
    RecordSwitchLocked(want, free);
    return external_;
  }

  // Counts and logs a switch that ApplyMode made.
  void RecordSwitchLocked(bool to_external, double free) ZONEKV_REQUIRES(mode_mu_) {
    const int64_t now = static_cast<int64_t>(NowNs());
    if (to_external) {
      ++hybrid_.to_external;
      external_since_ns_ = now;
    } else {
      ++hybrid_.to_native;
      hybrid_.external_s += static_cast<double>(now - external_since_ns_) / 1e9;
    }
    if (hybrid_.switches.size() < HybridStats::kMaxLogged) {
      hybrid_.switches.push_back({static_cast<double>(now - start_ns_) / 1e9, to_external, free});
    }
    external_ = to_external;
  }

  // Sets RocksDB's options for the picker's mode (external) or for native
  // compaction. The picker's mode leaves RocksDB's leveled picker next to
  // nothing: a level base no LSM reaches, and the L0 trigger raised to the
  // slowdown trigger (RocksDB requires trigger <= slowdown), so RocksDB
  // compacts L0 only once writers would slow down anyway, a safety net
  // counted as "native" jobs. Not disable_auto_compactions: that would also
  // lift the L0 slowdown and stop triggers, and writers would outrun the
  // picker (under kCompactionStyleNone they apply).
  Status ApplyMode(bool external) ZONEKV_EXCLUDES(mode_mu_) {
    std::unordered_map<std::string, std::string> opts;
    if (external) {
      const int trigger = std::max(db_options_.level0_file_num_compaction_trigger,
                                   db_options_.level0_slowdown_writes_trigger);
      opts = {{"level0_file_num_compaction_trigger", std::to_string(trigger)},
              {"max_bytes_for_level_base", std::to_string(kOffLevelBaseBytes)}};
    } else {
      opts = {{"level0_file_num_compaction_trigger", std::to_string(db_options_.level0_file_num_compaction_trigger)},
              {"max_bytes_for_level_base", std::to_string(db_options_.max_bytes_for_level_base)}};
    }
    rocksdb::Status rs = db_->SetOptions(cf_, opts);
    if (!rs.ok()) {
      return Status::IOError("hybrid compaction: SetOptions of the L0 trigger and level base failed: " +
                             rs.ToString());
    }
    return Status::OK();
  }

  void Reserve(const Job& job, bool on) ZONEKV_REQUIRES(mu_) {
    const CompactionPick& p = job.pick;
    for (uint64_t n : p.input_files) on ? (void)reserved_.insert(n) : (void)reserved_.erase(n);
    for (uint64_t n : p.output_files) on ? (void)reserved_.insert(n) : (void)reserved_.erase(n);
    if (on) {
      running_outputs_.push_back({job.id, {p.output_level, p.smallest_key, p.largest_key}});
    } else {
      running_outputs_.erase(std::remove_if(running_outputs_.begin(), running_outputs_.end(),
                                            [&](const auto& r) { return r.first == job.id; }),
                             running_outputs_.end());
    }
  }

  // Calls into the DB and the layout provider, which must not call back
  // into the compactor.
  bool PickLocked(Job* job) ZONEKV_REQUIRES(mu_) {
    if (!view_ || view_generation_ != generation_) {
      rocksdb::ColumnFamilyMetaData meta;
      db_->GetColumnFamilyMetaData(cf_, &meta);
      lsm_reads_.fetch_add(1, std::memory_order_relaxed);
      view_ = LsmViewFromMetaData(meta, db_options_);
      view_generation_ = generation_;
    }
    if (running_ > 0 && !CompactionBehind(*view_) && !WritesSlowed()) {
      held_back_ = true;
      return false;
    }
    LsmView view = *view_;  // this pick's copy: it marks the running jobs' files
    for (auto& level : view.levels) {
      for (SstFileView& f : level) f.being_compacted = f.being_compacted || reserved_.count(f.number) > 0;
    }
    for (const auto& r : running_outputs_) view.running.push_back(r.second);

    // The zone layout the picker reads: every SST's zones only when it needs
    // them at the current free space (with layout_of, the zones alone tell).
    // Otherwise, after the pick, the zones and the job's own files: all that
    // S_same and S_inval read.
    Status s;
    bool full = false;  // job->layout maps every SST
    if (picker_->needs_layout() && scorer_.has_layout()) {
      FsView zones;
      if (opts_.layout_of && (s = opts_.layout_of({}, &zones)).ok() && !picker_->needs_layout_at(zones.free_ratio())) {
        job->layout = ZoneLayout::FromFsView(zones);  // free_ratio alone
        job->have_layout = true;
      } else if (s.ok() && opts_.layout && (s = opts_.layout(&job->before)).ok()) {
        job->layout = ZoneLayout::FromFsView(job->before);
        job->have_layout = full = true;
      }
      if (!job->have_layout) {
        Fail(Status::IOError("compaction picker " + std::string(picker_->name()) +
                             " needs the zone layout, but the layout provider failed: " +
                             (s.ok() ? std::string("no provider of every SST's zones") : s.ToString())));
        return false;
      }
    }

    uint64_t t0 = ThreadCpuNs();
    bool picked = picker_->Pick(view, job->have_layout ? &job->layout : nullptr, &job->pick);
    metrics_.AddPickTime(ThreadCpuNs() - t0);
    if (!picked) return false;
    job->id = ++next_job_id_;
    job->level_scores = LevelScores(view);
    const int gp_level = job->pick.output_level + 1;
    if (job->pick.output_level >= 1 && gp_level < view.num_levels()) {
      job->grandparents = OverlappingFiles(view.levels[gp_level], job->pick.smallest_key, job->pick.largest_key);
    }
    if (!full && scorer_.has_layout()) {
      std::vector<uint64_t> numbers = job->pick.input_files;
      numbers.insert(numbers.end(), job->pick.output_files.begin(), job->pick.output_files.end());
      job->have_layout = scorer_.LayoutOf(numbers, &job->before).ok();
      if (job->have_layout) job->layout = ZoneLayout::FromFsView(job->before);
    }
    if (job->have_layout) {
      std::vector<const SstFileView*> files;
      std::set<uint64_t> numbers(job->pick.input_files.begin(), job->pick.input_files.end());
      numbers.insert(job->pick.output_files.begin(), job->pick.output_files.end());
      for (const auto& level : view.levels) {
        for (const SstFileView& f : level) {
          if (numbers.count(f.number) > 0) files.push_back(&f);
        }
      }
      job->s_same = SameZoneScore(files, job->layout);
    }
    return true;
  }

  // Whether RocksDB is delaying or stopping writes (its write controller
  // then lets compactions run in parallel; see CompactionBehind).
  bool WritesSlowed() const {
    uint64_t rate = 0, stopped = 0;
    return (db_->GetIntProperty(cf_, "rocksdb.actual-delayed-write-rate", &rate) && rate > 0) ||
           (db_->GetIntProperty(cf_, "rocksdb.is-write-stopped", &stopped) && stopped > 0);
  }

  // Runs one job; true if the LSM changed.
  bool RunJob(Job* job) ZONEKV_EXCLUDES(mu_) {
    const CompactionPick& p = job->pick;
    CompactionJobHint hint;
    hint.job_id = job->id;
    hint.input_level = p.input_level;
    hint.output_level = p.output_level;
    hint.smallest_key = p.smallest_key;
    hint.largest_key = p.largest_key;
    hint.input_files = p.input_files;
    hint.input_files.insert(hint.input_files.end(), p.output_files.begin(), p.output_files.end());
    hint.level_scores = job->level_scores;
    if (opts_.on_job_start) opts_.on_job_start(hint);

    std::vector<std::string> names;
    for (uint64_t n : hint.input_files) names.push_back(std::to_string(n) + ".sst");
    rocksdb::CompactionOptions co;
    co.compression = rocksdb::kDisableCompressionOption;  // the column family's own choice
    co.output_file_size_limit = TargetFileBytes(db_options_, p.output_level);
    // Subcompactions for L0 jobs only, as RocksDB's own leveled compaction
    // forms them (Compaction::ShouldFormSubcompactions: start level 0, or a
    // manual job). CompactFiles jobs count as manual, so otherwise every job
    // would cut its outputs at the subcompactions' boundaries into smaller
    // files, and more, smaller jobs follow (notes/issue-19.md, session 16:
    // 1.6x the jobs, 0.83x the throughput). RocksDB forms them under
    // kCompactionStyleLevel only, on threads of its own; the relay hands
    // those threads this thread's hint.
    co.max_subcompactions = p.input_level == 0 ? opts_.max_subcompactions : 1;
    rocksdb::CompactionJobInfo info;
    std::vector<std::string> outputs;
    GrandparentCutter* cutter = slot_->cutter();
    if (!job->grandparents.empty()) {
      cutter->Register(job->id, p.output_level, p.smallest_key, p.largest_key, std::move(job->grandparents),
                       {db_options_.max_compaction_bytes, co.output_file_size_limit,
                        db_options_.level_compaction_dynamic_file_size});
    }
    uint64_t t0 = NowNs();
    relay_.JobBegin(hint);
    rocksdb::Status rs = db_->CompactFiles(co, cf_, names, p.output_level, -1, &outputs, &info);
    relay_.JobEnd();
    cutter->Unregister(job->id);
    uint64_t elapsed_us = (NowNs() - t0) / 1000;

    Status result;
    if (rs.IsAborted()) {
      // Another compaction holds a file RocksDB added to the inputs; the job
      // is picked again after the next change.
      result = Status::Busy("compaction job " + std::to_string(job->id) + ": " + rs.ToString());
      metrics_.AddAborted();
    } else if (!rs.ok()) {
      result = Status::IOError("compaction job " + std::to_string(job->id) + " (L" + std::to_string(p.input_level) +
                               " -> L" + std::to_string(p.output_level) + "): " + rs.ToString());
      metrics_.AddFailed();
      Fail(result);
    }
    if (rs.ok() && opts_.on_job_outputs) opts_.on_job_outputs(OutputRanges(outputs));
    if (opts_.on_job_end) opts_.on_job_end(job->id, result);
    if (!rs.ok()) return false;

    CompactionJobRecord r;
    r.job_id = job->id;
    r.input_level = p.input_level;
    r.output_level = p.output_level;
    r.input_files = hint.input_files.size();
    r.bytes_read = info.stats.total_input_bytes;
    r.bytes_written = info.stats.total_output_bytes;
    r.time_us = elapsed_us;
    r.trivial_move = p.trivial_move;
    r.picked_by = p.picked_by;
    if (job->have_layout) {
      // S_inval once RocksDB has deleted the inputs (inval_scorer.h).
      r.s_same = job->s_same;
      scorer_.Add(r, hint.input_files, std::move(job->before), std::move(job->layout));
    } else {
      metrics_.AddJob(r);
    }
    return true;
  }

  // The SSTs named in `outputs` (CompactFiles' output file names) that are
  // still live, each with its level and its own key range from the DB's
  // metadata. An output another thread has compacted away meanwhile is left
  // out (the file system no longer has it either).
  std::vector<CompactionOutputRange> OutputRanges(const std::vector<std::string>& outputs) const {
    std::set<uint64_t> numbers;
    for (const std::string& path : outputs) {
      if (uint64_t n = InvalScorer::SstNumber(path); n != 0) numbers.insert(n);
    }
    std::vector<CompactionOutputRange> ranges;
    if (numbers.empty()) return ranges;
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(cf_, &meta);
    lsm_reads_.fetch_add(1, std::memory_order_relaxed);
    for (const rocksdb::LevelMetaData& level : meta.levels) {
      for (const rocksdb::SstFileMetaData& f : level.files) {
        if (numbers.count(f.file_number) == 0) continue;
        ranges.push_back({f.directory + "/" + f.relative_filename, level.level, f.smallestkey, f.largestkey});
      }
    }
    return ranges;
  }

  // Keeps the first error a job or a pick reported.
  void Fail(const Status& s) ZONEKV_EXCLUDES(error_mu_) {
    MutexLock l(&error_mu_);
    if (first_error_.ok()) first_error_ = s;
  }
  Status FirstError() ZONEKV_EXCLUDES(error_mu_) {
    MutexLock l(&error_mu_);
    return first_error_;
  }

  rocksdb::DB* const db_;
  rocksdb::ColumnFamilyHandle* const cf_;
  const CompactorOptions opts_;
  const rocksdb::Options db_options_;
  const std::unique_ptr<CompactionPicker> picker_;
  const std::shared_ptr<ListenerSlot> slot_;
  CompactionMetrics metrics_;
  mutable InvalScorer scorer_{opts_.layout, opts_.layout_of, &metrics_};  // after metrics_
  NativeJobRecorder native_{&metrics_, &scorer_, opts_.on_job_start, opts_.on_job_end};  // after scorer_
  SubcompactionRelay relay_{opts_.on_job_start, opts_.on_job_end};
  const int64_t start_ns_ = static_cast<int64_t>(NowNs());
  std::vector<std::thread> threads_;  // written only by Launch, before any thread runs

  Mutex mu_;
  std::condition_variable_any cv_;
  bool stopped_ ZONEKV_GUARDED_BY(mu_) = false;
  uint64_t generation_ ZONEKV_GUARDED_BY(mu_) = 1;  // bumped on every LSM change
  uint64_t idle_generation_ ZONEKV_GUARDED_BY(mu_) = 0;
  size_t idle_threads_ ZONEKV_GUARDED_BY(mu_) = 0;  // threads idle at idle_generation_
  size_t running_ ZONEKV_GUARDED_BY(mu_) = 0;
  bool held_back_ ZONEKV_GUARDED_BY(mu_) = false;  // a pick declined: one job at a time (CompactionBehind)
  std::atomic<uint64_t> parallel_jobs_{0};  // jobs started while another ran
  // The LSM as of generation view_generation_. GetColumnFamilyMetaData
  // copies every file's metadata under RocksDB's DB mutex, which a Get waits
  // for when it needs a new SuperVersion: the threads that look at one
  // generation share one copy. Jobs started since are in reserved_.
  std::optional<LsmView> view_ ZONEKV_GUARDED_BY(mu_);
  uint64_t view_generation_ ZONEKV_GUARDED_BY(mu_) = 0;
  mutable std::atomic<uint64_t> lsm_reads_{0};  // GetColumnFamilyMetaData calls
  int paused_ ZONEKV_GUARDED_BY(mu_) = 0;  // Pause() calls not yet resumed
  uint64_t next_job_id_ ZONEKV_GUARDED_BY(mu_) = 0;
  std::set<uint64_t> reserved_ ZONEKV_GUARDED_BY(mu_);  // inputs of running jobs
  std::vector<std::pair<uint64_t, RunningOutput>> running_outputs_ ZONEKV_GUARDED_BY(mu_);  // by job id

  // Hybrid mode. Taken without mu_; held across SetOptions (RocksDB calls no
  // listener from it).
  mutable Mutex mode_mu_;
  bool external_ ZONEKV_GUARDED_BY(mode_mu_) = false;   // the picker is in charge
  bool switching_ ZONEKV_GUARDED_BY(mode_mu_) = false;  // a thread is in UpdateMode's SetOptions
  int64_t external_since_ns_ ZONEKV_GUARDED_BY(mode_mu_) = 0;
  HybridStats hybrid_ ZONEKV_GUARDED_BY(mode_mu_);

  Mutex error_mu_ ZONEKV_ACQUIRED_AFTER(mu_);  // taken with or without mu_; never takes mu_
  Status first_error_ ZONEKV_GUARDED_BY(error_mu_);
};

}  // namespace

Status Compactor::PrepareOptions(rocksdb::Options* options, std::shared_ptr<ListenerSlot>* slot, bool hybrid) {
  if (options->comparator != rocksdb::BytewiseComparator()) {
    return Status::InvalidArgument(std::string("the external compactor orders keys bytewise; the DB uses comparator '") +
                                   options->comparator->Name() + "'");
  }
  if (hybrid) {
    if (options->compaction_style != rocksdb::kCompactionStyleLevel) {
      return Status::InvalidArgument("hybrid compaction switches between RocksDB's leveled compaction and the picker; "
                                     "the DB uses another compaction_style");
    }
  } else {
    options->compaction_style = rocksdb::kCompactionStyleNone;
  }
  // The cutter keeps a partitioner the user set: both cut.
  auto cutter = std::make_shared<GrandparentCutter>(options->sst_partitioner_factory);
  options->sst_partitioner_factory = cutter;
  *slot = std::make_shared<ListenerSlot>(std::move(cutter));
  options->listeners.push_back(*slot);
  return Status::OK();
}

Status Compactor::Start(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const CompactorOptions& options,
                        std::shared_ptr<ListenerSlot> slot, std::unique_ptr<Compactor>* out) {
  if (db == nullptr || cf == nullptr) return Status::InvalidArgument("Compactor::Start needs an open DB and a column family");
  if (slot == nullptr) {
    return Status::InvalidArgument("no listener slot: call Compactor::PrepareOptions on the options before DB::Open");
  }
  rocksdb::Options db_options = db->GetOptions(cf);
  if (slot->cutter() == nullptr || db_options.sst_partitioner_factory.get() != slot->cutter()) {
    return Status::InvalidArgument("column family '" + cf->GetName() +
                                   "' does not use the output cutter Compactor::PrepareOptions set as "
                                   "sst_partitioner_factory (set your own before PrepareOptions: it is kept)");
  }
  const bool hybrid = options.native_free_ratio > 0;
  if (hybrid && (options.native_free_ratio >= 1 || !options.free_ratio)) {
    return Status::InvalidArgument("hybrid compaction needs native_free_ratio in (0, 1) and a free_ratio source");
  }
  if (hybrid && db_options.compaction_style != rocksdb::kCompactionStyleLevel) {
    return Status::InvalidArgument("hybrid compaction needs column family '" + cf->GetName() +
                                   "' in kCompactionStyleLevel; call Compactor::PrepareOptions(..., hybrid=true) "
                                   "before DB::Open");
  }
  if (!hybrid && db_options.compaction_style != rocksdb::kCompactionStyleNone) {
    return Status::InvalidArgument("column family '" + cf->GetName() +
                                   "' does not use compaction_style=kCompactionStyleNone, so RocksDB would compact it "
                                   "too; call Compactor::PrepareOptions before DB::Open");
  }
  if (db_options.comparator != rocksdb::BytewiseComparator()) {
    return Status::InvalidArgument("the external compactor orders keys bytewise; column family '" + cf->GetName() +
                                   "' uses comparator '" + db_options.comparator->Name() + "'");
  }
  if (db_options.num_levels < 2) {
    return Status::InvalidArgument("the external compactor needs num_levels >= 2, got " +
                                   std::to_string(db_options.num_levels));
  }
  if (options.threads < 0 || options.threads > kMaxThreads) {
    return Status::InvalidArgument("compactor threads=" + std::to_string(options.threads) + " is not in [0, " +
                                   std::to_string(kMaxThreads) + "] (0 = from max_background_compactions)");
  }
  std::unique_ptr<CompactionPicker> picker;
  ZONEKV_RETURN_IF_ERROR(MakeCompactionPicker(options.picker, options.picker_options, &picker));
  if (picker->needs_layout() && !options.layout) {
    return Status::InvalidArgument("compaction picker " + options.picker +
                                   " needs the file system's zone layout: set CompactorOptions::layout "
                                   "(run it on the zoned file system), or use picker sica");
  }
  int threads = options.threads > 0 ? options.threads : DefaultThreads(db_options);
  auto impl = std::make_unique<CompactorImpl>(db, cf, options, std::move(db_options), std::move(picker), std::move(slot));
  impl->Launch(threads);
  *out = std::move(impl);
  return Status::OK();
}

}  // namespace zonekv
