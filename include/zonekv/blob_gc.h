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

#include <condition_variable>
#include <functional>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>

#include "zonekv/fs_policy.h"
#include "zonekv/json.h"
#include "zonekv/mutex.h"

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
  uint64_t update_us_total = 0;  // wall time of the recomputations
  uint64_t update_us_max = 0;

  double update_us_mean() const;  // 0 before the first
  // {updates, changes, cutoff (null before the first), eligible_files,
  // live_files, min_ybiz, update_us_mean, update_us_max}.
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

}  // namespace zonekv
