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
#include <mutex>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>

#include "zonekv/fs_policy.h"
#include "zonekv/json.h"

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
  rocksdb::Status UpdateNow();

  // updates (recomputations), changes (SetOptions calls), current cutoff,
  // update time in us (total and max).
  Json Metrics() const;

  const char* Name() const override { return "zonekv.ZCutoffController"; }
  void OnBlobFileCreated(const rocksdb::BlobFileCreationInfo&) override { Wake(); }
  void OnBlobFileDeleted(const rocksdb::BlobFileDeletionInfo&) override { Wake(); }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { Wake(); }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override { Wake(); }

 private:
  void Wake();
  void Loop();

  const std::function<FsView()> view_source_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  rocksdb::DB* db_ = nullptr;  // GUARDED_BY(mu_)
  bool pending_ = false;       // GUARDED_BY(mu_)
  bool stop_ = false;          // GUARDED_BY(mu_)
  std::thread thread_;
  std::mutex update_mu_;       // serialises UpdateNow
  // Metrics, GUARDED_BY(mu_).
  uint64_t updates_ = 0, changes_ = 0, update_us_total_ = 0, update_us_max_ = 0;
  double cutoff_ = -1;         // last value set; -1 before the first
  ZCutoff last_;
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
