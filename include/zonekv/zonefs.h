// ZoneFs: a zoned file system under unmodified RocksDB.
//
// Files are lists of extents in the data zones of a ZonedDevice; metadata
// (a superblock and a journal of checksummed records, with full snapshots
// at every metadata-zone rollover) lives in the first `meta_zones` zones.
// Zone allocation, zone cleaning, runtime reset and the finish threshold are
// decided by the policies of fs_policy.h; ZoneFs carries their decisions out.
//
// Usage with RocksDB:
//   ZoneFs::Format(dev.get(), opts);                        // once (mkfs)
//   std::shared_ptr<ZoneFs> fs;
//   ZoneFs::Mount(dev, opts, &fs);
//   std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs->file_system());
//   options.env = env.get();
//   options.listeners.push_back(fs->listener());
//   rocksdb::DB::Open(options, "/db", &db);
// The ZoneFs object (and the Env) must outlive the DB.
//
// Durability: a file's data and size become durable at Sync/Fsync (the
// journal records the file's extents and exact size, then the device is
// flushed). Flush() only hands data to the file's write buffer. After a crash
// a file is recovered as of its last Sync; later bytes in its zones are
// garbage (invalid bytes). Creates, renames and deletes take effect at once
// and are queued for the journal; the next Sync of any file, a directory
// Fsync or ZoneFs::Sync() writes the queue and makes it durable (group
// commit: concurrent syncs share one journal write and one device flush).
// Unmounting syncs.
//
// Threading. Every ZoneFs method and the rocksdb::FileSystem it provides
// may be called from any number of threads at once, with these exceptions:
// Format only on a device no ZoneFs has mounted; one mount per device
// (two would allocate the same zones); nothing may call into a ZoneFs
// while it is being destroyed (close the DB first). A writable or
// sequential file object is used by one thread at a time (RocksDB's
// contract for FSWritableFile and FSSequentialFile); random-access readers
// of a file may read concurrently with each other and with its writer.
// What runs concurrently, and what one at a time: all metadata (the file
// table, the zone table, the journal queue) is behind one lock, so
// creates, deletes, renames, directory calls, opens, zone allocation and
// the policies' decisions (fs_policy.h) run one at a time; but no thread
// holds that lock while it waits for the device, so data writes to
// different files, reads, zone resets, finishes and closes, the journal
// write and device flush of a sync, and the cleaner's copying all run
// concurrently. Concurrent syncs share one journal write and one flush
// (group commit, above); a reset waits only for readers of its own zone.
// Stats, View, Files and Fsck take a consistent copy under the lock and may
// be called at any time. With a cleaning policy other than `off`, a
// background thread (started by Mount, stopped by the destructor) cleans
// zones. The lock contracts are checked by clang's thread-safety analysis
// (docs/fs-locking.md).
//
// Partial blocks: device I/O is in whole blocks. At Sync (and Close) the
// unwritten tail of a file is written padded with zeros to a block boundary;
// the extent records the exact byte length and the file's next data starts
// at the next block. Padding counts as valid bytes of the file's zone while
// the file lives.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zonekv/fs_policy.h"
#include "zonekv/json.h"
#include "zonekv/status.h"
#include "zonekv/zone_fs_stats.h"
#include "zonekv/zoned_device.h"

namespace rocksdb {
class FileSystem;
class EventListener;
}  // namespace rocksdb

namespace zonekv {

// Active zones a read-write mount needs for data, besides the one kept for
// the metadata journal and (with a cleaning policy) the one for the
// cleaner: a device with fewer max_active_zones is refused (InvalidArgument).
constexpr uint32_t kMinDataActiveZones = 2;

struct ZoneFsOptions {
  FsPolicyOptions policy;
  uint32_t meta_zones = 3;                  // zones reserved for metadata (>= 2), at the device start
  uint64_t write_buffer_bytes = 1 << 20;    // per-file buffer; full blocks are written when it fills
  uint64_t zc_interval_ms = 100;            // the cleaner checks its policy this often (and when kicked)
  uint64_t alloc_timeout_ms = 10000;        // longest a writer waits for a zone before NoSpace
  bool read_only = false;                   // tools: no writes, no repair, no background thread
  // When a writer finds no zone and the cleaning policy picks no victim,
  // clean anyway what greedy cleaning picks, the full zone with the least
  // valid data (counted as zc_emergency_passes). Off reproduces ZenFS, whose writers then fail.
  bool emergency_zc = true;
  // The recovery reserve: empty data zones that ordinary writes never get,
  // so that a device that ran out of space still mounts read-write and
  // RocksDB can recover, delete and compact (docs/space.md). Only the
  // MANIFEST and small files (OPTIONS, LOG, CURRENT, ...) may use it, until
  // a writer is refused with NoSpace (or a mount finds the free zones down
  // to the reserve): then every file but the blob files of a flush may,
  // until free zones are back at twice the reserve. -1 = automatic:
  // min(2, data zones / 8), room for a WAL and one flush.
  int32_t reserve_zones = -1;

  // InvalidArgument naming the bad field.
  Status Validate() const;
  Json ToJson() const;
};

// One problem found by ZoneFs::Fsck, e.g. "file /db/000012.sst extent 3
// [zone 7, 8192+4096) is beyond the zone's write pointer 4096".
struct FsckProblem {
  std::string message;
};

class ZoneFs;

// What `DeepCheck` found: per database, what RocksDB verified.
struct DeepCheckResult {
  struct Database {
    std::string dir;                  // e.g. "/db"
    uint64_t sst_files = 0;           // in RocksDB's current version, each block checksum verified
    uint64_t blob_files = 0;          // in the current version
    uint64_t blob_records = 0;        // in those files, garbage included, each CRC verified
    uint64_t keys = 0;                // read with checksums verified, values (and their blob records) too
    uint64_t unreferenced_files = 0;  // SST and blob files in `dir` the version does not list (obsolete
                                      // files RocksDB deletes at its next read-write open; not a problem)
  };
  std::vector<Database> databases;
  std::vector<FsckProblem> problems;  // empty: every check passed
};

// `zonekv fs fsck --deep`: opens every RocksDB database in `fs` (each
// directory holding a CURRENT file) read-only through `fs`, with the
// options of its OPTIONS file (or default options for each column family
// when that does not load), and checks that every SST and blob file of the
// current version exists with the size RocksDB recorded, every SST block's
// checksum (DB::VerifyChecksum), every record of every blob file (its
// header and blob CRCs, garbage records too, by zonekv's own reader of
// RocksDB's blob file format), and every key and value of every column
// family, which RocksDB reads with its checksums verified. Writes nothing
// (no LOG file either). A problem names the database, the file and what
// RocksDB said. A database with custom comparators or merge operators is
// checked only as far as RocksDB can open it without them.
DeepCheckResult DeepCheck(const std::shared_ptr<ZoneFs>& fs);

// A file with its extents, for tools (`zonekv fs dump`).
struct FileExtents {
  FileView file;
  struct Extent {
    uint32_t zone;
    uint64_t offset_bytes;  // relative to the zone start
    uint64_t length_bytes;  // exact; occupies it rounded up to the block size
  };
  std::vector<Extent> extents;
};

class ZoneFs : public std::enable_shared_from_this<ZoneFs> {
 public:
  class Impl;  // the engine (src/fs/zone_fs_impl.h)

  // mkfs: resets every zone and writes a superblock and an empty file table.
  static Status Format(ZonedDevice* dev, const ZoneFsOptions& opts);
  // Replays the journal. A read-write mount then writes a fresh snapshot to
  // another metadata zone, closes zones left open, applies the reset policy
  // and starts the cleaner. A damaged superblock or journal record is
  // Corruption naming the zone and offset.
  static Status Mount(std::shared_ptr<ZonedDevice> dev, const ZoneFsOptions& opts,
                      std::shared_ptr<ZoneFs>* out);

  // A rocksdb::FileSystem over this ZoneFs (give it to rocksdb::NewCompositeEnv).
  std::shared_ptr<rocksdb::FileSystem> file_system();
  // Attaches job, level, key range to the files RocksDB creates (hints down).
  std::shared_ptr<rocksdb::EventListener> listener();

  // A consistent snapshot of the data zones and of the live files `files`
  // selects (as policies see it, without allocation reservations). Copying
  // files costs O(files + extents) under the file system's lock: callers
  // that read zones only (free space, each zone's youngest blob file) ask
  // for none, callers that map SSTs to zones for SSTs.
  FsView View(ViewFiles files = ViewFiles::kAll) const;
  // The data zones and only the live SSTs with these RocksDB file numbers
  // (in any directory; a number listed twice counts once), by name: what
  // one compaction's S_same and S_inval need. O(zones + those files'
  // extents) under the lock, however many SSTs there are.
  FsView SstView(const std::vector<uint64_t>& numbers) const;
  // Counters and ratios (zone_fs_stats.h; ToJson gives the fs.* keys of
  // docs/metrics.md). Copies the counters and the zone table under the file
  // system's lock: O(zones), cheap enough to sample every second.
  ZoneFsStats Stats() const;
  // Checks extents against the zones: every extent within its zone's write
  // pointer, no two extents overlapping, per-zone valid bytes equal to the
  // sum of the extents in it. Returns every problem (empty = clean).
  std::vector<FsckProblem> Fsck() const;
  // What the mount repaired, one sentence each: a file whose journal record
  // outlived its data in a power loss with a volatile write cache (the
  // record reached the media, the data did not, and the sync that wrote both
  // was never acknowledged) is cut at the zone's write pointer, in memory
  // (read-only) or for good (read-write: the snapshot the mount writes).
  std::vector<std::string> MountRepairs() const;
  // RocksDB's compaction score per level, copied into every FsView from now
  // on (FsView::level_scores, used by CAZA). Supplied by whoever watches
  // the DB (the compactor or the benchmark runner).
  void SetLevelScores(std::vector<double> scores);
  // Until ClearThreadJobHint(), SST files created by the calling thread get
  // this hint's job, level and key range (an external compactor knows them
  // before it writes; RocksDB tells a file system neither for CompactFiles
  // jobs). CAZA places those files by them.
  static void SetThreadJobHint(const FileHints& hint);
  static void ClearThreadJobHint();
  // Records the level and own key range of an SST RocksDB has written
  // (`path` as RocksDB names it; a file no longer live is ignored).
  // listener() does this for flushes and RocksDB's own compactions; an
  // external compactor must do it for its CompactFiles outputs, which
  // RocksDB reports to no listener. Until then such a file carries its
  // job hint's range, the whole job's. The range is read afterwards, not by
  // the file's own placement: CAZA's partner and neighbour search for later
  // SSTs, and the SST index.
  void NoteFileRange(const std::string& path, int level, const std::string& smallest_key,
                     const std::string& largest_key);
  // While on, the calling thread runs the space-pressure blob GC: what it
  // writes (the collection's outputs, RocksDB's MANIFEST and OPTIONS) may
  // use the recovery reserve and the room other writers leave it, so that
  // the collection that frees space never waits for the writers it frees
  // it for.
  static void SetThreadReclaiming(bool on);
  // Every live file with its extents, by name.
  std::vector<FileExtents> Files() const;
  // Reads a whole file (tools and tests).
  Status ReadFile(const std::string& name, std::string* data) const;
  // Files() and the journal position as JSON.
  Json Dump() const;
  // The upper layer's reclaimer (nullptr: none), asked by writers that find
  // no zone (SpaceReclaimer, fs_policy.h). Returns once no call to the
  // previous reclaimer is in flight: from then on the file system holds no
  // reference to it, so its last reference (which may own this file system)
  // is never dropped on a file-system thread.
  // REQUIRES: not called from within a reclaimer's RequestSpace or Reclaimable.
  void SetSpaceReclaimer(std::shared_ptr<SpaceReclaimer> reclaimer);
  // Blob files numbered up to `max_number` are being collected by a
  // targeted blob GC (0: none): zone cleaning leaves the zones holding
  // their data alone instead of copying what is about to become garbage,
  // and writers other than the collection's own leave `reserve_bytes` of
  // empty zones to it (the live bytes it may copy), so that it is not
  // starved by the writes it makes room for.
  void SetBlobGcTarget(uint64_t max_number, uint64_t reserve_bytes);
  // Back-pressure: the bytes per second at which flushes may write new
  // data (0: no limit). A flush's SST and blob writes wait for their turn,
  // without any lock, at most 100 ms per write; RocksDB then stalls its
  // writers once its memtables are full. WALs, compactions and the blob
  // GC's own writes are not paced.
  void SetNewDataRate(uint64_t bytes_per_sec);
  // Makes all metadata durable.
  Status Sync();
  std::shared_ptr<ZonedDevice> device();
  const ZoneFsOptions& options() const;

  // Stops the cleaner and syncs.
  ~ZoneFs();

  // For the FileSystem adapter in src/fs only.
  Impl* impl() const { return impl_.get(); }

 private:
  explicit ZoneFs(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace zonekv
