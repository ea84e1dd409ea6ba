#include "compactor_listener.h"
#include "zonekv/mutex.h"

namespace zonekv {

void Compactor::ListenerSlot::Bind(CompactorEvents* target) {
  MutexLock l(&mu_);
  target_ = target;
}

void Compactor::ListenerSlot::OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->Wake();
}

void Compactor::ListenerSlot::OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) {
  // Only compactions RocksDB itself schedules (CompactRange, ingestion) land
  // here: RocksDB 7.8 does not notify listeners of CompactFiles jobs, so the
  // compactor wakes itself after each of its own jobs. A failed compaction
  // changed nothing; waking on it could spin on a DB that fails every job.
  if (!info.status.ok()) return;
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->Wake();
}

void Compactor::ListenerSlot::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->FileDeleted(info.file_path);
}

void Compactor::ListenerSlot::OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo&) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->CountSubcompaction();
}

}  // namespace zonekv
