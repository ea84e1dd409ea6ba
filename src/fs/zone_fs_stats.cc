// ZoneFsStats: its derived values and its JSON (the fs.* keys of docs/metrics.md).
#include "zonekv/zone_fs_stats.h"

namespace zonekv {

namespace {

double Us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

double Ratio(uint64_t a, uint64_t b) { return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b); }

}  // namespace

Json PolicyTimeStats::ToJson() const {
  Json j = Json::Object();
  j.Set("calls", calls).Set("total_us", Us(total_ns)).Set("max_us", Us(max_ns));
  return j;
}

double FsJournalStats::syncs_per_flush() const { return Ratio(syncs, flushes); }

double FsJournalStats::records_per_write() const { return Ratio(batches_written, writes); }

Json FsJournalStats::ToJson() const {
  Json j = Json::Object();
  j.Set("syncs", syncs)
      .Set("flushes", flushes)
      .Set("syncs_per_flush", syncs_per_flush())
      .Set("writes", writes)
      .Set("records_per_write", records_per_write());
  return j;
}

uint64_t ZoneFsStats::zc_copy_other_bytes() const {
  return zc_copy_bytes(FileKind::kOther) + zc_copy_bytes(FileKind::kManifest);
}

uint64_t ZoneFsStats::zc_copy_bytes() const {
  uint64_t total = 0;
  for (uint64_t b : zc_copy_bytes_by_kind) total += b;
  return total;
}

double ZoneFsStats::r_wp() const {
  return resets_runtime == 0 ? 0.0 : r_wp_sum / static_cast<double>(resets_runtime);
}

double ZoneFsStats::fs_waf() const {
  if (host_write_bytes == 0) return 1.0;
  return static_cast<double>(host_write_bytes + zc_copy_bytes()) / static_cast<double>(host_write_bytes);
}

double ZoneFsStats::space_used_ratio() const { return Ratio(written_capacity_bytes, data_capacity_bytes); }

double ZoneFsStats::free_ratio() const { return Ratio(free_bytes, free_bytes + used_bytes + reclaimable_bytes); }

double ZoneFsStats::space_amp() const {
  double used = static_cast<double>(used_bytes);
  return used > 0 ? (used + static_cast<double>(reclaimable_bytes)) / used : 0.0;
}

Json ZoneFsStats::ToJson() const {
  Json zc = Json::Object();
  zc.Set("blob", zc_copy_bytes(FileKind::kBlob))
      .Set("sst", zc_copy_bytes(FileKind::kSst))
      .Set("wal", zc_copy_bytes(FileKind::kWal))
      .Set("other", zc_copy_other_bytes())
      .Set("total", zc_copy_bytes());
  Json by_level = Json::Object();
  for (int l = 0; l < kZcLevels - 1; l++) by_level.Set("L" + std::to_string(l), zc_copy_sst_by_level[l]);
  by_level.Set("unknown", zc_copy_sst_by_level[kZcLevels - 1]);
  Json policy = Json::Object();
  policy.Set("alloc", alloc_time.ToJson()).Set("zc", zc_time.ToJson()).Set("reset", reset_time.ToJson());
  Json reasons = Json::Object();
  for (const auto& [reason, n] : alloc_reasons) reasons.Set(reason, n);
  Json j = Json::Object();
  j.Set("host_write_bytes", host_write_bytes)
      .Set("zc_copy_bytes", zc)
      .Set("zc_copy_sst_by_level", by_level)
      .Set("resets_runtime", resets_runtime)
      .Set("resets_zc", resets_zc)
      .Set("ezrc", ezrc())
      .Set("r_wp", r_wp())
      .Set("r_wp_min", r_wp_min)
      .Set("fs_waf", fs_waf())
      .Set("space_used_ratio", space_used_ratio())
      .Set("free_ratio", free_ratio())
      .Set("free_bytes", free_bytes)
      .Set("used_bytes", used_bytes)
      .Set("reclaimable_bytes", reclaimable_bytes)
      .Set("io_block_time_s", io_block_time_s())
      .Set("policy_time_us", policy)
      .Set("finishes", finishes)
      .Set("finishes_avoided", finishes_avoided)
      .Set("nospace_errors", nospace_errors)
      .Set("zone_preemptions", zone_preemptions)
      .Set("alloc_reasons", reasons)
      .Set("zc_passes", zc_passes)
      .Set("zc_emergency_passes", zc_emergency_passes)
      .Set("files", files)
      .Set("sst_index", Json::Object()
                            .Set("files", sst_index_files)
                            .Set("overlapping", sst_index_overlapping)
                            .Set("overlapping_peak", sst_index_overlapping_peak))
      .Set("zones_empty", zones_empty)
      .Set("zones_full", zones_full)
      .Set("journal_rolls", journal_rolls)
      .Set("lock", lock.ToJson())
      .Set("journal", journal.ToJson())
      .Set("space", space.ToJson());
  return j;
}

Json FsSpaceStats::ToJson() const {
  Json j = Json::Object();
  j.Set("reserve_zones", static_cast<uint64_t>(reserve_zones))
      .Set("recovery_mode", recovery_mode)
      .Set("recovery_entries", recovery_entries)
      .Set("reserve_loans", reserve_loans)
      .Set("compaction_loans", compaction_loans)
      .Set("reclaim_requests", reclaim_requests)
      .Set("reclaim_waits", reclaim_waits)
      .Set("zc_passes_blob_gc", zc_passes_blob_gc)
      .Set("new_data_rate", new_data_rate)
      .Set("paced_writes", paced_writes)
      .Set("pace_wait_s", static_cast<double>(pace_wait_us) / 1e6);
  return j;
}

}  // namespace zonekv
