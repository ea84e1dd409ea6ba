// The RocksDB-side controllers a benchmark may run next to the file system:
// the external compactor (--compaction=sica|zaca|acc, compactor.h; with
// --compaction=native on zonekv, an observer of RocksDB's own compactions
// reports the same metrics), the Z_Cutoff blob GC controller
// (--blob_gc_cutoff=zcutoff, blob_gc.h) and the space-pressure blob GC
// (--space_gc=zones, blob_gc.h, docs/space.md).
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
  // With an external picker: RocksDB compacts natively while free space is
  // at least this % of capacity, the picker below it (CompactorOptions::
  // native_free_ratio); 0 = the picker always.
  double hybrid_native_free_pct = 0;
  std::string blob_gc_cutoff = "fixed"; // a BlobGcCutoffs() entry
  SpaceGcOptions space_gc;              // space_gc (a SpaceGcPolicies() entry), space_gc_free_pct

  // Keys: ControllerKnobs() and PickerKnobs(). InvalidArgument naming the key.
  Status Set(const std::string& key, const std::string& value);
  Json ToJson() const;
};

// The knobs of ControllerOptions itself (compaction, hybrid_native_free_pct,
// blob_gc_cutoff, space_gc, space_gc_free_pct); the picker's are
// PickerKnobs().
const KnobTable<ControllerOptions>& ControllerKnobs();

// What the controllers in use did.
struct ControllerStats {
  std::optional<CompactorStats> compactor;  // also for observed native compaction
  std::optional<ZCutoffStats> zcutoff;
  std::optional<SpaceGcStats> space_gc;

  // {"compactor": ..., "zcutoff": ..., "space_gc": ...}, each when present.
  Json ToJson() const;
};

// What the controllers may ask of the file system; every member is empty
// when there is none (posix).
struct FsHooks {
  std::function<FsView(ViewFiles)> view;  // zaca, acc, zcutoff and space_gc need it
  std::function<FsView(const std::vector<uint64_t>& sst_numbers)> sst_view;  // ZoneFs::SstView (S_same, S_inval)
  std::function<void(const CompactionJobHint*)> job_hints;  // the external compactor's, for CAZA
  std::function<void(const std::vector<CompactionOutputRange>&)> job_outputs;  // ZoneFs::NoteFileRange each
  std::function<void(uint64_t max_number, uint64_t reserve_bytes)> set_blob_gc_target;  // ZoneFs::SetBlobGcTarget
  std::function<void(std::shared_ptr<SpaceReclaimer>)> set_reclaimer;  // ZoneFs::SetSpaceReclaimer
  std::function<void(bool on)> mark_reclaiming_thread;  // ZoneFs::SetThreadReclaiming
  std::function<void(uint64_t bytes_per_sec)> set_new_data_rate;  // ZoneFs::SetNewDataRate
};

class Controllers {
 public:
  // Adjusts *options before DB::Open.
  static Status Prepare(const ControllerOptions& opts, FsHooks fs, rocksdb::Options* options,
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
  FsHooks fs_;
  std::shared_ptr<Compactor::ListenerSlot> slot_;
  std::unique_ptr<Compactor> compactor_;
  std::unique_ptr<NativeCompactionObserver> native_;  // native compaction on zonekv
  std::shared_ptr<ZCutoffController> zcutoff_;
  std::shared_ptr<SpaceGcController> space_gc_;
};

}  // namespace zonekv
