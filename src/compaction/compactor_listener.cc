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

void Compactor::ListenerSlot::OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->NativeBegin(db, info);
}

void Compactor::ListenerSlot::OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) {
  // Only compactions RocksDB itself schedules (hybrid mode's native jobs,
  // CompactRange, ingestion) land here: RocksDB 7.8 does not notify
  // listeners of CompactFiles jobs, so the compactor wakes itself after each
  // of its own jobs. A failed compaction changed nothing; waking on it could
  // spin on a DB that fails every job.
  MutexLock l(&mu_);
  if (target_ == nullptr) return;
  target_->NativeCompleted(info);
  if (info.status.ok()) target_->Wake();
}

void Compactor::ListenerSlot::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->FileDeleted(info.file_path);
}

void Compactor::ListenerSlot::OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& info) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->SubcompactionBegin(info);
}

void Compactor::ListenerSlot::OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& info) {
  MutexLock l(&mu_);
  if (target_ != nullptr) target_->SubcompactionCompleted(info);
}

}  // namespace zonekv
