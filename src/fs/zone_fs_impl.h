// ZoneFs::Impl: the engine of the zoned file system.
//
// Locking (docs/fs-locking.md has the whole design). `mu_` guards every
// field below unless a comment says otherwise (file table, zone table,
// counters, the journal queue). No device command is issued while `mu_` is
// held: data I/O, zone commands (reset, finish, close) and journal writes and
// flushes all run with `mu_` released, on zones marked busy meanwhile:
//   in_io           a writer's data write is in flight
//   cleaning        a victim of the running cleaning pass
//   cleaner_target  the cleaner's destination zone
//   resetting / finishing / closing   that zone command is in flight
// A busy zone is not allocated, finished, reset or cleaned by anyone else;
// the thread that marked it updates its entry when the command returns.
//
// Journal (group commit): under `mu_` callers change memory first, then
// enqueue the edit record (JournalLocked; it gets the next sequence number).
// Whoever needs durability (a file sync, a reset) calls CommitJournalLocked:
// one leader at a time writes every queued record as one journal record
// and flushes the device, without `mu_`; the others wait until their
// sequence number is durable. A reset needs the journal durable up to the
// sequence number current when it was decided.
//
// Reset exclusion: a reader counts itself into the zones it reads
// (`readers_`, taken under `mu_` together with the extent lookup, dropped
// without it); a reset waits for the readers of its own zone only.
// Lock order: mu_, then readers_mu_. Nothing waits for mu_ while holding
// readers_mu_.
//
// The compiler checks these contracts (clang's thread-safety analysis,
// docs/fs-locking.md): the fields below are ZONEKV_GUARDED_BY(mu_), the
// ...Locked functions ZONEKV_REQUIRES(mu_), the public ones
// ZONEKV_EXCLUDES(mu_). A function that releases mu_ around a device command
// REQUIRES it and calls mu_.unlock() and mu_.lock() itself, so the analysis
// also checks that nothing guarded is touched in between. What it cannot
// see: a FileRecord or ZoneEntry reached through a pointer or reference is
// guarded by mu_ too (its fields cannot name the engine's lock), so such a
// pointer is only dereferenced under mu_, and a reference taken before mu_
// is released is used again only after it is retaken.
//
// The debug check: every device command goes through LockCheckedDevice,
// which counts commands issued under `mu_` (fs.lock.device_calls_held) and,
// with ZONEKV_LOCK_CHECK=1 (set for the tests), aborts naming the command.
//
// Zone ownership. A file open for writing owns at most one zone (`zone`);
// the zone's `owner` is the file. Only the owner appends to it. An owner
// that is not in the middle of a write can be preempted when another writer
// needs an open/active resource; it then allocates again on its next write.
// So a job writing two files at once (BlobDB compaction: SST + blob file)
// never deadlocks on zone resources.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fs_mutex.h"
#include "journal.h"
#include "lock_checked_device.h"
#include "metadata.h"
#include "zonekv/fs_policy.h"
#include "zonekv/mutex.h"
#include "zonekv/thread_annotations.h"
#include "zonekv/zonefs.h"

namespace zonekv {

// The calling thread's job hint (ZoneFs::SetThreadJobHint), or nullptr.
const FileHints* ThreadJobHint();
// Whether the calling thread runs a space-pressure blob GC (ZoneFs::SetThreadReclaiming).
bool ThreadReclaiming();
// An SST or blob file a compaction writes (level >= 1): it replaces its
// inputs (zone_fs_space.cc).
struct FileRecord;
bool IsCompactionOutput(const FileRecord& f);
// A compaction's output, or a file created by a thread that runs an
// external compactor's job (a thread job hint: RocksDB names no level for a
// CompactFiles job's blob files). A space-pressure collection that waits for
// running compactions waits for these (KeepEmptyForLocked).
bool IsAwaitableCompactionOutput(const FileRecord& f);
// New data: a WAL or a flush's output (neither a compaction's output nor a
// MANIFEST or other small file).
bool IsNewData(const FileRecord& f);

// Cost of one policy family: calls and time per call. Kept in nanoseconds
// (policy calls often take well under a microsecond), reported in
// microseconds with fractions.
struct PolicyTimer : PolicyTimeStats {
  // Records one call that took ns.
  void Add(uint64_t ns) {
    calls++;
    total_ns += ns;
    if (ns > max_ns) max_ns = ns;
  }
  // Records one call that started at t0.
  void Since(std::chrono::steady_clock::time_point t0) { Add(Ns(t0, std::chrono::steady_clock::now())); }
  // Adds the time from t0 to t1 without counting a call (work a call that
  // did not happen needed, e.g. a view built for a decision pass that ended
  // early).
  void Charge(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1) {
    total_ns += Ns(t0, t1);
  }
  static uint64_t Ns(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
};

// The engine's counters behind Stats() (docs/metrics.md). Guarded by the
// engine's mu_ (ZoneFs::Impl::counters_); Stats() copies them under the lock
// and reports them without it.
struct FsCounters {
  uint64_t zc_copy_bytes[kFileKindCount] = {};  // indexed by FileKind
  uint64_t zc_copy_sst_by_level[ZoneFsStats::kZcLevels] = {};  // ZoneFsStats::zc_copy_sst_by_level
  uint64_t resets_runtime = 0;
  uint64_t resets_zc = 0;
  uint64_t finishes = 0;
  uint64_t finishes_avoided = 0;   // resets of dead zones instead of finishes (ReleaseActiveZoneLocked); in EZRC
  double r_wp_sum = 0;
  double r_wp_min = 0;  // lowest write-pointer fraction at a runtime reset
  uint64_t io_block_us = 0;
  uint64_t nospace_errors = 0;
  uint64_t preemptions = 0;
  std::map<std::string, uint64_t> alloc_reasons;  // accepted kUseZone decisions by AllocDecision::reason
  uint64_t emergency_passes = 0;
  uint64_t journal_syncs = 0;      // CommitJournalLocked calls (file syncs, resets, ZoneFs::Sync)
  uint64_t journal_flushes = 0;    // device flushes made by journal commits
  uint64_t journal_writes = 0;     // journal records written by commits (a roll counts one)
  uint64_t journal_batches_written = 0;  // edit batches those records held
  uint64_t recovery_entries = 0;   // times recovery mode was entered
  uint64_t reserve_loans = 0;      // of those, for new data while the reclaimer held garbage (AcquireZoneLocked)
  uint64_t compaction_loans = 0;   // allocations of compaction outputs the reclaimer waited for (AcquireZoneLocked)
  uint64_t reclaim_requests = 0;   // SpaceReclaimer::RequestSpace calls by waiting writers
  uint64_t reclaim_waits = 0;      // allocations that waited because the reclaimer had garbage or work in flight
  uint64_t zc_passes_blob_gc = 0;  // cleaning passes that left zones alone: a targeted blob GC is collecting their data
  PolicyTimer alloc_time, zc_time, reset_time;
};

// A file as the engine tracks it. Guarded by the engine's mu_ (reached
// through files_ and names_, or a handle's pointer used under mu_).
struct FileRecord {
  FileMeta meta;                  // extents, exact size, hints (what the journal holds)
  std::vector<uint64_t> ext_end;  // file offset just past extent i
  bool writing = false;           // a writable handle is open
  int64_t zone = -1;              // zone this file's writer owns, -1 if none
  size_t synced_extents = 0;      // leading extents already journaled unchanged
  uint64_t synced_size = 0;
  bool hints_dirty = false;       // hints changed since last journaled
  int handles = 0;                // open handles of any kind
  bool deleted = false;           // unlinked; extents freed when handles reaches 0
};

// Whose valid bytes these are: a file's kind and, for blob files, its number.
struct ValidOwner {
  FileKind kind = FileKind::kOther;
  uint64_t number = 0;
  static ValidOwner Of(const FileHints& h) { return ValidOwner{h.kind, h.number}; }
  bool operator==(const ValidOwner&) const = default;
};

// A zone as the engine tracks it. Guarded by the engine's mu_ (zones_).
struct ZoneEntry {
  uint64_t capacity_bytes = 0;
  uint64_t wp_bytes = 0;          // relative to the zone start
  ZoneState state = ZoneState::kEmpty;
  uint64_t valid_bytes = 0;       // sum of RoundUp(extent length) of live extents
  uint64_t valid_by_kind[kFileKindCount] = {};  // indexed by FileKind
  // Of valid_by_kind[kBlob]: bytes per blob file number, kept so that the
  // zone's youngest blob file (ybiz) costs O(log files in the zone) to keep
  // and O(1) to read, instead of a pass over every file per view.
  std::map<uint64_t, uint64_t> blob_bytes_by_number;
  // Of valid_bytes: cleaner copies written here but not yet swapped into
  // their file's extent list (see CopyToCleanerZone). Fsck allows for them.
  uint64_t pending_copy_bytes = 0;
  uint64_t owner = 0;             // file id of the writer holding the zone, 0 if none
  bool in_io = false;             // a data write to the zone is in flight
  bool cleaning = false;          // a victim of the running cleaning pass
  bool cleaner_target = false;    // the cleaner's destination zone
  bool resetting = false;         // a RESET of the zone is in flight (or waits for the journal or readers)
  bool finishing = false;         // a FINISH of the zone is in flight
  bool closing = false;           // a CLOSE of the zone is queued or in flight (still holds its open resource)
  Lifetime lifetime = Lifetime::kNotSet;
  uint64_t last_write_us = 0;
  uint64_t reset_count = 0;

  bool busy() const {
    return owner != 0 || in_io || cleaning || cleaner_target || resetting || finishing || closing;
  }
  // Written and holding no valid data: a RESET frees the whole zone.
  bool dead() const { return wp_bytes > 0 && valid_bytes == 0; }
  // Counts `bytes` (a block multiple) of o's data as valid in the zone.
  void AddValid(ValidOwner o, uint64_t bytes);
  // Takes back bytes AddValid counted (never below zero).
  void RemoveValid(ValidOwner o, uint64_t bytes);
  // Forgets all valid data (the zone was reset).
  void ClearValid();
  // The youngest (largest-numbered) blob file with valid bytes here, 0 if none.
  uint64_t ybiz() const { return blob_bytes_by_number.empty() ? 0 : blob_bytes_by_number.rbegin()->first; }
};

class ZoneFs::Impl {
 public:
  Impl(std::shared_ptr<ZonedDevice> dev, const ZoneFsOptions& opts);
  ~Impl();

  static Status Format(ZonedDevice* dev, const ZoneFsOptions& opts);
  [[nodiscard]] Status Mount() ZONEKV_EXCLUDES(mu_);
  // Stops the cleaner and syncs; idempotent.
  void Shutdown() ZONEKV_EXCLUDES(mu_);

  // ---- Namespace (names are normalized absolute paths) ----
  // Public methods take `mu_` themselves: EXCLUDES mu_.
  // Creates (or truncates) `name` for writing. The handle must be closed
  // with CloseHandle after CloseWriter.
  Status CreateFile(const std::string& name, FileRecord** out) ZONEKV_EXCLUDES(mu_);
  // Opens an existing file for writing at its end (creates it if missing).
  Status ReopenFile(const std::string& name, FileRecord** out) ZONEKV_EXCLUDES(mu_);
  Status OpenForRead(const std::string& name, FileRecord** out) ZONEKV_EXCLUDES(mu_);
  void CloseHandle(FileRecord* f) ZONEKV_EXCLUDES(mu_);
  Status DeleteFile(const std::string& name) ZONEKV_EXCLUDES(mu_);
  Status RenameFile(const std::string& src, const std::string& dst) ZONEKV_EXCLUDES(mu_);
  Status FileExists(const std::string& name) ZONEKV_EXCLUDES(mu_);
  Status IsDirectory(const std::string& name, bool* is_dir) ZONEKV_EXCLUDES(mu_);
  Status GetFileSize(const std::string& name, uint64_t* size) ZONEKV_EXCLUDES(mu_);
  Status GetModificationTime(const std::string& name, uint64_t* mtime_s) ZONEKV_EXCLUDES(mu_);
  Status GetChildren(const std::string& dir, std::vector<std::string>* out) ZONEKV_EXCLUDES(mu_);
  Status CreateDir(const std::string& name, bool ok_if_exists) ZONEKV_EXCLUDES(mu_);
  Status DeleteDir(const std::string& name) ZONEKV_EXCLUDES(mu_);
  Status LockFile(const std::string& name) ZONEKV_EXCLUDES(mu_);
  Status UnlockFile(const std::string& name) ZONEKV_EXCLUDES(mu_);

  // ---- Data ----
  // Writes n bytes of a file's data at its end. With pad, the last partial
  // block is padded with zeros; without, n must be a multiple of the block size.
  Status WriteData(FileRecord* f, const char* data, size_t n, bool pad) ZONEKV_EXCLUDES(mu_);
  // Journals the file's new extents, size and hints; with flush, makes them
  // (and everything journaled before) durable.
  Status CommitFile(FileRecord* f, bool flush) ZONEKV_EXCLUDES(mu_);
  // Ends writing: commits, releases the file's zone.
  Status CloseWriter(FileRecord* f) ZONEKV_EXCLUDES(mu_);
  Status Read(FileRecord* f, uint64_t offset, size_t n, char* scratch, size_t* got) ZONEKV_EXCLUDES(mu_);
  uint64_t FileSize(FileRecord* f) ZONEKV_EXCLUDES(mu_);
  void SetLifetime(FileRecord* f, Lifetime lt) ZONEKV_EXCLUDES(mu_);
  void AddHostWriteBytes(uint64_t n) { host_write_bytes_ += n; }

  // ---- Hints from the EventListener ----
  // Remembers job and level for a file about to be created (or updates it).
  void NoteFileJob(const std::string& name, int job, int level) ZONEKV_EXCLUDES(mu_);
  // Records an SST's level and key range after it was written.
  void NoteFileRange(const std::string& name, int level, const std::string& smallest, const std::string& largest)
      ZONEKV_EXCLUDES(mu_);

  // ---- Space (zonefs.h: SpaceReclaimer, SetBlobGcTarget) ----
  void SetSpaceReclaimer(std::shared_ptr<SpaceReclaimer> reclaimer) ZONEKV_EXCLUDES(mu_);
  // A call to the reclaimer made without mu_: Begin returns the reclaimer
  // (null if none; then no End) and counts the call; the caller drops its
  // copy, retakes mu_ and calls End. The copy is never the last reference:
  // SetSpaceReclaimer waits for the count to reach 0.
  // REQUIRES: mu_ held (both).
  std::shared_ptr<SpaceReclaimer> BeginReclaimerCallLocked() ZONEKV_REQUIRES(mu_);
  void EndReclaimerCallLocked() ZONEKV_REQUIRES(mu_);
  void SetBlobGcTarget(uint64_t max_number, uint64_t reserve_bytes) ZONEKV_EXCLUDES(mu_);
  void SetNewDataRate(uint64_t bytes_per_sec) ZONEKV_EXCLUDES(mu_, pace_mu_);
  // Waits, with no lock held, for a flush's write of `bytes` to fit the
  // new-data rate (SetNewDataRate); at most kMaxPaceWait per call.
  void PaceNewData(FileRecord* f, uint64_t bytes) ZONEKV_EXCLUDES(mu_, pace_mu_);

  // ---- Views, metrics, checks ----
  FsView View(ViewFiles files) const ZONEKV_EXCLUDES(mu_);
  // The zones and only the live SSTs with these RocksDB file numbers (any
  // directory), by name: O(zones + these files' extents) under mu_ (ZoneFs::SstView).
  FsView SstView(const std::vector<uint64_t>& numbers) const ZONEKV_EXCLUDES(mu_);
  // Tests: calls fn under mu_ with a view of every file (the full rebuild)
  // and the engine's SST index. fn must not call into the file system.
  void InspectSstIndex(const std::function<void(const FsView& all, const SstIndex& index)>& fn) const
      ZONEKV_EXCLUDES(mu_);
  void SetLevelScores(std::vector<double> scores) ZONEKV_EXCLUDES(mu_);
  ZoneFsStats Stats() const ZONEKV_EXCLUDES(mu_);
  std::vector<FsckProblem> Fsck() const ZONEKV_EXCLUDES(mu_);
  std::vector<std::string> mount_repairs() const { return mount_repairs_; }  // written by Mount only
  std::vector<FileExtents> Files() const ZONEKV_EXCLUDES(mu_);
  Json Dump() const ZONEKV_EXCLUDES(mu_);
  // Journals the tails of all files open for writing and makes every
  // journal record durable.
  Status Sync() ZONEKV_EXCLUDES(mu_);
  // Makes every journal record enqueued so far durable (directory fsync).
  Status SyncJournal() ZONEKV_EXCLUDES(mu_);

  // The device as the caller gave it (not the lock-checking wrapper).
  std::shared_ptr<ZonedDevice> shared_dev() const { return base_dev_; }
  const ZoneFsOptions& options() const { return opts_; }
  uint32_t block_size() const { return bs_; }

 private:
  // The policies' view, into *out (its vectors' memory is reused: a caller
  // that reserves out->zones for geo_.nr_zones before taking mu_ keeps the
  // allocation, and glibc's consolidation of freed chunks that a large
  // allocation can start, out of the lock). `keep_empty` empty zones are
  // shown busy: an allocation keeps one back for the cleaner and, unless the
  // file may use it, the recovery reserve (KeepEmptyForLocked).
  // `files` selects the files listed: kNone for policies that do not read
  // them (NeedsFiles) costs O(zones) instead of O(files + extents).
  void BuildViewLocked(uint32_t keep_empty, ViewFiles files, FsView* out) const ZONEKV_REQUIRES(mu_);
  // Empty zones an allocation for f must leave alone: the cleaner's and,
  // unless f may use it, the recovery reserve (ZoneFsOptions::reserve_zones).
  // `awaited`: f is a compaction's output the reclaimer waits for
  // (IsAwaitableCompactionOutput, AcquireZoneLocked).
  uint32_t KeepEmptyForLocked(const FileRecord& f, bool awaited) const ZONEKV_REQUIRES(mu_);
  // The empty zones KeepEmptyForLocked keeps from the reclaimer's thread
  // (FsView::reclaimer_kept_zones).
  uint32_t ReclaimerKeptZonesLocked() const ZONEKV_REQUIRES(mu_);
  // Data zones that are empty and not busy.
  uint32_t EmptyZonesLocked() const ZONEKV_REQUIRES(mu_);
  // Enters recovery mode when a writer was refused (nospace) or a mount
  // finds the empty zones down to the reserve; leaves it once they are back
  // at twice the reserve. Called after allocations, resets and at mount.
  void UpdateRecoveryModeLocked(bool nospace, bool at_mount) ZONEKV_REQUIRES(mu_);
  // The NoSpace error for f: live, garbage (in zones and, as the reclaimer
  // estimates, inside files) and free bytes, and why no zone was found.
  Status NoSpaceLocked(const FileRecord& f, const std::string& why, uint64_t upper_garbage) const
      ZONEKV_REQUIRES(mu_);
  FileView FileViewLocked(const FileRecord& f) const ZONEKV_REQUIRES(mu_);
  // View()'s copy of the files `which` selects, by name (zone_fs_metrics.cc).
  struct FlatFileCopy;
  void CopyFilesLocked(ViewFiles which, FlatFileCopy* out) const ZONEKV_REQUIRES(mu_);
  // Fsck: where sst_numbers_ and sst_index_ differ from the file table.
  void IndexProblemsLocked(std::vector<std::string>* out) const ZONEKV_REQUIRES(mu_);
  uint64_t NowUsLocked() const ZONEKV_REQUIRES(mu_);
  // The journaled state of the file table, to be encoded (EncodeSnapshot)
  // without mu_: copying costs O(files + extents), encoding several times that.
  MetaState SnapshotLocked() const ZONEKV_REQUIRES(mu_);
  FileRecord* FindLocked(const std::string& name) const ZONEKV_REQUIRES(mu_);
  // f gets its name in names_ (created, renamed, mounted), or loses it
  // (unlinked, renamed): keeps sst_numbers_ and sst_index_ in step. Call
  // NameRemovedLocked before f's name or hints change, NameAddedLocked after.
  void NameAddedLocked(FileRecord* f) ZONEKV_REQUIRES(mu_);
  void NameRemovedLocked(FileRecord* f) ZONEKV_REQUIRES(mu_);
  // Brings f's entry in sst_index_ up to date after its hints, size or
  // extents changed (O(f's extents + log files)); a deleted f has none.
  void IndexFileLocked(const FileRecord& f) ZONEKV_REQUIRES(mu_);
  Status CreateLocked(const std::string& name, FileRecord** out) ZONEKV_REQUIRES(mu_);
  void UnlinkLocked(FileRecord* f, EditBatch* b) ZONEKV_REQUIRES(mu_);
  // Frees f's extents and moves its record from files_ to dropped_.
  void DropFileLocked(FileRecord* f) ZONEKV_REQUIRES(mu_);
  void FreeExtentsLocked(FileRecord* f) ZONEKV_REQUIRES(mu_);
  void AddExtentLocked(FileRecord* f, const Extent& e) ZONEKV_REQUIRES(mu_);
  // Adds (delta 1) or takes back (-1) f's extents in zone_files_; call with
  // -1 before f's extent list changes other than by AddExtentLocked, +1 after.
  void CountExtentsLocked(const FileRecord& f, int delta) ZONEKV_REQUIRES(mu_);
  void RebuildEndsLocked(FileRecord* f) ZONEKV_REQUIRES(mu_);
  // Mount: cuts a file at its first extent that runs past its zone's write
  // pointer (a journal record that outlived its data in a power loss; the
  // sync was never acknowledged) and notes it in mount_repairs_, if that
  // extent and the file's later ones are each the last data of their zone
  // (zone_end: where each zone's last extent of any file ends).
  void DropUnwrittenTailLocked(FileRecord* f, const std::vector<uint64_t>& zone_end) ZONEKV_REQUIRES(mu_);
  void CountZonesLocked(uint32_t* open, uint32_t* active) const ZONEKV_REQUIRES(mu_);
  // Of a device limit on open or active zones, what data writers may use.
  uint32_t DataLimitLocked(uint32_t device_limit) const ZONEKV_REQUIRES(mu_);
  bool PreemptIdleZoneLocked(uint64_t requester) ZONEKV_REQUIRES(mu_);
  // Gives up the file's zone; an open zone is queued to be closed (marked
  // `closing`) by CloseReleasedZonesLocked.
  void ReleaseZoneLocked(FileRecord* f) ZONEKV_REQUIRES(mu_);

  // Each of these REQUIRES mu_ and releases it while the device works (or
  // while it waits), retaking it before it returns: the caller must
  // re-validate anything it read before.
  // Closes the zones ReleaseZoneLocked queued.
  void CloseReleasedZonesLocked() ZONEKV_REQUIRES(mu_);
  // Allocates a zone to f (policy, finishes, resets, preemption, waiting).
  Status AcquireZoneLocked(FileRecord* f, uint64_t want) ZONEKV_REQUIRES(mu_);
  // REQUIRES: zone z not busy.
  [[nodiscard]] Status FinishZoneLocked(uint32_t z) ZONEKV_REQUIRES(mu_);
  // Gives back zone z's active resource: a RESET if the zone is dead (no
  // padding; the zone comes back empty; counted in finishes_avoided, not as
  // a reset policy's runtime reset), else a FINISH.
  // REQUIRES: zone z not busy and active.
  [[nodiscard]] Status ReleaseActiveZoneLocked(uint32_t z) ZONEKV_REQUIRES(mu_);
  // A data zone that is active, not busy and dead (so a reset, not a
  // finish, frees its active resource), or kNoZone.
  uint32_t DeadActiveZoneLocked() const ZONEKV_REQUIRES(mu_);
  static constexpr uint32_t kNoZone = UINT32_MAX;
  // REQUIRES: zone z not busy and holding no valid data. Makes the journal
  // durable up to the current sequence number, waits for z's readers, resets.
  [[nodiscard]] Status ResetZoneLocked(uint32_t z) ZONEKV_REQUIRES(mu_);
  // Resets the zones in `picks` that still qualify; returns how many. A
  // reset that fails is skipped; its error goes to *failed if not null.
  int ResetZonesLocked(const std::vector<uint32_t>& picks, Status* failed = nullptr) ZONEKV_REQUIRES(mu_);
  // Finishes what the finish policy picks from v; returns how many. A
  // finish that fails is skipped; its error goes to *failed if not null.
  int ApplyFinishPolicyLocked(const FsView& v, Status* failed = nullptr) ZONEKV_REQUIRES(mu_);
  // Makes journal records up to `seq` durable: waits for the running
  // commit or leads the next one (group commit).
  [[nodiscard]] Status CommitJournalLocked(uint64_t seq) ZONEKV_REQUIRES(mu_);

  // The reset policy's picks for v, timed. REQUIRES: mu_ held.
  std::vector<uint32_t> PickResetsLocked(const FsView& v, std::chrono::steady_clock::time_point t0)
      ZONEKV_REQUIRES(mu_);
  // Copies the journal's position into journal_pos_. REQUIRES: mu_ held
  // and no commit writing the journal (or the caller is that commit).
  void NoteJournalPosLocked() ZONEKV_REQUIRES(mu_);
  // Enqueues b for the journal (memory must already include it). Fails only
  // on a read-only mount or after a journal error (sticky).
  [[nodiscard]] Status JournalLocked(const EditBatch& b) ZONEKV_REQUIRES(mu_);
  // Applies the reset policy. EXCLUDES: mu_.
  void RuntimeReset() ZONEKV_EXCLUDES(mu_);

  // Readers of a zone (see Read). EndRead is called without mu_.
  void BeginReadLocked(uint32_t z) ZONEKV_REQUIRES(mu_);
  void EndRead(uint32_t z) ZONEKV_EXCLUDES(mu_);
  // Waits until zone z has no readers. EXCLUDES: mu_.
  void WaitForReaders(uint32_t z) ZONEKV_EXCLUDES(mu_);

  // Cleaner (zone_fs_cleaner.cc). All EXCLUDE mu_ unless they REQUIRE it.
  void CleanerLoop() ZONEKV_EXCLUDES(mu_);
  // One round: victims from the policy, migrated and reset. Returns the
  // number of zones reset.
  int CleanOnce() ZONEKV_EXCLUDES(mu_);
  bool stop_requested() ZONEKV_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return stop_;
  }
  // Whether the cleaner may move extent i of f. A file open for writing
  // keeps only its last extent in place while that extent's zone is not full
  // (the writer may still extend it); its other extents never change, so
  // a long-lived writer (MANIFEST, info LOG, WAL) does not pin the full
  // zones it wrote before. REQUIRES: mu_ held.
  bool MovableLocked(const FileRecord& f, size_t i) const ZONEKV_REQUIRES(mu_);
  // Migrates the valid extents of victim zone v; returns false if the
  // cleaner ran out of destination space.
  bool MigrateZone(uint32_t v) ZONEKV_EXCLUDES(mu_);
  // Copies `len` bytes (block multiple) from device offset `src` into the
  // cleaner's zone(s), appending the new extents (exact total `exact`) to *out.
  // The copies count as valid bytes of their zone from the moment they are
  // written, as pending copies until SettleCopy or Uncount.
  bool CopyToCleanerZone(uint64_t src, uint64_t len, uint64_t exact, ValidOwner owner, std::vector<Extent>* out)
      ZONEKV_EXCLUDES(mu_);
  // The copy `p` now belongs to a file: no longer pending.
  void SettleCopy(const Extent& p) ZONEKV_REQUIRES(mu_);
  // Take back the valid bytes of copies that did not replace anything.
  void Uncount(const Extent& p, ValidOwner owner) ZONEKV_REQUIRES(mu_);
  void DropCopies(const std::vector<std::vector<Extent>>& moved, ValidOwner owner) ZONEKV_EXCLUDES(mu_);

  // Set by the constructor or by Mount before the file system is shared
  // (ZoneFs::Mount hands it out only after), then only read: not guarded.
  const std::shared_ptr<ZonedDevice> base_dev_;
  const std::shared_ptr<LockCheckedDevice> dev_;  // every device command of the engine goes through it
  const ZoneFsOptions opts_;
  const DeviceGeometry geo_;
  const uint32_t bs_;
  uint32_t meta_zones_ = 0;
  std::vector<std::string> mount_problems_;
  std::vector<std::string> mount_repairs_;  // written by Mount only (DropUnwrittenTailLocked)
  const std::chrono::steady_clock::time_point start_;

  mutable FsMutex mu_;
  std::condition_variable_any zone_cv_;     // a zone was released, written, finished, closed or reset
  std::condition_variable_any clean_cv_;    // wakes the cleaner
  std::condition_variable_any journal_cv_;  // a journal write or flush ended

  // The policies (set by Mount). They are called under mu_ only, so one at
  // a time (fs_policy.h).
  std::unique_ptr<AllocationPolicy> alloc_ ZONEKV_PT_GUARDED_BY(mu_);
  std::unique_ptr<AllocationPolicy> blob_alloc_ ZONEKV_PT_GUARDED_BY(mu_);
  std::unique_ptr<CleaningPolicy> zc_ ZONEKV_PT_GUARDED_BY(mu_);
  // Greedy, any free space; set iff opts_.emergency_zc.
  std::unique_ptr<CleaningPolicy> emergency_zc_ ZONEKV_PT_GUARDED_BY(mu_);
  std::unique_ptr<ResetPolicy> reset_ ZONEKV_PT_GUARDED_BY(mu_);
  std::unique_ptr<FinishPolicy> finish_ ZONEKV_PT_GUARDED_BY(mu_);

  // Journal. The journal object itself (set by Mount) is used without mu_ by
  // one commit leader at a time (journal_writing_), and under mu_ only while
  // no leader writes: a protocol, not a lock, so it is not annotated.
  std::unique_ptr<Journal> journal_;
  // Records of files dropped under mu_, to be freed without it: a caller
  // swaps dropped_ into a local vector declared before its lock, so that
  // free() (which may wait for another thread's malloc arena) does not run
  // under mu_.
  std::vector<std::unique_ptr<FileRecord>> dropped_ ZONEKV_GUARDED_BY(mu_);
  std::string journal_queue_ ZONEKV_GUARDED_BY(mu_);      // encoded edits enqueued, not yet written
  uint64_t queued_records_ ZONEKV_GUARDED_BY(mu_) = 0;    // edit batches in journal_queue_
  uint64_t enqueued_seq_ ZONEKV_GUARDED_BY(mu_) = 0;      // sequence number of the last enqueued edit batch
  uint64_t durable_seq_ ZONEKV_GUARDED_BY(mu_) = 0;       // every batch up to this one is durable
  bool journal_writing_ ZONEKV_GUARDED_BY(mu_) = false;   // a leader is writing the journal
  uint64_t flushes_in_flight_ ZONEKV_GUARDED_BY(mu_) = 0; // journal flushes running
  uint64_t flush_target_ ZONEKV_GUARDED_BY(mu_) = 0;      // highest sequence number a running flush makes durable
  Status journal_error_ ZONEKV_GUARDED_BY(mu_);           // sticky: a journal write or flush failed (see CommitJournalLocked)
  struct JournalPos {
    uint32_t zone = 0;
    uint64_t bytes = 0, sequence = 0, rolls = 0;
  };
  JournalPos journal_pos_ ZONEKV_GUARDED_BY(mu_);  // the journal's position after the last write, for Dump and Stats

  uint64_t next_file_id_ ZONEKV_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, std::unique_ptr<FileRecord>> files_ ZONEKV_GUARDED_BY(mu_);  // by id, including deleted-but-open
  std::map<std::string, FileRecord*> names_ ZONEKV_GUARDED_BY(mu_);               // live files by name
  // Of names_: the SSTs by RocksDB file number (SstView), and the SSTs with a
  // level and key range by level and key order (CAZA's view: FsView::ssts).
  // Kept in step by NameAddedLocked, NameRemovedLocked and IndexFileLocked,
  // and by WriteData's appends; fsck checks both against the file table.
  std::multimap<uint64_t, FileRecord*> sst_numbers_ ZONEKV_GUARDED_BY(mu_);
  SstIndex sst_index_ ZONEKV_GUARDED_BY(mu_);
  // Per zone, the files (by id; live or deleted but still open) with
  // extents in it and how many: MigrateZone reads a victim's files here
  // instead of scanning every file's extents (O(files in the zone), not
  // O(files + extents)). Kept by AddExtentLocked, FreeExtentsLocked, the
  // cleaner's swap and Mount (CountExtentsLocked); fsck checks it.
  std::vector<std::map<uint64_t, uint32_t>> zone_files_ ZONEKV_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ZONEKV_GUARDED_BY(mu_);
  std::set<std::string> locks_ ZONEKV_GUARDED_BY(mu_);
  std::map<std::string, std::pair<int, int>> pending_jobs_ ZONEKV_GUARDED_BY(mu_);  // name -> (job, level) before creation
  std::vector<ZoneEntry> zones_ ZONEKV_GUARDED_BY(mu_);  // every zone; metadata zones unused
  std::vector<uint32_t> closes_ ZONEKV_GUARDED_BY(mu_);  // released open zones to close (marked closing)
  int64_t cleaner_zone_ ZONEKV_GUARDED_BY(mu_) = -1;
  std::vector<double> level_scores_ ZONEKV_GUARDED_BY(mu_);

  // Readers per zone: incremented under mu_ with the extent lookup,
  // decremented without it (atomics, allocated by Mount). A reset waiting
  // for them sleeps on readers_cv_.
  std::unique_ptr<std::atomic<uint32_t>[]> readers_;
  std::atomic<uint32_t> reset_waiters_{0};
  mutable Mutex readers_mu_ ZONEKV_ACQUIRED_AFTER(mu_);
  std::condition_variable_any readers_cv_;
  uint64_t reset_reader_waits_ ZONEKV_GUARDED_BY(readers_mu_) = 0;  // resets that had to wait for readers

  // Space pressure (docs/space.md).
  // The effective ZoneFsOptions::reserve_zones: set by Mount before the
  // file system is shared, constant after.
  uint32_t reserve_zones_ = 0;
  bool recovery_mode_ ZONEKV_GUARDED_BY(mu_) = false;  // the reserve is open to all but flushed blob files
  std::shared_ptr<SpaceReclaimer> reclaimer_ ZONEKV_GUARDED_BY(mu_);  // the upper layer's, or null
  // Calls to a reclaimer in flight without mu_ (BeginReclaimerCallLocked);
  // SetSpaceReclaimer waits on reclaimer_cv_ for them to end.
  uint32_t reclaimer_calls_ ZONEKV_GUARDED_BY(mu_) = 0;
  std::condition_variable_any reclaimer_cv_;
  uint64_t blob_gc_target_ ZONEKV_GUARDED_BY(mu_) = 0;  // blob files <= this are being collected (0: none)
  uint32_t blob_gc_reserve_zones_ ZONEKV_GUARDED_BY(mu_) = 0;  // empty zones other writers leave to that collection
  uint64_t reclaim_written_bytes_ ZONEKV_GUARDED_BY(mu_) = 0;  // by reclaiming threads: a collection's progress
  // Back-pressure on flushes (SetNewDataRate): a token bucket of bytes.
  std::atomic<uint64_t> new_data_rate_{0};  // bytes/s; 0 = no limit (read without a lock on every write)
  mutable Mutex pace_mu_ ZONEKV_ACQUIRED_AFTER(mu_);
  double pace_tokens_ ZONEKV_GUARDED_BY(pace_mu_) = 0;  // bytes that may be written now (negative: owed)
  std::chrono::steady_clock::time_point pace_at_ ZONEKV_GUARDED_BY(pace_mu_);
  uint64_t paced_writes_ ZONEKV_GUARDED_BY(pace_mu_) = 0;
  uint64_t pace_wait_us_ ZONEKV_GUARDED_BY(pace_mu_) = 0;

  // Started by Mount before the file system is shared, joined by Shutdown:
  // only those two use it.
  std::thread cleaner_;
  bool stop_ ZONEKV_GUARDED_BY(mu_) = false;
  bool clean_kick_ ZONEKV_GUARDED_BY(mu_) = false;
  bool emergency_ ZONEKV_GUARDED_BY(mu_) = false;  // a writer found no zone: clean even if the policy would not
  bool shut_down_ ZONEKV_GUARDED_BY(mu_) = false;
  uint64_t clean_passes_ ZONEKV_GUARDED_BY(mu_) = 0;
  uint64_t progress_ ZONEKV_GUARDED_BY(mu_) = 0;  // bumped whenever a zone is released, written, finished, closed or reset

  // The sizes of View()'s last flat copies (of SSTs, of every file), to
  // reserve the next one's memory before taking mu_. Atomics: any thread.
  struct FlatCopyHint {
    std::atomic<size_t> files{0}, arena{0}, extents{0};
    std::tuple<size_t, size_t, size_t> Get() const { return {files.load(), arena.load(), extents.load()}; }
    void Set(size_t f, size_t a, size_t e) {
      files.store(f);
      arena.store(a);
      extents.store(e);
    }
  };
  mutable FlatCopyHint flat_copy_hint_[2];

  // Metrics.
  std::atomic<uint64_t> host_write_bytes_{0};
  FsCounters counters_ ZONEKV_GUARDED_BY(mu_);
};

// "/a//b/./c/" -> "/a/b/c"; relative paths are taken from "/".
std::string NormalizePath(const std::string& path);

}  // namespace zonekv
