// NativeJobRecorder: records the compactions RocksDB picks and runs itself
// as the external compactor records its own jobs (levels, bytes, time,
// S_same of the inputs when the job begins, S_inval once RocksDB has deleted
// them), and tells a zone allocator (CAZA) what each job is about to write.
// Shared by NativeCompactionObserver (native compaction throughout) and the
// external compactor's hybrid mode (native while free space is plentiful).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "compaction_metrics.h"
#include "inval_scorer.h"
#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace rocksdb {
class DB;
struct CompactionJobInfo;
struct SubcompactionJobInfo;
}  // namespace rocksdb

namespace zonekv {

// The job ids a recorder gives its hints start here, above any id the
// external compactor hands out, so the file system never mixes the outputs
// of a native job with those of an external one.
constexpr uint64_t kNativeHintJobBase = 1ull << 30;

class NativeJobRecorder {
 public:
  // The zone layout comes from `scorer` (InvalScorer::LayoutOf: the zones
  // and the job's inputs only); without one, no S_same/S_inval. `metrics`
  // and `scorer` must outlive the recorder. `on_job_start`/`on_job_end` may be empty; when
  // set, they are called on the compaction's own thread, as
  // CompactorOptions::on_job_start/on_job_end are for external jobs.
  NativeJobRecorder(CompactionMetrics* metrics, InvalScorer* scorer,
                    std::function<void(const CompactionJobHint&)> on_job_start,
                    std::function<void(uint64_t job_id, const Status& result)> on_job_end);

  // RocksDB's OnCompactionBegin and OnCompactionCompleted, on the thread that
  // runs the compaction (RocksDB calls both there, holding no DB mutex).
  // Begin reads the DB's metadata for the job's key range and level scores
  // when a hint is wanted.
  void Begin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) ZONEKV_EXCLUDES(mu_);
  void Completed(const rocksdb::CompactionJobInfo& ci) ZONEKV_EXCLUDES(mu_);
  // RocksDB's OnSubcompactionBegin/Completed, on the thread that runs the
  // subcompaction: its outputs get the job's hint too. SubBegin returns
  // false if the subcompaction is not of a job this recorder saw begin.
  bool SubBegin(const rocksdb::SubcompactionJobInfo& si) ZONEKV_EXCLUDES(mu_);
  void SubCompleted(const rocksdb::SubcompactionJobInfo& si) ZONEKV_EXCLUDES(mu_);

 private:
  struct Job {
    std::chrono::steady_clock::time_point start;
    std::vector<uint64_t> inputs;
    FsView before;
    ZoneLayout layout;
    bool have_layout = false;
    bool hinted = false;
    CompactionJobHint hint;  // when hinted
  };

  CompactionMetrics* const metrics_;
  InvalScorer* const scorer_;
  const std::function<void(const CompactionJobHint&)> on_job_start_;
  const std::function<void(uint64_t, const Status&)> on_job_end_;
  Mutex mu_;
  std::map<int, Job> running_ ZONEKV_GUARDED_BY(mu_);  // by RocksDB job id
};

}  // namespace zonekv
