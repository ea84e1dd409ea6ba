// The EventListener that wakes a compactor. It is created before DB::Open
// (RocksDB takes listeners only through Options) and bound to the compactor
// once it starts; events before binding or after unbinding are dropped.
#pragma once

#include <condition_variable>
#include <memory>
#include <string>

#include <rocksdb/listener.h>

#include "grandparent_cutter.h"
#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace zonekv {

// What the listener tells the compactor. Called on RocksDB threads that hold
// no DB mutex; implementations take only their own locks.
class CompactorEvents {
 public:
  virtual ~CompactorEvents() = default;
  virtual void Wake() = 0;                 // the LSM changed: pick again
  // A subcompaction starts on the calling thread (of an external or a
  // native job); counted, and a native job's hint follows it.
  virtual void SubcompactionBegin(const rocksdb::SubcompactionJobInfo& info) = 0;
  virtual void FileDeleted(const std::string& path) = 0;  // an SST or other table file
  // A compaction RocksDB picked itself (hybrid mode, CompactRange), on the
  // thread that runs it.
  virtual void NativeBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) = 0;
  virtual void NativeCompleted(const rocksdb::CompactionJobInfo& info) = 0;
  virtual void SubcompactionCompleted(const rocksdb::SubcompactionJobInfo& info) = 0;
};

class Compactor::ListenerSlot : public rocksdb::EventListener {
 public:
  // `cutter`: the SstPartitionerFactory PrepareOptions installed beside the
  // listener, for the compactor to register its jobs with.
  explicit ListenerSlot(std::shared_ptr<GrandparentCutter> cutter) : cutter_(std::move(cutter)) {}
  const char* Name() const override { return "zonekv.Compactor"; }
  GrandparentCutter* cutter() const { return cutter_.get(); }
  // target may be null (unbind). Waits for callbacks in flight to finish.
  void Bind(CompactorEvents* target) ZONEKV_EXCLUDES(mu_);

  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  void OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& info) override;
  void OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& info) override;
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override;

 private:
  // Runs f(target) if bound, without mu_: callbacks on RocksDB's threads run
  // concurrently (a native job's begin reads the DB's and the file system's
  // metadata; a flush's wake-up must not queue behind it). Bind waits for
  // the calls in flight.
  template <typename F>
  void Call(F&& f) ZONEKV_EXCLUDES(mu_) {
    CompactorEvents* target = nullptr;
    {
      MutexLock l(&mu_);
      if (target_ == nullptr) return;
      target = target_;
      ++in_flight_;
    }
    f(target);
    MutexLock l(&mu_);
    if (--in_flight_ == 0) idle_.notify_all();
  }

  const std::shared_ptr<GrandparentCutter> cutter_;
  Mutex mu_;
  std::condition_variable_any idle_;
  CompactorEvents* target_ ZONEKV_GUARDED_BY(mu_) = nullptr;
  int in_flight_ ZONEKV_GUARDED_BY(mu_) = 0;  // calls into target_ running
};

}  // namespace zonekv
