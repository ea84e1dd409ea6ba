// Blob GC cutoff control: the RocksDB side of Same-Victim GC.
//
// RocksDB's integrated BlobDB relocates, during compaction, the blobs of the
// oldest floor(blob_garbage_collection_age_cutoff * N) blob files. The
// ZCutoffController keeps that cutoff equal to Z_Cutoff's answer (see
// ComputeZCutoff below): only blob files whose zones are already
// full are collected, so blob GC and zone cleaning pick the same victims.
//
// It is an EventListener: add it to Options::listeners before DB::Open, then
// call Attach(db) after. Blob file creation and deletion, flushes and
// compactions wake a background thread that recomputes the cutoff (at most
// once per 20 ms: events come in bursts) and calls DB::SetOptions only when
// RocksDB's selection, floor(cutoff * N), would differ from Z_Cutoff's. Detach() (or destruction)
// stops the thread; call it before closing the DB.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <string>
#include <functional>
#include <thread>
#include <unordered_map>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>

#include "zonekv/fs_policy.h"
#include "zonekv/json.h"
#include "zonekv/mutex.h"
#include "zonekv/options_applier.h"

namespace zonekv {

// ---- The decision (a pure function of RocksDB's live blob files and the view)

// Z_Cutoff's answer: the oldest `eligible_files` of the `live_files` blob
// files lie in zones that are already full (numbered <= the smallest YBIZ of
// any full zone), so blob GC should relocate exactly those.
struct ZCutoff {
  size_t eligible_files = 0;
  size_t live_files = 0;
  uint64_t min_ybiz = 0;
  // eligible / live: the paper's cut-off ratio.
  double ratio() const { return live_files == 0 ? 0.0 : double(eligible_files) / double(live_files); }
  // The value to give RocksDB's blob_garbage_collection_age_cutoff so that
  // its floor(cutoff * N) equals eligible_files.
  double option_value() const;
};

// The blob_garbage_collection_age_cutoff under which RocksDB relocates the
// blobs of exactly the oldest `files` of its `live_files` blob files (its
// floor(cutoff * N)); 0 with no live file. Z_Cutoff and the space-pressure
// blob GC set it.
double CutoffCovering(size_t files, size_t live_files);
// A cutoff as SetOptions takes it, with every digit kept.
std::string CutoffOptionText(double cutoff);

// REQUIRES: live_blob_numbers are RocksDB's live blob file numbers.
// Returns false (no opinion) when no full zone holds blob data or no blob
// file is live.
bool ComputeZCutoff(const std::vector<uint64_t>& live_blob_numbers, const FsView& view, ZCutoff* out);

// ---- The actuator

// What the controller did (controllers.zcutoff in docs/metrics.md).
struct ZCutoffStats {
  uint64_t updates = 0;          // recomputations
  uint64_t changes = 0;          // successful SetOptions calls
  double cutoff = -1;            // the value set last; < 0 before the first
  ZCutoff last;                  // the last answer (eligible_files, live_files, min_ybiz)
  uint64_t update_us_total = 0;  // wall time of the recomputations, SetOptions included
  uint64_t update_us_max = 0;
  uint64_t set_options_us_total = 0;  // of which in SetOptions (RocksDB's write thread)
  uint64_t set_options_us_max = 0;

  double update_us_mean() const;  // 0 before the first
  // {updates, changes, cutoff (null before the first), eligible_files,
  // live_files, min_ybiz, update_us_mean, update_us_max,
  // set_options_us_total, set_options_us_max, compute_us_mean (the update
  // without SetOptions)}.
  Json ToJson() const;
};

class ZCutoffController : public rocksdb::EventListener {
 public:
  // view_source returns the file system's current view (YBIZ of full zones).
  explicit ZCutoffController(std::function<FsView()> view_source);
  ~ZCutoffController() override;

  ZCutoffController(const ZCutoffController&) = delete;
  ZCutoffController& operator=(const ZCutoffController&) = delete;

  // REQUIRES: db stays open until Detach() returns.
  void Attach(rocksdb::DB* db);
  void Detach();

  // Recomputes now, in the caller's thread; returns the status of SetOptions
  // if it was called. Exposed for tests and for callers without events.
  rocksdb::Status UpdateNow() ZONEKV_EXCLUDES(mu_);
  // While held, the controller leaves RocksDB's cutoff alone (a targeted
  // blob GC owns it); Release() sets it again on the next recomputation.
  void Hold() ZONEKV_EXCLUDES(mu_);
  void Release() ZONEKV_EXCLUDES(mu_);

  ZCutoffStats Stats() const;

  const char* Name() const override { return "zonekv.ZCutoffController"; }
  void OnBlobFileCreated(const rocksdb::BlobFileCreationInfo&) override { Wake(); }
  void OnBlobFileDeleted(const rocksdb::BlobFileDeletionInfo&) override { Wake(); }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { Wake(); }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override { Wake(); }

 private:
  void Wake() ZONEKV_EXCLUDES(mu_);
  void Loop() ZONEKV_EXCLUDES(mu_);

  const std::function<FsView()> view_source_;
  Mutex update_mu_ ZONEKV_ACQUIRED_BEFORE(mu_);  // serialises UpdateNow
  mutable Mutex mu_;
  std::condition_variable_any cv_;
  rocksdb::DB* db_ ZONEKV_GUARDED_BY(mu_) = nullptr;
  bool pending_ ZONEKV_GUARDED_BY(mu_) = false;
  bool stop_ ZONEKV_GUARDED_BY(mu_) = false;
  // Started by Attach, joined by Detach; the owner calls those in turn,
  // never concurrently.
  std::thread thread_;
  ZCutoffStats stats_ ZONEKV_GUARDED_BY(mu_);  // stats_.cutoff is what RocksDB holds
  bool held_ ZONEKV_GUARDED_BY(mu_) = false;
};

// ---- The blob GC cutoff family

// How RocksDB's blob_garbage_collection_age_cutoff is set while the DB runs.
// A factory receives the file system's view source (empty when there is
// none, e.g. on RocksDB's posix file system) and sets *out to the controller
// to attach, or to null when RocksDB's own option stays in charge;
// InvalidArgument when it needs a view and has none.
using BlobGcCutoffFactory =
    std::function<Status(std::function<FsView()> view, std::shared_ptr<ZCutoffController>* out)>;
// fixed | zcutoff (cutoff_registry.cc lists them; each in its own file).
const PolicyRegistry<BlobGcCutoffFactory>& BlobGcCutoffs();

// ---- Space-pressure blob GC (docs/space.md) -----------------------------------
//
// When free space runs low, garbage inside live blob files (records RocksDB
// no longer references) is invisible to zone cleaning: to the file system the
// whole file is valid. Only RocksDB's blob GC can reclaim it, and it runs
// only when a compaction happens to pick the SSTs that reference the oldest
// blob files. The SpaceGcController makes it run when space is needed: a
// SpaceGcPolicy picks how many of the oldest blob files to collect (blob GC
// can only relocate a prefix of the blob files in number order), and the
// controller compacts every SST that may reference them into the last level
// with a blob GC cutoff covering exactly them (DB::CompactFiles; SetOptions
// around it, waited for only until in effect: OptionsApplier), so their
// live records move to new files and the old files,
// now unreferenced, are deleted; the file system resets the zones they
// leave empty.

// One live blob file as the policy sees it: RocksDB's accounting and the
// file system's placement.
struct BlobFileSpaceView {
  uint64_t number = 0;
  uint64_t total_blob_bytes = 0;    // record bytes written to the file (RocksDB's BlobMetaData)
  uint64_t garbage_blob_bytes = 0;  // of those, known garbage: dropped or relocated by compactions
  std::map<uint32_t, uint64_t> bytes_per_zone;  // the file's valid bytes per zone (file system)

  // An upper bound of the live bytes a collection must copy.
  uint64_t live_bytes() const { return total_blob_bytes - std::min(total_blob_bytes, garbage_blob_bytes); }
};

struct SpaceGcView {
  FsView fs;                                // zones (no files needed)
  std::vector<BlobFileSpaceView> blob_files;  // RocksDB's live blob files, ascending number
  // RocksDB's live SST bytes: at most what a collection rewrites besides
  // the blobs it relocates (it compacts the SSTs over its files' key
  // range, and their inputs are deleted only when it ends).
  uint64_t sst_bytes = 0;
  bool writer_waiting = false;              // a writer asked for space (SpaceReclaimer::RequestSpace)
};

// What to collect: the oldest `files` blob files, now (collect) or, while
// free space is above the trigger, as the plan the file system keeps room
// for (other writers leave relocate_bytes of empty zones to the collector,
// so that it is never starved by the writes it makes room for).
struct SpaceGcPick {
  bool collect = false;         // collect now (below the trigger, or a writer waits)
  size_t files = 0;             // 0: nothing to do
  uint64_t max_number = 0;      // the youngest of them
  uint64_t relocate_bytes = 0;  // their live bytes (upper bound): what the collection writes
  // The room the planned collection needs (its relocate_bytes; more than
  // this pick's when the plan did not fit): the file system keeps it empty
  // for the collector.
  uint64_t plan_bytes = 0;
  uint64_t garbage_bytes = 0;   // their known garbage: what it gains once zones are cleaned
  uint32_t zones_freed = 0;     // zones whose valid data is all in those files: reset at once
  uint64_t zones_freed_bytes = 0;
  // No prefix has known garbage worth its copy, but compacting the LSM into
  // its last level drops stale records and so may reveal garbage: collect
  // the oldest file(s) that fit, and learn.
  bool discover = false;
  const char* reason = "";      // one line, for logs and tests
};

struct SpaceGcOptions {
  std::string policy = "off";       // SpaceGcPolicies()
  double space_gc_free_pct = 15;    // collect when free space % falls below this (or a writer waits)
};

class SpaceGcPolicy {
 public:
  virtual ~SpaceGcPolicy() = default;
  virtual const char* name() const = 0;
  // The next collection (files > 0) and whether to run it now (collect).
  virtual SpaceGcPick Pick(const SpaceGcView& view) = 0;
};

// off | zones (space_gc_*.cc; space_gc_registry.cc lists them). A factory
// sets *out to null for off.
using SpaceGcFactory = std::function<std::unique_ptr<SpaceGcPolicy>(const SpaceGcOptions&)>;
const PolicyRegistry<SpaceGcFactory>& SpaceGcPolicies();

// Back-pressure on new data (docs/formulas.md, "Space-pressure blob GC"):
// what SpaceGcController measures, and the rate flushes may write at.
struct PaceInput {
  double free_pct = 100;          // free space, % of the capacity
  double trigger_pct = 15;        // SpaceGcOptions::space_gc_free_pct
  uint64_t capacity_bytes = 0;    // free + used + reclaimable bytes of the data zones
  // The collections' measured net reclaim rate (bytes freed minus bytes
  // relocated, per second of their duty cycle), bytes/s; 0: none measured.
  double reclaim_bytes_per_sec = 0;
  // Seconds since the last collection ended (its rate ages while free
  // space is below the trigger and no collection completes).
  double since_round_s = 0;
  // Live blob files at the last decision: with none the GC can free
  // nothing, and slowing new data would only slow it (no limit).
  uint64_t blob_files = 0;
};
// The bytes per second flushes may write (at least 1), or 0 for no limit.
// Pure: the same input, the same rate (src/blobgc/space_gc_pace.cc).
uint64_t PaceRate(const PaceInput& in);

// What the controller did (controllers.space_gc in docs/metrics.md).
struct SpaceGcStats {
  uint64_t checks = 0;             // decisions made under pressure
  uint64_t rounds = 0;             // collections run
  uint64_t discover_rounds = 0;    // of which to learn garbage (SpaceGcPick::discover)
  uint64_t failed_rounds = 0;      // CompactFiles or SetOptions failed (last_error says why)
  uint64_t files_collected = 0;    // blob files picked, summed over rounds
  uint64_t relocate_bytes_est = 0; // SpaceGcPick::relocate_bytes, summed
  uint64_t garbage_bytes_est = 0;  // SpaceGcPick::garbage_bytes, summed
  uint64_t zones_freed_est = 0;    // SpaceGcPick::zones_freed, summed
  uint64_t compaction_retries = 0; // CompactFiles calls refused because inputs were being compacted
  uint64_t round_us_total = 0;
  uint64_t round_us_max = 0;
  uint64_t pause_us_total = 0;     // of round_us_total: waiting for the external compactor's running jobs
  uint64_t pause_us_max = 0;
  uint64_t space_requests = 0;     // RequestSpace calls from waiting writers
  double reclaim_bytes_per_sec = 0;  // the last measured net reclaim rate (PaceInput), bytes/s
  uint64_t set_options_us_total = 0; // the collections' SetOptions calls (set and restore), call to return
  uint64_t set_options_us_max = 0;
  uint64_t options_wait_us_total = 0; // how long the collections waited for them: until in effect
  uint64_t options_wait_us_max = 0;
  uint64_t options_in_flight_max = 0; // SetOptions calls not yet returned at once, at most
  std::string last_error;

  // {checks, rounds, discover_rounds, failed_rounds, files_collected,
  // relocate_bytes_est, garbage_bytes_est, zones_freed_est,
  // compaction_retries, round_us_total, round_us_max, pause_us_total,
  // pause_us_max, space_requests,
  // reclaim_bytes_per_sec, set_options_us_total, set_options_us_max,
  // options_wait_us_total, options_wait_us_max, options_in_flight_max,
  // last_error}.
  Json ToJson() const;
};

// The file system side the controller needs (supplied by the glue that
// owns both, src/bench/storage.cc).
struct SpaceGcFsHooks {
  std::function<FsView(ViewFiles)> view;         // zones; with kAll, the files too
  std::function<void(uint64_t max_number, uint64_t reserve_bytes)> set_target;  // ZoneFs::SetBlobGcTarget
  // ZoneFs::SetThreadReclaiming: the collection's outputs, written on the
  // controller's thread, may use the recovery reserve.
  std::function<void(bool on)> mark_thread;
  // ZoneFs::SetNewDataRate: back-pressure on flushes (0: no limit).
  std::function<void(uint64_t bytes_per_sec)> set_new_data_rate;
};

// Stops and restarts the compactions of an external compactor while a
// collection runs (CompactFiles refuses inputs another job compacts). Empty
// for RocksDB's own compaction: the controller sets disable_auto_compactions.
struct CompactionPauser {
  std::function<void()> pause;   // returns once no other job runs
  std::function<void()> resume;
};

class SpaceGcController : public rocksdb::EventListener, public SpaceReclaimer {
 public:
  // REQUIRES: policy != null.
  SpaceGcController(std::unique_ptr<SpaceGcPolicy> policy, SpaceGcOptions opts, SpaceGcFsHooks fs,
                    CompactionPauser pauser, std::shared_ptr<ZCutoffController> zcutoff);
  ~SpaceGcController() override;

  SpaceGcController(const SpaceGcController&) = delete;
  SpaceGcController& operator=(const SpaceGcController&) = delete;

  // REQUIRES: db stays open until Detach() returns.
  void Attach(rocksdb::DB* db) ZONEKV_EXCLUDES(mu_);
  void Detach() ZONEKV_EXCLUDES(run_mu_, mu_);

  // One decision and, if the policy picks files, one collection, in the
  // caller's thread (tests, and callers without a background thread).
  Status RunOnce(bool writer_waiting, SpaceGcPick* pick) ZONEKV_EXCLUDES(run_mu_, mu_);
  SpaceGcStats Stats() const ZONEKV_EXCLUDES(mu_);

  // SpaceReclaimer.
  void RequestSpace() override;
  Estimate Reclaimable() const override;

  const char* Name() const override { return "zonekv.SpaceGcController"; }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override {
    flushes_++;
    Wake(false);
  }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override { Wake(false); }

 private:
  void Wake(bool writer) ZONEKV_EXCLUDES(mu_);
  void Loop() ZONEKV_EXCLUDES(mu_);
  Status Collect(rocksdb::DB* db, const SpaceGcPick& pick) ZONEKV_REQUIRES(run_mu_) ZONEKV_EXCLUDES(mu_);
  // Drops the planned collection (SetBlobGcTarget(0, 0)): zone cleaning
  // stops sparing its blob files' zones and writers keep no room for it.
  void ClearPlan() ZONEKV_REQUIRES(run_mu_);
  // Back-pressure from the free space of `fs` and the measured reclaim rate
  // (PaceRate; SpaceGcFsHooks::set_new_data_rate). Called at each decision
  // and by PaceLoop.
  void PaceFlushes(const FsView& fs) ZONEKV_EXCLUDES(pace_mu_);
  // The pacer's thread: PaceFlushes every decision interval, also while a
  // collection runs (one took 35 s in the fill experiment, and the pace
  // must follow free space meanwhile).
  void PaceLoop() ZONEKV_EXCLUDES(mu_, pace_mu_);
  // After a collection that started at `start`: its net reclaim (the
  // pick's zones freed minus its relocated bytes; an empty pick for one
  // that failed) over its duty cycle, into reclaim_rate_.
  void MeasureReclaim(const SpaceGcPick& pick, std::chrono::steady_clock::time_point start)
      ZONEKV_EXCLUDES(pace_mu_, mu_);
  void SetRunning(bool on) ZONEKV_EXCLUDES(mu_);  // Reclaimable().collecting
  void SetAwaiting(bool on) ZONEKV_EXCLUDES(mu_);  // Reclaimable().awaits_compactions

  const std::unique_ptr<SpaceGcPolicy> policy_;
  const SpaceGcOptions opts_;
  const SpaceGcFsHooks fs_;
  const CompactionPauser pauser_;
  const std::shared_ptr<ZCutoffController> zcutoff_;

  Mutex run_mu_ ZONEKV_ACQUIRED_BEFORE(pace_mu_, mu_);  // serialises RunOnce
  Mutex pace_mu_ ZONEKV_ACQUIRED_BEFORE(mu_);            // the pace's state
  mutable Mutex mu_;
  std::condition_variable_any cv_;
  std::condition_variable_any pace_cv_;  // wakes PaceLoop to stop
  rocksdb::DB* db_ ZONEKV_GUARDED_BY(mu_) = nullptr;
  bool stop_ ZONEKV_GUARDED_BY(mu_) = false;
  bool kicked_ ZONEKV_GUARDED_BY(mu_) = false;          // an event or a writer asks for a look
  bool writer_waiting_ ZONEKV_GUARDED_BY(mu_) = false;  // a writer asked since the last decision
  bool pending_ ZONEKV_GUARDED_BY(mu_) = false;         // a writer's request awaits its decision
  bool running_ ZONEKV_GUARDED_BY(mu_) = false;         // a collection's compaction is in flight
  bool awaiting_ ZONEKV_GUARDED_BY(mu_) = false;        // a collection waits for running compactions
  bool stuck_ ZONEKV_GUARDED_BY(mu_) = false;           // Reclaimable().stuck
  // Started by Attach, joined by Detach (one at a time, by the owner).
  std::thread thread_;
  std::thread pacer_;
  std::atomic<uint64_t> known_blob_files_{0};  // RocksDB's live blob files at the last decision
  std::atomic<uint64_t> known_garbage_{0};  // Reclaimable().garbage_bytes: RocksDB's, at the last decision
  std::atomic<uint64_t> flushes_{0};        // RocksDB flushes seen
  // flushes_ when a discovery round learned nothing: the same LSM would
  // teach the same.
  uint64_t discovered_at_flushes_ ZONEKV_GUARDED_BY(run_mu_) = UINT64_MAX;
  // The room the file system keeps for the next collection (set_target).
  uint64_t reserved_bytes_ ZONEKV_GUARDED_BY(run_mu_) = 0;
  // The flush rate the file system was last given (set_new_data_rate).
  uint64_t new_data_rate_ ZONEKV_GUARDED_BY(pace_mu_) = 0;
  // The newest blob file of the planned (or running) collection, 0 if none.
  uint64_t planned_max_ ZONEKV_GUARDED_BY(run_mu_) = 0;
  // The collections' net reclaim rate (PaceInput::reclaim_bytes_per_sec),
  // an average over rounds (each weighs half), and when the last ended.
  double reclaim_rate_ ZONEKV_GUARDED_BY(pace_mu_) = 0;
  std::chrono::steady_clock::time_point last_round_end_ ZONEKV_GUARDED_BY(pace_mu_){};

  SpaceGcStats stats_ ZONEKV_GUARDED_BY(mu_);
  // The collections' SetOptions: waited for until in effect, not until
  // RocksDB's write thread lets it write the OPTIONS file (a flush waiting
  // for the room this collection is about to free may hold that thread
  // stalled). Apply() only under run_mu_; drained by Detach.
  OptionsApplier options_;
};

}  // namespace zonekv
