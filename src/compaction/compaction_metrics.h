// Counters of one compactor run, thread-safe, rendered as Json.
//
// Names (stable): compactions, bytes_read, bytes_written, time_us,
// read_mb_per_s (bytes_read / time, MiB/s), trivial_move_rewrites {jobs,
// bytes_written} (jobs RocksDB would have moved without rewriting),
// aborted (CompactFiles refused a conflicting job; retried later), failed,
// subcompactions (RocksDB OnSubcompactionBegin calls), picked_by {sica, zaca},
// s_same_mean, s_inval_mean (null without a layout), per_level [...] by input
// level with the same fields, picker_time_us {calls, mean, p99, max}
// (CPU time of the picking thread per Pick call, microseconds, fractional),
// jobs [...] one record per compaction.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

struct JobRecord {
  uint64_t job_id = 0;
  int input_level = 0;
  int output_level = 1;
  size_t input_files = 0;
  uint64_t bytes_read = 0;     // RocksDB CompactionJobStats::total_input_bytes
  uint64_t bytes_written = 0;  // total_output_bytes
  uint64_t time_us = 0;        // wall time of CompactFiles
  bool trivial_move = false;
  std::string picked_by;
  double s_same = -1;          // < 0: no layout
  double s_inval = -1;
};

class CompactionMetrics {
 public:
  void AddPickTime(uint64_t ns);  // one picker call, thread CPU nanoseconds
  void AddJob(const JobRecord& job);
  void AddAborted();
  void AddFailed();
  void AddSubcompaction();
  Json ToJson() const;

 private:
  mutable std::mutex mu_;
  std::vector<uint64_t> pick_ns_;   // GUARDED_BY(mu_)
  std::vector<JobRecord> jobs_;     // GUARDED_BY(mu_)
  uint64_t aborted_ = 0;            // GUARDED_BY(mu_)
  uint64_t failed_ = 0;             // GUARDED_BY(mu_)
  uint64_t subcompactions_ = 0;     // GUARDED_BY(mu_)
};

}  // namespace zonekv
