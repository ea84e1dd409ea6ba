// NativeCompactionObserver: the compactor's per-job metrics for compactions
// RocksDB picks and runs itself (the native baseline), from its
// EventListener callbacks and the file system's zone layout
// (native_jobs.h), and the zone allocator's hint for each job.
#include <rocksdb/listener.h>

#include "native_jobs.h"
#include "zonekv/compactor.h"

namespace zonekv {

class NativeCompactionObserver::Listener : public rocksdb::EventListener {
 public:
  Listener(std::function<Status(FsView*)> layout, std::function<void(const CompactionJobHint&)> on_job_start,
           std::function<void(uint64_t, const Status&)> on_job_end, InvalScorer::LayoutOfFn layout_of)
      : scorer_(std::move(layout), std::move(layout_of), &metrics_),
        recorder_(&metrics_, &scorer_, std::move(on_job_start), std::move(on_job_end)) {}

  const char* Name() const override { return "zonekv.NativeCompactionObserver"; }

  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) override { recorder_.Begin(db, ci); }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override { recorder_.Completed(ci); }
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override { scorer_.FileDeleted(info.file_path); }
  void OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& si) override { recorder_.SubBegin(si); }
  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& si) override {
    metrics_.AddSubcompaction();
    recorder_.SubCompleted(si);
  }

  CompactionStats Stats() {
    scorer_.Flush();
    return metrics_.Stats();
  }

 private:
  CompactionMetrics metrics_;
  InvalScorer scorer_;           // after metrics_
  NativeJobRecorder recorder_;   // after scorer_
};

NativeCompactionObserver::NativeCompactionObserver(std::function<Status(FsView*)> layout,
                                                   std::function<void(const CompactionJobHint&)> on_job_start,
                                                   std::function<void(uint64_t, const Status&)> on_job_end,
                                                   std::function<Status(const std::vector<uint64_t>&, FsView*)> layout_of)
    : listener_(std::make_shared<Listener>(std::move(layout), std::move(on_job_start), std::move(on_job_end),
                                           std::move(layout_of))) {}

NativeCompactionObserver::~NativeCompactionObserver() = default;

std::shared_ptr<rocksdb::EventListener> NativeCompactionObserver::listener() const { return listener_; }

CompactorStats NativeCompactionObserver::Stats() const {
  CompactorStats st;
  st.picker = "native";
  st.metrics = listener_->Stats();
  return st;
}

}  // namespace zonekv
