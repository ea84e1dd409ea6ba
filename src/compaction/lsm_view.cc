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
  view.max_bytes_for_level_base = options.max_bytes_for_level_base;
  view.max_bytes_for_level_multiplier = options.max_bytes_for_level_multiplier;
  view.max_compaction_bytes =
      options.max_compaction_bytes > 0 ? options.max_compaction_bytes : 25 * options.target_file_size_base;
  return view;
}

}  // namespace zonekv
