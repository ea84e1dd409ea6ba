// SubcompactionRelay: hands an external job's hint (CompactionJobHint) to
// the threads that run its subcompactions.
//
// The compactor gives the zone allocator each job's hint on the thread that
// calls CompactFiles. Under kCompactionStyleLevel, RocksDB 7.8 splits a
// CompactFiles job into subcompactions (CompactionJob::Run): subcompaction 0
// runs on the calling thread, the others on threads Run starts just before
// it. RocksDB notifies no listener when a CompactFiles job begins, but it
// calls OnSubcompactionBegin on every subcompaction's own thread with the
// job's RocksDB id. So the relay learns that id from subcompaction 0 (the
// thread that holds the hint) and the other subcompactions wait for it, at
// most `wait_ms` (they may begin first; subcompaction 0 begins right after
// Run has started them, unless RocksDB skips its notification because the
// DB is closing).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>

#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace rocksdb {
struct SubcompactionJobInfo;
}  // namespace rocksdb

namespace zonekv {

class SubcompactionRelay {
 public:
  // `on_job_start`/`on_job_end`: CompactorOptions' (may be empty: the relay
  // then does nothing).
  SubcompactionRelay(std::function<void(const CompactionJobHint&)> on_job_start,
                     std::function<void(uint64_t job_id, const Status& result)> on_job_end, int wait_ms = 1000);

  // On the thread that calls CompactFiles, around the call, after
  // on_job_start(hint) ran there. `hint` must outlive JobEnd.
  void JobBegin(const CompactionJobHint& hint) ZONEKV_EXCLUDES(mu_);
  void JobEnd() ZONEKV_EXCLUDES(mu_);

  // RocksDB's OnSubcompactionBegin/Completed. SubBegin returns false when
  // the subcompaction belongs to no external job (a native one's, for the
  // caller to hand on). A subcompaction other than 0 gets the hint by
  // on_job_start on its thread, and on_job_end when it completes.
  bool SubBegin(const rocksdb::SubcompactionJobInfo& si) ZONEKV_EXCLUDES(mu_);
  void SubCompleted(const rocksdb::SubcompactionJobInfo& si);

  uint64_t relayed() const ZONEKV_EXCLUDES(mu_);  // subcompactions handed a hint
  uint64_t missed() const ZONEKV_EXCLUDES(mu_);   // waited wait_ms in vain: no hint

 private:
  const std::function<void(const CompactionJobHint&)> on_job_start_;
  const std::function<void(uint64_t, const Status&)> on_job_end_;
  const int wait_ms_;
  mutable Mutex mu_;
  std::condition_variable_any cv_;
  int in_compact_files_ ZONEKV_GUARDED_BY(mu_) = 0;  // JobBegin without JobEnd
  std::map<int, CompactionJobHint> by_rocksdb_id_ ZONEKV_GUARDED_BY(mu_);  // learned from subcompaction 0
  uint64_t relayed_ ZONEKV_GUARDED_BY(mu_) = 0;
  uint64_t missed_ ZONEKV_GUARDED_BY(mu_) = 0;
};

}  // namespace zonekv
