// ZoneFsStats: the file system's statistics as typed fields (ZoneFs::Stats).
//
// Counters are cumulative since the mount; sizes are bytes and times carry
// their unit in the name. Callers read the fields; ToJson writes them under
// the fs.* keys of docs/metrics.md, for output only (the benchmark adds the
// device's counters and its end-of-run keys beside them).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "zonekv/fs_lock_stats.h"
#include "zonekv/fs_policy.h"
#include "zonekv/json.h"

namespace zonekv {

// Wall time of one policy family's calls, each including the construction
// of its FsView (fs.policy_time_us.{alloc, zc, reset}).
struct PolicyTimeStats {
  uint64_t calls = 0;
  uint64_t total_ns = 0;
  uint64_t max_ns = 0;

  // {calls, total_us, max_us}, microseconds with fractions.
  Json ToJson() const;
};

// Journal commits (fs.journal.*).
struct FsJournalStats {
  uint64_t syncs = 0;            // commit requests (file syncs, directory fsyncs, ZoneFs::Sync, resets)
  uint64_t flushes = 0;          // device flushes made by commits
  uint64_t writes = 0;           // journal records written (a roll counts one)
  uint64_t batches_written = 0;  // edit batches those records held

  double syncs_per_flush() const;    // syncs / flushes; 0 with no flush
  double records_per_write() const;  // batches_written / writes; 0 with no write
  // {syncs, flushes, syncs_per_flush, writes, records_per_write}.
  Json ToJson() const;
};

// Space pressure (fs.space.*, docs/space.md).
struct FsSpaceStats {
  uint32_t reserve_zones = 0;          // the effective recovery reserve
  bool recovery_mode = false;          // at the moment of the call
  uint64_t recovery_entries = 0;       // times recovery mode was entered
  uint64_t reserve_loans = 0;          // of those, to let new data (a WAL, a flush) in while the reclaimer held garbage
  uint64_t compaction_loans = 0;       // reserve lent to a compaction's outputs the reclaimer waited for
  uint64_t reclaim_requests = 0;       // space requests to the upper layer's reclaimer
  uint64_t reclaim_waits = 0;          // allocations that waited for it (it had garbage or work)
  uint64_t zc_passes_blob_gc = 0;      // cleaning passes that left zones to a running targeted blob GC
  uint64_t new_data_rate = 0;          // SetNewDataRate at the moment of the call, bytes/s (0: no limit)
  uint64_t paced_writes = 0;           // flush writes that waited for the new-data rate
  uint64_t pace_wait_us = 0;           // their waits in all

  // {reserve_zones, recovery_mode, recovery_entries, reserve_loans, compaction_loans, reclaim_requests,
  // reclaim_waits, zc_passes_blob_gc, new_data_rate, paced_writes,
  // pace_wait_s}.
  Json ToJson() const;
};

struct ZoneFsStats {
  uint64_t host_write_bytes = 0;  // bytes RocksDB appended, all file kinds, before block padding
  // Live bytes zone cleaning moved, by the kind of their file (index:
  // FileKind), each extent rounded up to the block size.
  uint64_t zc_copy_bytes_by_kind[kFileKindCount] = {};
  // Of zc_copy_bytes_by_kind[kSst]: by the SST's level when it was copied
  // (index 0..kZcLevels-2 = L0.., last = level unknown or beyond).
  static constexpr int kZcLevels = 8;
  uint64_t zc_copy_sst_by_level[kZcLevels] = {};
  uint64_t resets_runtime = 0;  // data zones reset by the runtime reset policy
  uint64_t resets_zc = 0;       // cleaning victims reset after migration
  double r_wp_sum = 0;          // over runtime resets: the zone's write pointer / its capacity
  double r_wp_min = 0;          // the lowest such fraction
  uint64_t finishes = 0;        // zones the file system finished
  uint64_t finishes_avoided = 0;  // active zones with no valid data reset instead of finished (in ezrc)
  // Data zones at the moment of the call.
  uint64_t data_capacity_bytes = 0;     // capacity of all data zones
  uint64_t written_capacity_bytes = 0;  // capacity of the data zones with anything written
  uint32_t zones_empty = 0;
  uint32_t zones_full = 0;
  uint64_t free_bytes = 0;         // FsView::free_bytes
  uint64_t used_bytes = 0;         // valid bytes, FsView::used_bytes
  uint64_t reclaimable_bytes = 0;  // written, not valid, FsView::reclaimable_bytes
  uint64_t io_block_us = 0;        // writers' waits for a zone, summed over writers
  PolicyTimeStats alloc_time, zc_time, reset_time;
  uint64_t nospace_errors = 0;
  uint64_t zone_preemptions = 0;     // zones taken back from an idle writer
  std::map<std::string, uint64_t> alloc_reasons;  // zone allocations by AllocDecision::reason
  uint64_t zc_passes = 0;            // cleaner rounds
  uint64_t zc_emergency_passes = 0;  // victims of the emergency pass
  uint64_t files = 0;                // live files
  // CAZA's SST index (SstIndex): SSTs with a level and key range; of them,
  // those in the scanned (overlapping) sets now, and the most there ever were.
  uint64_t sst_index_files = 0, sst_index_overlapping = 0, sst_index_overlapping_peak = 0;
  uint64_t journal_rolls = 0;        // metadata-zone rollovers
  FsLockStats lock;
  FsJournalStats journal;
  FsSpaceStats space;

  uint64_t zc_copy_bytes(FileKind kind) const { return zc_copy_bytes_by_kind[static_cast<int>(kind)]; }
  uint64_t zc_copy_other_bytes() const;  // MANIFEST and other files (zc_copy_bytes.other)
  uint64_t zc_copy_bytes() const;        // all kinds
  uint64_t ezrc() const { return resets_runtime + resets_zc + finishes_avoided; }
  double r_wp() const;               // mean over runtime resets; 0 when there was none
  double fs_waf() const;             // (host + ZC copy) / host; 1 when nothing was written
  double space_used_ratio() const;   // written_capacity_bytes / data_capacity_bytes; 0 without data zones
  double free_ratio() const;         // free / (free + used + reclaimable); 0 for no zones (FsView::free_ratio)
  double space_amp() const;          // (used + reclaimable) / used; 0 when nothing is valid
  double io_block_time_s() const { return static_cast<double>(io_block_us) / 1e6; }

  // The fs.* object: host_write_bytes, zc_copy_bytes {blob, sst, wal, other
  // (with MANIFEST), total}, resets_runtime, resets_zc, ezrc, r_wp,
  // r_wp_min, fs_waf, space_used_ratio, free_ratio, free_bytes, used_bytes,
  // reclaimable_bytes, io_block_time_s, policy_time_us {alloc, zc, reset},
  // finishes, finishes_avoided, nospace_errors, zone_preemptions, alloc_reasons, zc_passes,
  // zc_emergency_passes, files, zones_empty, zones_full, journal_rolls,
  // lock, journal, space.
  Json ToJson() const;
};

}  // namespace zonekv
