#include "subcompaction_relay.h"

#include <chrono>

#include <rocksdb/listener.h>

namespace zonekv {

namespace {

// The external job whose CompactFiles runs on this thread (between JobBegin
// and JobEnd), and the job whose hint a subcompaction on this thread was
// handed (0: none).
thread_local const CompactionJobHint* t_job = nullptr;
thread_local uint64_t t_relayed_job = 0;

}  // namespace

SubcompactionRelay::SubcompactionRelay(std::function<void(const CompactionJobHint&)> on_job_start,
                                       std::function<void(uint64_t, const Status&)> on_job_end, int wait_ms)
    : on_job_start_(std::move(on_job_start)), on_job_end_(std::move(on_job_end)), wait_ms_(wait_ms) {}

void SubcompactionRelay::JobBegin(const CompactionJobHint& hint) {
  if (!on_job_start_) return;
  t_job = &hint;
  MutexLock l(&mu_);
  ++in_compact_files_;
}

void SubcompactionRelay::JobEnd() {
  if (!on_job_start_) return;
  const uint64_t id = t_job->job_id;
  t_job = nullptr;
  MutexLock l(&mu_);
  --in_compact_files_;
  for (auto it = by_rocksdb_id_.begin(); it != by_rocksdb_id_.end();) {
    it = it->second.job_id == id ? by_rocksdb_id_.erase(it) : std::next(it);
  }
}

bool SubcompactionRelay::SubBegin(const rocksdb::SubcompactionJobInfo& si) {
  if (!on_job_start_) return false;
  if (t_job != nullptr) {  // subcompaction 0, on the thread that holds the hint
    MutexLock l(&mu_);
    by_rocksdb_id_[si.job_id] = *t_job;
    cv_.notify_all();
    return true;
  }
  CompactionJobHint hint;
  {
    MutexLock l(&mu_);
    if (in_compact_files_ == 0) return false;  // no external job runs: a native one's
    bool found = cv_.wait_for(l, std::chrono::milliseconds(wait_ms_), [&]() ZONEKV_REQUIRES(mu_) {
      return by_rocksdb_id_.count(si.job_id) > 0;
    });
    if (!found) {
      ++missed_;
      return true;
    }
    hint = by_rocksdb_id_[si.job_id];
    ++relayed_;
  }
  on_job_start_(hint);
  t_relayed_job = hint.job_id;
  return true;
}

void SubcompactionRelay::SubCompleted(const rocksdb::SubcompactionJobInfo&) {
  if (t_relayed_job == 0) return;
  const uint64_t id = t_relayed_job;
  t_relayed_job = 0;
  if (on_job_end_) on_job_end_(id, Status::OK());
}

uint64_t SubcompactionRelay::relayed() const {
  MutexLock l(&mu_);
  return relayed_;
}

uint64_t SubcompactionRelay::missed() const {
  MutexLock l(&mu_);
  return missed_;
}

}  // namespace zonekv
