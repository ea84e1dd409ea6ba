// GrandparentCutter: cuts the output files of the external compactor's jobs
// where RocksDB's own leveled compaction would, at the boundaries of the
// files one level below the output level (the job's "grandparents").
//
// RocksDB 7.8 gives a CompactFiles job no grandparents
// (CompactionPicker::CompactFiles passes an empty list), so its outputs are
// cut by size alone. An output file then may span many files of the next
// level, and the job that later compacts it rewrites all of them: with the
// largest-file-first order, the external compactor's L2 -> L3 jobs wrote up
// to 49 MiB each and 6-7x the bytes of RocksDB's own (notes/issue-19.md,
// session 17). The cutter is a RocksDB SstPartitionerFactory: the compactor
// registers each job's grandparents before CompactFiles, and the partitioner
// RocksDB creates for the job's outputs applies RocksDB's three grandparent
// rules (compaction_outputs.cc, ShouldStopBefore), with user keys:
//   1. cut when the file plus the grandparents it overlaps would exceed
//      max_compaction_bytes;
//   2. with level_compaction_dynamic_file_size, cut rather than take in a
//      grandparent file the output could skip (more than 1/8 of the target
//      size crossed at once);
//   3. with level_compaction_dynamic_file_size, cut at a grandparent boundary
//      once the file holds 50% of its target size, 5% more per boundary
//      seen, at most 90%.
// Jobs not registered (RocksDB's own, in hybrid mode) get no partitioner
// and keep RocksDB's cutting.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/sst_partitioner.h>

#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace zonekv {

struct GrandparentFile {
  std::string smallest_key;  // user keys
  std::string largest_key;
  uint64_t size_bytes = 0;
};

// The files of `level` that overlap the user-key range [smallest, largest],
// both ends inclusive: a job's grandparents when `level` lies below its
// output level. REQUIRES: `level` sorted by smallest_key and disjoint (a
// level >= 1); found by binary search.
std::vector<GrandparentFile> OverlappingFiles(const std::vector<SstFileView>& level, const std::string& smallest,
                                              const std::string& largest);

struct CutRules {
  uint64_t max_compaction_bytes = 0;
  uint64_t target_file_bytes = 0;  // the output level's target file size
  bool dynamic_file_size = true;   // rules 2 and 3 (level_compaction_dynamic_file_size)
};

// The cutting decision for one run of output files, keys in ascending
// bytewise order. `grandparents` sorted and disjoint (a level >= 1).
class GrandparentCuts {
 public:
  GrandparentCuts(std::shared_ptr<const std::vector<GrandparentFile>> grandparents, CutRules rules);

  // `cur` is the next key; `prev`, the last key added to the open output
  // file, which holds `file_bytes` so far (RocksDB's estimate: a file
  // smaller than at the previous call means RocksDB started a new one).
  // True: close the file before `cur`.
  bool ShouldCut(std::string_view prev, std::string_view cur, uint64_t file_bytes);

 private:
  size_t Advance(std::string_view key);  // grandparent boundaries crossed to reach `key`
  uint64_t OverlapAt(std::string_view key) const;
  void StartFile(std::string_view first_key);

  const std::shared_ptr<const std::vector<GrandparentFile>> gp_;
  const CutRules rules_;
  size_t index_ = 0;          // the grandparent at or after the last key
  bool in_gap_ = true;        // the last key lies before gp_[index_]
  bool seen_key_ = false;
  uint64_t overlapped_bytes_ = 0;  // grandparents the open file overlaps
  size_t boundaries_seen_ = 0;     // in the open file
  uint64_t last_file_bytes_ = 0;
};

class GrandparentCutter : public rocksdb::SstPartitionerFactory {
 public:
  // `inner`: a partitioner factory the user set before (may be null); its
  // cuts are kept.
  explicit GrandparentCutter(std::shared_ptr<rocksdb::SstPartitionerFactory> inner);

  const char* Name() const override { return "zonekv.GrandparentCutter"; }

  // Around a CompactFiles job writing [smallest_key, largest_key] to
  // `output_level` (>= 1). Running jobs' ranges at one output level are
  // disjoint (the picker and RocksDB both ensure it), which is how a job's
  // partitioner finds its registration.
  void Register(uint64_t job_id, int output_level, std::string smallest_key, std::string largest_key,
                std::vector<GrandparentFile> grandparents, CutRules rules) ZONEKV_EXCLUDES(mu_);
  void Unregister(uint64_t job_id) ZONEKV_EXCLUDES(mu_);

  std::unique_ptr<rocksdb::SstPartitioner> CreatePartitioner(
      const rocksdb::SstPartitioner::Context& context) const override ZONEKV_EXCLUDES(mu_);

  uint64_t cuts() const { return cuts_->load(std::memory_order_relaxed); }  // files cut by the rules

 private:
  struct Entry {
    int output_level = 0;
    std::string smallest_key;
    std::string largest_key;
    std::shared_ptr<const std::vector<GrandparentFile>> grandparents;
    CutRules rules;
  };
  const std::shared_ptr<rocksdb::SstPartitionerFactory> inner_;
  const std::shared_ptr<std::atomic<uint64_t>> cuts_ = std::make_shared<std::atomic<uint64_t>>(0);
  mutable Mutex mu_;
  std::map<uint64_t, Entry> jobs_ ZONEKV_GUARDED_BY(mu_);
};

}  // namespace zonekv
