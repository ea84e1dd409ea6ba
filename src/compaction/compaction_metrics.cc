#include "compaction_metrics.h"
#include "zonekv/mutex.h"

#include <algorithm>

namespace zonekv {

void CompactionMetrics::AddPickTime(uint64_t ns) {
  MutexLock l(&mu_);
  pick_ns_.push_back(ns);
}

void CompactionMetrics::AddJob(const CompactionJobRecord& job) {
  MutexLock l(&mu_);
  jobs_.push_back(job);
}

void CompactionMetrics::AddAborted() {
  MutexLock l(&mu_);
  ++aborted_;
}

void CompactionMetrics::AddFailed() {
  MutexLock l(&mu_);
  ++failed_;
}

void CompactionMetrics::AddSubcompaction() {
  MutexLock l(&mu_);
  ++subcompactions_;
}

CompactionStats CompactionMetrics::Stats() const {
  MutexLock l(&mu_);
  CompactionStats st;
  for (const CompactionJobRecord& j : jobs_) {
    st.all.Add(j);
    st.per_level[j.input_level].Add(j);
    ++st.picked_by[j.picked_by];
  }
  st.jobs = jobs_;
  st.aborted = aborted_;
  st.failed = failed_;
  st.subcompactions = subcompactions_;
  std::vector<uint64_t> sorted = pick_ns_;
  std::sort(sorted.begin(), sorted.end());
  st.pick_calls = sorted.size();
  for (uint64_t ns : sorted) st.pick_mean_ns += static_cast<double>(ns);
  if (!sorted.empty()) st.pick_mean_ns /= static_cast<double>(sorted.size());
  // p99: the smallest sample >= 99% of all samples (nearest rank).
  st.pick_p99_ns = sorted.empty() ? 0 : sorted[(sorted.size() * 99 + 99) / 100 - 1];
  st.pick_max_ns = sorted.empty() ? 0 : sorted.back();
  return st;
}

}  // namespace zonekv
