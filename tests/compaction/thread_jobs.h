// A listener that checks the zone allocator's hint contract: every SST a
// compaction creates is created on a thread that is inside a job's hint
// (between on_job_start and on_job_end on that thread).
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include <rocksdb/listener.h>

namespace zonekv {

// Which compactor job, if any, the calling thread is running
// (on_job_start .. on_job_end), and what RocksDB reported on other threads.
class ThreadJobs : public rocksdb::EventListener {
 public:
  void Begin(uint64_t job) {
    std::lock_guard<std::mutex> l(mu_);
    jobs_[std::this_thread::get_id()] = job;
  }
  void End() {
    std::lock_guard<std::mutex> l(mu_);
    jobs_.erase(std::this_thread::get_id());
  }
  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override {
    if (info.reason != rocksdb::TableFileCreationReason::kCompaction) return;
    std::lock_guard<std::mutex> l(mu_);
    ++(jobs_.count(std::this_thread::get_id()) > 0 ? attributed : unattributed);
  }
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override { ++compaction_begin; }

  std::atomic<int> attributed{0}, unattributed{0}, compaction_begin{0};

 private:
  std::mutex mu_;
  std::map<std::thread::id, uint64_t> jobs_;
};

}  // namespace zonekv
