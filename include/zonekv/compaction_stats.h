// CompactionStats: what a compactor's jobs (or the RocksDB compactions an
// observer recorded) did, as typed fields. Callers read the fields; ToJson
// writes the controllers.compactor.metrics keys of docs/metrics.md, for
// output only. The formulas of S_same and S_inval are in compactor.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "zonekv/json.h"

namespace zonekv {

// One compaction job.
struct CompactionJobRecord {
  uint64_t job_id = 0;
  int input_level = 0;
  int output_level = 1;
  size_t input_files = 0;      // both levels
  uint64_t bytes_read = 0;     // RocksDB CompactionJobStats::total_input_bytes
  uint64_t bytes_written = 0;  // total_output_bytes
  uint64_t time_us = 0;        // wall time of CompactFiles (native: from OnCompactionBegin to OnCompactionCompleted)
  bool trivial_move = false;   // RocksDB would move (external: rewritten anyway) or moved (native) the file
  std::string picked_by;       // "sica", "zaca" or "native"
  double s_same = -1;          // < 0: not scored (no layout; a native trivial move)
  double s_inval = -1;         // < 0: not scored

  // {job, input_level, output_level, input_files, bytes_read,
  // bytes_written, time_us, trivial_move, picked_by, s_same, s_inval}, the
  // scores null when not scored.
  Json ToJson() const;
};

// Sums over a set of jobs (all of them, or those of one input level).
struct CompactionTotals {
  uint64_t compactions = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t time_us = 0;
  uint64_t trivial_moves = 0;               // jobs with trivial_move
  uint64_t trivial_move_bytes_written = 0;  // what they wrote
  uint64_t s_same_jobs = 0;                 // jobs with an S_same
  double s_same_sum = 0;
  uint64_t s_inval_jobs = 0;                // jobs with an S_inval
  double s_inval_sum = 0;

  void Add(const CompactionJobRecord& job);
  double read_mb_per_s() const;  // bytes_read / 2^20 / seconds; 0 without time
  // Means over the scored jobs; empty when none was scored.
  std::optional<double> s_same_mean() const;
  std::optional<double> s_inval_mean() const;
  // Sets compactions, bytes_read, bytes_written, time_us, read_mb_per_s,
  // trivial_move_rewrites {jobs, bytes_written}, s_same_mean and
  // s_inval_mean (null when empty) on the object *out (the totals and each
  // per_level entry share them).
  void SetJson(Json* out) const;
};

struct CompactionStats {
  CompactionTotals all;
  std::map<int, CompactionTotals> per_level;  // by input level
  std::map<std::string, uint64_t> picked_by;  // jobs by the picker that chose them
  uint64_t aborted = 0;         // jobs CompactFiles refused as conflicting (retried later)
  uint64_t failed = 0;
  uint64_t subcompactions = 0;  // OnSubcompactionBegin calls
  // Picking: thread CPU time per Pick call.
  uint64_t pick_calls = 0;
  double pick_mean_ns = 0;
  uint64_t pick_p99_ns = 0;  // nearest rank
  uint64_t pick_max_ns = 0;
  std::vector<CompactionJobRecord> jobs;  // in the order they were recorded

  // {compactions, bytes_read, bytes_written, time_us, read_mb_per_s,
  // trivial_move_rewrites, s_same_mean, s_inval_mean, aborted, failed,
  // subcompactions, picked_by, per_level [{level, ...totals}],
  // picker_time_us {calls, mean, p99, max} (microseconds, fractional), jobs}.
  Json ToJson() const;
};

}  // namespace zonekv
