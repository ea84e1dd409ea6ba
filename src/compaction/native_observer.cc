// NativeCompactionObserver: the compactor's per-job metrics for compactions
// RocksDB picks and runs itself (the native baseline), from its
// EventListener callbacks and the file system's zone layout.
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include <rocksdb/listener.h>

#include "compaction_metrics.h"
#include "zonekv/compactor.h"

namespace zonekv {

class NativeCompactionObserver::Listener : public rocksdb::EventListener {
 public:
  explicit Listener(std::function<Status(FsView*)> layout) : layout_(std::move(layout)) {}

  const char* Name() const override { return "zonekv.NativeCompactionObserver"; }

  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override {
    Pending p;
    p.start = std::chrono::steady_clock::now();
    for (const auto& f : ci.input_file_infos) p.inputs.push_back(f.file_number);
    if (layout_ && layout_(&p.before).ok()) {
      p.layout = ZoneLayout::FromFsView(p.before);
      p.have_layout = true;
    }
    std::lock_guard<std::mutex> l(mu_);
    pending_[ci.job_id] = std::move(p);
  }

  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override {
    Pending p;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = pending_.find(ci.job_id);
      if (it == pending_.end()) return;
      p = std::move(it->second);
      pending_.erase(it);
    }
    if (!ci.status.ok()) {
      metrics_.AddFailed();
      return;
    }
    JobRecord r;
    r.job_id = static_cast<uint64_t>(ci.job_id);
    r.input_level = ci.base_input_level;
    r.output_level = ci.output_level;
    r.input_files = ci.input_file_infos.size();
    r.bytes_read = ci.stats.total_input_bytes;
    r.bytes_written = ci.stats.total_output_bytes;
    r.time_us = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - p.start).count());
    r.picked_by = "native";
    // A trivial move's outputs are its inputs, renumbered by nothing.
    std::set<uint64_t> inputs(p.inputs.begin(), p.inputs.end());
    r.trivial_move = !ci.output_file_infos.empty();
    for (const auto& f : ci.output_file_infos) r.trivial_move = r.trivial_move && inputs.count(f.file_number) > 0;
    // S_same and S_inval describe data a job reads and invalidates; a move
    // does neither, so it is counted but not scored.
    if (p.have_layout && !r.trivial_move) {
      std::vector<SstFileView> files;
      for (const auto& f : ci.input_file_infos) {
        SstFileView v;
        v.number = f.file_number;
        auto it = p.layout.sst_zones.find(f.file_number);
        if (it != p.layout.sst_zones.end()) {
          for (const auto& [zone, bytes] : it->second) v.size_bytes += bytes;
        }
        files.push_back(v);
      }
      std::vector<const SstFileView*> ptrs;
      for (const auto& f : files) ptrs.push_back(&f);
      r.s_same = SameZoneScore(ptrs, p.layout);
      FsView after;
      if (layout_(&after).ok()) r.s_inval = InvalidScore(p.inputs, p.layout, p.before, after);
    }
    metrics_.AddJob(r);
  }

  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo&) override { metrics_.AddSubcompaction(); }

  Json Metrics() const { return metrics_.ToJson(); }

 private:
  struct Pending {
    std::chrono::steady_clock::time_point start;
    std::vector<uint64_t> inputs;
    FsView before;
    ZoneLayout layout;
    bool have_layout = false;
  };
  const std::function<Status(FsView*)> layout_;
  std::mutex mu_;
  std::map<int, Pending> pending_;  // GUARDED_BY(mu_); by RocksDB job id
  CompactionMetrics metrics_;
};

NativeCompactionObserver::NativeCompactionObserver(std::function<Status(FsView*)> layout)
    : listener_(std::make_shared<Listener>(std::move(layout))) {}

NativeCompactionObserver::~NativeCompactionObserver() = default;

std::shared_ptr<rocksdb::EventListener> NativeCompactionObserver::listener() const { return listener_; }

Json NativeCompactionObserver::Metrics() const {
  Json j = Json::Object();
  j.Set("picker", "native").Set("metrics", listener_->Metrics());
  return j;
}

}  // namespace zonekv
