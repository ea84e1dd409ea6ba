// The external compactor: leveled compaction picked by zonekv, run by RocksDB.
//
// RocksDB runs with compaction_style = kCompactionStyleNone, so it never
// schedules a compaction of its own, yet it still applies the L0 slowdown and
// stop triggers to writers (only disable_auto_compactions lifts them; see
// tests/compaction/stall_test.cc; the pending-compaction-bytes stalls do
// not apply, RocksDB estimates those bytes for leveled style only). A
// Compactor wakes on flushes through an EventListener (and after each of its
// own jobs: RocksDB notifies no listener of CompactFiles jobs), asks a
// CompactionPicker what to compact on a read-only LsmView (plus, optionally,
// the file system's zone layout) and runs the job with DB::CompactFiles on
// its own threads. RocksDB has no trivial move through CompactFiles: a job
// sica flags as one is rewritten, and Stats counts what that costs.
//
// Pickers (one per file in src/compaction/, selected by name):
//   sica  RocksDB's leveled picking: level scores, largest file first
//         (option: RocksDB's min-overlapping-ratio order);
//   zaca  among the groups "one L(i) file + its overlapping L(i+1) files" of
//         the level sica would compact, the group with the highest S_same;
//   acc   sica when the free-space ratio is above the turning point or the
//         level is L0/L1 (the level constraint, switchable), zaca otherwise.
// All three merge the newest L0 files into one L0 file while L0 -> L1 cannot
// run, as RocksDB's leveled picker does (intra-L0; picked_by "intra-l0").
//
// Cross-layer hint (downward): before a job writes, the compactor calls
// CompactorOptions::on_job_start with the job's output level, key range,
// input files and the level scores, so that a zone allocator (CAZA) can place
// the job's outputs. After the job, CompactorOptions::on_job_outputs gives
// each output's own key range (the hint's is the whole job's). RocksDB itself
// tells a file system little here: it calls no listener for CompactFiles
// jobs, and it sets no write-lifetime hint on SSTs of a non-leveled
// compaction style.
//
// Hybrid mode (CompactorOptions::native_free_ratio): the DB stays leveled,
// RocksDB compacts while free space is plentiful and the picker takes over
// when it is scarce (docs/compaction.md).
//
// Keys are user keys ordered bytewise (RocksDB's default comparator); the
// compactor refuses any other comparator.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "zonekv/compaction_stats.h"
#include "zonekv/fs_policy.h"
#include "zonekv/json.h"
#include "zonekv/status.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
class EventListener;
struct ColumnFamilyMetaData;
struct Options;
}  // namespace rocksdb

namespace zonekv {

// ---- The read-only LSM view pickers decide on -------------------------------

struct SstFileView {
  uint64_t number = 0;             // RocksDB file number (000123.sst -> 123)
  uint64_t size_bytes = 0;
  std::string smallest_key;        // user keys, inclusive
  std::string largest_key;
  uint64_t smallest_seqno = 0;
  uint64_t largest_seqno = 0;
  bool being_compacted = false;    // by RocksDB, or reserved by a running job
};

// A key range [smallest, largest] (user keys, inclusive) being written into
// `level` by a running job; pickers must not produce an overlapping job for
// the same output level.
struct RunningOutput {
  int level = 0;
  std::string smallest_key;
  std::string largest_key;
};

struct LsmView {
  // levels[0]: L0 files, newest first (descending largest_seqno).
  // levels[n >= 1]: sorted by smallest_key, non-overlapping.
  std::vector<std::vector<SstFileView>> levels;
  std::vector<RunningOutput> running;

  // Level targets (static, as RocksDB's level_compaction_dynamic_level_bytes=false).
  int level0_file_num_compaction_trigger = 4;
  uint64_t max_bytes_for_level_base = 256ull << 20;
  double max_bytes_for_level_multiplier = 10;
  // Cap on a job's bytes when widening its inputs (RocksDB's option; 0 there
  // means 25 * target_file_size_base).
  uint64_t max_compaction_bytes = UINT64_MAX;
  // What tells RocksDB that compaction is behind (CompactionBehind).
  int level0_slowdown_writes_trigger = 20;
  uint64_t soft_pending_compaction_bytes_limit = 64ull << 30;

  int num_levels() const { return static_cast<int>(levels.size()); }
  // max_bytes_for_level_base * multiplier^(level-1), in bytes. REQUIRES: level >= 1.
  uint64_t TargetBytes(int level) const;
  uint64_t LevelBytes(int level) const;  // sum of size_bytes
};

// Converts RocksDB's metadata into an LsmView (being_compacted as RocksDB says).
LsmView LsmViewFromMetaData(const rocksdb::ColumnFamilyMetaData& meta, const rocksdb::Options& options);

// RocksDB's leveled score per level, S_level (index = level; the last level
// scores 0):
//   L0: max(files not being compacted / level0_file_num_compaction_trigger,
//           bytes not being compacted / max_bytes_for_level_base);
//   Ln: bytes not being compacted / TargetBytes(n).
// File sizes are raw, not RocksDB's deletion-compensated sizes. This is what
// FsView::level_scores wants for CAZA.
std::vector<double> LevelScores(const LsmView& view);

// RocksDB 7.8's estimate of the bytes compaction must still write to bring
// every level under its target (VersionStorageInfo::
// EstimateCompactionBytesNeeded, leveled, base level 1): L0 and L1 when L0
// triggers, then each level's excess, carried down, times (1 + the next
// level's size / the level's size). Raw file sizes, all files.
uint64_t PendingCompactionBytes(const LsmView& view);

// Whether RocksDB 7.8 would let several compactions run at once: it runs
// one at a time (DBImpl::GetBGJobLimits) unless its write controller says
// compaction is behind, i.e. L0 holds at least min(2 x trigger, trigger +
// (slowdown trigger - trigger) / 4) files (all of them, being compacted or
// not), or PendingCompactionBytes reaches a quarter of
// soft_pending_compaction_bytes_limit (always, when that is 0), or writes
// are delayed or stopped (which the caller checks: the view cannot tell).
bool CompactionBehind(const LsmView& view);

// ---- Zone layout (upward hint from the file system) -------------------------

// Where each SST file's bytes are, derived from FsView::files with
// hints.kind == kSst and hints.number set.
struct ZoneLayout {
  std::map<uint64_t, std::map<uint32_t, uint64_t>> sst_zones;  // file number -> zone -> bytes
  double free_ratio = 1.0;                                     // FsView::free_ratio()
  std::vector<uint64_t> zone_valid_bytes;                      // by zone number (FsView's zones)

  static ZoneLayout FromFsView(const FsView& view);
  // The file's bytes per zone; nullptr if the file system does not know it.
  const std::map<uint32_t, uint64_t>* Find(uint64_t number) const;
};

// S_same = sum_m S_m^2 / (sum_m S_m)^2, S_m = the files' bytes in zone m
// (paper eq. 1), in (0, 1]; 1 = all in one zone. A file missing from the
// layout counts as one zone of its own (size_bytes), the pessimistic case.
// Returns 0 for no bytes.
double SameZoneScore(const std::vector<const SstFileView*>& files, const ZoneLayout& layout);

// S_inval after a compaction: the mean, over the zones that held bytes of the
// victims (`before`), of the zone's invalid bytes / capacity in `after`. A
// zone reset since (written_bytes == 0 or reset_count grew) counts as 1.
// Returns 0 if the victims held no known bytes.
double InvalidScore(const std::vector<uint64_t>& victims, const ZoneLayout& before,
                    const FsView& before_view, const FsView& after_view);

// ---- Pickers ----------------------------------------------------------------

// A compaction job: inputs from input_level and output_level, written to output_level.
struct CompactionPick {
  int input_level = 0;
  int output_level = 1;
  std::vector<uint64_t> input_files;    // file numbers in input_level
  std::vector<uint64_t> output_files;   // overlapping file numbers in output_level
  std::string smallest_key;             // union of all inputs' ranges
  std::string largest_key;
  uint64_t input_bytes = 0;             // all inputs
  double score = 0;                     // the input level's score (>= 1)
  // RocksDB would move the file instead of rewriting it (one input file, no
  // overlap in the output level). CompactFiles has no move: it rewrites.
  bool trivial_move = false;
  const char* picked_by = "";           // "sica", "zaca" or "intra-l0"
};

struct PickerOptions {
  // sica's order within a level: "largest" (the paper: largest file first,
  // ties by fewest overlapping next-level bytes) or "min-overlap" (RocksDB's
  // kMinOverlappingRatio: overlapping next-level bytes / file size, ascending).
  std::string sica_order = "largest";
  // zaca's (and acc's) score of a group: "same" (the paper: S_same),
  // "same-per-write" (S_same x the share of the job's writes that are its
  // input level's bytes) or "kill-per-write" (the share of each touched
  // zone's live data the job invalidates, x the same share; picker_common.h,
  // ZacaScore).
  std::string zaca_score = "same";
  double acc_turning_point_pct = 25;  // acc: zaca only when free space % < this
  bool acc_level_constraint = true;   // acc: never zaca for L0/L1 inputs

  // Sets a knob by name (PickerKnobs(): sica_order, zaca_score,
  // acc_turning_point_pct, acc_level_constraint).
  Status Set(const std::string& key, const std::string& value);
  Status Validate() const;
  Json ToJson() const;
};

class CompactionPicker {
 public:
  virtual ~CompactionPicker() = default;
  virtual const char* name() const = 0;
  // Whether the picker needs a zone layout for every call.
  virtual bool needs_layout() const = 0;
  // Whether a Pick at this free-space ratio (FsView::free_ratio) reads the
  // zones of the files (ZoneLayout::sst_zones); when false, a layout with
  // free_ratio alone gives the same pick. Asked only if needs_layout().
  virtual bool needs_layout_at(double free_ratio) const { return needs_layout(); }
  // A job on `view`, or false if no level needs compaction or every candidate
  // conflicts with a running job. `layout` may be null unless needs_layout().
  virtual bool Pick(const LsmView& view, const ZoneLayout* layout, CompactionPick* out) = 0;
};

// The knobs of PickerOptions, in --help order.
const KnobTable<PickerOptions>& PickerKnobs();

// The compaction pickers (picker_options.cc lists them; each is defined in
// its own file): sica | zaca | acc.
using PickerFactory = std::function<std::unique_ptr<CompactionPicker>(const PickerOptions&)>;
const PolicyRegistry<PickerFactory>& CompactionPickers();

// The picker called `name` (a CompactionPickers() entry) with `opts`.
Status MakeCompactionPicker(const std::string& name, const PickerOptions& opts,
                            std::unique_ptr<CompactionPicker>* out);

// ---- The compactor ------------------------------------------------------------

// What a job is about to write (the cross-layer hint for CAZA).
struct CompactionJobHint {
  uint64_t job_id = 0;               // the compactor's own id, 1, 2, ...
  int input_level = 0;
  int output_level = 1;
  std::string smallest_key;          // key range of all inputs; the outputs lie within it
  std::string largest_key;
  std::vector<uint64_t> input_files; // file numbers, both levels
  std::vector<double> level_scores;  // LevelScores() when the job was picked (S_level for CAZA)
};

// One SST a finished job wrote, as RocksDB's metadata gives it after the job.
struct CompactionOutputRange {
  std::string path;          // RocksDB's: directory + "/" + relative file name
  int level = 0;
  std::string smallest_key;  // user keys, the file's own range
  std::string largest_key;
};

struct CompactorOptions {
  std::string picker = "sica";
  PickerOptions picker_options;
  // Background threads; 0 = RocksDB's compaction slots for the DB's options:
  // max_background_compactions if > 0, else max(1, jobs - max(1, jobs / 4))
  // with jobs = max_background_jobs.
  int threads = 0;
  // Passed to CompactionOptions::max_subcompactions for L0 jobs (0 = the
  // DB's option); other jobs run as one, as RocksDB's own non-L0 jobs do.
  // RocksDB 7.8 forms subcompactions only under kCompactionStyleLevel and
  // Universal, so in the external mode (kCompactionStyleNone) every job runs
  // as one; the hybrid's picker phases form them (Stats counts
  // OnSubcompactionBegin calls).
  uint32_t max_subcompactions = 0;

  // Snapshot of the file system's zones and files; required by zaca and acc,
  // optional for sica (enables S_same/S_inval metrics). Called on compactor
  // threads before each pick (with the compactor's picking lock held) and
  // after each job; must not call into the compactor.
  std::function<Status(FsView* out)> layout;
  // The zones and only the SSTs with these numbers (ZoneFs::SstView): what a
  // job's S_same and S_inval need, without a copy of every SST under the
  // file system's lock at each job's start and end. Optional: when empty,
  // `layout` serves instead. With it, `layout` is called only when the
  // picker needs every file's zones (CompactionPicker::needs_layout_at).
  std::function<Status(const std::vector<uint64_t>& numbers, FsView* out)> layout_of;

  // Called on the compactor thread that then calls CompactFiles, before any
  // output is written, and again on the thread of each further
  // subcompaction RocksDB forms for the job (kCompactionStyleLevel only),
  // each paired with on_job_end there; so a file system may attribute new
  // SST files created on a thread to this job until on_job_end. Must not
  // block for long; must not call into the compactor.
  std::function<void(const CompactionJobHint&)> on_job_start;
  std::function<void(uint64_t job_id, const Status& result)> on_job_end;
  // Called on the same thread after a job succeeded, before on_job_end, with
  // the outputs still live then and each one's own key range (RocksDB calls
  // no listener for CompactFiles jobs, so nothing else tells a file system
  // what it did for native ones in OnCompactionCompleted). Until then the
  // file system knows only on_job_start's range, the whole job's. Costs one
  // GetColumnFamilyMetaData per job when set. Must not call into the compactor.
  std::function<void(const std::vector<CompactionOutputRange>& outputs)> on_job_outputs;

  // Hybrid mode (ACC's own suggestion, docs/compaction.md), when > 0:
  // RocksDB compacts natively (leveled: trivial moves, subcompactions, its
  // own scheduling) while the file system's free-space ratio (free_ratio())
  // is at least native_free_ratio, and the picker takes over below it
  // (RocksDB's L0 trigger and level base raised by SetOptions so that its
  // own picker finds nothing; the L0 write stalls still apply). Switching back
  // needs native_free_ratio + kHybridBand, so that one flush or reset does
  // not flap the mode. Native jobs are recorded with the external ones
  // (picked_by "native") and get the same hints, subcompactions included,
  // as do the picker's jobs. Requires PrepareOptions with hybrid = true, and
  // free_ratio.
  double native_free_ratio = 0;
  static constexpr double kHybridBand = 0.02;
  std::function<double()> free_ratio;  // FsView::free_ratio(); cheap (zones only)
};

// What the hybrid mode did (CompactorStats::hybrid).
struct HybridStats {
  double native_free_ratio = 0;
  uint64_t to_external = 0;   // switches from native compaction to the picker
  uint64_t to_native = 0;
  double external_s = 0;      // seconds in the picker's mode
  double total_s = 0;         // seconds since Start
  struct Switch {
    double t_s = 0;           // since Start
    bool to_external = false;
    double free_ratio = 0;    // the ratio that made the switch
  };
  std::vector<Switch> switches;  // the first kMaxLogged, in order
  static constexpr size_t kMaxLogged = 200;
  // {native_free_pct, to_external, to_native, external_s, total_s,
  //  switches [{t_s, to, free_pct}]}.
  Json ToJson() const;
};

// What a compactor did (Compactor::Stats, NativeCompactionObserver::Stats).
struct CompactorStats {
  std::string picker;  // sica | zaca | acc; "native" for RocksDB's own compactions
  // The external compactor's settings; absent for observed native compaction.
  struct External {
    PickerOptions picker_options;
    uint64_t threads = 0;             // background threads
    uint32_t max_subcompactions = 0;  // as given; 0 = the DB's option
    uint64_t subcompactions_hinted = 0;    // handed their job's hint (SubcompactionRelay)
    uint64_t subcompactions_unhinted = 0;  // waited for it in vain
    uint64_t grandparent_cuts = 0;         // output files cut at the next level's boundaries (GrandparentCutter)
    uint64_t parallel_jobs = 0;            // jobs started while another ran (CompactionBehind)
    uint64_t lsm_reads = 0;                // GetColumnFamilyMetaData calls (each holds RocksDB's DB mutex)
  };
  std::optional<External> external;
  std::optional<HybridStats> hybrid;  // external with native_free_ratio > 0
  CompactionStats metrics;

  // {picker, [picker_options, threads, max_subcompactions,] [hybrid,] metrics}.
  Json ToJson() const;
};

// Runs compactions for one column family of an open DB.
//
// Usage:
//   std::shared_ptr<Compactor::ListenerSlot> slot;
//   Compactor::PrepareOptions(&options, &slot);         // before DB::Open
//   DB::Open(options, path, &db);
//   std::unique_ptr<Compactor> c;
//   Compactor::Start(db, db->DefaultColumnFamily(), copts, slot, &c);
//   ... c->Stop(); delete db;
//
// Because listeners must be registered before DB::Open, PrepareOptions adds
// the compactor's listener to the options; Start binds it to the DB.
class Compactor {
 public:
  virtual ~Compactor() = default;

  // Sets compaction_style = kCompactionStyleNone (hybrid: keeps
  // kCompactionStyleLevel, which it requires; RocksDB compacts natively until
  // the compactor says otherwise) and adds the listener that wakes the
  // compactor. Returns InvalidArgument for a non-bytewise comparator. *slot
  // receives the binding to hand to Start.
  class ListenerSlot;
  static Status PrepareOptions(rocksdb::Options* options, std::shared_ptr<ListenerSlot>* slot, bool hybrid = false);

  // Starts the background threads. `db` and `cf` must outlive the compactor;
  // call Stop (or destroy the compactor) before closing the DB.
  static Status Start(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const CompactorOptions& options,
                      std::shared_ptr<ListenerSlot> slot, std::unique_ptr<Compactor>* out);

  // Waits until no job runs and the picker finds nothing to do, or until
  // timeout_ms passes (then Busy). Returns the first job error, if any.
  virtual Status WaitUntilIdle(uint64_t timeout_ms) = 0;
  // Lets running jobs finish, then joins the threads; in hybrid mode it
  // hands compaction back to RocksDB (restores the L0 trigger and level
  // base the options gave). Idempotent.
  virtual void Stop() = 0;
  // Starts no new job until Resume(); returns once no job runs (another
  // caller's CompactFiles, e.g. the space-pressure blob GC, then finds no
  // input taken). Pauses nest.
  virtual void Pause() = 0;
  virtual void Resume() = 0;
  // Its settings and what its jobs did so far (jobs still waiting for
  // S_inval are scored on the current layout first).
  virtual CompactorStats Stats() const = 0;
};

// ---- Observing RocksDB's own compactions -------------------------------------
// For a DB that picks and runs its compactions itself (the native baseline):
// records each compaction as the Compactor records its jobs (levels, bytes,
// time, S_same of the inputs from the zone layout when the job begins,
// S_inval once RocksDB has deleted its inputs), so that native and external
// compaction are compared on the same metrics. Trivial moves are counted,
// not scored.
class NativeCompactionObserver {
 public:
  // `layout`: the file system's zones and files, as CompactorOptions::layout;
  // may be empty (no S_same/S_inval then). Called on RocksDB's compaction
  // threads.
  // `on_job_start`/`on_job_end` (may be empty): the zone allocator's hint for
  // each compaction, as CompactorOptions gives it for external jobs, called on
  // the compaction's own thread and on each of its subcompactions' threads.
  // Hint job ids start at kNativeHintJobBase.
  // `layout_of` (may be empty): the zones and only the listed SSTs, as
  // CompactorOptions::layout_of; when set, each job reads only its own inputs.
  explicit NativeCompactionObserver(std::function<Status(FsView* out)> layout,
                                    std::function<void(const CompactionJobHint&)> on_job_start = {},
                                    std::function<void(uint64_t job_id, const Status& result)> on_job_end = {},
                                    std::function<Status(const std::vector<uint64_t>& numbers, FsView* out)> layout_of = {});
  ~NativeCompactionObserver();
  // Add to Options::listeners before DB::Open.
  std::shared_ptr<rocksdb::EventListener> listener() const;
  // picker "native", no external settings, the Compactor's metrics.
  CompactorStats Stats() const;

 private:
  class Listener;
  std::shared_ptr<Listener> listener_;
};

}  // namespace zonekv
