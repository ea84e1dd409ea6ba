// NativeCompactionObserver: the compactor's per-job metrics for compactions
// RocksDB picks and runs itself (the native baseline), from its
// EventListener callbacks and the file system's zone layout. OnCompactionBegin
// takes the layout (S_same of the inputs); S_inval waits until RocksDB has
// deleted the inputs, as for the external compactor (inval_scorer.h).
#include <chrono>
#include <map>
#include <set>

#include <rocksdb/listener.h>

#include "compaction_metrics.h"
#include "inval_scorer.h"
#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace zonekv {

class NativeCompactionObserver::Listener : public rocksdb::EventListener {
 public:
  explicit Listener(std::function<Status(FsView*)> layout) : layout_(layout), scorer_(std::move(layout), &metrics_) {}

  const char* Name() const override { return "zonekv.NativeCompactionObserver"; }

  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override {
    Job j;
    for (const auto& f : ci.input_file_infos) j.inputs.push_back(f.file_number);
    if (layout_ && layout_(&j.before).ok()) {
      j.layout = ZoneLayout::FromFsView(j.before);
      j.have_layout = true;
    }
    j.start = std::chrono::steady_clock::now();
    MutexLock l(&mu_);
    running_[ci.job_id] = std::move(j);
  }

  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override {
    Job j;
    {
      MutexLock l(&mu_);
      auto it = running_.find(ci.job_id);
      if (it == running_.end()) return;
      j = std::move(it->second);
      running_.erase(it);
    }
    if (!ci.status.ok()) {
      metrics_.AddFailed();
      return;
    }
    CompactionJobRecord r;
    r.job_id = static_cast<uint64_t>(ci.job_id);
    r.input_level = ci.base_input_level;
    r.output_level = ci.output_level;
    r.input_files = ci.input_file_infos.size();
    r.bytes_read = ci.stats.total_input_bytes;
    r.bytes_written = ci.stats.total_output_bytes;
    r.time_us = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - j.start).count());
    r.picked_by = "native";
    // A trivial move's outputs are its inputs.
    std::set<uint64_t> inputs(j.inputs.begin(), j.inputs.end());
    r.trivial_move = !ci.output_file_infos.empty();
    for (const auto& f : ci.output_file_infos) r.trivial_move = r.trivial_move && inputs.count(f.file_number) > 0;
    // S_same and S_inval describe data a job reads and invalidates; a move
    // does neither, so it is counted but not scored.
    if (!j.have_layout || r.trivial_move) {
      metrics_.AddJob(r);
      return;
    }
    std::vector<SstFileView> files;
    for (uint64_t number : j.inputs) {
      SstFileView v;
      v.number = number;
      if (const auto* zones = j.layout.Find(number)) {
        for (const auto& [zone, bytes] : *zones) v.size_bytes += bytes;
      }
      files.push_back(v);
    }
    std::vector<const SstFileView*> ptrs;
    for (const auto& f : files) ptrs.push_back(&f);
    r.s_same = SameZoneScore(ptrs, j.layout);
    scorer_.Add(r, std::move(j.inputs), std::move(j.before), std::move(j.layout));
  }

  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override { scorer_.FileDeleted(info.file_path); }

  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo&) override { metrics_.AddSubcompaction(); }

  CompactionStats Stats() {
    scorer_.Flush();
    return metrics_.Stats();
  }

 private:
  struct Job {
    std::chrono::steady_clock::time_point start;
    std::vector<uint64_t> inputs;
    FsView before;
    ZoneLayout layout;
    bool have_layout = false;
  };

  const std::function<Status(FsView*)> layout_;
  CompactionMetrics metrics_;
  InvalScorer scorer_;  // after metrics_
  Mutex mu_;
  std::map<int, Job> running_ ZONEKV_GUARDED_BY(mu_);  // by RocksDB job id
};

NativeCompactionObserver::NativeCompactionObserver(std::function<Status(FsView*)> layout)
    : listener_(std::make_shared<Listener>(std::move(layout))) {}

NativeCompactionObserver::~NativeCompactionObserver() = default;

std::shared_ptr<rocksdb::EventListener> NativeCompactionObserver::listener() const { return listener_; }

CompactorStats NativeCompactionObserver::Stats() const {
  CompactorStats st;
  st.picker = "native";
  st.metrics = listener_->Stats();
  return st;
}

}  // namespace zonekv
