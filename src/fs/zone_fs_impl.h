// ZoneFs::Impl: the engine of the zoned file system.
//
// Locking. `mu_` guards every field below (file table, zone table,
// counters, the journal). Device data I/O runs without `mu_`: a writer marks
// its zone `in_io` and the cleaner marks its zones `cleaning`, so nobody
// else touches them meanwhile. `reset_mu_` keeps zones from being reset under
// a reader: readers hold it shared from looking up extents until their
// device read ends; resets hold it exclusively. Lock order: reset_mu_, then
// mu_. Code holding mu_ never waits for reset_mu_.
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
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "journal.h"
#include "metadata.h"
#include "zonekv/fs_policy.h"
#include "zonekv/zonefs.h"

namespace zonekv {

// The calling thread's job hint (ZoneFs::SetThreadJobHint), or nullptr.
const FileHints* ThreadJobHint();

// Cost of one policy family: calls and time per call. Kept in nanoseconds
// (policy calls often take well under a microsecond), reported in
// microseconds with fractions.
struct PolicyTimer {
  uint64_t calls = 0;
  uint64_t total_ns = 0;
  uint64_t max_ns = 0;
  // Records one call that started at t0.
  void Since(std::chrono::steady_clock::time_point t0) {
    uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
    calls++;
    total_ns += ns;
    if (ns > max_ns) max_ns = ns;
  }
  Json ToJson() const;
};

// A file as the engine tracks it.
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

struct ZoneEntry {
  uint64_t capacity_bytes = 0;
  uint64_t wp_bytes = 0;          // relative to the zone start
  ZoneState state = ZoneState::kEmpty;
  uint64_t valid_bytes = 0;       // sum of RoundUp(extent length) of live extents
  uint64_t valid_by_kind[5] = {0, 0, 0, 0, 0};
  // Of valid_bytes: cleaner copies written here but not yet swapped into
  // their file's extent list (see CopyToCleanerZone). Fsck allows for them.
  uint64_t pending_copy_bytes = 0;
  uint64_t owner = 0;             // file id of the writer holding the zone, 0 if none
  bool in_io = false;             // a data write to the zone is in flight
  bool cleaning = false;          // a victim of the running cleaning pass
  bool cleaner_target = false;    // the cleaner's destination zone
  Lifetime lifetime = Lifetime::kNotSet;
  uint64_t last_write_us = 0;
  uint64_t reset_count = 0;

  bool busy() const { return owner != 0 || in_io || cleaning || cleaner_target; }
};

class ZoneFs::Impl {
 public:
  Impl(std::shared_ptr<ZonedDevice> dev, const ZoneFsOptions& opts);
  ~Impl();

  static Status Format(ZonedDevice* dev, const ZoneFsOptions& opts);
  Status Mount();
  // Stops the cleaner and syncs; idempotent.
  void Shutdown();

  // ---- Namespace (names are normalized absolute paths) ----
  // Creates (or truncates) `name` for writing. The handle must be closed
  // with CloseHandle after CloseWriter.
  Status CreateFile(const std::string& name, FileRecord** out);
  // Opens an existing file for writing at its end (creates it if missing).
  Status ReopenFile(const std::string& name, FileRecord** out);
  Status OpenForRead(const std::string& name, FileRecord** out);
  void CloseHandle(FileRecord* f);
  Status DeleteFile(const std::string& name);
  Status RenameFile(const std::string& src, const std::string& dst);
  Status FileExists(const std::string& name);
  Status IsDirectory(const std::string& name, bool* is_dir);
  Status GetFileSize(const std::string& name, uint64_t* size);
  Status GetModificationTime(const std::string& name, uint64_t* mtime_s);
  Status GetChildren(const std::string& dir, std::vector<std::string>* out);
  Status CreateDir(const std::string& name, bool ok_if_exists);
  Status DeleteDir(const std::string& name);
  Status LockFile(const std::string& name);
  Status UnlockFile(const std::string& name);

  // ---- Data ----
  // Writes n bytes of a file's data at its end. With pad, the last partial
  // block is padded with zeros; without, n must be a multiple of the block size.
  Status WriteData(FileRecord* f, const char* data, size_t n, bool pad);
  // Journals the file's new extents, size and hints; with flush, makes them
  // (and everything journaled before) durable.
  Status CommitFile(FileRecord* f, bool flush);
  // Ends writing: commits, releases the file's zone.
  Status CloseWriter(FileRecord* f);
  Status Read(FileRecord* f, uint64_t offset, size_t n, char* scratch, size_t* got);
  uint64_t FileSize(FileRecord* f);
  void SetLifetime(FileRecord* f, Lifetime lt);
  void AddHostWriteBytes(uint64_t n) { host_write_bytes_ += n; }

  // ---- Hints from the EventListener ----
  // Remembers job and level for a file about to be created (or updates it).
  void NoteFileJob(const std::string& name, int job, int level);
  // Records an SST's level and key range after it was written.
  void NoteFileRange(const std::string& name, int level, const std::string& smallest, const std::string& largest);

  // ---- Views, metrics, checks ----
  FsView View() const;
  void SetLevelScores(std::vector<double> scores);
  Json Metrics() const;
  std::vector<FsckProblem> Fsck() const;
  std::vector<FileExtents> Files() const;
  Json Dump() const;
  Status Sync();

  ZonedDevice* dev() const { return dev_.get(); }
  std::shared_ptr<ZonedDevice> shared_dev() const { return dev_; }
  const ZoneFsOptions& options() const { return opts_; }
  uint32_t block_size() const { return bs_; }

 private:
  // All REQUIRE mu_ held.
  FsView BuildViewLocked(bool for_alloc, uint32_t* reserved_zone) const;
  uint64_t NowUsLocked() const;
  Status JournalLocked(const EditBatch& b);
  std::string SnapshotLocked() const;
  FileRecord* FindLocked(const std::string& name) const;
  Status CreateLocked(const std::string& name, FileRecord** out);
  void UnlinkLocked(FileRecord* f, EditBatch* b);
  void FreeExtentsLocked(FileRecord* f);
  void AddExtentLocked(FileRecord* f, const Extent& e);
  void RebuildEndsLocked(FileRecord* f);
  void CountZonesLocked(uint32_t* open, uint32_t* active) const;
  uint32_t DataLimit(uint32_t device_limit) const;
  Status AcquireZoneLocked(FileRecord* f, uint64_t want, std::unique_lock<std::mutex>* l);
  bool PreemptIdleZoneLocked(uint64_t requester);
  void ReleaseZoneLocked(FileRecord* f);
  Status FinishZoneLocked(uint32_t z);
  // Re-reads a zone's write pointer and state from the device (after a failed write).
  void RefreshZoneLocked(uint32_t z);
  Status ResetZoneLocked(uint32_t z);
  int RuntimeResetLocked();
  void ApplyFinishThresholdLocked();

  // Takes reset_mu_ then mu_; applies the reset policy.
  void RuntimeReset();

  // Cleaner (zone_fs_cleaner.cc).
  void CleanerLoop();
  // One round: victims from the policy, migrated and reset. Returns the
  // number of zones reset.
  int CleanOnce();
  bool stop_requested() {
    std::lock_guard<std::mutex> l(mu_);
    return stop_;
  }
  // Whether the cleaner may move extent i of f. A file open for writing
  // keeps only its last extent in place while that extent's zone is not full
  // (the writer may still extend it); its other extents never change, so
  // a long-lived writer (MANIFEST, info LOG, WAL) does not pin the full
  // zones it wrote before. REQUIRES: mu_ held.
  bool MovableLocked(const FileRecord& f, size_t i) const;
  // Migrates the valid extents of victim zone v; returns false if the
  // cleaner ran out of destination space.
  bool MigrateZone(uint32_t v);
  // Copies `len` bytes (block multiple) from device offset `src` into the
  // cleaner's zone(s), appending the new extents (exact total `exact`) to *out.
  // The copies count as valid bytes of their zone from the moment they are
  // written, as pending copies until SettleCopy or Uncount.
  bool CopyToCleanerZone(uint64_t src, uint64_t len, uint64_t exact, int kind, std::vector<Extent>* out);
  // The copy `p` now belongs to a file: no longer pending.
  // REQUIRES: mu_ held.
  void SettleCopy(const Extent& p);
  // Take back the valid bytes of copies that did not replace anything.
  // Uncount REQUIRES mu_ held; DropCopies takes mu_ itself.
  void Uncount(const Extent& p, int kind);
  void DropCopies(const std::vector<std::vector<Extent>>& moved, int kind);

  const std::shared_ptr<ZonedDevice> dev_;
  const ZoneFsOptions opts_;
  const DeviceGeometry geo_;
  const uint32_t bs_;
  uint32_t meta_zones_ = 0;
  std::unique_ptr<AllocationPolicy> alloc_;
  std::unique_ptr<AllocationPolicy> blob_alloc_;
  std::unique_ptr<CleaningPolicy> zc_;
  std::unique_ptr<ResetPolicy> reset_;

  mutable std::mutex mu_;
  mutable std::shared_mutex reset_mu_;
  std::condition_variable zone_cv_;   // a zone was released, written, finished or reset
  std::condition_variable clean_cv_;  // wakes the cleaner
  std::unique_ptr<Journal> journal_;
  bool journal_dirty_ = false;  // journal records written since the last device flush
  Status journal_error_;        // sticky: a journal append failed (see JournalLocked)
  uint64_t next_file_id_ = 1;
  std::map<uint64_t, std::unique_ptr<FileRecord>> files_;  // by id, including deleted-but-open
  std::map<std::string, FileRecord*> names_;               // live files by name
  std::set<std::string> dirs_;
  std::set<std::string> locks_;
  std::map<std::string, std::pair<int, int>> pending_jobs_;  // name -> (job, level) before creation
  std::vector<ZoneEntry> zones_;  // every zone; metadata zones unused
  int64_t cleaner_zone_ = -1;
  std::vector<std::string> mount_problems_;
  std::vector<double> level_scores_;
  const std::chrono::steady_clock::time_point start_;

  std::thread cleaner_;
  bool stop_ = false;
  bool clean_kick_ = false;
  bool emergency_ = false;  // a writer found no zone: clean even if the policy would not
  bool shut_down_ = false;
  uint64_t clean_passes_ = 0;
  uint64_t progress_ = 0;  // bumped whenever a zone is released, written, finished or reset

  // Metrics.
  std::atomic<uint64_t> host_write_bytes_{0};
  uint64_t zc_copy_bytes_[5] = {0, 0, 0, 0, 0};
  uint64_t resets_runtime_ = 0;
  uint64_t resets_zc_ = 0;
  uint64_t finishes_ = 0;
  double r_wp_sum_ = 0;
  double r_wp_min_ = 0;  // lowest write-pointer fraction at a runtime reset
  uint64_t io_block_us_ = 0;
  uint64_t nospace_errors_ = 0;
  uint64_t preemptions_ = 0;
  uint64_t emergency_passes_ = 0;
  PolicyTimer alloc_time_, zc_time_, reset_time_;
};

// "/a//b/./c/" -> "/a/b/c"; relative paths are taken from "/".
std::string NormalizePath(const std::string& path);

}  // namespace zonekv
