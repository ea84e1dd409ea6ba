// CompactionMetrics: collects what one compactor run did, thread-safe;
// Stats() sums it up as CompactionStats (zonekv/compaction_stats.h).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "zonekv/compaction_stats.h"

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
  mutable std::mutex mu_;
  std::vector<uint64_t> pick_ns_;           // GUARDED_BY(mu_)
  std::vector<CompactionJobRecord> jobs_;   // GUARDED_BY(mu_)
  uint64_t aborted_ = 0;                    // GUARDED_BY(mu_)
  uint64_t failed_ = 0;                     // GUARDED_BY(mu_)
  uint64_t subcompactions_ = 0;             // GUARDED_BY(mu_)
};

}  // namespace zonekv
