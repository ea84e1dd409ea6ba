// CompactionMetrics: collects what one compactor run did, thread-safe;
// Stats() sums it up as CompactionStats (zonekv/compaction_stats.h).
#pragma once

#include <cstdint>
#include <vector>

#include "zonekv/compaction_stats.h"
#include "zonekv/mutex.h"

namespace zonekv {

class CompactionMetrics {
 public:
  void AddPickTime(uint64_t ns);  // one picker call, thread CPU nanoseconds
  void AddJob(const CompactionJobRecord& job);
  void AddAborted();
  void AddFailed();
  void AddSubcompaction();
  CompactionStats Stats() const;

 private:
  mutable Mutex mu_;
  std::vector<uint64_t> pick_ns_ ZONEKV_GUARDED_BY(mu_);
  std::vector<CompactionJobRecord> jobs_ ZONEKV_GUARDED_BY(mu_);
  uint64_t aborted_ ZONEKV_GUARDED_BY(mu_) = 0;
  uint64_t failed_ ZONEKV_GUARDED_BY(mu_) = 0;
  uint64_t subcompactions_ ZONEKV_GUARDED_BY(mu_) = 0;
};

}  // namespace zonekv
