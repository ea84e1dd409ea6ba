// The RocksDB-side controllers a benchmark may run next to the file system:
// the external compactor (--compaction=sica|zaca|acc, compactor.h; with
// --compaction=native on zonekv, an observer of RocksDB's own compactions
// reports the same metrics) and the
// Z_Cutoff blob GC controller (--blob_gc_cutoff=zcutoff, blob_gc.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "zonekv/blob_gc.h"
#include "zonekv/compactor.h"
#include "zonekv/fs_policy.h"
#include "zonekv/json.h"
#include "zonekv/status.h"

namespace rocksdb {
class DB;
struct Options;
}  // namespace rocksdb

namespace zonekv {

struct ControllerOptions {
  std::string compaction = "native";    // native (RocksDB's) or a CompactionPickers() entry
  PickerOptions picker;
  std::string blob_gc_cutoff = "fixed"; // a BlobGcCutoffs() entry

  // Keys: ControllerKnobs() and PickerKnobs(). InvalidArgument naming the key.
  Status Set(const std::string& key, const std::string& value);
  Json ToJson() const;
};

// The knobs of ControllerOptions itself (compaction, blob_gc_cutoff); the
// picker's are PickerKnobs().
const KnobTable<ControllerOptions>& ControllerKnobs();

// What the controllers in use did.
struct ControllerStats {
  std::optional<CompactorStats> compactor;  // also for observed native compaction
  std::optional<ZCutoffStats> zcutoff;

  // {"compactor": ..., "zcutoff": ...}, each when present.
  Json ToJson() const;
};

class Controllers {
 public:
  // Adjusts *options before DB::Open. `view` is the file system's view
  // source; empty when there is none (posix), which zaca, acc and zcutoff need.
  // `job_hints` receives the external compactor's job hints (for CAZA);
  // may be empty.
  static Status Prepare(const ControllerOptions& opts, std::function<FsView(ViewFiles)> view,
                        std::function<void(const CompactionJobHint*)> job_hints, rocksdb::Options* options,
                        std::unique_ptr<Controllers>* out);
  ~Controllers();

  // After DB::Open. REQUIRES: db stays open until Stop() returns.
  Status Start(rocksdb::DB* db);
  // Before closing the DB. Idempotent.
  void Stop();
  ControllerStats Stats() const;

 private:
  Controllers() = default;
  ControllerOptions opts_;
  std::function<FsView(ViewFiles)> view_;
  std::function<void(const CompactionJobHint*)> job_hints_;
  std::shared_ptr<Compactor::ListenerSlot> slot_;
  std::unique_ptr<Compactor> compactor_;
  std::unique_ptr<NativeCompactionObserver> native_;  // native compaction on zonekv
  std::shared_ptr<ZCutoffController> zcutoff_;
};

}  // namespace zonekv
