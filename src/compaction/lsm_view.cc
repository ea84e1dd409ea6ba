#include <algorithm>

#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "zonekv/compactor.h"

namespace zonekv {

uint64_t LsmView::TargetBytes(int level) const {
  double target = static_cast<double>(max_bytes_for_level_base);
  for (int l = 1; l < level; ++l) target *= max_bytes_for_level_multiplier;
  return target >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(target);
}

uint64_t LsmView::LevelBytes(int level) const {
  uint64_t bytes = 0;
  for (const SstFileView& f : levels[level]) bytes += f.size_bytes;
  return bytes;
}

std::vector<double> LevelScores(const LsmView& view) {
  std::vector<double> scores(view.levels.size(), 0.0);
  for (int level = 0; level + 1 < view.num_levels(); ++level) {
    uint64_t bytes = 0;
    size_t files = 0;
    for (const SstFileView& f : view.levels[level]) {
      if (f.being_compacted) continue;
      bytes += f.size_bytes;
      ++files;
    }
    if (level == 0) {
      double by_count = view.level0_file_num_compaction_trigger > 0
                            ? static_cast<double>(files) / view.level0_file_num_compaction_trigger
                            : 0.0;
      double by_size = view.max_bytes_for_level_base > 0
                           ? static_cast<double>(bytes) / static_cast<double>(view.max_bytes_for_level_base)
                           : 0.0;
      scores[0] = std::max(by_count, by_size);
    } else {
      uint64_t target = view.TargetBytes(level);
      scores[level] = target > 0 ? static_cast<double>(bytes) / static_cast<double>(target) : 0.0;
    }
  }
  return scores;
}

uint64_t PendingCompactionBytes(const LsmView& view) {
  if (view.levels.empty()) return 0;
  const uint64_t l0_bytes = view.LevelBytes(0);
  const bool l0_triggered = static_cast<int64_t>(view.levels[0].size()) >= view.level0_file_num_compaction_trigger ||
                            l0_bytes >= view.max_bytes_for_level_base;
  double needed = l0_triggered ? static_cast<double>(l0_bytes) : 0.0;
  uint64_t carried = l0_triggered ? l0_bytes : 0;  // bytes the level above pushes down
  uint64_t next_bytes = 0;                         // the level's size, if the level above measured it
  for (int level = 1; level + 1 < view.num_levels(); ++level) {
    uint64_t bytes = next_bytes > 0 ? next_bytes : view.LevelBytes(level);
    next_bytes = 0;
    if (level == 1 && l0_triggered) needed += static_cast<double>(bytes);
    bytes += carried;
    carried = 0;
    const uint64_t target = view.TargetBytes(level);
    if (bytes > target) {
      carried = bytes - target;
      next_bytes = view.LevelBytes(level + 1);
      if (next_bytes > 0) {
        needed += static_cast<double>(carried) *
                  (static_cast<double>(next_bytes) / static_cast<double>(bytes) + 1);
      }
    }
  }
  return needed >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(needed);
}

bool CompactionBehind(const LsmView& view) {
  if (view.levels.empty()) return false;
  const int64_t trigger = view.level0_file_num_compaction_trigger;
  if (trigger >= 0) {
    const int64_t slowdown = std::max<int64_t>(trigger, view.level0_slowdown_writes_trigger);
    const int64_t speedup = std::min(2 * trigger, trigger + (slowdown - trigger) / 4);
    if (static_cast<int64_t>(view.levels[0].size()) >= speedup) return true;
  }
  return PendingCompactionBytes(view) >= view.soft_pending_compaction_bytes_limit / 4;
}

LsmView LsmViewFromMetaData(const rocksdb::ColumnFamilyMetaData& meta, const rocksdb::Options& options) {
  LsmView view;
  view.levels.resize(meta.levels.size());
  for (const rocksdb::LevelMetaData& level : meta.levels) {
    if (level.level < 0 || static_cast<size_t>(level.level) >= view.levels.size()) continue;
    std::vector<SstFileView>& files = view.levels[level.level];
    // RocksDB lists L0 newest first and Ln by smallest key, as LsmView wants.
    for (const rocksdb::SstFileMetaData& f : level.files) {
      SstFileView v;
      v.number = f.file_number;
      v.size_bytes = f.size;
      v.smallest_key = f.smallestkey;
      v.largest_key = f.largestkey;
      v.smallest_seqno = f.smallest_seqno;
      v.largest_seqno = f.largest_seqno;
      v.being_compacted = f.being_compacted;
      files.push_back(std::move(v));
    }
  }
  view.level0_file_num_compaction_trigger = options.level0_file_num_compaction_trigger;
  view.level0_slowdown_writes_trigger = options.level0_slowdown_writes_trigger;
  view.soft_pending_compaction_bytes_limit = options.soft_pending_compaction_bytes_limit;
  view.max_bytes_for_level_base = options.max_bytes_for_level_base;
  view.max_bytes_for_level_multiplier = options.max_bytes_for_level_multiplier;
  view.max_compaction_bytes =
      options.max_compaction_bytes > 0 ? options.max_compaction_bytes : 25 * options.target_file_size_base;
  return view;
}

}  // namespace zonekv
