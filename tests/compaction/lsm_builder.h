// Hand-built LSM views and zone layouts for picker tests. Keys are short
// strings compared bytewise ("a" < "b" < "ba"); sizes are in bytes.
#pragma once

#include <algorithm>
#include <string>

#include "zonekv/compactor.h"

namespace zonekv {

class LsmBuilder {
 public:
  // Targets: L1 = 100 bytes, x10 per level; L0 trigger = 4 files.
  explicit LsmBuilder(int levels = 4) {
    view_.levels.resize(levels);
    view_.level0_file_num_compaction_trigger = 4;
    view_.max_bytes_for_level_base = 100;
    view_.max_bytes_for_level_multiplier = 10;
  }
  // Adds a file. L0 files must be added newest first.
  LsmBuilder& File(int level, uint64_t number, uint64_t size, std::string smallest, std::string largest,
                   bool being_compacted = false) {
    SstFileView f;
    f.number = number;
    f.size_bytes = size;
    f.smallest_key = std::move(smallest);
    f.largest_key = std::move(largest);
    f.being_compacted = being_compacted;
    view_.levels[level].push_back(f);
    if (level > 0) {
      std::sort(view_.levels[level].begin(), view_.levels[level].end(),
                [](const SstFileView& a, const SstFileView& b) { return a.smallest_key < b.smallest_key; });
    }
    return *this;
  }
  LsmBuilder& Running(int level, std::string smallest, std::string largest) {
    view_.running.push_back({level, std::move(smallest), std::move(largest)});
    return *this;
  }
  LsmView& view() { return view_; }

 private:
  LsmView view_;
};

// Places `bytes` of file `number` in `zone`.
inline void Place(ZoneLayout* layout, uint64_t number, uint32_t zone, uint64_t bytes) {
  layout->sst_zones[number][zone] += bytes;
}

}  // namespace zonekv
