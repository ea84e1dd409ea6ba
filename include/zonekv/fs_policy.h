// The policy seam of the zoned file system.
//
// Policies decide, the engine acts. A policy receives a read-only FsView
// (a snapshot of the zones, the files in them and the hints RocksDB gave)
// and returns a decision. Policies never touch the device, never read the
// wall clock (FsView::now_us is the clock) and hold no locks, so each can be
// unit-tested on a hand-built view and timed per call.
//
// Families, each a registry of named policies (below; `zonekv bench
// --list_policies` prints them with their knobs):
//   allocation: which zone a file's next extent goes to (--alloc, --blob_alloc)
//   cleaning:   when to clean and which zones (--zc)
//   reset:      which zones with no valid data to reset now (--reset)
//   finish:     which active zones to finish early (--finish)
// The blob GC cutoff (blob_gc.h) and compaction picking (compactor.h) are
// families of the layers above.
//
// Threading. Each ZoneFs owns its policy objects and calls them only while
// it holds its lock (the engine's `mu_`, docs/fs-locking.md), so the calls
// to one file system's policies run one at a time, never two at once, even
// though they come from different threads: writers that need a zone
// (Allocate, PickZonesToFinish, PickZonesToReset), the cleaner thread
// (PickVictims, PickZonesToReset) and threads that close, delete or rename
// files (PickZonesToReset). A policy may therefore keep state between calls
// without a lock of its own. Because every file operation waits for that
// lock, a call must be quick (no I/O, no sleeping) and must not call back
// into the ZoneFs, which would deadlock. name(), NeedsFiles(), Cleans(),
// DedicatesZones() and Finishes() are also asked while the file system is
// built; their answers must never change. The compiler checks the engine's
// side (its policy pointers are ZONEKV_PT_GUARDED_BY(mu_)).
#pragma once

#include <cstdint>
#include <compare>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zonekv/registry.h"
#include "zonekv/status.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

// On disk: the journal stores a file's kind and lifetime as these values
// (fs/metadata.cc). Never renumber; add new values at the end.
enum class FileKind : uint8_t { kWal = 0, kSst = 1, kBlob = 2, kManifest = 3, kOther = 4 };
inline constexpr int kFileKindCount = 5;
const char* FileKindName(FileKind k);  // "wal", "sst", "blob", "manifest", "other"
// Classifies a RocksDB file name ("000123.sst", "000045.blob", "MANIFEST-000001", "000007.log").
FileKind FileKindFromName(const std::string& name, uint64_t* number);

// RocksDB's write-lifetime hints (rocksdb::Env::WriteLifeTimeHint values).
// On disk, as FileKind.
enum class Lifetime : uint8_t { kNotSet = 0, kNone = 1, kShort = 2, kMedium = 3, kLong = 4, kExtreme = 5 };

// What the layers above told us about a file (cross-layer hints, downward).
struct FileHints {
  FileKind kind = FileKind::kOther;
  uint64_t number = 0;           // RocksDB file number (0 if none)
  int level = -1;                // LSM level of an SST being written, -1 if unknown
  int job = -1;                  // RocksDB job id, -1 if unknown
  std::string smallest_key;      // key range of an SST, empty if unknown
  std::string largest_key;
  Lifetime lifetime = Lifetime::kNotSet;

  bool operator==(const FileHints&) const = default;
};

// One zone as policies see it. Bytes are relative to the zone.
struct ZoneView {
  uint32_t id = 0;
  ZoneState state = ZoneState::kEmpty;
  uint64_t capacity_bytes = 0;
  uint64_t written_bytes = 0;      // write pointer - zone start
  uint64_t valid_bytes = 0;        // bytes of live file extents
  uint64_t valid_bytes_by_kind[kFileKindCount] = {};  // indexed by FileKind
  bool busy = false;               // a writer or the cleaner holds the zone
  Lifetime lifetime = Lifetime::kNotSet;  // longest lifetime among files written to it
  uint64_t ybiz = 0;               // youngest (largest) number of a blob file with valid bytes here, 0 if none
  uint64_t last_write_us = 0;      // FsView clock at the last write or invalidation
  uint64_t reset_count = 0;        // wear

  uint64_t invalid_bytes() const { return written_bytes - valid_bytes; }
  uint64_t remaining_bytes() const { return capacity_bytes - written_bytes; }
  bool empty() const { return written_bytes == 0; }
  bool full() const { return state == ZoneState::kFull; }
  // Empty and held by no one: a writer may open it.
  bool free_empty() const { return !busy && empty() && state == ZoneState::kEmpty; }
};

// One live file: its hints and where its bytes are.
struct FileView {
  uint64_t id = 0;                 // file-system file id (stable across renames)
  std::string name;
  FileHints hints;
  uint64_t size_bytes = 0;
  bool open_for_write = false;
  std::map<uint32_t, uint64_t> bytes_per_zone;  // zone id -> bytes of this file in it

  bool operator==(const FileView&) const = default;
};

// The SSTs with a level and a key range, by level and key order: what CAZA
// reads. The engine keeps one up to date as files are created, written,
// renamed, re-hinted, moved by the cleaner and deleted (O(log n) per change;
// an append one lookup by id), so an allocation reads only the
// candidates instead of every file (issue 24). A policy reaches the engine's
// index through FsView::ssts; SstIndex::FromFiles builds the same index from
// a view's files (hand-built views, tools, the tests' reference).
//
// Each level is split in two: `disjoint`, files whose key ranges overlap no
// other file of that set (RocksDB's invariant for levels >= 1), answered by
// a binary search, and `overlapping` (L0, a compaction's outputs while they
// carry the job's whole key range, files not yet deleted after a compaction),
// scanned. So an overlap query costs O(log n + k + w) for k results and w
// overlapping files of the level, a neighbour walk O(log n) per step.
class SstIndex {
 public:
  // Order of a level: smallest key, then name, then id (the order of
  // FsView::files, which are by name, for files with equal smallest keys).
  struct Key {
    std::string smallest;
    std::string name;
    uint64_t id = 0;
    auto operator<=>(const Key&) const = default;
  };
  using LevelMap = std::map<Key, FileView>;
  using RefMap = std::map<Key, const FileView*>;
  // What removals and replacements left to free. The engine takes it into
  // a local declared before its lock and frees it after (TakeGarbage), as
  // it does with dropped file records: a free under the lock can make
  // glibc consolidate its arena (milliseconds, seen in the lock profile).
  // What calls that do not take it leave (re-hints) waits for the next
  // create, close, delete or rename.
  struct Garbage {
    std::vector<LevelMap::node_type> files;
    std::vector<RefMap::node_type> refs;
    std::vector<FileView> views;
  };

  SstIndex() = default;
  SstIndex(SstIndex&&) = default;
  SstIndex& operator=(SstIndex&&) = default;
  SstIndex(const SstIndex&) = delete;
  SstIndex& operator=(const SstIndex&) = delete;

  // Whether a file with these hints is indexed: an SST with a level (>= 0)
  // and a key range (non-empty smallest key).
  static bool Indexed(const FileHints& h);
  // The index of `files` (those Indexed).
  static SstIndex FromFiles(const std::vector<FileView>& files);

  // Adds f or replaces the entry of f.id; removes it when f is not Indexed.
  void Put(FileView f);
  // Removes file `id`; no-op if absent.
  void Erase(uint64_t id);
  // File `id` grew by `bytes` in `zone` and is now `size_bytes` long (the
  // engine's append path: FileView::bytes_per_zone counts rounded extent
  // lengths, and an append adds its rounded length). No-op if absent.
  void AddBytes(uint64_t id, uint32_t zone, uint64_t bytes, uint64_t size_bytes);
  // No-op if absent.
  void SetOpenForWrite(uint64_t id, bool open);

  const FileView* Find(uint64_t id) const;
  size_t size() const { return where_.size(); }
  // Every file, by id.
  std::vector<FileView> Files() const;
  // The files of `level` in Key order; nullptr if the level has none.
  const LevelMap* Level(int level) const;
  // Appends to *out the files of `level`, other than `except`, whose key
  // range overlaps [smallest, largest] (FileHints' rule: neither range ends
  // before the other begins), in no particular order.
  void Overlapping(int level, const std::string& smallest, const std::string& largest, uint64_t except,
                   std::vector<const FileView*>* out) const;
  // Files of `level` kept in the scanned (overlapping) set; for tests and metrics.
  size_t OverlappingCount(int level) const;
  // Files in the scanned sets of all levels: now, and the most there ever were.
  size_t overlapping() const { return overlapping_; }
  size_t overlapping_peak() const { return overlapping_peak_; }
  // Moves what is left to free into *out (which should be empty).
  void TakeGarbage(Garbage* out) { std::swap(*out, garbage_); }

  // Internal consistency (the disjoint sets are disjoint and every file is
  // in exactly one set); the first problem found, empty if none.
  std::string Check() const;

 private:
  struct LevelSets {
    LevelMap files;
    RefMap disjoint;     // pairwise non-overlapping, well-formed ranges
    RefMap overlapping;  // the rest
  };
  // Whether f fits into L.disjoint without overlapping a member.
  static bool FitsDisjoint(const LevelSets& L, const Key& k, const FileView& f);
  void Insert(FileView f);
  void Remove(int level, LevelMap::iterator it);

  std::vector<LevelSets> levels_;
  std::map<uint64_t, std::pair<int, LevelMap::iterator>> where_;  // id -> level, entry
  size_t overlapping_ = 0, overlapping_peak_ = 0;
  Garbage garbage_;
};

struct FsView {
  uint64_t now_us = 0;
  std::vector<ZoneView> zones;     // data zones only (metadata zones excluded), by id order
  std::vector<FileView> files;
  uint32_t active_zones = 0;       // data zones currently active (open or closed)
  uint32_t max_active_zones = 0;   // limit for data zones (device limit minus reserved)
  uint32_t open_zones = 0;
  uint32_t max_open_zones = 0;
  // RocksDB's leveled compaction score per level (S_level: level bytes /
  // level target; L0 by file count), index = level; empty when unknown.
  // Supplied from above (the compactor or the benchmark glue) for CAZA.
  std::vector<double> level_scores;
  // The engine's SST index, or nullptr. Set only in the view the engine
  // hands an allocation policy, and valid only during that call (the index
  // is the engine's, guarded by its lock); a copy of the view must not use
  // it. Views from ZoneFs::View() and hand-built ones leave it null: CAZA
  // then indexes FsView::files itself.
  const SstIndex* ssts = nullptr;
  // Empty zones the engine keeps from a space reclaimer's own writes (the
  // cleaner's and, with a recovery reserve, the last zone of it): the room a
  // collection has is the empty zones no writer holds, less these. 1 in
  // hand-built views (the cleaner's).
  uint32_t reclaimer_kept_zones = 1;

  // ZenFS definitions: free = unwritten capacity of non-full zones (zones that
  // can still accept data); used = valid bytes; reclaimable = invalid bytes in
  // full and partially written zones.
  uint64_t free_bytes() const;
  uint64_t used_bytes() const;
  uint64_t reclaimable_bytes() const;
  // free / (free + used + reclaimable), in [0, 1].
  double free_ratio() const;
  // Zones that are free_empty() (the zones kept back show busy, so not these).
  uint32_t empty_zones() const;
  const FileView* FindFile(uint64_t id) const;
  // The zone with this device zone id, or nullptr (metadata zones are not in the view).
  const ZoneView* FindZone(uint32_t id) const;
};

// Which live files a view lists in FsView::files (the zones are always there).
enum class ViewFiles : uint8_t { kNone, kSst, kAll };

// ---- Allocation ------------------------------------------------------------

struct AllocRequest {
  const FileView* file = nullptr;  // the file that needs space (hints, placement so far)
  uint64_t min_bytes = 0;          // bytes it wants to write next (a hint, may be 0)
};

struct AllocDecision {
  enum class Action {
    kUseZone,      // append to `zone` (an open/closed non-full zone, or an empty one)
    kFinishZone,   // finish `zone` to free an active resource, then ask again
    kNoSpace,      // nothing can be allocated now: the engine may clean and retry, then fail
  };
  Action action = Action::kNoSpace;
  uint32_t zone = 0;
  // Why this zone, for kUseZone: a static string, "<policy>.<rule>" (e.g.
  // "caza.partner"); empty = the policy's name. The engine counts accepted
  // decisions by reason (fs.alloc_reasons, docs/metrics.md).
  const char* reason = "";
};

class AllocationPolicy {
 public:
  virtual ~AllocationPolicy() = default;
  virtual const char* name() const = 0;
  virtual AllocDecision Allocate(const FsView& view, const AllocRequest& req) = 0;
  // Whether the policy reads FsView::files. When false the engine may pass
  // a view without them (files empty), built in O(zones) instead of
  // O(files + extents). Zones (ybiz included) and AllocRequest::file are
  // filled in either way.
  virtual bool NeedsFiles() const { return true; }
  // Whether the zones this policy opens hold only the files it places (BAZA
  // for blob files); the other allocator is then told to keep out of them.
  virtual bool DedicatesZones() const { return false; }
};

// ---- Zone cleaning ---------------------------------------------------------

class CleaningPolicy {
 public:
  virtual ~CleaningPolicy() = default;
  virtual const char* name() const = 0;
  // Zones to clean now, best first; empty if cleaning should not run.
  // The engine migrates their valid extents and resets them.
  virtual std::vector<uint32_t> PickVictims(const FsView& view) = 0;
  // Whether the policy reads FsView::files. When false the engine may pass
  // a view without them (files empty), built in O(zones) instead of
  // O(files + extents). Zones (ybiz included) are filled in either way.
  virtual bool NeedsFiles() const { return true; }
  // Whether the policy ever picks a victim. When false (zc=off) the engine
  // runs no cleaner thread and reserves no active zone for one.
  virtual bool Cleans() const { return true; }
};

// ---- Runtime reset -----------------------------------------------------------

class ResetPolicy {
 public:
  virtual ~ResetPolicy() = default;
  virtual const char* name() const = 0;
  // Zones holding no valid data to reset now. Only zones with valid_bytes == 0,
  // written_bytes > 0 and !busy may be returned.
  virtual std::vector<uint32_t> PickZonesToReset(const FsView& view) = 0;
  // Whether the policy reads FsView::files. When false the engine may pass
  // a view without them (files empty), built in O(zones) instead of
  // O(files + extents). Zones (ybiz included) are filled in either way.
  virtual bool NeedsFiles() const { return true; }
};

// ---- Finish -------------------------------------------------------------------

class FinishPolicy {
 public:
  virtual ~FinishPolicy() = default;
  virtual const char* name() const = 0;
  // Active zones to finish now: each gives its active resource back at the
  // price of its unwritten rest (padding on devices that pad). Only open or
  // closed, non-busy, partly written zones may be returned.
  virtual std::vector<uint32_t> PickZonesToFinish(const FsView& view) = 0;
  // Whether the policy can ever finish a zone; when false the engine skips it.
  virtual bool Finishes() const { return true; }
};

// ---- Space reclaimers (the layers above) -----------------------------------------

// Garbage the file system cannot see: records inside live files that the
// layer above no longer needs (blob records inside BlobDB's blob files).
// Only that layer can turn them into free zones, by rewriting what is live
// elsewhere and deleting the files (the space-pressure blob GC, blob_gc.h).
// A writer that finds no zone asks the reclaimer for space and, while it
// collects, waits (until the file system's allocation timeout has passed
// since the collection ended) instead of failing with NoSpace
// (ZoneFs::SetSpaceReclaimer).
class SpaceReclaimer {
 public:
  virtual ~SpaceReclaimer() = default;
  struct Estimate {
    uint64_t garbage_bytes = 0;  // garbage it knows of inside live files (reported in NoSpace errors)
    bool collecting = false;     // a reclaim is in flight: waiting writers wait for it
    bool deciding = false;       // a request for space awaits its decision: not yet a reason to fail
    // Its last decision, made for a waiting writer, found nothing it could
    // collect (what it would collect does not fit): the cleaner then also
    // cleans the zones it otherwise leaves to the reclaimer.
    bool stuck = false;
    // A reclaim waits for running compactions to end before it starts
    // (they hold or pin what it would collect). Their outputs may then use
    // the recovery reserve: otherwise a compaction that needs a zone waits
    // for the reclaim, and the reclaim for it, until the allocation times out.
    bool awaits_compactions = false;
  };
  // A writer waits for space: start reclaiming if possible. Called from
  // writers' threads without the file system's lock; returns promptly.
  virtual void RequestSpace() = 0;
  // Called without the file system's lock; cheap.
  virtual Estimate Reclaimable() const = 0;
};

// ---- Options, registries and factories ------------------------------------------

// Every policy knob of the file system, settable by name and recorded in
// every result. A knob has one name: the member below, the command-line flag
// and the JSON key (FsPolicyKnobs() lists them with their help).
struct FsPolicyOptions {
  std::string alloc = "liza";         // FileAllocationPolicies(): SST, WAL and other files
  std::string blob_alloc = "";        // BlobAllocationPolicies(); empty = the same as alloc
  std::string zc = "zenfs";           // CleaningPolicies()
  double zc_start_level_pct = 20;     // zenfs: clean when free% < start level
  double zc_slope = 3;                // zenfs: garbage% > 100 - slope * (start - free%)
  double zc_trigger_free_pct = 20;    // greedy/cost-benefit/ccb: clean when free% < this
  bool zc_sst_only = false;           // migrate only SST extents (ZenFS's own restriction)
  // Same-Victim cooperation: while free% > this, full zones holding only
  // blob data are left to blob GC (0 = off; any cleaning policy).
  double zc_defer_blob_pct = 0;
  std::string reset = "eager";        // ResetPolicies()
  double reset_lazy_twp = 1.0;        // lazy: fixed T_WP, a fraction of zone capacity
  double reset_far_t = 0.7;           // far: turning point T, a free ratio
  std::string reset_far_func = "linear";  // far: linear | log | exp
  std::string finish = "threshold";   // FinishPolicies()
  double finish_threshold_pct = 0;    // threshold: finish when less than this % remains (0 = never)

  // Sets one knob by name (FsPolicyKnobs()).
  Status Set(const std::string& key, const std::string& value);
  // InvalidArgument naming the first bad knob.
  Status Validate() const;
  Json ToJson() const;
};

// The knobs of FsPolicyOptions, in --help order.
const KnobTable<FsPolicyOptions>& FsPolicyKnobs();

// What an allocation policy's factory is told about its neighbour.
struct AllocationContext {
  // Another policy places blob files in zones of their own (BAZA): keep
  // other files out of zones that hold blob data.
  bool blob_zones_reserved = false;
};

using AllocationFactory =
    std::function<std::unique_ptr<AllocationPolicy>(const FsPolicyOptions&, const AllocationContext&)>;
using CleaningFactory = std::function<std::unique_ptr<CleaningPolicy>(const FsPolicyOptions&)>;
using ResetFactory = std::function<std::unique_ptr<ResetPolicy>(const FsPolicyOptions&)>;
using FinishFactory = std::function<std::unique_ptr<FinishPolicy>(const FsPolicyOptions&)>;

// The registries (src/fs/policy/registry.cc): one line per policy there,
// the entry itself in the policy's own file.
const PolicyRegistry<AllocationFactory>& FileAllocationPolicies();  // --alloc
const PolicyRegistry<AllocationFactory>& BlobAllocationPolicies();  // --blob_alloc
const PolicyRegistry<CleaningFactory>& CleaningPolicies();          // --zc
const PolicyRegistry<ResetFactory>& ResetPolicies();                // --reset
const PolicyRegistry<FinishFactory>& FinishPolicies();              // --finish

// One file system's policies, made from its options.
struct FsPolicies {
  std::unique_ptr<AllocationPolicy> alloc;       // SST, WAL and other files
  std::unique_ptr<AllocationPolicy> blob_alloc;  // blob files; null = alloc places them too
  std::unique_ptr<CleaningPolicy> zc;
  std::unique_ptr<ResetPolicy> reset;
  std::unique_ptr<FinishPolicy> finish;
};
Status MakeFsPolicies(const FsPolicyOptions& opts, FsPolicies* out);

}  // namespace zonekv
